"""The re-scoring pipelines as library functions: ``rescore_run`` and ``build_leaderboard`` give
what ``benchchecker rescore`` / ``leaderboard`` print and write (the commands are thin wrappers)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.errors import DataError, InputError
from benchchecker_plugin.flags import ContaminationFlag, write_flags
from benchchecker_plugin.leaderboard import (
    build_leaderboard,
    load_submissions,
    rate_submissions,
    rescore_run,
    write_leaderboard,
)
from benchchecker_plugin.leaderboard._pipeline import RUN_INSTANCES
from benchchecker_plugin.scoring import LEADERBOARD_COLUMNS

IDS = [f"o__r-{k}" for k in range(30)]


@pytest.fixture
def inputs(tmp_path: Path) -> dict[str, Path]:
    """30 instances in two tiers, two run reports, flags: every 3rd contaminated, every 7th
    undecided; only one clean instance in the '1-4 hours' tier."""
    pd.DataFrame({"instance_id": IDS, "difficulty": ["<15 min fix"] * 24 + ["1-4 hours"] * 6}).to_csv(
        tmp_path / "tiers.csv", index=False)
    subs = tmp_path / "subs"
    subs.mkdir()
    for name, resolved in (("org__m.run1", IDS[:12]), ("org__n.run1", IDS[5:25])):
        (subs / f"{name}.json").write_text(json.dumps(
            {"resolved_ids": resolved, "submitted_ids": IDS, "error_ids": []}))
    flags = write_flags(tmp_path / "flags.jsonl", [
        ContaminationFlag(benchmark="swe-bench-verified", instance_id=i, model="*", method="rule",
                          contaminated=None if k % 7 == 0 else (k % 3 == 0 if k < 24 else k != 25),
                          score=1.0)
        for k, i in enumerate(IDS)])
    return {"tiers": tmp_path / "tiers.csv", "subs": subs, "flags": flags,
            "run": subs / "org__m.run1.json"}


def test_rescore_run_is_what_the_command_prints(inputs: dict[str, Path]) -> None:
    run = rescore_run(inputs["run"], inputs["flags"], tiers_path=inputs["tiers"], n_boot=50)
    assert tuple(run.table.columns) == LEADERBOARD_COLUMNS
    assert [s.name for s in run.submissions] == ["org__m.run1"] and run.submissions[0].model == "org/m"
    assert run.denominator == RUN_INSTANCES
    assert run.notes[0].startswith("30 instances in the denominator (the run's instances)")
    assert any("verdicts were undecided" in n for n in run.notes)
    result = CliRunner().invoke(main, ["rescore", "--results", str(inputs["run"]), "--flags",
                                       str(inputs["flags"]), "--tiers", str(inputs["tiers"]),
                                       "--n-boot", "50", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["notes"] == list(run.notes) and payload["denominator"] == run.denominator
    printed = pd.DataFrame(payload["rows"])
    assert printed["tier"].tolist() == run.table["tier"].tolist() == ["all", "<15 min fix", "1-4 hours"]
    for col in ("original_rate", "clean_rate", "n_clean", "n_undecided"):
        assert printed[col].tolist() == pytest.approx(run.table[col].tolist()), col
    renamed = rescore_run(inputs["run"], inputs["flags"], tiers_path=inputs["tiers"], n_boot=0,
                          model="org/other")
    assert renamed.submissions[0].model == "org/other"


def test_a_subset_run_is_rated_over_its_own_instances(inputs: dict[str, Path],
                                                      tmp_path: Path) -> None:
    """Issue 29: a run of 6 instances re-scored with a 30-instance tiers file was rated over 30
    (original rate 4/30); --tiers only labels, the denominator is the run's 6 unless --instances
    names another list."""
    run = tmp_path / "org__m.sub.json"
    run.write_text(json.dumps({"resolved_ids": IDS[:4], "submitted_ids": IDS[:6]}))
    rated = rescore_run(run, inputs["flags"], tiers_path=inputs["tiers"], n_boot=0)
    [row] = rated.table[rated.table["tier"] == "all"].to_dict("records")
    assert (row["n_instances"], row["original_rate"]) == (6, pytest.approx(4 / 6))
    assert rated.denominator == RUN_INSTANCES
    listed = tmp_path / "ids.json"
    listed.write_text(json.dumps(IDS))
    wide = rescore_run(run, inputs["flags"], tiers_path=inputs["tiers"], instances_path=listed,
                       n_boot=0)
    [row] = wide.table[wide.table["tier"] == "all"].to_dict("records")
    assert (row["n_instances"], row["original_rate"]) == (30, pytest.approx(4 / 30))
    assert wide.notes[0].startswith("30 instances in the denominator (the benchmark's instance")


def test_build_leaderboard_notes_files_and_table(inputs: dict[str, Path], tmp_path: Path) -> None:
    board = build_leaderboard(inputs["subs"], inputs["flags"], tiers_path=inputs["tiers"], n_boot=50,
                              min_clean=10, min_resolved_clean=0)
    assert board.notes[0] == (f"Benchmark swe-bench-verified; 2 submissions from {inputs['subs']}, "
                              f"2 scored; flags {inputs['flags']}; 50 cluster-bootstrap resamples "
                              "(seed 0).")
    assert board.notes[-1] == ("2 (submission, tier) rows have fewer than 10 clean or 0 resolved "
                               "clean instances: no relative drop is shown for them ('too few').")
    assert board.flags_line == "Flags: rule (30 records, any model)"
    # the pooled summary: every submission, then each year (the two runs carry no date)
    assert board.summary is not None
    assert list(dict.fromkeys(board.summary["group"])) == ["all submissions"]
    assert board.summary.iloc[0]["n_submissions"] == 2
    paths = write_leaderboard(board, tmp_path / "pub")
    assert {p.name for p in paths.values()} == {"leaderboard.csv", "summary.csv", "leaderboard.md",
                                                "index.html", "README.md"}
    # the table in memory is the CSV it writes (the demo reads the table, not the file)
    written = pd.read_csv(paths["csv"])
    for col in ("submission", "tier", "n_clean", "n_contaminated", "n_undecided", "original_rate",
                "relative_drop"):
        if written[col].dtype.kind == "f":
            assert written[col].tolist() == pytest.approx(board.table[col].tolist(), nan_ok=True), col
        else:
            assert written[col].tolist() == board.table[col].tolist(), col
    result = CliRunner().invoke(main, ["leaderboard", "--submissions", str(inputs["subs"]), "--flags",
                                       str(inputs["flags"]), "--tiers", str(inputs["tiers"]),
                                       "--n-boot", "50", "--out", str(tmp_path / "cli"), "--json",
                                       "--min-clean", "10", "--min-resolved-clean", "0"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["notes"] == list(board.notes) and payload["flags"] == board.flags_line
    assert (tmp_path / "cli" / "leaderboard.csv").read_text() == paths["csv"].read_text()
    everyone = build_leaderboard(inputs["subs"], inputs["flags"], tiers_path=inputs["tiers"],
                                 n_boot=0, min_clean=0, min_resolved_clean=0)
    assert not any("too few" in n for n in everyone.notes)


def test_errors_name_the_input(inputs: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(InputError, match=f"{inputs['subs']}: holds 2 runs; rescore takes one"):
        rescore_run(inputs["subs"], inputs["flags"], tiers_path=inputs["tiers"])
    subs = load_submissions(inputs["run"])
    with pytest.raises(InputError, match="give --instances"):
        rate_submissions(subs, inputs["flags"])
    with pytest.raises(DataError, match="no flags for benchmark mmlu"):
        rate_submissions(subs, inputs["flags"], benchmark="mmlu", tiers_path=inputs["tiers"])
    short = tmp_path / "short.csv"
    pd.DataFrame({"instance_id": IDS[:3], "difficulty": ["<15 min fix"] * 3}).to_csv(short,
                                                                                   index=False)
    with pytest.raises(DataError, match="9 resolved instance ids are not in the benchmark's "
                                        "instance list"):   # the tiers list is the benchmark's
        rate_submissions(subs, inputs["flags"], tiers_path=short)


def test_a_subset_is_the_denominator_and_ids_outside_it_are_not_in_it(
        inputs: dict[str, Path], tmp_path: Path) -> None:
    """Issue 39: ``--instances`` a subset rates over it, as swebench's ``-i``: of run1's 12
    resolved (IDS[:12]) the 3 of the subset count, over 3; no error for the 9 outside it."""
    short = tmp_path / "short.csv"
    pd.DataFrame({"instance_id": IDS[:3]}).to_csv(short, index=False)
    subs = load_submissions(inputs["run"])
    for tiers in (None, inputs["tiers"]):
        rated = rate_submissions(subs, inputs["flags"], instances_path=short, tiers_path=tiers,
                                 n_boot=0)
        [row] = rated.table[rated.table["tier"] == "all"].to_dict("records")
        assert row["n_instances"] == 3 and row["original_rate"] == 1.0
        assert rated.submissions[0].resolved == frozenset(IDS[:3])
        name = subs[0].name   # the note names the submission and the first ids it resolved outside
        assert rated.notes[-1] == (f"Rated on the subset {short} (3 instances, the denominator): "
                                   "9 resolved (submission, instance) pairs outside it are not "
                                   f"counted ({name}: {', '.join(sorted(IDS[3:12])[:3])} ...).")


@pytest.mark.parametrize("named", ["org/other", ""])
def test_a_run_whose_model_no_flag_names_says_which_models_the_flags_hold(
        named: str, tmp_path: Path) -> None:
    """Issue 29: a run whose model matched no flag printed 0 clean, all undecided and "no clean
    instance"; now it names the models the flags hold and the option that picks one."""
    run = tmp_path / "final.json"
    run.write_text(json.dumps({"resolved_ids": IDS[:2], "submitted_ids": IDS[:4]}))
    flags = write_flags(tmp_path / "flags.jsonl", [
        ContaminationFlag(benchmark="swe-bench-verified", instance_id=i, model=m, method="rule",
                          contaminated=k % 2 == 0, score=1.0)
        for k, i in enumerate(IDS[:4]) for m in ("gpt-4o-2024-05-13", "claude-3")])
    with pytest.raises(InputError) as err:
        rescore_run(run, flags, model=named or None, n_boot=0)
    who = f"model '{named}'" if named else "the run's model (the results name none)"
    assert str(err.value) == (f"{flags}: no swe-bench-verified flags for {who}; the flags hold "
                              "claude-3, gpt-4o-2024-05-13: pass --model NAME to pick one")
    picked = rescore_run(run, flags, model="gpt-4o-2024-05-13", n_boot=0)
    [row] = picked.table[picked.table["tier"] == "all"].to_dict("records")
    assert (row["n_clean"], row["n_contaminated"]) == (2, 2)


