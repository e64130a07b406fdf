"""``benchchecker inspect eval`` and the Inspect hook: real ``inspect eval`` runs of a local task
(6 real MMLU rows) with a tiny local ``hf/`` model; ``read_eval_log`` shows flags and grouped
scores equal to ``benchchecker rescore``."""

from __future__ import annotations

import json
from importlib.metadata import entry_points
from pathlib import Path

import pytest

SUBJECT = "abstract_algebra"
FLAGGED = {f"{SUBJECT}/0": True, f"{SUBJECT}/1": False, f"{SUBJECT}/2": True,
           f"{SUBJECT}/3": False, f"{SUBJECT}/4": None}   # sample 5 unflagged

TASK_FILE = '''
import csv
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer
from inspect_ai.solver import TaskState, generate


@scorer(metrics=[accuracy()])
def even_length():
    """Correct when the model's answer has an even number of characters (varies per sample)."""
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=CORRECT if len(state.output.completion) % 2 == 0 else INCORRECT)
    return score


@task
def local_mmlu(data: str = "DATA"):
    with open(data, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    samples = [Sample(id=f"{r['subject']}/{i}", input=r["question"],
                      target=r["choice" + r["answer"]]) for i, r in enumerate(rows)]
    return Task(dataset=MemoryDataset(samples, name="local_mmlu"), solver=generate(),
                scorer=even_length(), metadata={"benchmark": "mmlu"})
'''


@pytest.fixture(scope="module")
def task_file(tmp_path_factory: pytest.TempPathFactory, mmlu_csv: Path) -> Path:
    path = tmp_path_factory.mktemp("inspect_task") / "local_mmlu.py"
    path.write_text(TASK_FILE.replace("DATA", str(mmlu_csv)))
    return path


@pytest.fixture
def eval_args(task_file: Path, tiny_lm: Path, tmp_path: Path) -> list[str]:
    return ["inspect", "eval", f"{task_file}@local_mmlu", "--model", f"hf/{tiny_lm}",
            "--max-tokens", "3", "--log-dir", str(tmp_path / "logs"), "--display", "none",
            "--no-fail-on-error"]


def _log(folder: Path):
    from inspect_ai.log import read_eval_log

    [path] = sorted(folder.glob("*.eval"))
    return path, read_eval_log(str(path))


def _rescore(cli, log_path: Path, flags: Path, ids: list[str], tmp_path: Path) -> dict:
    instances = tmp_path / "ids.json"
    instances.write_text(json.dumps(ids))
    result = cli("rescore", "--results", log_path, "--flags", flags, "--instances", instances,
                 "--benchmark", "mmlu", "--json")
    assert result.exit_code == 0, result.output
    [row] = json.loads(result.stdout)["rows"]
    return row


@pytest.mark.slow
@pytest.mark.model
@pytest.mark.parametrize("mode", ["both", "clean"])
def test_wrapped_eval_writes_flags_and_grouped_scores(mode: str, cli, eval_args, make_flags,
                                                      tmp_path: Path) -> None:
    flags = make_flags(tmp_path / "flags.jsonl", "mmlu", FLAGGED)
    result = cli(*eval_args, "--contamination-filter", flags, "--contamination-mode", mode)
    assert result.exit_code == 0, result.output
    log_path, log = _log(tmp_path / "logs")
    expected = [f"{SUBJECT}/{i}" for i in ([0, 1, 2, 3, 4, 5] if mode == "both" else [1, 3])]
    assert sorted(str(s.id) for s in log.samples) == expected        # --sample-id rewritten
    group = {True: "contaminated", False: "clean", None: "undecided"}
    for sample in log.samples:
        assert sample.metadata["benchchecker"] == {
            "instance_id": sample.id, "benchmark": "mmlu", "model": "*",
            "group": group[FLAGGED[sample.id]] if sample.id in FLAGGED else "unflagged"}
    # Inspect's own results are intact: its accuracy still matches the samples' scores.
    correct = [s.scores["even_length"].value == "C" for s in log.samples]
    assert log.results.scores[0].metrics["accuracy"].value == pytest.approx(
        sum(correct) / len(correct))
    ours = log.results.metadata["benchchecker"]
    assert ours["counts"]["clean"] == 2 and ours["mode"] == mode
    # the log header says it holds a filtered run (issue 13, item 3)
    import hashlib
    header = log.eval.metadata["benchchecker"]
    assert header["mode"] == mode and header["evaluated"] == len(expected)
    assert header["flags_sha256"] == "sha256:" + hashlib.sha256(
        Path(flags).name.encode() + b"\0" + Path(flags).read_bytes()).hexdigest()
    [row] = ours["scores"]
    assert row["metric"] == "accuracy"          # what Inspect calls it, not the scorer's name
    want = _rescore(cli, log_path, flags, expected, tmp_path)
    if mode == "both":
        assert ours["counts"] == {"clean": 2, "contaminated": 2, "undecided": 1, "unflagged": 1}
        assert (row["full"], row["clean"], row["contaminated"], row["relative_drop"],
                row["drop_ci_low"], row["drop_ci_high"]) == (
            want["original_rate"], want["clean_rate"], want["contaminated_rate"],
            want["relative_drop"], want["drop_ci_low"], want["drop_ci_high"])
        assert row["full"] == pytest.approx(sum(correct) / 6)
    else:
        assert row["clean"] == want["clean_rate"] == pytest.approx(sum(correct) / 2)
    assert f"|local_mmlu||accuracy|all|{len(expected)}|" in result.stdout


