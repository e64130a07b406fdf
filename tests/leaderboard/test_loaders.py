"""Results loaders: real SWE-bench experiments / Multi-SWE-bench data, swebench's own run report,
per-instance logs, Multi-SWE-bench final reports, lm-eval samples, Inspect logs; pinned errors."""

from __future__ import annotations

import json

import pytest

from benchchecker_plugin.errors import DataError, InputError
from benchchecker_plugin.leaderboard import (
    detect_format,
    load_experiments,
    load_final_report,
    load_instance_logs,
    load_submissions,
    msb_instance_id,
)
from tests.helpers import SHARED_DATA, needs_shared_data

DATA = SHARED_DATA
needs_data = needs_shared_data("swebench_experiments")


@needs_data
def test_real_swebench_experiments():
    subs = load_submissions(DATA / "swebench_experiments")
    assert len(subs) == 82
    by = {s.name: s for s in subs}
    claude2 = by["20231010_rag_claude2"]
    assert (claude2.model, claude2.date, claude2.display_name) == ("claude-2", "2023-10-10",
                                                                   "RAG + Claude 2")
    index = (DATA / "swebench_experiments" / "index.csv").read_text().splitlines()[1:]
    for line in index:
        name, _, _, n_resolved = line.split(",")[:4]
        assert len(by[name].resolved) == int(n_resolved), name


@needs_data
def test_real_multi_swe_bench_java_experiments():
    subs = load_submissions(DATA / "multi_swe_bench" / "java_verified_experiments")
    assert {s.name: len(s.resolved) for s in subs}["20240825_SWE-agent_deepseek-chat-v2"] == 9
    gpt4o = [s for s in subs if "gpt-4o-2024" in s.name][0]
    assert len(gpt4o.submitted) == 85 and gpt4o.display_name == "SWE-agent + gpt-4o-2024-05-13"


def test_swebench_make_run_report_format(tmp_path, monkeypatch):
    """The run report is produced by swebench's own make_run_report, not a hand-written copy."""
    from swebench.harness.constants import RUN_EVALUATION_LOG_DIR
    from swebench.harness.reporting import make_run_report

    monkeypatch.chdir(tmp_path)
    dataset = [{"instance_id": f"x__y-{k}"} for k in range(5)]
    preds = {f"x__y-{k}": {"instance_id": f"x__y-{k}", "model_name_or_path": "org/model",
                           "model_patch": "" if k == 1 else "diff"} for k in range(4)}
    for k, resolved in [(0, True), (2, False)]:
        d = RUN_EVALUATION_LOG_DIR / "r1" / "org__model" / f"x__y-{k}"
        d.mkdir(parents=True)
        (d / "report.json").write_text(json.dumps({f"x__y-{k}": {"resolved": resolved}}))
    bad = RUN_EVALUATION_LOG_DIR / "r1" / "org__model" / "x__y-3"
    bad.mkdir(parents=True)
    (bad / "report.json").write_text("")
    report = make_run_report(preds, dataset, "r1", report_dir="out")

    [run] = load_submissions(report)
    assert (run.name, run.model, run.format) == ("org__model.r1", "org/model", "swebench-run-report")
    assert run.resolved == {"x__y-0"}
    assert run.submitted == {f"x__y-{k}" for k in range(4)}
    assert run.errors == ("x__y-3: evaluation error",)

    [logs] = load_submissions(RUN_EVALUATION_LOG_DIR)
    assert detect_format(RUN_EVALUATION_LOG_DIR) == "swebench-instance-logs"
    assert (logs.name, logs.resolved) == ("org__model.r1", {"x__y-0"})
    assert len(logs.errors) == 1 and logs.errors[0].startswith("x__y-3:")


def test_instance_logs_malformed_report_is_an_error_not_success(tmp_path):
    d = tmp_path / "run" / "m" / "a__b-1"
    d.mkdir(parents=True)
    (d / "report.json").write_text('{"a__b-1": {"resolved": tru')
    [run] = load_instance_logs(tmp_path)
    assert run.resolved == frozenset() and "malformed JSON" in run.errors[0]


