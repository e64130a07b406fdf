"""``benchchecker swebench``: rescore of reports built by swebench's own ``make_run_report`` from
per-instance logs (and of a Multi-SWE-bench ``final_report.json``), equal to ``benchchecker
rescore``; ``run_evaluation`` up to the Docker boundary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness_adapters.swebench._cli import harness_argv, plan_run
from tests.helpers import require_shared_data

VERIFIED = ("swebench_verified", "swebench_verified_composite.jsonl")
MODEL = "org/my-model"
RUN = "run1"


def _instances(path: Path, n: int) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(next(fh)) for _ in range(n)]


@pytest.fixture
def run_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    """Twelve real Verified instances, ten predicted; per-instance report.json logs in swebench's
    layout (cwd = tmp_path, where the harness keeps logs/run_evaluation): five resolved, one
    broken report (an error), one empty patch; and the run report swebench builds from them."""
    from swebench.harness.constants import LOG_REPORT, RUN_EVALUATION_LOG_DIR
    from swebench.harness.reporting import make_run_report

    data = require_shared_data(*VERIFIED)
    monkeypatch.chdir(tmp_path)
    rows = _instances(data, 12)
    ids = [r["instance_id"] for r in rows]
    predictions = {i: {"instance_id": i, "model_patch": "diff", "model_name_or_path": MODEL}
                   for i in ids[:10]}
    predictions[ids[9]]["model_patch"] = ""                      # an empty patch
    resolved = {ids[k] for k in (0, 2, 3, 5, 6)}
    for k, iid in enumerate(ids[:9]):
        folder = RUN_EVALUATION_LOG_DIR / RUN / MODEL.replace("/", "__") / iid
        folder.mkdir(parents=True)
        text = "" if k == 8 else json.dumps({iid: {"resolved": iid in resolved}})  # 8: broken
        (folder / LOG_REPORT).write_text(text)
    report = make_run_report(predictions, rows, RUN, client=None, report_dir=str(tmp_path))
    return {"data": data, "ids": ids, "rows": rows, "resolved": resolved, "report": Path(report),
            "predictions": predictions}


FLAGS = {0: True, 1: False, 2: False, 3: None, 4: True, 5: False, 6: True, 7: False}


def _flags(make_flags, tmp_path: Path, ids: list[str], model: str = MODEL, **kw) -> Path:
    verdicts = {ids[k]: v for k, v in FLAGS.items()}
    return make_flags(tmp_path / "flags.jsonl", kw.get("benchmark", "swe-bench-verified"),
                      verdicts, model=model)


def _undecided_unflagged(stdout: str, n: int, full: str) -> int:
    """undec. + unflagged of the `all` row with n instances, 4 clean, 3 contaminated and ``full``."""
    import re

    m = re.search(rf"\|all\|{n}\|4\|3\|(\d+)\|(\d+)\|{re.escape(full)}\|", stdout)
    assert m, stdout
    return int(m.group(1)) + int(m.group(2))


def _rows_equal(ours: list[dict], theirs: list[dict]) -> None:
    assert [r["tier"] for r in ours] == [r["tier"] for r in theirs]
    for a, b in zip(ours, theirs):
        # rescore counts unflagged instances as undecided; the wrapper gives them their own column
        assert (a["n_instances"], a["n_clean"], a["n_contaminated"],
                a["n_undecided"] + a["n_unflagged"]) == (
            b["n_instances"], b["n_clean"], b["n_contaminated"], b["n_undecided"])
        assert (a["full"], a["clean"], a["contaminated"], a["relative_drop"], a["drop_ci_low"],
                a["drop_ci_high"]) == (b["original_rate"], b["clean_rate"],
                                       b["contaminated_rate"], b["relative_drop"],
                                       b["drop_ci_low"], b["drop_ci_high"])


@pytest.mark.parametrize("source", ["report", "log folder"])
def test_rescore_equals_benchchecker_rescore(source: str, run_dir: dict, cli, make_flags,
                                             tmp_path: Path) -> None:
    flags = _flags(make_flags, tmp_path, run_dir["ids"])
    target = run_dir["report"] if source == "report" else \
        tmp_path / "logs" / "run_evaluation" / RUN / MODEL.replace("/", "__")
    before = run_dir["report"].read_bytes()
    result = cli("swebench", "rescore", target, "--flags", flags, "--tiers", run_dir["data"])
    assert result.exit_code == 0, result.output
    theirs = cli("rescore", "--results", target, "--flags", flags, "--tiers", run_dir["data"],
                 "--benchmark", "swe-bench-verified", "--json")
    assert theirs.exit_code == 0, theirs.output
    want = json.loads(theirs.stdout)["rows"]
    assert run_dir["report"].read_bytes() == before                 # the harness's report intact
    if source == "report":
        ours = json.loads(run_dir["report"].with_name(
            f"{MODEL.replace('/', '__')}.{RUN}.benchchecker.json").read_text())
        _rows_equal(ours["scores"], want)
        assert ours["counts"] == {"clean": 4, "contaminated": 3, "undecided": 1,
                                  "unflagged": 2}
        assert want[0]["original_rate"] == pytest.approx(5 / 10)
    # the run's instances (the report's 10 submitted, the 9 with logs), not the 500 ids of
    # --tiers (issue 29: tiers only label)
    n = 10 if source == "report" else 9
    assert _undecided_unflagged(result.stdout, n, f"{5 / n:.4f}") == n - 7
    assert "error" not in json.dumps(want)
    wider = cli("swebench", "rescore", target, "--flags", flags, "--tiers", run_dir["data"],
                "--instances", run_dir["data"])
    assert wider.exit_code == 0, wider.output
    assert _undecided_unflagged(wider.stdout, 500, "0.0100") == 493


def test_rescore_multi_swe_bench_final_report(cli, make_flags, tmp_path: Path) -> None:
    ids = ["zeromicro__go-zero-2787", "zeromicro__go-zero-2363", "jqlang__jq-2598",
           "facebook__zstd-3438", "fmtlib__fmt-3729", "tokio-rs__tokio-6742"]
    report_ids = [i.replace("__", "/", 1).rsplit("-", 1)[0] + ":pr-" + i.rsplit("-", 1)[1]
                  for i in ids]
    folder = tmp_path / "msb_run"
    folder.mkdir()
    (folder / "final_report.json").write_text(json.dumps({
        "total_instances": 6, "submitted_ids": report_ids, "completed_ids": report_ids,
        "resolved_ids": report_ids[:3], "unresolved_ids": report_ids[3:], "error_ids": []}))
    tiers = tmp_path / "tiers.jsonl"
    tiers.write_text("".join(json.dumps({"instance_id": i, "difficulty": d}) + "\n" for i, d in
                             zip(ids, ["easy", "medium", "hard", "easy", "medium", "hard"])))
    flags = make_flags(tmp_path / "flags.jsonl", "multi-swe-bench",
                       {ids[0]: True, ids[1]: False, ids[3]: False, ids[4]: True, ids[5]: False})
    result = cli("swebench", "rescore", folder / "final_report.json", "--flags", flags,
                 "--tiers", tiers, "--n-boot", "200")
    assert result.exit_code == 0, result.output
    theirs = cli("rescore", "--results", folder / "final_report.json", "--flags", flags,
                 "--tiers", tiers, "--benchmark", "multi-swe-bench", "--n-boot", "200", "--json")
    ours = json.loads((folder / "final_report.benchchecker.json").read_text())
    _rows_equal(ours["scores"], json.loads(theirs.stdout)["rows"])
    assert ours["benchmark"] == "multi-swe-bench"
    assert ours["scores"][0]["full"] == 0.5 and ours["scores"][0]["clean"] == pytest.approx(1 / 3)
    # Multi-SWE-bench's own annotation workbook as --tiers gives the same rows (issue 29: it was
    # refused as an unsupported file type, and the hint named a package that does not exist)
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    q51 = "问题 5.1-{}：理解问题、提出方案和编写代码大概需要多长时间？"
    book.active.append(["问题序号", "示例id(instance_id)", q51.format(1), q51.format(2)])
    labels = {"easy": "<15 分钟：简单", "medium": "15 分钟 -- 1小时：小型", "hard": "1-4 小时：较大"}
    for k, (i, d) in enumerate(zip(ids, ["easy", "medium", "hard", "easy", "medium", "hard"])):
        book.active.append([k, f"{k}_java_{i.replace('__', '-')}", labels[d], None])
    book.save(tmp_path / "java.xlsx")
    for command in (["swebench", "rescore", folder / "final_report.json"],
                    ["rescore", "--benchmark", "multi-swe-bench", "--results",
                     folder / "final_report.json"]):
        xlsx = cli(*command, "--flags", flags, "--tiers", tmp_path / "java.xlsx", "--n-boot",
                   "200", *(["--json"] if command[0] == "rescore" else []))
        assert xlsx.exit_code == 0, xlsx.output
    _rows_equal(json.loads((folder / "final_report.benchchecker.json").read_text())["scores"],
                json.loads(xlsx.stdout)["rows"])
    assert json.loads(xlsx.stdout)["rows"] == json.loads(theirs.stdout)["rows"]


def _run_args(run_dir: dict, tmp_path: Path, *extra: str) -> list[str]:
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps(p) + "\n" for p in run_dir["predictions"].values()))
    return ["-d", str(run_dir["data"]), "-p", str(preds), "-id", "run2", "--max_workers", "1",
            "--report_dir", str(tmp_path / "reports"), *extra]


def test_run_evaluation_passes_the_subset_to_the_harness(run_dir: dict, make_flags,
                                                         tmp_path: Path) -> None:
    from swebench.harness.run_evaluation import get_dataset_from_preds

    flags = _flags(make_flags, tmp_path, run_dir["ids"])
    args = _run_args(run_dir, tmp_path, "-i", *run_dir["ids"][:6], "--contamination-filter",
                     str(flags), "--contamination-mode", "clean")
    plan = plan_run(args)
    clean = [run_dir["ids"][k] for k in (1, 2, 5)]
    assert plan.selection is not None and list(plan.selection.selected) == clean
    argv = harness_argv(args)
    assert argv[argv.index("--instance_ids") + 1:] == clean           # one -i, the subset
    assert "-i" not in argv and not any(a.startswith("--contamination") for a in argv)
    # the harness's own filtering keeps exactly the subset
    dataset = get_dataset_from_preds(str(run_dir["data"]), "test", clean, run_dir["predictions"],
                                     "run2", False)
    assert sorted(d["instance_id"] for d in dataset) == sorted(clean)


@pytest.mark.slow
def test_run_evaluation_stops_at_docker_with_one_line(run_dir: dict, cli, make_flags, error_line,
                                                      tmp_path: Path) -> None:
    import docker

    try:
        docker.from_env().ping()
        pytest.skip("Docker is reachable here; this test checks the unreachable case")
    except docker.errors.DockerException:
        pass
    flags = _flags(make_flags, tmp_path, run_dir["ids"])
    result = cli("swebench", "run_evaluation", *_run_args(
        run_dir, tmp_path, "--contamination-filter", str(flags), "--contamination-mode",
        "contaminated"))
    assert result.exit_code == 5
    line = error_line(result)
    assert line.startswith("Error: swebench harness stopped: Docker is not reachable ")
    assert "Traceback (most recent call last)" not in result.output    # issue 29: ~40 lines
    assert (tmp_path / "logs" / "run_evaluation" / "run2" / "run.json").is_file()  # its own files


BAD = {
    "another benchmark": ("mmlu", None, "both",
                          "has no flags for benchmark 'swe-bench-verified' (it holds flags for: "
                          "mmlu)"),
    "unknown ids": ("swe-bench-verified", ["django__django-0", "x__y-1"], "both",
                    "none of the 2 instance ids flagged for swe-bench-verified"),
    "excludes everything": ("swe-bench-verified", "all", "clean", "empty subset: "),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_run_evaluation_bad_flags(case: str, run_dir: dict, cli, make_flags, error_line,
                                  tmp_path: Path) -> None:
    benchmark, ids, mode, message = BAD[case]
    if ids is None:
        verdicts = {"a/0": True}
    elif ids == "all":
        verdicts = {i: True for i in run_dir["predictions"]}
    else:
        verdicts = {i: True for i in ids}
    flags = make_flags(tmp_path / "f.jsonl", benchmark, verdicts, model=MODEL)
    result = cli("swebench", "run_evaluation", *_run_args(
        run_dir, tmp_path, "--contamination-filter", str(flags), "--contamination-mode", mode))
    assert result.exit_code == 2
    assert message in error_line(result)
    assert not (tmp_path / "logs" / "run_evaluation" / "run2").exists()   # harness not started


def test_malformed_inputs(run_dir: dict, cli, error_line, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"schema_version": 1, "benchmark": "swe-bench-verified"}\n')
    result = cli("swebench", "rescore", run_dir["report"], "--flags", bad)
    assert error_line(result).startswith(f"Error: {bad}:1: field ")
    report = tmp_path / "broken.json"
    report.write_text("{")
    result = cli("swebench", "rescore", report, "--flags", bad)
    assert "malformed JSON" in error_line(result)


def test_rescore_a_report_that_names_no_model(run_dir: dict, cli, make_flags, error_line,
                                              tmp_path: Path) -> None:
    """A report saved as ``results.json`` names no model: no guess from the file stem (was model
    'results'); the error names the option ``swebench rescore`` really has (issue 13, item 7)."""
    plain = tmp_path / "results.json"
    plain.write_text(run_dir["report"].read_text())
    flags = _flags(make_flags, tmp_path, run_dir["ids"])
    result = cli("swebench", "rescore", plain, "--flags", flags)
    assert error_line(result) == (f"Error: {plain}: the report does not name its model (a run "
                                  "report is <model>.<run_id>.json); pass --contamination-model NAME")
    for option in ("--contamination-model", "--model"):
        ok = cli("swebench", "rescore", plain, "--contamination-filter", flags, option, MODEL,
                 "--n-boot", "0")
        assert ok.exit_code == 0, ok.output
        assert f"flags model '{MODEL}'" in ok.stdout
