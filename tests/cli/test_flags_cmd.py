from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.flags import ContaminationFlag, read_flags, write_flags
from tests.helpers import SHARED_DATA, SWEEP, needs_shared_data, sweep


def _flags(method: str, values) -> list[ContaminationFlag]:
    return [ContaminationFlag(benchmark="swe-bench-verified", instance_id=f"astropy__astropy-{i}",
                              model="m", method=method, contaminated=v, score=float(i))
            for i, v in enumerate(values)]


def test_validate_merge_show(tmp_path: Path) -> None:
    a = write_flags(tmp_path / "a.jsonl", _flags("benchchecker.stage1", [True, False, None, False]))
    b = write_flags(tmp_path / "b.jsonl", _flags("benchchecker.stage2", [False, False, None, True]))
    runner = CliRunner()
    res = runner.invoke(main, ["flags", "validate", str(a), str(b)])
    assert res.exit_code == 0, res.output
    assert res.output.splitlines() == [f"{a}: 4 valid records", f"{b}: 4 valid records"]

    out = tmp_path / "m.jsonl"
    res = runner.invoke(main, ["flags", "merge", str(a), str(b), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert ("8 records from 2 file(s) -> 4 merged verdicts (2 contaminated, 1 clean, 1 undecided)"
            in res.output)
    assert [m.contaminated for m in read_flags(out)] == [True, False, None, True]

    res = runner.invoke(main, ["flags", "show", str(a), str(b)])
    assert res.exit_code == 0, res.output
    assert "benchchecker.stage1" in res.output and "benchchecker.stage2" in res.output


def test_bad_file_exits_non_zero_with_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"schema_version": 1}\n')
    res = CliRunner().invoke(main, ["flags", "validate", str(bad)])
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        f"Error: {bad}:1: field 'benchmark': 'benchmark' is a required property"]


def test_help_of_every_command_works() -> None:
    runner = CliRunner()
    res = runner.invoke(main, ["--help"])
    assert res.exit_code == 0
    commands = [line.split()[0] for line in res.output.split("Commands:")[1].splitlines() if line.strip()]
    assert {"demo", "flags", "cache"} <= set(commands) or {"demo", "flags"} <= set(commands)
    for name in commands:
        sub = runner.invoke(main, [name, "--help"])
        assert sub.exit_code == 0, (name, sub.output)
        assert "Usage:" in sub.output


def test_merge_policy_choices_follow_the_enum() -> None:
    from benchchecker_plugin.flags import MergePolicy

    res = CliRunner().invoke(main, ["flags", "merge", "--help"])
    assert res.exit_code == 0
    assert "[" + "|".join(p.value for p in MergePolicy) + "]" in res.output
    assert "--assume-repo-seen" in res.output


def test_merge_benchchecker_policy_and_assume_repo_seen(tmp_path: Path) -> None:
    """Stage II only (a closed model): undecided unless clean, with a warning counting the
    instances without Stage I; --assume-repo-seen takes the repository as seen and says so."""
    s2 = write_flags(tmp_path / "s2.jsonl", _flags("benchchecker.stage2", [True, False, None]))
    out = tmp_path / "m.jsonl"
    runner = CliRunner()
    res = runner.invoke(main, ["flags", "merge", str(s2), "-o", str(out), "--policy", "benchchecker"])
    assert res.exit_code == 0, res.output
    assert [m.contaminated for m in read_flags(out)] == [None, False, None]
    assert ("warning: 3 of 3 verdicts have no benchchecker.stage1 flag: undecided unless Stage II "
            "says clean (closed model? add --assume-repo-seen)") in res.stderr

    res = runner.invoke(main, ["flags", "merge", str(s2), "-o", str(out), "--policy", "benchchecker",
                               "--assume-repo-seen"])
    assert res.exit_code == 0, res.output
    merged = read_flags(out)
    assert [m.contaminated for m in merged] == [True, False, None]
    assert merged[0].evidence["assumed"] == {
        "benchchecker.stage1": True, "reason": "these repositories are among the most-starred on GitHub"}
    assert "note: 3 of 3 verdicts assume benchchecker.stage1 = true" in res.stderr
    assert "warning" not in res.stderr

    s1 = write_flags(tmp_path / "s1.jsonl", _flags("benchchecker.stage1", [True, True, False]))
    res = runner.invoke(main, ["flags", "merge", str(s1), str(s2), "-o", str(out), "--policy",
                               "benchchecker"])
    assert res.exit_code == 0, res.output
    assert [m.contaminated for m in read_flags(out)] == [True, False, False]
    assert "warning" not in res.stderr

    res = runner.invoke(main, ["flags", "merge", str(s2), "-o", str(out), "--assume-repo-seen"])
    assert res.exit_code == 2
    assert "assume_repo_seen applies only to the 'benchchecker' policy, not to 'any'" in res.stderr


