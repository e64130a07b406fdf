"""The index engine against the scan on a small real-text corpus with planted MMLU items, and the
index's manifest checks (stale or mismatched index: one line)."""

from __future__ import annotations

import ast
import json
import sysconfig
from pathlib import Path

import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.overlap import (
    DEFAULT_METRICS,
    CorpusIndex,
    OverlapItem,
    Retrieval,
    build_index,
    build_table,
    index_results,
    item_results,
    load_overlap_items,
    overlap_flags,
    query_terms,
    scan_corpus,
    shards_of,
)
from tests.helpers.shared_data import SHARED_DATA

STDLIB = Path(sysconfig.get_paths()["stdlib"])


def docstrings(limit: int) -> list[str]:
    """Real text: docstrings of standard-library modules, classes and functions (>= 20 words)."""
    out: list[str] = []
    for name in ("json/__init__.py", "csv.py", "argparse.py", "textwrap.py", "fractions.py",
                 "statistics.py", "calendar.py", "difflib.py", "heapq.py", "bisect.py"):
        tree = ast.parse((STDLIB / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef):
                doc = ast.get_docstring(node)
                if doc and len(doc.split()) >= 20:
                    out.append(doc)
    return out[:limit]


def perturb(text: str) -> str:
    """Every seventh word dropped: the wording of a page that quotes the item loosely."""
    return " ".join(w for i, w in enumerate(text.split()) if i % 7 != 6)


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> tuple[list, Path, dict[str, int]]:
    data = SHARED_DATA / "mmlu"
    if not (data / "test" / "astronomy_test.csv").is_file():
        pytest.skip(f"shared data not present: {data}")
    root = tmp_path_factory.mktemp("index")
    (root / "mmlu" / "test").mkdir(parents=True)
    for subject in ("astronomy", "anatomy", "abstract_algebra"):
        name = f"{subject}_test.csv"
        (root / "mmlu" / "test" / name).write_bytes((data / "test" / name).read_bytes())
    items = load_overlap_items("mmlu", root / "mmlu")
    docs = [{"id": f"std-{i}", "text": t} for i, t in enumerate(docstrings(400))]
    want: dict[str, int] = {}
    for j, item in enumerate(items[::12]):   # every 12th item planted, in three forms
        form = j % 3
        text = item.text if form == 0 else perturb(item.text) if form == 1 else item.text.split("\n")[0]
        docs.insert(7 * j % len(docs), {"id": f"page-{j}", "text": f"Quiz of the day.\n{text}\nSee also."})
        want[item.instance_id] = form
    corpus = root / "corpus"
    corpus.mkdir()
    half = len(docs) // 2
    for name, part in (("a.jsonl", docs[:half]), ("b.jsonl", docs[half:])):
        (corpus / name).write_text("".join(json.dumps(d) + "\n" for d in part), encoding="utf-8")
    return items, corpus, want


def test_index_and_scan_give_identical_flags(planted: tuple[list, Path, dict[str, int]], tmp_path: Path) -> None:
    items, corpus, want = planted
    shards = shards_of(str(corpus))
    scan_table = build_table(items, DEFAULT_METRICS)
    scan_stats = scan_corpus(scan_table, shards)
    scan = overlap_flags(item_results(scan_table, DEFAULT_METRICS), scan_stats)

    manifest = build_index(shards, tmp_path / "ix")
    assert manifest.documents == scan_stats.documents and manifest.chars == scan_stats.bytes
    index = CorpusIndex.open(tmp_path / "ix", shards)
    results, stats = index_results(index, build_table(items, DEFAULT_METRICS), DEFAULT_METRICS, k=10)
    flags = overlap_flags(results, stats)
    strip = [{k: v for k, v in f.to_dict().items() if k != "created_at"} for f in scan]
    assert [{k: v for k, v in f.to_dict().items() if k != "created_at"} for f in flags] == strip
    hit = {f.instance_id for f in scan if f.contaminated}
    assert hit and hit <= set(want) and len(hit) >= len(want) // 2   # the rule catches most plants


def test_retrieval_score_finds_each_plant_at_rank_one(planted: tuple[list, Path, dict[str, int]],
                                                      tmp_path: Path) -> None:
    items, corpus, want = planted
    shards = shards_of(str(corpus))
    build_index(shards, tmp_path / "ix")
    index = CorpusIndex.open(tmp_path / "ix", shards)
    results, _ = index_results(index, build_table(items, DEFAULT_METRICS), (*DEFAULT_METRICS, Retrieval()),
                               k=5)
    got = {r.instance_id: r.measures["retrieval"] for r in results}
    flagged = {i for i, m in got.items() if m.contaminated}
    copies = {i for i, form in want.items() if form < 2}   # verbatim and perturbed pages
    assert copies <= flagged
    for i in copies:
        assert got[i].values["rank"] == 1 and got[i].values["doc"].startswith("page-")
    # question-only pages of items with long answers can fall short of 0.8; the other items flagged
    # are near-duplicates of a planted item inside the benchmark itself (astronomy's "The terrestrial
    # planet cores contain mostly metal because ...", abstract algebra's "Find the degree for the
    # given field extension ...", in fewer items than the template mask needs)
    text = {i.instance_id: i.text for i in items}
    for i in flagged - set(want):
        sibling = items[::12][int(got[i].values["doc"].split("-")[1])].text
        assert Retrieval().measure_retrieved(text[i], [sibling]).contaminated


def test_manifest_mismatch_is_one_line(tmp_path: Path) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"id": "a", "text": "one two three"}\n', encoding="utf-8")
    build_index(shards_of(str(corpus)), tmp_path / "ix")
    corpus.write_text('{"id": "a", "text": "one two three four"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"ix: built from another corpus: this --corpus gives .*c\.jsonl "
                                         r"\(42 bytes\) where it had .*c\.jsonl \(37 bytes\); rebuild it into a new folder"):
        CorpusIndex.open(tmp_path / "ix", shards_of(str(corpus)))
    with pytest.raises(InputError, match="built with --text-field text --id-field id, not body / id"):
        CorpusIndex.open(tmp_path / "ix", shards_of(str(corpus)), text_field="body")
    with pytest.raises(InputError, match=r"--index .*nowhere: no such folder"):
        CorpusIndex.open(tmp_path / "nowhere")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "x").write_text("x")
    with pytest.raises(InputError, match="no benchchecker-index.json \\(not an index, or its build did "
                                         "not finish\\)"):
        CorpusIndex.open(tmp_path / "junk")
    with pytest.raises(InputError, match="a folder that is not empty and holds no index"):
        build_index(shards_of(str(corpus)), tmp_path / "junk")


