"""``benchchecker lm-eval run``: the real lm-eval ``run`` on a local task (6 real MMLU rows) with
a tiny local ``hf`` model, in each contamination mode, plus bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchchecker_plugin.leaderboard import load_lm_eval_samples
from tests.helpers import require_shared_data
from tests.helpers.mc_tasks import write_mc_task

TASK = "abstract_algebra"   # instance ids <task>/<doc_id> = the flags' MMLU ids <subject>/<index>
FLAGGED = {f"{TASK}/0": True, f"{TASK}/1": False, f"{TASK}/2": True, f"{TASK}/3": False,
           f"{TASK}/4": None, f"{TASK}/50": True}   # doc 5 unflagged; /50 is not in the slice
SUBSET = {"both": [0, 1, 2, 3, 4, 5], "clean": [1, 3], "contaminated": [0, 2]}


@pytest.fixture(scope="module")
def task_dir(tmp_path_factory: pytest.TempPathFactory, mmlu_csv: Path) -> Path:
    folder = tmp_path_factory.mktemp("lm_eval_tasks")
    write_mc_task(folder, TASK, mmlu_csv)
    return folder


@pytest.fixture
def run_args(tiny_lm: Path, task_dir: Path, tmp_path: Path) -> list[str]:
    return ["lm-eval", "run", "--model", "hf", "--model_args", f"pretrained={tiny_lm}",
            "--device", "cpu", "--include_path", str(task_dir), "--tasks", TASK,
            "--output_path", str(tmp_path / "out"), "--log_samples"]


def _only(folder: Path, pattern: str) -> Path:
    [path] = sorted(folder.rglob(pattern))
    return path


@pytest.mark.slow
@pytest.mark.model
@pytest.mark.parametrize("mode", ["both", "clean", "contaminated"])
def test_each_mode_runs_the_subset_annotates_and_equals_rescore(
        mode: str, cli, run_args, make_flags, read_jsonl, tmp_path: Path) -> None:
    flags = make_flags(tmp_path / "flags.jsonl", "mmlu", FLAGGED)
    result = cli(*run_args, "--contamination-filter", flags, "--contamination-mode", mode)
    assert result.exit_code == 0, result.output
    assert "1 flagged instance id(s) are not in this run's dataset" in result.stderr

    samples = _only(tmp_path / "out", "samples_*.jsonl")
    results = _only(tmp_path / "out", "results_*.json")
    ours = _only(tmp_path / "out", "benchchecker_*.json")
    assert ours.parent == results.parent
    assert ours.name == results.name.replace("results_", "benchchecker_")
    lines = read_jsonl(samples)
    assert [line["doc_id"] for line in lines] == SUBSET[mode]          # lm-eval ran the subset
    groups = {i: ("unflagged" if f"{TASK}/{i}" not in FLAGGED else
                  {True: "contaminated", False: "clean", None: "undecided"}[FLAGGED[f"{TASK}/{i}"]])
              for i in range(6)}
    for line in lines:
        assert line["benchchecker"] == {"instance_id": f"{TASK}/{line['doc_id']}",
                                        "benchmark": "mmlu", "model": "*",
                                        "group": groups[line["doc_id"]]}
    # lm-eval's own fields are intact: its task hash over the samples still matches.
    from lm_eval.utils import hash_string
    digest = hash_string("".join(s["doc_hash"] + s["prompt_hash"] + s["target_hash"] for s in lines))
    assert json.loads(results.read_text())["task_hashes"][TASK] == digest
    # lm-eval's own results file says it holds a filtered run (issue 13, item 3)
    import hashlib
    mark = json.loads(results.read_text())["benchchecker"]
    assert mark["mode"] == mode and mark["subset_sizes"] == {TASK: len(SUBSET[mode])}
    assert mark["flags_sha256"] == "sha256:" + hashlib.sha256(
        flags.name.encode() + b"\0" + flags.read_bytes()).hexdigest()
    assert mark["grouped_scores_file"] == ours.name and mark["detect"] is False

    [row] = json.loads(ours.read_text())["scores"]
    ids = tmp_path / "ids.json"
    ids.write_text(json.dumps([f"{TASK}/{i}" for i in SUBSET[mode]]))
    again = cli("rescore", "--results", samples, "--flags", flags, "--instances", ids,
                "--benchmark", "mmlu", "--json")
    assert again.exit_code == 0, again.output
    [want] = json.loads(again.stdout)["rows"]
    acc = {line["doc_id"]: line["acc"] for line in lines}
    assert row["n_instances"] == want["n_instances"] == len(SUBSET[mode])
    if mode == "both":
        assert (row["full"], row["clean"], row["contaminated"], row["relative_drop"],
                row["drop_ci_low"], row["drop_ci_high"]) == (
            want["original_rate"], want["clean_rate"], want["contaminated_rate"],
            want["relative_drop"], want["drop_ci_low"], want["drop_ci_high"])
        assert row["full"] == pytest.approx(sum(acc.values()) / 6)
        assert row["clean"] == pytest.approx((acc[1] + acc[3]) / 2)
        assert (row["n_clean"], row["n_contaminated"], row["n_undecided"], row["n_unflagged"]) == (2, 2, 1, 1)
    else:
        assert row[mode] == want[f"{mode}_rate"] == pytest.approx(sum(acc.values()) / 2)
        assert row["full"] is None
    printed = f"|{TASK}|none|acc|all|{len(SUBSET[mode])}|"
    assert printed in result.stdout
    # the submission the scorer reads from the annotated file has the same ids
    assert load_lm_eval_samples(samples).submitted == {f"{TASK}/{i}" for i in SUBSET[mode]}


BAD = {
    "another benchmark": ("truthfulqa", {"q/0": True}, "both",
                          "has no flags for benchmark 'mmlu'"),
    "unknown ids": ("mmlu", {"anatomy/0": True, "anatomy/1": False}, "both",
                    "none of the 2 instance ids flagged for mmlu / '*' is in this run"),
    "excludes everything": ("mmlu", {f"{TASK}/{i}": True for i in range(6)}, "clean",
                            "empty subset: "),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_flags_stop_before_running(case: str, cli, run_args, make_flags, error_line,
                                       tmp_path: Path) -> None:
    benchmark, verdicts, mode, message = BAD[case]
    flags = make_flags(tmp_path / "f.jsonl", benchmark, verdicts)
    result = cli(*run_args, "--contamination-filter", flags, "--contamination-mode", mode)
    assert result.exit_code == 2
    assert message in error_line(result)
    assert not (tmp_path / "out").exists()


def test_malformed_flags_and_missing_output_path(cli, run_args, error_line,
                                                 tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    result = cli(*run_args, "--contamination-filter", bad)
    assert result.exit_code == 2
    assert error_line(result).startswith(f"Error: {bad}:1: invalid JSON")
    no_out = [a for a in run_args if a not in ("--output_path", str(tmp_path / "out"))]
    result = cli(*no_out, "--contamination-filter", bad)
    assert result.exit_code == 2 and "needs --output_path" in error_line(result)


def test_help_is_lm_evals_with_our_options(cli) -> None:
    result = cli("lm-eval", "run", "--help")
    assert result.exit_code == 0
    assert "--model_args" in result.stdout                       # lm-eval's own options
    assert "benchchecker contamination filter:" in result.stdout
    assert "--contamination_mode {both,clean,contaminated}, --contamination-mode" in result.stdout


@pytest.mark.parametrize("spelling", ["_", "-"])
def test_options_take_lm_evals_underscores_and_the_hyphens(spelling: str, tmp_path: Path) -> None:
    """Issue 29: lm-eval spells --output_path, --log_samples; --contamination_filter was refused."""
    from harness_adapters.lm_eval._cli import parse

    flags = tmp_path / "f.jsonl"
    args = ["--model", "hf", "--tasks", "x", f"--contamination{spelling}filter", str(flags),
            f"--contamination{spelling}mode", "clean", f"--contamination{spelling}detect",
            f"--contamination{spelling}no{spelling}cache"]
    _, namespace = parse(args)
    assert (namespace.contamination_filter, namespace.contamination_mode) == (str(flags), "clean")
    # (bare --contamination-detect: the TS-Guessing method; `--contamination-detect overlap` the other)
    assert namespace.contamination_detect == "ts-guess" and namespace.contamination_no_cache is True


@pytest.mark.slow
@pytest.mark.model
def test_ts_guessing_task_clean_mode(cli, tiny_lm: Path, make_flags, read_jsonl,
                                     tmp_path: Path) -> None:
    """The project's own lm-eval task (tasks/lm_eval, docs carry ``instance_id``) on the real
    MMLU abstract_algebra file: only clean docs run; EM (0/1, via the scorer) and Rouge-L (graded,
    a mean) are grouped."""
    root = Path(__file__).resolve().parents[3]
    data = require_shared_data("mmlu", "test")
    include = root / "tasks" / "lm_eval"
    verdicts = {f"{TASK}/{i}": i % 3 == 0 for i in range(100)}
    flags = make_flags(tmp_path / "flags.jsonl", "mmlu", verdicts)
    result = cli("lm-eval", "run", "--model", "hf", "--model_args", f"pretrained={tiny_lm}",
                 "--device", "cpu", "--include_path", include, "--tasks",
                 "ts_guessing_mmlu_multichoice", "--metadata",
                 json.dumps({"data": str(data), "subjects": TASK}), "--gen_kwargs",
                 "max_gen_toks=4", "--output_path", tmp_path / "out", "--log_samples",
                 "--contamination-filter", flags, "--contamination-mode", "clean")
    assert result.exit_code == 0, result.output
    lines = read_jsonl(_only(tmp_path / "out", "samples_*.jsonl"))
    assert lines and all(line["benchchecker"]["group"] == "clean" for line in lines)
    assert all(line["benchchecker"]["instance_id"] == line["doc"]["instance_id"]
               and verdicts[line["doc"]["instance_id"]] is False for line in lines)
    scores = {s["metric"]: s for s in
              json.loads(_only(tmp_path / "out", "benchchecker_*.json").read_text())["scores"]}
    for metric in ("exact_match", "rouge_l"):
        assert scores[metric]["n_clean"] == len(lines)
        assert scores[metric]["clean"] == pytest.approx(
            sum(line[metric] for line in lines) / len(lines))


def test_the_limit_warning_is_lm_evals_alone(task_dir: Path, tmp_path: Path,
                                            caplog: pytest.LogCaptureFixture) -> None:
    """Issue 29: reading the run's config before the run said lm-eval's --limit warning again."""
    import logging

    from harness_adapters.common import pop_filter_options
    from harness_adapters.detection import pop_detect_options
    from harness_adapters.lm_eval._cli import _load_tasks, parse

    _, namespace = parse(["--model", "hf", "--include_path", str(task_dir), "--tasks", TASK,
                          "--limit", "2", "--output_path", str(tmp_path / "out")])
    pop_filter_options(namespace.__dict__, detect=pop_detect_options(namespace.__dict__).enabled)
    with caplog.at_level(logging.WARNING):
        cfg, tasks = _load_tasks(namespace)
    assert list(tasks) == [TASK] and cfg.limit == 2
    assert not [r for r in caplog.records if "--limit SHOULD ONLY" in r.getMessage()]


@pytest.mark.slow
@pytest.mark.model
def test_samples_are_kept_only_with_log_samples(cli, run_args, make_flags, tmp_path: Path) -> None:
    """Issue 29: the filter wrote samples_*.jsonl although the run did not ask (--log_samples)."""
    flags = make_flags(tmp_path / "flags.jsonl", "mmlu", FLAGGED)
    args = [a for a in run_args if a != "--log_samples"]
    result = cli(*args, "--contamination-filter", flags)
    assert result.exit_code == 0, result.output
    assert not sorted((tmp_path / "out").rglob("samples_*.jsonl"))
    ours = json.loads(_only(tmp_path / "out", "benchchecker_*.json").read_text())
    assert ours["samples_files"] == [] and ours["scores"]


@pytest.mark.slow
@pytest.mark.model
def test_a_benchmarks_subtasks_get_one_pooled_row(cli, tiny_lm: Path, task_dir: Path, mmlu_csv: Path,
                                                  make_flags, read_jsonl, tmp_path: Path) -> None:
    """Two MMLU subjects in one run: each task's rows, then one row pooled over both (the tasks as
    strata) in the table and the JSON; lm-eval's own subset sizes stay per task."""
    other = tmp_path / "tasks"
    other.mkdir()
    csv2 = tmp_path / "anatomy.csv"
    csv2.write_text(mmlu_csv.read_text(encoding="utf-8").replace(f",{TASK},", ",anatomy,"),
                    encoding="utf-8")
    (other / "anatomy.yaml").write_text((task_dir / f"{TASK}.yaml").read_text(encoding="utf-8")
                                        .replace(f"task: {TASK}", "task: anatomy")
                                        .replace(str(mmlu_csv), str(csv2)), encoding="utf-8")
    (other / f"{TASK}.yaml").write_text((task_dir / f"{TASK}.yaml").read_text(encoding="utf-8"),
                                        encoding="utf-8")
    verdicts = {f"{s}/{i}": i % 2 == 0 for s in (TASK, "anatomy") for i in range(6)}
    flags = make_flags(tmp_path / "flags.jsonl", "mmlu", verdicts)
    result = cli("lm-eval", "run", "--model", "hf", "--model_args", f"pretrained={tiny_lm}",
                 "--device", "cpu", "--include_path", str(other), "--tasks", f"{TASK},anatomy",
                 "--output_path", str(tmp_path / "out"), "--contamination-filter", flags)
    assert result.exit_code == 0, result.output
    scores = json.loads(_only(tmp_path / "out", "benchchecker_*.json").read_text())["scores"]
    pooled = [s for s in scores if s["n_tasks"] > 1]
    assert [(s["task"], s["metric"], s["n_instances"], s["n_clean"]) for s in pooled] == [
        ("pooled (2 tasks)", "acc", 12, 6)]
    per_task = {s["task"]: s for s in scores if s["n_tasks"] == 1 and s["metric"] == "acc"}
    assert sorted(per_task) == sorted(["anatomy", TASK])
    assert pooled[0]["full"] == pytest.approx(
        sum(per_task[t]["full"] * per_task[t]["n_instances"] for t in per_task) / 12)
    assert "|pooled (2 tasks)|none|acc|all|12|6|6|0|0|" in result.stdout
    mark = json.loads(_only(tmp_path / "out", "results_*.json").read_text())["benchchecker"]
    assert mark["subset_sizes"] == {TASK: 6, "anatomy": 6}