def _generated_board(root: Path) -> dict[str, Path]:
    """A small board like benchmarks/flags_scale.py's: 9 submissions (experiments layout) on four
    models, one on two models, one on none; two methods, per-model and "*" records, every
    verdict, not every instance flagged; four tiers."""
    import random

    rng = random.Random(4)
    ids = [f"org__repo-{k}" for k in range(160)]
    tiers = ("<15 min fix", "15 min - 1 hour", "1-4 hours", ">4 hours")
    (root / "tiers.csv").write_text("instance_id,difficulty\n" + "".join(
        f"{i},{tiers[k % 4]}\n" for k, i in enumerate(ids)))
    models = ["model-0", "model-1", "model-2", "model-3", "model-0;model-1", "UNDISCLOSED",
              "model-2", "model-1", "model-3"]
    for k, model in enumerate(models):
        folder = root / "subs" / f"2025010{k % 3 + 1}_sub{k}"
        (folder / "results").mkdir(parents=True)
        resolved = [i for i in ids if rng.random() < 0.3 + 0.05 * k]
        (folder / "results" / "results.json").write_text(json.dumps({"resolved": resolved}))
        (folder / "metadata.yaml").write_text(f"info:\n  name: sub {k}\ntags:\n  model: [{model}]\n")
    flags = [ContaminationFlag(benchmark=bench, instance_id=i, model=m, method=method,
                               contaminated=rng.choice([True, False, False, None]),
                               score=rng.random(), created_at="2026-01-01T00:00:00Z")
             for bench in ("swe-bench-verified", "other") for i in ids
             for m in ("model-0", "model-1", "model-2", "*") for method in ("a.one", "a.two")
             if rng.random() < (0.2 if m == "*" else 0.6)]
    return {"subs": root / "subs", "tiers": root / "tiers.csv",
            "flags": write_flags(root / "flags.jsonl", flags)}