def test_query_terms_drop_lucene_stop_words() -> None:
    assert query_terms("What is the mass of the Sun?") == ["what", "mass", "sun"]
    assert query_terms("to be or not to be") == ["to", "be", "or", "not"]   # nothing else: all kept




def test_documents_tied_at_the_kth_score_come_in_corpus_order(tmp_path: Path) -> None:
    """Tantivy breaks score ties by its own document address (segment layout, indexing threads);
    the index answers in corpus order instead: three identical documents written to the index
    in the order ord 2, 0, 1 come back as 0, 1 (top 2), and as 0, 1, 2 (top 5)."""
    import tantivy

    from benchchecker_plugin.overlap._index import IndexManifest, _schema

    index = tantivy.Index(_schema(), path=str(tmp_path))
    writer = index.writer(heap_size=16 << 20, num_threads=1)
    for o in (2, 0, 1):
        writer.add_document(tantivy.Document(text="orbital resonance of moons", id=f"d{o}", ord=o, shard=0))
    writer.add_document(tantivy.Document(text="unrelated words entirely", id="d3", ord=3, shard=0))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    ix = CorpusIndex(tmp_path, IndexManifest((), "text", "id", 4, 0), index, ["c.jsonl"])
    item = [OverlapItem("b", "x", "orbital resonance of moons")]
    assert [h.doc for h in ix.search(item, 2)[0]] == ["d0", "d1"]
    assert [h.doc for h in ix.search(item, 5)[0]] == ["d0", "d1", "d2"]
