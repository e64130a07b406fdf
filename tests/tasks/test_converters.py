"""``flags from-lm-eval`` / ``from-inspect`` input errors (the happy paths run in the harness tests)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.flags import read_flags
from benchchecker_plugin.tsguessing import BenchmarkItem, prepare_probes

ITEM = BenchmarkItem("mmlu", "anatomy/0", "Where is the facial nerve compressed?",
                     ("the stylomastoid foramen", "the internal acoustic meatus", "a jugular notch",
                      "the cribriform plate"), 0, {"subject": "anatomy"})


def _sample(response: str) -> dict:
    probe = prepare_probes([ITEM], "multichoice").probes[0]
    doc = {"instance_id": probe.instance_id, "prompt": probe.prompt, "target": probe.target,
           "probe_json": json.dumps(probe.to_dict())}
    return {"doc_id": 0, "doc": doc, "target": probe.target, "resps": [[response]],
            "filtered_resps": [response]}


def test_from_lm_eval_takes_model_from_results_file(tmp_path: Path) -> None:
    probe = prepare_probes([ITEM], "multichoice").probes[0]
    samples = tmp_path / "samples_ts_guessing_mmlu_multichoice_x.jsonl"
    samples.write_text(json.dumps(_sample(" " + probe.target)) + "\n")
    runner = CliRunner()
    res = runner.invoke(main, ["flags", "from-lm-eval", str(samples), "-o", str(tmp_path / "f.jsonl")])
    assert res.exit_code == 2 and "no results_*.json beside it names the model; pass --model" in res.output
    (tmp_path / "results_2026.json").write_text(json.dumps({"model_name": "my/model"}))
    res = runner.invoke(main, ["flags", "from-lm-eval", str(samples), "-o", str(tmp_path / "f.jsonl")])
    assert res.exit_code == 0, res.output
    (flag,) = read_flags(tmp_path / "f.jsonl")
    assert (flag.model, flag.contaminated, flag.score) == ("my/model", True, 1.0)
    assert flag.instance_id == "anatomy/0"


def test_from_lm_eval_rejects_other_tasks_samples(tmp_path: Path) -> None:
    samples = tmp_path / "samples_mmlu.jsonl"
    samples.write_text(json.dumps({"doc": {"question": "q"}, "resps": [["A"]]}) + "\n")
    res = CliRunner().invoke(main, ["flags", "from-lm-eval", str(samples), "--model", "m", "-o",
                                    str(tmp_path / "f.jsonl")])
    assert res.exit_code == 2
    assert f"{samples}:1: not a TS-Guessing sample (missing 'probe_json')" in res.output


def test_from_inspect_rejects_a_non_log(tmp_path: Path) -> None:
    bad = tmp_path / "x.eval"
    bad.write_text("not a zip")
    res = CliRunner().invoke(main, ["flags", "from-inspect", str(bad), "-o", str(tmp_path / "f.jsonl")])
    assert res.exit_code == 2 and "cannot read Inspect log" in res.output