def _slow_strata_sums(resolved, codes, tier_idx, n_tiers, *, n_boot, seed, draws=None):
    """The strata sums the obvious way: the whole draw at once, every quantity of every
    submission summed over the explicit resamples."""
    import numpy as np

    from benchchecker_plugin.scoring._pooled import StrataSums
    from tests.helpers.bootstrap import resample_counts

    draws = resample_counts(tier_idx, n_tiers, n_boot, seed)
    quantities = np.stack([resolved, codes == 0, resolved & (codes == 0), codes == 1,
                           resolved & (codes == 1), codes == 2, resolved & (codes == 2)], axis=1)
    q = np.stack([np.einsum("bi,sqi->bqs", draws[t].astype(np.float64),
                            quantities[:, :, tier_idx == t]) for t in range(n_tiers)])
    return StrataSums(q, np.stack([w.sum(axis=1, dtype=np.float64) for w in draws]))


def test_the_leaderboard_equals_the_slow_reference_file_for_file(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 38: the leaderboard reads flags as columns, codes verdicts per instance list and
    sums the bootstrap per distinct verdict row; its tables and files are those of the plain path:
    every flag read as a record, verdicts merged per submission in dicts (verdicts_by_submission),
    the strata summed over the explicit whole draw."""
    import benchchecker_plugin.scoring._rates as rates
    from benchchecker_plugin.flags import read_flags
    from benchchecker_plugin.leaderboard import (
        load_instance_ids,
        load_tiers,
        summary_groups,
        verdicts_by_submission,
    )
    from benchchecker_plugin.report import describe_flags, write_leaderboard_report
    from benchchecker_plugin.scoring import rate_and_pool

    data = _generated_board(tmp_path)
    options = dict(tiers_path=data["tiers"], n_boot=40, seed=3, min_clean=5, min_resolved_clean=2)
    board = build_leaderboard(data["subs"], data["flags"], **options)
    write_leaderboard(board, tmp_path / "new")

    subs = load_submissions(data["subs"])
    ids = load_instance_ids(data["tiers"])
    flags = [f for f in read_flags(data["flags"]) if f.benchmark == "swe-bench-verified"]
    verdicts = verdicts_by_submission(flags, subs, benchmark="swe-bench-verified")
    monkeypatch.setattr(rates, "strata_sums", _slow_strata_sums)
    table, summary = rate_and_pool({s.name: s.resolved for s in subs}, ids, verdicts,
                                   load_tiers(data["tiers"], instance_ids=ids),
                                   groups=summary_groups(subs), models={s.name: s.model for s in subs},
                                   dates={s.name: s.date for s in subs}, **options)
    pd.testing.assert_frame_equal(board.table, table, check_exact=True)
    pd.testing.assert_frame_equal(board.summary, summary, check_exact=True)
    assert board.flags_line == describe_flags(flags)
    assert list(board.flags) == flags
    write_leaderboard_report(table, tmp_path / "old", notes=board.notes, flags_line=describe_flags(flags),
                             summary=summary)
    new = sorted(p.name for p in (tmp_path / "new").iterdir())
    assert new == sorted(p.name for p in (tmp_path / "old").iterdir()) and "leaderboard.csv" in new
    for name in new:
        assert (tmp_path / "new" / name).read_bytes() == (tmp_path / "old" / name).read_bytes(), name
    assert table["relative_drop"].notna().any() and (table["n_undecided"] > 0).any()
