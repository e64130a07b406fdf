"""``benchchecker overlap`` end to end on a real MMLU slice with a planted corpus."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.overlap import RULE_TEXT, RULES, metric_names
from tests.helpers.docs import docs_text
from tests.helpers.shared_data import SHARED_DATA

MMLU = SHARED_DATA / "mmlu" / "test"
TQA = SHARED_DATA / "truthfulqa" / "TruthfulQA.csv"
ROOT = Path(__file__).resolve().parents[2]


def test_rule_wording_is_in_one_place_and_quoted_everywhere() -> None:
    assert RULES == metric_names()
    r = CliRunner().invoke(main, ["overlap", "--help"])
    assert r.exit_code == 0 and "%%" not in r.output and ">= 0.75 with its gold answer" in " ".join(r.output.split())
    readme = docs_text()
    docs = ROOT / "docs"
    text = readme + "".join(p.read_text(encoding="utf-8") for p in docs.rglob("*.md")) if docs.is_dir() else readme
    for rule, words in RULE_TEXT.items():
        assert f"| `{rule}` | {words} |" in text, rule


@pytest.fixture
def slice_(tmp_path: Path) -> tuple[Path, Path, str]:
    if not (MMLU / "astronomy_test.csv").is_file():
        pytest.skip("../shared/data/mmlu not present")
    data = tmp_path / "mmlu" / "test"
    data.mkdir(parents=True)
    shutil.copy(MMLU / "astronomy_test.csv", data)
    shutil.copy(MMLU / "moral_scenarios_test.csv", data)
    rows = list(csv.reader((data / "astronomy_test.csv").open(encoding="utf-8")))
    q = rows[11]   # the file has a header row: item 10
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    clean = Path(csv.__file__).read_text(encoding="utf-8")   # real text, unrelated
    page = {"question": q[0], "choices": q[1:5], "answer": int(q[5])}   # options between Q and A
    (corpus / "c.jsonl").write_text(
        json.dumps({"id": "page-1", "text": "A dump.\n" + json.dumps(page) + "\nMore text."}) + "\n"
        + json.dumps({"id": "csv.py", "text": clean}) + "\n", encoding="utf-8")
    return tmp_path / "mmlu", corpus, "astronomy/10"


def test_planted_item_flagged_clean_not(slice_: tuple[Path, Path, str], tmp_path: Path) -> None:
    data, corpus, planted = slice_
    out = tmp_path / "flags.jsonl"
    r = CliRunner().invoke(main, ["overlap", "--benchmark", "mmlu", "--data", str(data),
                                  "--corpus", str(corpus), "-o", str(out)])
    assert r.exit_code == 0, r.output
    flags = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(flags) == 152 + 895 and all(f["method"] == "benchchecker.overlap" for f in flags)
    hit = [f for f in flags if f["contaminated"]]
    assert [f["instance_id"] for f in hit] == [planted]
    assert hit[0]["evidence"]["kind"] == "question+options"
    raw = json.loads((corpus / "c.jsonl").read_text().splitlines()[0])["text"]
    for match in hit[0]["evidence"]["matches"]:
        assert match["doc"] == "page-1" and match["corpus"].endswith("c.jsonl")
        assert match["text"] == raw[match["start"]:match["end"]]
    assert all(f["contaminated"] is not True for f in flags if f["instance_id"] != planted)
    moral = next(f for f in flags if f["instance_id"] == "moral_scenarios/0")
    assert moral["evidence"]["masked_ngrams"]["13"] > 0   # the shared prompt prefix is a template
    assert "mmlu [parts]: 1 contaminated (1 question+options)" in r.output


def test_failed_shard_is_reported_and_not_clean(slice_: tuple[Path, Path, str], tmp_path: Path) -> None:
    data, corpus, planted = slice_
    (corpus / "bad.jsonl").write_text('{"body": "x"}\n', encoding="utf-8")
    out = tmp_path / "flags.jsonl"
    r = CliRunner().invoke(main, ["overlap", "--benchmark", "mmlu", "--data", str(data),
                                  "--corpus", str(corpus), "-o", str(out)])
    assert r.exit_code == 2
    assert "bad.jsonl: line 1: no field 'text' (fields: body); pass --text-field" in r.output
    assert "1 of 2 corpus shard(s) failed" in r.output
    flags = [json.loads(line) for line in out.read_text().splitlines()]
    assert {f["contaminated"] for f in flags if f["instance_id"] != planted} == {None}
    assert next(f for f in flags if f["instance_id"] == planted)["contaminated"] is True


def test_several_benchmarks_one_scan(slice_: tuple[Path, Path, str], tmp_path: Path) -> None:
    if not TQA.is_file():
        pytest.skip("../shared/data/truthfulqa not present")
    data, corpus, planted = slice_
    rows = list(csv.reader(TQA.open(encoding="utf-8")))
    with (corpus / "c.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"id": "faq", "text": f"FAQ: {rows[1][2]} {rows[1][3]}"}) + "\n")
    out = tmp_path / "both.jsonl"
    for spelling in (["--benchmark", "mmlu,truthfulqa"], ["--benchmark", "mmlu", "--benchmark", "truthfulqa"]):
        r = CliRunner().invoke(main, ["overlap", *spelling, "--data", f"mmlu={data}", "--data",
                                      f"truthfulqa={TQA}", "--corpus", str(corpus), "-o", str(out)])
        assert r.exit_code == 0, r.output
        flags = [json.loads(line) for line in out.read_text().splitlines()]
        assert {f["benchmark"] for f in flags} == {"mmlu", "truthfulqa"} and len(flags) == 152 + 895 + 817
        assert sorted(f["instance_id"] for f in flags if f["contaminated"]) == ["0", planted]
        assert "scanned 3 documents" in r.output and "one scan for 2 benchmark(s)" in r.output
    r = CliRunner().invoke(main, ["overlap", "--benchmark", "mmlu,truthfulqa", "--data", str(data),
                                  "--corpus", str(corpus), "-o", str(out)])
    assert r.exit_code == 2 and "name the benchmark" in r.output


def test_empty_benchmark_is_one_line(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    items.write_text("", encoding="utf-8")
    (tmp_path / "c.jsonl").write_text('{"text": "x"}\n', encoding="utf-8")
    r = CliRunner().invoke(main, ["overlap", "--benchmark", "mine", "--data", str(items),
                                  "--corpus", str(tmp_path / "c.jsonl"), "-o", str(tmp_path / "f")])
    assert r.exit_code == 2 and f"benchmark mine ({items}): no items" in r.output


@pytest.mark.slow
def test_index_engine_builds_then_reuses_and_equals_scan(slice_: tuple[Path, Path, str], tmp_path: Path) -> None:
    data, corpus, planted = slice_
    base = ["overlap", "--benchmark", "mmlu", "--data", str(data), "--corpus", str(corpus)]
    r = CliRunner().invoke(main, [*base, "-o", str(tmp_path / "scan.jsonl")])
    assert r.exit_code == 0, r.output
    index = ["--engine", "index", "--index", str(tmp_path / "ix")]
    for run in ("built", "reused"):
        r = CliRunner().invoke(main, [*base, *index, "-o", str(tmp_path / f"{run}.jsonl")])
        assert r.exit_code == 0, r.output
        assert ("indexed 2 documents" in r.output) == (run == "built")

    def strip(name: str) -> list[dict]:
        rows = [json.loads(line) for line in (tmp_path / name).read_text().splitlines()]
        for f in rows:
            f.pop("created_at")
            f["evidence"]["metrics"].pop("retrieval", None)
            f["evidence"]["corpus"].pop("documents")
        return rows

    assert strip("built.jsonl") == strip("reused.jsonl") == strip("scan.jsonl")
    r = CliRunner().invoke(main, [*base, *index, "--rule", "retrieval", "--top-k", "1",
                                  "-o", str(tmp_path / "deng.jsonl")])
    assert r.exit_code == 0, r.output
    hit = [f for f in map(json.loads, (tmp_path / "deng.jsonl").read_text().splitlines()) if f["contaminated"]]
    assert [f["instance_id"] for f in hit] == [planted]
    assert hit[0]["evidence"]["metrics"]["retrieval"]["doc"] == "page-1"


def test_index_engine_bad_input_is_one_line(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    items.write_text('{"id": "q1", "text": "what is the mass of the sun"}\n', encoding="utf-8")
    corpus, other = tmp_path / "c.jsonl", tmp_path / "other.jsonl"
    corpus.write_text('{"text": "the mass of the sun is large"}\n', encoding="utf-8")
    other.write_text('{"text": "x"}\n', encoding="utf-8")

    def run(*args: str) -> tuple[int, str]:
        r = CliRunner().invoke(main, ["overlap", "--benchmark", "mine", "--data", str(items),
                                      "-o", str(tmp_path / "f.jsonl"), *args])
        return r.exit_code, r.output

    assert run("--corpus", str(corpus), "--engine", "index") == (
        2, "Error: --engine index needs --index DIR (the index is built there if new or empty)\n")
    code, out = run("--corpus", str(corpus), "--rule", "retrieval")
    assert code == 2 and "--rule retrieval needs --engine index" in out
    assert run("--corpus", str(other), "--engine", "index", "--index", str(tmp_path / "ix"))[0] == 0
    code, out = run("--corpus", str(corpus), "--engine", "index", "--index", str(tmp_path / "ix"))
    assert code == 2 and "ix: built from another corpus: this --corpus gives" in out
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "notes.txt").write_text("mine", encoding="utf-8")
    code, out = run("--corpus", str(corpus), "--engine", "index", "--index", str(tmp_path / "junk"))
    assert code == 2 and "junk: a folder that is not empty and holds no index" in out