def test_multi_swe_bench_final_report(tmp_path):
    assert msb_instance_id("fasterxml/jackson-core:pr-1142") == "fasterxml__jackson-core-1142"
    assert msb_instance_id("zeromicro__go-zero-2787") == "zeromicro__go-zero-2787"
    run = tmp_path / "run7"
    run.mkdir()
    fields = dict(total_instances=3, submitted_instances=3, completed_instances=2,
                  incomplete_instances=1, resolved_instances=1, unresolved_instances=1,
                  empty_patch_instances=0, error_instances=1,
                  submitted_ids=["o/r:pr-1", "o/r:pr-2", "o/r:pr-3"], completed_ids=["o/r:pr-1", "o/r:pr-2"],
                  incomplete_ids=["o/r:pr-3"], resolved_ids=["o/r:pr-1"], unresolved_ids=["o/r:pr-2"],
                  empty_patch_ids=[], error_ids=["o/r:pr-3"])
    (run / "final_report.json").write_text(json.dumps(fields))
    [sub] = load_submissions(tmp_path)
    assert (sub.name, sub.resolved, sub.format) == ("run7", {"o__r-1"}, "multi-swe-bench-final-report")
    assert sub.errors == ("o__r-3: evaluation error",)
    assert load_final_report(run / "final_report.json").submitted == {"o__r-1", "o__r-2", "o__r-3"}


def test_lm_eval_samples(tmp_path):
    out = tmp_path / "hf__model"
    out.mkdir()
    rows = [{"doc_id": 0, "doc": {"id": "q0"}, "filter": "none", "metrics": ["acc"], "acc": 1.0},
            {"doc_id": 1, "doc": {"id": "q1"}, "filter": "none", "metrics": ["acc"], "acc": 0.0},
            {"doc_id": 2, "doc": {"id": "q2"}, "filter": "none", "metrics": ["acc"], "acc": 1.0}]
    (out / "samples_mmlu_abstract_algebra_2025-01-02T10-00-00.123.jsonl").write_text(
        "\n".join(json.dumps(r) for r in rows) + "\n")
    [run] = load_submissions(out)
    assert run.name == "hf__model"
    assert run.resolved == {"mmlu_abstract_algebra/0", "mmlu_abstract_algebra/2"}
    from benchchecker_plugin.leaderboard import load_lm_eval_samples

    assert load_lm_eval_samples(out, id_field="id").resolved == {"q0", "q2"}


def test_inspect_log(tmp_path):
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSample, EvalSpec, write_eval_log
    from inspect_ai.scorer import Score

    spec = EvalSpec(created="2025-01-02T00:00:00+00:00", task="t", dataset=EvalDataset(),
                    model="hf/x", config=EvalConfig())
    samples = [EvalSample(id=i, epoch=1, input="q", target="a", scores={"s": Score(value=v)})
               for i, v in [("a", "C"), ("b", "I"), ("c", 1.0), ("d", "P")]]
    write_eval_log(EvalLog(eval=spec, samples=samples, status="success"), str(tmp_path / "x.eval"))
    [run] = load_submissions(tmp_path / "x.eval")
    assert (run.model, run.date, run.resolved) == ("hf/x", "2025-01-02", {"a", "c"})


def test_pinned_errors(tmp_path):
    sub = tmp_path / "s1" / "results"
    sub.mkdir(parents=True)
    (sub / "results.json").write_text('{"resolved": ["a", ')
    with pytest.raises(DataError, match=r"results\.json: malformed JSON \(Expecting value at line 1\)"):
        load_experiments(tmp_path)
    (sub / "results.json").write_text('{"resolved": ["a", "a"]}')
    with pytest.raises(DataError, match=r"field 'resolved' lists duplicate instance ids: a"):
        load_experiments(tmp_path)
    (sub / "results.json").write_text('{"resolvd": []}')
    with pytest.raises(DataError, match=r"no 'resolved' or 'resolved_ids' list"):
        load_experiments(tmp_path)
    with pytest.raises(InputError, match=r"no such results file or folder"):
        load_submissions(tmp_path / "missing")
    with pytest.raises(InputError, match=r"unknown results format 'xml'"):
        load_submissions(tmp_path, "xml")