@pytest.mark.slow
@pytest.mark.model
def test_hook_alone_annotates_a_plain_inspect_eval(task_file: Path, tiny_lm: Path, make_flags,
                                                   tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """With BENCHCHECKER_FLAGS set, Inspect's own eval() (no wrapper) gets annotated logs."""
    from inspect_ai import eval as inspect_eval

    import harness_adapters.inspect._hook  # noqa: F401  (what the entry point loads)

    flags = make_flags(tmp_path / "flags.jsonl", "mmlu", FLAGGED)
    monkeypatch.setenv("BENCHCHECKER_FLAGS", str(flags))
    [log] = inspect_eval(f"{task_file}@local_mmlu", model=f"hf/{tiny_lm}", max_tokens=2,
                         log_dir=str(tmp_path / "logs"), display="none", sample_id=[
                             f"{SUBJECT}/0", f"{SUBJECT}/1"])
    path, on_disk = _log(tmp_path / "logs")
    assert [s.metadata["benchchecker"]["group"] for s in on_disk.samples] == [
        "contaminated", "clean"]
    assert on_disk.results.metadata["benchchecker"]["counts"]["clean"] == 1
    assert log.eval.task == on_disk.eval.task
    # A mode the log does not match is refused, and the log is left as it was.
    from benchchecker_plugin.errors import ExecutionError
    from harness_adapters.common import FilterMode, FilterOptions
    from harness_adapters.inspect._hook import annotate_log

    before = path.read_bytes()
    with pytest.raises(ExecutionError, match=r"BENCHCHECKER_CONTAMINATION_MODE=clean but the log "
                                             r"holds 1 other sample\(s\) \(e.g. 'abstract_alg"):
        annotate_log(path, FilterOptions(flags, FilterMode.CLEAN))
    assert path.read_bytes() == before


def test_hook_is_registered_through_the_entry_point() -> None:
    values = [ep.value for ep in entry_points(group="inspect_ai")]
    if not any(v.startswith("harness_adapters.inspect") for v in values):
        pytest.skip("entry point for harness_adapters.inspect._hook not installed yet "
                    f"(inspect_ai entry points: {values})")
    from inspect_ai._util.entrypoints import ensure_entry_points
    from inspect_ai.hooks._hooks import get_all_hooks

    ensure_entry_points()
    assert any(type(h).__name__ == "ContaminationHook" for h in get_all_hooks())


BAD = {
    "another benchmark": ("truthfulqa", {"q/0": True}, "both",
                          "has no flags for benchmark 'mmlu' (it holds flags for: truthfulqa)"),
    "unknown ids": ("mmlu", {"anatomy/0": True}, "both",
                    "none of the 1 instance ids flagged for mmlu / '*' is in this run"),
    "excludes everything": ("mmlu", {f"{SUBJECT}/{i}": True for i in range(6)}, "clean",
                            "empty subset: "),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_flags_stop_before_running(case: str, cli, eval_args, make_flags, error_line,
                                       tmp_path: Path) -> None:
    benchmark, verdicts, mode, message = BAD[case]
    flags = make_flags(tmp_path / "f.jsonl", benchmark, verdicts)
    result = cli(*eval_args, "--contamination-filter", flags, "--contamination-mode", mode)
    assert result.exit_code == 2
    assert message in error_line(result)
    assert not (tmp_path / "logs").exists()


def test_malformed_flags(cli, eval_args, error_line, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"schema_version": 1}\n')
    result = cli(*eval_args, "--contamination-filter", bad)
    assert error_line(result).startswith(f"Error: {bad}:1: field 'benchmark'")


def test_sample_ids_are_escaped_for_inspects_fnmatch() -> None:
    from fnmatch import fnmatch

    from harness_adapters.inspect._cli import sample_id_pattern

    for sid in ("a/1", "x[1]", "q*?", 7):
        pattern = sample_id_pattern(sid)
        assert fnmatch(str(sid), pattern)
    assert not fnmatch("qab", sample_id_pattern("q*"))


def test_eval_help_keeps_inspects_options(cli) -> None:
    result = cli("inspect", "eval", "--help")
    assert result.exit_code == 0
    for option in ("--sample-id", "--model", "--contamination-filter", "--contamination-mode"):
        assert option in result.stdout


def test_grouped_scores_are_labelled_by_inspects_metric() -> None:
    """Issue 29: the grouped table said "choice" (the scorer) where Inspect says "accuracy"."""
    from types import SimpleNamespace

    from inspect_ai.log import EvalMetric, EvalResults, EvalScore

    from harness_adapters.inspect._hook import metric_labels

    def score(name: str, *metrics: str) -> EvalScore:
        return EvalScore(name=name, scorer=name,
                         metrics={m: EvalMetric(name=m, value=0.5) for m in metrics})

    def labels(*scores: EvalScore) -> dict[str, str]:
        return metric_labels(SimpleNamespace(results=EvalResults(scores=list(scores))))

    assert labels(score("choice", "accuracy", "stderr")) == {"choice": "accuracy"}
    assert labels(score("match", "accuracy"), score("rouge", "mean")) == {
        "match": "accuracy", "rouge": "mean"}
    assert labels(score("a", "accuracy"), score("b", "accuracy")) == {
        "a": "a/accuracy", "b": "b/accuracy"}


def test_a_task_inspect_cannot_find_is_one_line_not_an_empty_run(cli, error_line, tmp_path: Path) -> None:
    """Inspect's loader returns no task for an unknown name; --contamination-detect then ran on
    0 tasks and said "0 probes on 0 task(s)". Now the name is the error."""
    result = cli("inspect", "eval", "benchchecker_plugin/no_such_task", "--model", "mockllm/model",
                 "--log-dir", tmp_path / "logs", "--contamination-detect", "--dry-run")
    assert error_line(result) == ("Error: task 'benchchecker_plugin/no_such_task': Inspect found no "
                                  "such task (a registered name, a file or a file@task)")
