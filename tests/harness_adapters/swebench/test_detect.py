"""``benchchecker swebench run_evaluation --contamination-detect``: Stage II at the model's cutoff
for exactly the run's instances, flags written before the harness starts (they exist when it
stops at the Docker boundary), re-scoring from per-instance logs equal to ``benchchecker rescore``,
``--dry-run``, and the one-line errors at the boundary.

The repository is built here with real ``git`` commits at known dates: ``tiny-1``'s fix lands on
2023-02-01, ``tiny-2``'s on 2023-08-01, so a 2023-05-31 cutoff holds the first fix (contaminated)
and not the second (clean).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers import SHARED_DATA

MODEL = "acme/coder-7b"
RUN = "det1"
CUTOFF = "2023-05-31"
BUGGY = '''def clamp(value, low, high):
    if value < low:
        return low
    if value > high:
        return high
    return value


def mean(values):
    total = 0
    for v in values:
        total += v
    return total / len(values)
'''
MEAN_FIX = BUGGY.replace('''    total = 0
    for v in values:''', '''    if not values:
        raise ValueError("mean() needs at least one value")
    total = 0
    for v in values:''')
CLAMP_FIX = MEAN_FIX.replace('''    if value < low:
        return low''', '''    if low > high:
        raise ValueError(f"empty range: low={low!r} is above high={high!r}")
    if value < low:
        return low''')


def _git(repo: Path, *args: str, when: str | None = None) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    if when:
        env.update(GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when)
    return subprocess.run(["git", "-c", "commit.gpgsign=false", *args], cwd=repo, env=env,
                          check=True, capture_output=True, text=True).stdout


def _commit(repo: Path, text: str, message: str, when: str) -> tuple[str, str]:
    """Write ``calc.py``, commit it at ``when``; returns (parent commit, the commit's diff)."""
    parent = _git(repo, "rev-parse", "HEAD").strip()
    (repo / "calc.py").write_text(text)
    diff = _git(repo, "diff", "--no-color")
    _git(repo, "commit", "-qam", message, when=when)
    return parent, diff


def _row(iid: str, repo: str, base: str, patch: str, created: str, difficulty: str) -> dict:
    return {"instance_id": iid, "repo": repo, "base_commit": base, "patch": patch,
            "test_patch": "", "created_at": created, "version": "1.0",
            "environment_setup_commit": base, "problem_statement": f"bug {iid}",
            "hints_text": "", "FAIL_TO_PASS": json.dumps([f"tests/test_calc.py::test_{iid}"]),
            "PASS_TO_PASS": "[]", "difficulty": difficulty}


@pytest.fixture
def tiny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    """clones/acme__tiny with both fixes; instances.jsonl (tiny-1, tiny-2, and tiny-3 of a
    repository with no clone); cwd = tmp_path (the harness writes logs/ there)."""
    monkeypatch.chdir(tmp_path)
    repo = tmp_path / "clones" / "acme__tiny"
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    (repo / "calc.py").write_text(BUGGY)
    _git(repo, "add", "calc.py")
    _git(repo, "commit", "-qm", "base", when="2023-01-01T12:00:00+0000")
    base1, patch1 = _commit(repo, MEAN_FIX, "mean: refuse an empty list", "2023-02-01T12:00:00+0000")
    base2, patch2 = _commit(repo, CLAMP_FIX, "clamp: refuse an empty range",
                            "2023-08-01T12:00:00+0000")
    rows = [_row("acme__tiny-1", "acme/tiny", base1, patch1, "2023-01-30T00:00:00Z", "<15 min fix"),
            _row("acme__tiny-2", "acme/tiny", base2, patch2, "2023-07-30T00:00:00Z",
                 "15 min - 1 hour"),
            _row("acme__absent-3", "acme/absent", base1, patch1, "2023-01-30T00:00:00Z",
                 "<15 min fix")]
    instances = tmp_path / "instances.jsonl"
    instances.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return {"root": tmp_path, "clones": tmp_path / "clones", "instances": instances, "rows": rows}


def _preds(tiny: dict, ids: list[str], model: str = MODEL) -> Path:
    path = tiny["root"] / "preds.jsonl"
    path.write_text("".join(json.dumps({"instance_id": i, "model_patch": "diff",
                                        "model_name_or_path": model}) + "\n" for i in ids))
    return path


def _args(tiny: dict, ids: list[str], *extra: str) -> list[str]:
    return ["swebench", "run_evaluation", "-d", tiny["instances"], "-p", _preds(tiny, ids),
            "-id", RUN, "--max_workers", "1", "--report_dir", tiny["root"] / "reports", *extra]


def _flags_file(tiny: dict) -> Path:
    return tiny["root"] / "reports" / f"{MODEL.replace('/', '__')}.{RUN}.benchchecker_flags.jsonl"


def _docker_unreachable() -> None:
    import docker

    try:
        docker.from_env().ping()
    except docker.errors.DockerException:
        return
    pytest.skip("Docker is reachable here; these tests check the run up to the Docker boundary")


@pytest.mark.slow
def test_detect_writes_flags_before_the_harness_stops_at_docker(tiny: dict, cli, read_jsonl,
                                                                error_line) -> None:
    _docker_unreachable()
    result = cli(*_args(tiny, ["acme__tiny-1", "acme__tiny-2"], "--contamination-detect",
                        "--contamination-cutoff", CUTOFF, "--repos-dir", tiny["clones"]))
    assert result.exit_code == 5
    assert error_line(result).startswith("Error: swebench harness stopped: Docker is not "
                                         "reachable ")
    flags = {f["instance_id"]: f for f in read_jsonl(_flags_file(tiny))}
    assert sorted(flags) == ["acme__tiny-1", "acme__tiny-2"]
    assert flags["acme__tiny-1"]["contaminated"] is True           # fixed 2023-02-01
    assert flags["acme__tiny-2"]["contaminated"] is False          # fixed 2023-08-01
    assert {f["model"] for f in flags.values()} == {MODEL}
    assert {f["method"] for f in flags.values()} == {"benchchecker.stage2"}
    # the snapshot at the cutoff is the first fix's commit, for both instances
    assert {f["evidence"]["snapshot_date"] for f in flags.values()} == {"2023-02-01T12:00:00+00:00"}
    assert "detection: 2 instances: 1 contaminated, 1 clean, 0 undecided in " in result.stderr
    assert "1 clean, 1 contaminated, 0 undecided, 0 unflagged" in result.stderr
    assert (tiny["root"] / "logs" / "run_evaluation" / RUN / "run.json").is_file()  # harness ran
    assert not list((tiny["root"] / "reports").glob("*.benchchecker.json"))


def test_rescoring_from_logs_with_the_detected_flags(tiny: dict, cli, read_jsonl,
                                                     capsys: pytest.CaptureFixture) -> None:
    """The run report built by swebench's own make_run_report from per-instance logs, re-scored
    with the flags made in the run: finish_run (what run_evaluation does after the harness)
    writes the detection block and timings and ends with the timing line, and its numbers and
    `benchchecker swebench rescore`'s equal `benchchecker rescore`'s."""
    from swebench.harness.constants import LOG_REPORT, RUN_EVALUATION_LOG_DIR
    from swebench.harness.reporting import make_run_report

    from harness_adapters.swebench._cli import finish_run, plan_run
    from harness_adapters.swebench._detect import DetectRequest, detect_run

    ids = ["acme__tiny-1", "acme__tiny-2"]
    tiers = tiny["root"] / "tiers.jsonl"         # the run's two instances: one denominator
    tiers.write_text("".join(json.dumps(r) + "\n" for r in tiny["rows"][:2]))
    args = [str(a) for a in _args(tiny, ids, "--contamination-detect", "--contamination-cutoff",
                                  CUTOFF, "--repos-dir", tiny["clones"],
                                  "--contamination-tiers", tiers)][2:]
    request = DetectRequest(tiny["clones"], CUTOFF)
    report = tiny["root"] / "reports" / f"{MODEL.replace('/', '__')}.{RUN}.json"
    made = detect_run(request, dataset=str(tiny["instances"]), split="test", ids=ids, model=MODEL,
                      report=report)
    assert made is not None
    detection, block = made
    flags = _flags_file(tiny)
    assert [f["contaminated"] for f in read_jsonl(flags)] == [True, False]
    # the harness's per-instance logs: tiny-1 resolved, tiny-2 not
    for iid in ids:
        folder = RUN_EVALUATION_LOG_DIR / RUN / MODEL.replace("/", "__") / iid
        folder.mkdir(parents=True)
        (folder / LOG_REPORT).write_text(json.dumps({iid: {"resolved": iid == ids[0]}}))
    predictions = {i: {"instance_id": i, "model_patch": "diff", "model_name_or_path": MODEL}
                   for i in ids}
    built = make_run_report(predictions, tiny["rows"][:2], RUN, client=None,
                            report_dir=str(tiny["root"] / "reports"))
    assert Path(built) == report
    plan = plan_run(args, detected=detection.flags)
    assert plan.selection is not None and plan.selection.counts() == {
        "clean": 1, "contaminated": 1, "undecided": 0, "unflagged": 0}
    assert not any(a.startswith(("--contamination", "--repos-dir", "--cutoffs")) for a in plan.argv)
    capsys.readouterr()
    target = finish_run(plan, 1.5, detection, block)
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == (f"benchchecker: detection {detection.seconds:.1f} s (0 model calls, 0 cached) "
                    f"+ evaluation 1.5 s; detection took "
                    f"{detection.seconds / (detection.seconds + 1.5):.0%} of the run")
    ours = json.loads(target.read_text())
    assert ours["detection"]["counts"] == {"contaminated": 1, "clean": 1, "undecided": 0,
                                           "failed": 0}
    assert ours["detection"]["flags_file"] == str(flags)
    assert ours["detection"]["model_calls"] == 0
    assert ours["timings"] == {"detection_s": round(detection.seconds, 3), "evaluation_s": 1.5}

    wrapped = cli("swebench", "rescore", report, "--flags", flags, "--tiers", tiers,
                  "--n-boot", "200")
    assert wrapped.exit_code == 0, wrapped.output
    theirs = cli("rescore", "--results", report, "--flags", flags, "--tiers", tiers,
                 "--benchmark", "swe-bench-verified", "--n-boot", "200", "--json")
    assert theirs.exit_code == 0, theirs.output
    want = json.loads(theirs.stdout)["rows"]
    again = json.loads(target.read_text())          # `swebench rescore` rewrote it
    for rows in (ours["scores"], again["scores"]):
        assert [r["tier"] for r in rows] == [r["tier"] for r in want]
        for a, b in zip(rows, want):
            assert (a["n_clean"], a["n_contaminated"], a["full"], a["clean"],
                    a["contaminated"]) == (b["n_clean"], b["n_contaminated"],
                                           b["original_rate"], b["clean_rate"],
                                           b["contaminated_rate"])
    assert want[0]["original_rate"] == 0.5 and want[0]["contaminated_rate"] == 1.0
    assert want[0]["clean_rate"] == 0.0


def test_detected_flags_merge_with_filter_flags(tiny: dict, make_flags) -> None:
    """Stage II says tiny-2 is clean, a --contamination-filter file says contaminated: merged
    per instance (any method), both are in the contaminated subset passed to the harness."""
    from harness_adapters.swebench._cli import plan_run
    from harness_adapters.swebench._detect import DetectRequest, detect_run

    ids = ["acme__tiny-1", "acme__tiny-2"]
    made = detect_run(DetectRequest(tiny["clones"], CUTOFF), dataset=str(tiny["instances"]),
                      split="test", ids=ids, model=MODEL, report=tiny["root"] / "r" / "m.x.json")
    assert made is not None
    other = make_flags(tiny["root"] / "other.jsonl", "swe-bench-verified", {ids[1]: True},
                       model=MODEL)
    args = [str(a) for a in _args(tiny, ids, "--contamination-detect", "--contamination-cutoff",
                                  CUTOFF, "--repos-dir", tiny["clones"], "--contamination-filter",
                                  other, "--contamination-mode", "contaminated")][2:]
    plan = plan_run(args, detected=made[0].flags)
    assert plan.selection is not None and plan.selection.selected == tuple(ids)
    assert plan.argv[-3:] == ("--instance_ids", *ids)
    only_detected = plan_run([a for a in args if a not in ("--contamination-filter", str(other))],
                             detected=made[0].flags)
    assert only_detected.argv[-2:] == ("--instance_ids", ids[0])


def test_missing_clone_stays_undecided_and_only_the_run_instances_are_checked(
        tiny: dict, cli, read_jsonl) -> None:
    ids = ["acme__tiny-1", "acme__tiny-2", "acme__absent-3"]
    result = cli(*_args(tiny, ids, "-i", "acme__tiny-2", "acme__absent-3",
                        "--contamination-detect", "--contamination-cutoff", CUTOFF,
                        "--repos-dir", tiny["clones"], "--contamination-mode", "contaminated",
                        "--contamination-model", "coder-base"))
    # tiny-2 is clean, absent-3 undecided: nothing contaminated, the harness never starts
    assert result.exit_code == 2
    assert "empty subset: " in result.stderr
    assert ("detection: 2 instances: 0 contaminated, 1 clean, 1 undecided (1 of them failed; "
            "the reason is in each flag's evidence.error)") in result.stderr
    assert (f"benchchecker: warning: --contamination-repos-dir {tiny['clones']}: no clone of acme/absent: 1 "
            "instance(s) stay undecided (e.g. 'acme__absent-3'") in result.stderr
    assert (f"`benchchecker repos fetch --instances {tiny['instances']} --into {tiny['clones']}`"
            in result.stderr)
    flags = {f["instance_id"]: f for f in read_jsonl(_flags_file(tiny))}
    assert sorted(flags) == ["acme__absent-3", "acme__tiny-2"]       # predictions ∩ -i
    absent = flags["acme__absent-3"]
    assert absent["contaminated"] is None
    assert "no clone of acme/absent" in absent["evidence"]["error"]
    assert flags["acme__tiny-2"]["contaminated"] is False
    assert {f["model"] for f in flags.values()} == {"coder-base"}    # --contamination-model
    assert not (tiny["root"] / "logs").exists()


@pytest.mark.parametrize("suffix", ["jsonl", "json", "parquet"])
def test_dry_run_runs_and_writes_nothing(suffix: str, tiny: dict, cli) -> None:
    ids = ["acme__tiny-1", "acme__tiny-2", "acme__absent-3"]
    cutoffs = tiny["root"] / "cutoffs.csv"
    cutoffs.write_text("model,cutoff\nother,2022-01\ncoder-7b,2023-05\n")  # by its last part
    dataset = tiny["root"] / f"data.{suffix}"
    if suffix == "json":
        dataset.write_text(json.dumps(tiny["rows"]))
    elif suffix == "parquet":
        import pandas as pd

        pd.DataFrame(tiny["rows"]).to_parquet(dataset)
    else:
        dataset = tiny["instances"]
    args = _args(tiny, ids, "--contamination-detect", "--contamination-cutoffs", cutoffs,
                 "--contamination-repos-dir",
                 tiny["clones"], "--dry-run")
    args[args.index("-d") + 1] = dataset
    before = sorted(p for p in tiny["root"].rglob("*") if ".git" not in p.parts)
    result = cli(*args)
    assert result.exit_code == 0, result.stderr
    err = result.stderr
    assert f"dry run: detection would check 3 instance(s) of {dataset} " in err
    assert "makes no model calls" in err
    assert f"cutoff: 2023-05-31T23:59:59+00:00 (from --contamination-cutoffs {cutoffs}, model 'coder-7b')" in err
    assert "present: acme/tiny (2); missing: acme/absent (1)" in err
    assert "nothing was run or written" in err
    after = sorted(p for p in tiny["root"].rglob("*") if ".git" not in p.parts)
    assert after == before                       # no flags, no report dir, no harness logs


def test_help_lists_the_new_options(cli) -> None:
    result = cli("swebench", "run_evaluation", "--help")
    assert result.exit_code == 0
    for option in ("--contamination-detect", "--contamination-cutoff DATE",
                   "--contamination-cutoffs FILE", "--contamination-repos-dir DIR", "--dry-run",
                   "--contamination-filter FLAGS"):
        assert option in result.stdout
    assert "makes no model calls" in result.stdout


BAD = {
    "no cutoff": (["--contamination-detect", "--repos-dir", "{clones}"],
                  "Error: --contamination-detect needs the model's training cutoff: "
                  "--contamination-cutoff DATE or --contamination-cutoffs FILE"),
    "both cutoffs": (["--contamination-detect", "--contamination-cutoff", CUTOFF, "--cutoffs",
                      "{cutoffs}", "--repos-dir", "{clones}"],
                     "Error: give either --contamination-cutoff DATE or --contamination-cutoffs FILE, not both"),
    "model not in cutoffs": (["--contamination-detect", "--cutoffs", "{cutoffs}", "--repos-dir",
                              "{clones}"],
                             f"Error: --contamination-cutoffs {{cutoffs}}: no cutoff for model '{MODEL}' (the "
                             "file has no entry for it; it has cutoffs for gpt-4-0613, "
                             "claude-2); add it, pass --contamination-model NAME, or give "
                             "--contamination-cutoff DATE"),
    "no repos dir": (["--contamination-detect", "--contamination-cutoff", CUTOFF],
                     "Error: --contamination-detect needs --contamination-repos-dir DIR, a folder of full git "
                     "clones as DIR/owner__name (`benchchecker repos fetch --instances DATASET "
                     "--into DIR` makes them)"),
    "repos dir absent": (["--contamination-detect", "--contamination-cutoff", CUTOFF,
                          "--repos-dir", "{root}/nowhere"],
                         "Error: --contamination-repos-dir {root}/nowhere: no such folder"),
    "bad cutoff": (["--contamination-detect", "--contamination-cutoff", "last spring",
                    "--repos-dir", "{clones}"],
                   "Error: --contamination-cutoff: cutoff 'last spring' is not a date"),
    "no clone at all": (["-i", "acme__absent-3", "--contamination-detect",
                         "--contamination-cutoff", CUTOFF, "--repos-dir", "{root}"],
                        "Error: --contamination-repos-dir {root}: no clone of any repository of this run "
                        "(acme/absent); `benchchecker repos fetch --instances {instances} "
                        "--into {root}` clones them"),
    "dry run alone": (["--dry-run"], "Error: --dry-run need(s) --contamination-detect"),
    "no instance": (["-i", "acme__other-9", "--contamination-detect", "--contamination-cutoff",
                     CUTOFF, "--repos-dir", "{clones}"],
                    "Error: --contamination-detect: the run has no instances to check"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_inputs_are_one_line_errors(case: str, tiny: dict, cli, error_line) -> None:
    cutoffs = tiny["root"] / "cutoffs.json"
    cutoffs.write_text(json.dumps({"gpt-4-0613": "2021-09", "claude-2": "2023-01",
                                   "mystery": None}))
    fill = {"clones": tiny["clones"], "cutoffs": cutoffs, "root": tiny["root"],
            "instances": tiny["instances"]}
    extra, message = BAD[case]
    ids = ["acme__tiny-1", "acme__tiny-2", "acme__absent-3"]
    result = cli(*_args(tiny, ids, *[e.format(**fill) for e in extra]))
    assert result.exit_code == 2
    assert error_line(result).startswith(message.format(**fill))
    assert not (tiny["root"] / "logs").exists()          # the harness never started
    assert not (tiny["root"] / "reports").exists()       # no flags written


DATA = SHARED_DATA
REAL = ["psf__requests-1724", "psf__requests-5414"]


@pytest.mark.slow
def test_real_verified_instances_with_real_clones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  cli, read_jsonl, error_line) -> None:
    """Two real Verified instances of psf/requests at a 2024-04-30 cutoff, from full clones named
    by ``BENCHCHECKER_CLONES``: a verdict each, and the run stops only at the Docker boundary."""
    clones = os.environ.get("BENCHCHECKER_CLONES")
    if not clones:
        pytest.skip("set BENCHCHECKER_CLONES to a folder of full clones (owner__name/)")
    data = DATA / "swebench_verified" / "swebench_verified_composite.jsonl"
    if not data.is_file():
        pytest.skip(f"shared data not present: {data} (set BENCHCHECKER_SHARED_DATA)")
    if not (Path(clones) / "psf__requests").is_dir():
        pytest.skip(f"no clone of psf/requests in {clones}")
    _docker_unreachable()
    monkeypatch.chdir(tmp_path)
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps({"instance_id": i, "model_patch": "diff",
                                         "model_name_or_path": MODEL}) + "\n" for i in REAL))
    result = cli("swebench", "run_evaluation", "-d", data, "-p", preds, "-id", RUN,
                 "--report_dir", tmp_path / "reports", "--contamination-detect",
                 "--contamination-cutoff", "2024-04-30", "--repos-dir", clones)
    assert result.exit_code == 5
    assert error_line(result).startswith("Error: swebench harness stopped: Docker is not "
                                         "reachable ")
    flags = read_jsonl(tmp_path / "reports" / f"{MODEL.replace('/', '__')}.{RUN}"
                                              ".benchchecker_flags.jsonl")
    assert [f["instance_id"] for f in flags] == REAL
    for f in flags:
        assert "error" not in f["evidence"], f["evidence"]
        assert f["contaminated"] in (True, False, None)
        assert f["evidence"]["category"] in ("present", "pre-patch-only",
                                             "refactored-inconclusive", "file-or-function-gone")
    print({f["instance_id"]: (f["contaminated"], f["evidence"]["category"], f["score"])
           for f in flags}, [ln for ln in result.stderr.splitlines() if "detection:" in ln])
