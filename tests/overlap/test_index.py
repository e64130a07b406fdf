"""The index engine against the scan on a small real-text corpus with planted MMLU items, passages
(a dump ranks by the passage holding the item; hits carry no text), and the index's manifest
checks (stale, edited or mismatched index: one line)."""

from __future__ import annotations

import ast
import json
import sysconfig
from pathlib import Path

import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.overlap import (
    OverlapCorpus,
    OverlapItem,
    OverlapRun,
    load_overlap_items,
    run_overlap,
    shards_of,
    token_hash,
)
from benchchecker_plugin.overlap._index import CorpusIndex, Hit, build_index, passages, query_hashes
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


def _flags(audit) -> list[dict]:  # noqa: ANN001
    out = []
    for f in audit.flags:
        d = f.to_dict()
        d.pop("created_at")
        d["evidence"]["metrics"].pop("retrieval", None)
        d["evidence"]["corpus"].pop("documents")
        out.append(d)
    return out


def test_index_and_scan_give_identical_flags(planted: tuple[list, Path, dict[str, int]], tmp_path: Path) -> None:
    items, corpus, want = planted
    c = OverlapCorpus((str(corpus),))
    scan = run_overlap(items, c)
    index = run_overlap(items, c, OverlapRun(engine="index", index_dir=tmp_path / "ix"))
    manifest = CorpusIndex.open(tmp_path / "ix", shards_of(str(corpus))).manifest
    assert manifest.documents == scan.documents and manifest.chars == scan.bytes
    assert _flags(index) == _flags(scan)
    hit = {f.instance_id for f in scan.flags if f.contaminated}
    verbatim = {i for i, form in want.items() if form == 0}
    loose = {i for i, form in want.items() if form == 1}   # every seventh word dropped
    assert verbatim <= hit and len(loose & hit) >= 0.75 * len(loose)


def test_retrieval_score_finds_each_plant_at_rank_one(planted: tuple[list, Path, dict[str, int]],
                                                      tmp_path: Path) -> None:
    items, corpus, want = planted
    audit = run_overlap(items, OverlapCorpus((str(corpus),)),
                        OverlapRun(rule="retrieval", engine="index", index_dir=tmp_path / "ix", top_k=5))
    got = {f.instance_id: f.evidence["metrics"]["retrieval"] for f in audit.flags}
    copies = {i for i, form in want.items() if form < 2}   # verbatim and perturbed pages
    for i in copies:
        assert got[i]["contaminated"] and got[i]["rank"] == 1 and got[i]["doc"].startswith("page-")
        assert got[i]["chunk"] and got[i]["chunk"] in next(
            json.loads(line)["text"] for f in corpus.iterdir() for line in f.read_text().splitlines()
            if json.loads(line)["id"] == got[i]["doc"])     # quoted as stored


def test_a_dump_ranks_by_the_passage_that_holds_the_item(tmp_path: Path) -> None:
    words = [f"w{k}" for k in range(5000)]
    dump = " ".join(words[:4000]) + " orbital resonance of the inner moons of jupiter " + " ".join(words[:6000])
    short = "orbital notes resonance"
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"id": "dump", "text": dump}) + "\n" + json.dumps({"id": "note", "text": short})
                      + "\n", encoding="utf-8")
    build_index(shards_of(str(corpus)), tmp_path / "ix")
    index = CorpusIndex.open(tmp_path / "ix", shards_of(str(corpus)))
    (top,) = index.search([OverlapItem("b", "x", "orbital resonance of the inner moons of jupiter")], 1)
    assert [h.doc for h in top] == ["dump"] and isinstance(top[0], Hit) and not hasattr(top[0], "text")
    text = index.text(top[0])
    assert "inner moons of jupiter" in text and dump[top[0].start:top[0].start + len(text)] == text
    pieces = passages(dump)
    assert len(pieces) > 3 and all(dump[a:a + len(p)] == p for a, p in pieces)
    assert all(b < a + len(p) for (a, p), (b, _) in zip(pieces, pieces[1:]))   # they overlap


def test_manifest_mismatch_is_one_line(tmp_path: Path) -> None:
    import os

    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"id": "a", "text": "one two three"}\n', encoding="utf-8")
    build_index(shards_of(str(corpus)), tmp_path / "ix")
    st = corpus.stat()
    corpus.write_text('{"id": "a", "text": "one two thrEE"}\n', encoding="utf-8")   # same size
    os.utime(corpus, ns=(st.st_atime_ns, st.st_mtime_ns))                               # and time
    with pytest.raises(InputError, match=r"ix: built from another corpus: this --corpus gives .*c\.jsonl "
                                         r"\(37 bytes, changed since\); rebuild it into a new folder"):
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


def test_query_drops_lucene_stop_words() -> None:
    assert query_hashes("What is the mass of the Sun?").tolist() == [token_hash(w) for w in ("what", "mass", "sun")]
    assert query_hashes("to be or not to be").tolist() == [token_hash(w) for w in ("to", "be", "or", "not")]


def test_passages_tied_at_the_kth_score_come_in_corpus_order(tmp_path: Path) -> None:
    """Tantivy breaks score ties by its own document address (segment layout, indexing threads);
    the index answers in corpus order instead: three identical passages written to the index
    in the order ord 2, 0, 1 come back as 0, 1 (top 2), and as 0, 1, 2 (top 5)."""
    import tantivy

    from benchchecker_plugin.overlap._index import IndexManifest, _schema, hex_terms
    from benchchecker_plugin.overlap._tokenize import tokenize_texts

    index = tantivy.Index(_schema(), path=str(tmp_path))
    writer = index.writer(heap_size=16 << 20, num_threads=1)
    for o, text in ((2, "orbital resonance of moons"), (0, "orbital resonance of moons"),
                    (1, "orbital resonance of moons"), (3, "unrelated words entirely")):
        writer.add_document(tantivy.Document(terms=hex_terms(tokenize_texts([text]).th), raw=text.encode(),
                                             id=f"d{o}", ord=o, shard=0, start=0, doc=o))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    ix = CorpusIndex(tmp_path, IndexManifest((), "text", "id", 4, 4, 0), index, ["c.jsonl"])
    item = [OverlapItem("b", "x", "orbital resonance of moons")]
    assert [h.doc for h in ix.search(item, 2)[0]] == ["d0", "d1"]
    assert [h.doc for h in ix.search(item, 5)[0]] == ["d0", "d1", "d2"]