def test_merge_keeps_undecided_stage2_undecided(tmp_path: Path) -> None:
    """Issue 13 item 2 through the CLI: Stage II null + Stage I false is not clean under any."""
    a = write_flags(tmp_path / "a.jsonl", _flags("benchchecker.stage1", [False]))
    b = write_flags(tmp_path / "b.jsonl", _flags("benchchecker.stage2", [None]))
    out = tmp_path / "m.jsonl"
    res = CliRunner().invoke(main, ["flags", "merge", str(a), str(b), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert [m.contaminated for m in read_flags(out)] == [None]


def test_patch_dates_writes_flags_per_model(tmp_path: Path) -> None:
    rows = [{"instance_id": "o__r-100", "repo": "o/r", "created_at": "2021-03-01T00:00:00Z"},
            {"instance_id": "o__r-150", "repo": "o/r"},
            {"instance_id": "o__r-200", "repo": "o/r"}]
    base = {"base_commit": "0" * 40, "patch": "--- a/x.py\n+++ b/x.py\n"}
    instances = tmp_path / "inst.jsonl"
    instances.write_text("".join(json.dumps({**r, **base}) + "\n" for r in rows))
    dates = tmp_path / "dated.json"
    dates.write_text(json.dumps([{**base, "instance_id": "o__r-200", "repo": "o/r",
                                  "created_at": "2023-06-15T00:00:00Z"}]))
    cutoffs = tmp_path / "cutoffs.csv"
    cutoffs.write_text("model,cutoff\nm-old,2020\nm-new,2023-07\nm-secret,\n")
    out = tmp_path / "pd.jsonl"
    runner = CliRunner()
    res = runner.invoke(main, ["flags", "patch-dates", str(instances), "--dates", str(dates),
                               "--cutoffs", str(cutoffs), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert (f"3 instances (2 with created_at) x 2 models -> 6 flags (3 contaminated, 3 clean, "
            f"0 undecided) in {out}") in res.stdout
    assert "note: 1 model(s) without a known cutoff left out: m-secret" in res.stderr
    got = {(f.model, f.instance_id): f.contaminated for f in read_flags(out)}
    assert got == {("m-new", "o__r-100"): True, ("m-new", "o__r-150"): True,
                   ("m-new", "o__r-200"): True, ("m-old", "o__r-100"): False,
                   ("m-old", "o__r-150"): False, ("m-old", "o__r-200"): False}
    assert {f.method for f in read_flags(out)} == {"benchchecker.patch_date"}
    assert {f.benchmark for f in read_flags(out)} == {"swe-bench-verified"}

    # without the dates file only one instance is dated: 150 and 200 lie after it, undecided for
    # m-new; a file with no date at all gets a warning
    res = runner.invoke(main, ["flags", "patch-dates", str(instances), "--cutoffs", str(cutoffs),
                               "-o", str(out), "--benchmark", "my-bench"])
    assert res.exit_code == 0, res.output
    flags = read_flags(out)
    assert {f.benchmark for f in flags} == {"my-bench"}
    assert {f.instance_id: f.contaminated for f in flags if f.model == "m-new"} == {
        "o__r-100": True, "o__r-150": None, "o__r-200": None}
    undated = tmp_path / "undated.jsonl"
    undated.write_text(json.dumps({**rows[1], **base}) + "\n")
    res = runner.invoke(main, ["flags", "patch-dates", str(undated), "--cutoffs", str(cutoffs),
                               "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert "warning: no instance of" in res.stderr and "every flag is undecided" in res.stderr


def test_patch_dates_errors_name_the_input(tmp_path: Path) -> None:
    instances = tmp_path / "inst.jsonl"
    instances.write_text(json.dumps({"instance_id": "o__r-1", "repo": "o/r", "base_commit": "0" * 40,
                                     "patch": "x"}) + "\n")
    cutoffs = tmp_path / "c.csv"
    cutoffs.write_text("model,cutoff\nm,unknown\n")
    res = CliRunner().invoke(main, ["flags", "patch-dates", str(instances), "--cutoffs", str(cutoffs),
                                    "-o", str(tmp_path / "o.jsonl")])
    assert res.exit_code == 2
    assert f"{cutoffs}: no model has a known cutoff" in res.stderr
    res = CliRunner().invoke(main, ["flags", "patch-dates", str(tmp_path / "nope.jsonl"),
                                    "--cutoffs", str(cutoffs), "-o", str(tmp_path / "o.jsonl")])
    assert res.exit_code == 2


DATA = SHARED_DATA


@needs_shared_data("swebench_verified")
@SWEEP
def test_patch_dates_on_swebench_verified(tmp_path: Path, whole: bool) -> None:
    """The command on the real composite (no created_at) dated from the full-fields subset equals
    the rows read by hand (the demo's former reader); the fast tier takes a seeded sample of it."""
    from benchchecker_plugin.patch_dates import fix_dates, patch_date_flags, read_model_cutoffs

    data = DATA
    folder = data / "swebench_verified"
    composite = folder / "swebench_verified_composite.jsonl"
    lines = composite.read_text().splitlines()
    if not whole:
        lines = sweep(lines, whole, k=25)
        composite = tmp_path / "composite_sample.jsonl"
        composite.write_text("".join(ln + "\n" for ln in lines))
    dated = {}
    for line in (folder / "swebench_verified_fullfields_subset.jsonl").read_text().splitlines():
        row = json.loads(line)
        dated[row["instance_id"]] = row.get("created_at")
    rows = []
    for line in lines:
        row = json.loads(line)
        rows.append({"instance_id": row["instance_id"], "repo": row["repo"],
                     "created_at": row.get("created_at") or dated.get(row["instance_id"])})
    assert len(rows) == (500 if whole else 25)
    out = tmp_path / "pd.jsonl"
    res = CliRunner().invoke(main, [
        "flags", "patch-dates", str(composite),
        "--dates", str(data / "swebench_verified" / "swebench_verified_fullfields_subset.jsonl"),
        "--cutoffs", str(data / "model_cutoffs" / "model_cutoffs.csv"), "-o", str(out)])
    assert res.exit_code == 0, res.output
    want = patch_date_flags(fix_dates(rows),
                            read_model_cutoffs(data / "model_cutoffs" / "model_cutoffs.csv"))
    got = read_flags(out)
    assert [(f.key, f.contaminated, f.score) for f in got] == [
        (f.key, f.contaminated, f.score) for f in want]


def test_merge_help_says_what_a_missing_record_does(tmp_path: Path) -> None:
    """Issue 29: the help said a method without a record "counts as undecided"; it does not vote
    (as the README says): one method's clean alone makes the merged verdict clean."""
    a = write_flags(tmp_path / "a.jsonl", _flags("benchchecker.stage1", [False, False]))
    b = write_flags(tmp_path / "b.jsonl", _flags("benchchecker.stage2", [False]))
    out = tmp_path / "m.jsonl"
    res = CliRunner().invoke(main, ["flags", "merge", str(a), str(b), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert [f.contaminated for f in read_flags(out)] == [False, False]
    text = " ".join(CliRunner().invoke(main, ["flags", "merge", "--help"]).output.split())
    assert "a method with no record for an instance does not vote" in text
    assert "counts as undecided" not in text


def test_show_never_cuts_a_model_name(tmp_path: Path) -> None:
    """Two models sharing a long prefix stay two readable rows (rich cut both to one prefix)."""
    long = "hf/" + "HuggingFaceTB/SmolLM2-135M-Instruct-finetuned-on-mmlu-" * 3
    recs = [ContaminationFlag(benchmark="mmlu", instance_id=f"q{i}", model=long + tag,
                              method="ts_guessing.multichoice", contaminated=False, score=0.0)
            for i, tag in enumerate(["seed0", "seed1"])]
    path = write_flags(tmp_path / "f.jsonl", recs)
    res = CliRunner().invoke(main, ["flags", "show", str(path)])
    assert res.exit_code == 0, res.output
    assert long + "seed0" in res.output and long + "seed1" in res.output
