"""``check --corpus``: the checked items are looked for in the corpus; the overlap flags, the
summary and the page name benchchecker.overlap with its counts and rule; without a corpus none of
it appears (the outputs were also diffed byte for byte against the check before --corpus)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from benchchecker_plugin.cli import main
from benchchecker_plugin.flags import read_flags
from benchchecker_plugin.tsguessing import load_items
from tests.helpers import SHARED_DATA, ScriptedModel, needs_shared_data


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *extra: str) -> tuple[Result, Path]:
    from benchchecker_plugin.cli._options import ModelOptions

    # the model is not under test: a scripted one answers instead of loading weights
    monkeypatch.setattr(ModelOptions, "build", lambda self, **kw: ScriptedModel(lambda p, params: "x"))
    out = tmp_path / ("with" if extra else "without")
    res = CliRunner().invoke(main, ["check", "--model", "hf/scripted", "--cutoff", "2024-06",
                                    "--benchmarks", "mmlu", "--data", f"mmlu={SHARED_DATA / 'mmlu'}",
                                    "--limit", "6", "-o", str(out), *extra])
    assert res.exit_code == 0, res.output
    return res, out


@pytest.mark.slow   # two check runs and the numba scan (~6 s)
@needs_shared_data("mmlu")
def test_corpus_adds_overlap_flags_summary_and_page(tmp_path: Path, monkeypatch) -> None:
    res, plain = _run(tmp_path, monkeypatch)
    ids = [f.instance_id for f in read_flags(plain / "flags.jsonl")]
    assert not (plain / "flags" / "overlap.jsonl").exists()
    assert "overlap" not in json.loads((plain / "summary.json").read_text())
    assert "overlap" not in (plain / "summary.md").read_text().lower()
    assert "Corpus overlap" not in (plain / "index.html").read_text()

    items = {i.instance_id: i for i in load_items("mmlu", SHARED_DATA / "mmlu")}
    planted = items[ids[0]]
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "page", "text": f"Quiz.\n{planted.question}\n"
                                                        f"{planted.options[planted.answer]}\n"}) + "\n",
                      encoding="utf-8")
    res, out = _run(tmp_path, monkeypatch, "--corpus", str(corpus))
    flags = read_flags(out / "flags" / "overlap.jsonl")
    assert len(flags) == 6 and {f.method for f in flags} == {"benchchecker.overlap"}
    assert {f.instance_id for f in flags if f.contaminated} == {planted.instance_id}
    assert {f.contaminated for f in flags if f.instance_id != planted.instance_id} == {False}
    assert all(f.model == "hf/scripted" for f in flags)   # merges with the model's TS-Guessing flags
    merged = {f.instance_id: f for f in read_flags(out / "flags.jsonl")}
    assert merged[planted.instance_id].contaminated is True
    assert "benchchecker.overlap" in merged[planted.instance_id].evidence["methods"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["overlap"]["rule"] == "parts" and summary["overlap"]["benchmarks"]["mmlu"][
        "contaminated"] == 1
    [row] = [m for m in summary["methods"] if m["method"] == "benchchecker.overlap"]
    assert row["rule"] == "parts" and row["flagged"] == 1
    md = (out / "summary.md").read_text()
    assert "## Corpus overlap (benchchecker.overlap)" in md and "| mmlu | 6 | 1 | 5 | 0 |" in md
    html = (out / "index.html").read_text()
    assert "Corpus overlap (benchchecker.overlap)" in html and 'id="overlap"' in html
    assert "corpus overlap (parts): 1 contaminated, 5 clean, 0 undecided" in res.output
