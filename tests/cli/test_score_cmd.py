"""``benchchecker score / rescore / leaderboard`` through click's CliRunner, including the acceptance
run on the 82 real SWE-bench Verified submissions."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.flags import ContaminationFlag, write_flags
from benchchecker_plugin.scoring import LEADERBOARD_COLUMNS
from tests.helpers import SHARED_DATA, needs_shared_data

DATA = SHARED_DATA
EXPERIMENTS = DATA / "swebench_experiments"
COMPOSITE = DATA / "swebench_verified" / "swebench_verified_composite.jsonl"
needs_data = needs_shared_data("swebench_experiments")


def _rule_flags(ids, path, benchmark="swe-bench-verified"):
    """Deterministic stand-in for a detector: every 3rd instance contaminated, every 17th undecided."""
    flags = [ContaminationFlag(benchmark=benchmark, instance_id=i, model="*", method="rule",
                               contaminated=None if k % 17 == 0 else k % 3 == 0,
                               score=float(k % 7)) for k, i in enumerate(ids)]
    return write_flags(path, flags)


def _run(args):
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    return result


@needs_data
@pytest.mark.slow
def test_leaderboard_acceptance_on_real_submissions(tmp_path):
    ids = json.loads((EXPERIMENTS / "verified_instance_ids.json").read_text())
    flags = _rule_flags(ids, tmp_path / "flags.jsonl")
    out = tmp_path / "pub"
    result = _run(["leaderboard", "--submissions", str(EXPERIMENTS), "--flags", str(flags),
                   "--tiers", str(COMPOSITE), "--model-map",
                   str(DATA / "model_cutoffs" / "submission_models.csv"), "--out", str(out),
                   "--n-boot", "200", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    table = pd.read_csv(out / "leaderboard.csv", dtype={"date": str})
    assert tuple(table.columns) == LEADERBOARD_COLUMNS
    assert {p.name for p in out.iterdir()} == {"leaderboard.csv", "summary.csv", "leaderboard.md",
                                               "index.html", "README.md"}
    assert payload["flags"] == "Flags: rule (500 records, any model)"
    too_few = (table["n_clean"] < 20) | (table["n_resolved_clean"] < 10)
    assert table.loc[too_few, "relative_drop"].isna().all()
    assert table.loc[too_few & (table["n_clean"] > 0), "note"].str.startswith("too few (clean n=").all()
    # the submission whose per-instance list disagrees with the official board is not scored
    assert table["submission"].nunique() == 81
    assert [e["submission"] for e in payload["excluded"]] == [
        "20250720_mini-v0.0.0-claude-3-7-sonnet-20250219"]
    assert set(table["tier"]) == {"all", "<15 min fix", "15 min - 1 hour", "1-4 hours", ">4 hours"}
    everything = table[table["tier"] == "all"].set_index("submission")
    for sub in EXPERIMENTS.iterdir():
        res = sub / "results" / "results.json"
        if res.is_file() and sub.name in everything.index:
            n_resolved = len(json.loads(res.read_text())["resolved"])
            assert everything.loc[sub.name, "original_rate"] == n_resolved / 500, sub.name
            assert everything.loc[sub.name, "n_instances"] == 500
    # 30 of 500 ids are undecided (k % 17 == 0), reported, never silently dropped
    assert (everything["n_undecided"] == 30).all()
    assert any("undecided" in n for n in payload["notes"])
    # --json prints the same numbers as the CSV
    rows = pd.DataFrame(payload["rows"])[list(LEADERBOARD_COLUMNS)]
    for col in LEADERBOARD_COLUMNS:
        for a, b in zip(rows[col], table[col]):
            if col in ("submission", "model", "date", "tier"):
                assert str(a) == ("" if isinstance(b, float) and math.isnan(b) else str(b))
            elif isinstance(b, float) and math.isnan(b):
                assert a is None or (isinstance(a, float) and math.isnan(a))
            elif isinstance(b, float):
                assert a == pytest.approx(b, rel=1e-12)
            else:
                assert str(a) == str(b)
    html = (out / "index.html").read_text()
    assert html.count("<tr>") >= 82


def _small_run(tmp_path):
    ids = [f"o__r-{k}" for k in range(20)]
    pd.DataFrame({"instance_id": ids, "difficulty": ["<15 min fix", "1-4 hours"] * 10}).to_csv(
        tmp_path / "tiers.csv", index=False)
    report = {"resolved_ids": ids[:8], "submitted_ids": ids, "error_ids": []}
    (tmp_path / "org__m.run1.json").write_text(json.dumps(report))
    flags = _rule_flags(ids, tmp_path / "flags.jsonl")
    return ids, flags


def test_rescore_text_json_and_csv_agree(tmp_path):
    ids, flags = _small_run(tmp_path)
    base = ["rescore", "--results", str(tmp_path / "org__m.run1.json"), "--flags", str(flags),
            "--tiers", str(tmp_path / "tiers.csv"), "--n-boot", "100", "--min-clean", "0",
            "--min-resolved-clean", "0"]
    result = _run(base + ["--json", "--out", str(tmp_path / "r.csv")])
    assert result.exit_code == 0
    payload = json.loads(result.stdout)
    assert payload["model"] == "org/m" and payload["submission"] == "org__m.run1"
    table = pd.read_csv(tmp_path / "r.csv")
    assert table["tier"].tolist() == ["all", "<15 min fix", "1-4 hours"]
    assert [r["original_rate"] for r in payload["rows"]] == pytest.approx(table["original_rate"].tolist())
    assert payload["rows"][0]["original_rate"] == 8 / 20
    assert [r["drop_ci_low"] for r in payload["rows"]] == pytest.approx(table["drop_ci_low"].tolist())
    text = _run(base)
    assert text.exit_code == 0 and "<15 min fix" in text.stdout and "drop [95% CI]" in text.stdout
    # the terminal table is compact (the files hold every column) and says what the files say
    from benchchecker_plugin.report import drop_text, pct

    assert max(len(line) for line in text.stdout.splitlines()) <= 200
    all_row = next(line for line in text.stdout.splitlines() if " all " in line)
    assert pct(table["original_rate"][0]) in all_row and drop_text(table.iloc[0]) in all_row


def test_pinned_cli_errors(tmp_path):
    ids, _ = _small_run(tmp_path)
    other = _rule_flags(ids, tmp_path / "mmlu.jsonl", benchmark="mmlu")
    result = CliRunner().invoke(main, ["rescore", "--results", str(tmp_path / "org__m.run1.json"),
                                       "--flags", str(other), "--tiers", str(tmp_path / "tiers.csv")])
    assert result.exit_code == 2
    assert "no flags for benchmark swe-bench-verified (the file holds: mmlu)" in result.stderr
    (tmp_path / "bad.json").write_text(json.dumps({"resolved_ids": ["zz"]}))
    result = CliRunner().invoke(main, ["rescore", "--results", str(tmp_path / "bad.json"),
                                       "--flags", str(tmp_path / "flags.jsonl"),
                                       "--tiers", str(tmp_path / "tiers.csv")])
    assert result.exit_code == 2
    assert ("submission bad: 1 resolved instance ids are not in the benchmark's instance list: zz"
            in result.stderr)


def test_score_against_labels(tmp_path):
    ids = [f"i{k}" for k in range(60)]
    flags = [ContaminationFlag(benchmark="mmlu", instance_id=i, model="m", method="ts",
                               contaminated=None if k == 0 else k % 2 == 0, score=float(k % 2) + k / 100)
             for k, i in enumerate(ids)]
    write_flags(tmp_path / "f.jsonl", flags)
    pd.DataFrame({"instance_id": ids, "label": ["contaminated" if k % 2 == 0 else "clean"
                                                for k in range(60)]}).to_csv(tmp_path / "l.csv", index=False)
    result = _run(["score", "--flags", str(tmp_path / "f.jsonl"), "--labels", str(tmp_path / "l.csv"),
                   "--n-boot", "200", "--json"])
    assert result.exit_code == 0
    [row] = json.loads(result.stdout)["rows"]
    # positives (even k) have score k/100, negatives 1 + k/100: every negative outranks every positive
    assert row["auc"] == 0.0 and row["n"] == 60 and row["n_undecided"] == 1
    assert row["tpr"] == pytest.approx(29 / 30) and row["fpr"] == 0.0 and row["precision"] == 1.0
    assert row["auc_ci_low"] == 0.0 and row["auc_ci_high"] == 0.0


@pytest.mark.parametrize("cmd", ["score", "rescore", "leaderboard"])
def test_help_teaches(cmd):
    result = _run([cmd, "--help"])
    assert result.exit_code == 0 and "Example:" in result.stdout and "--flags" in result.stdout


def test_leaderboard_small_tiers_say_too_few_and_name_the_flags(tmp_path):
    ids = [f"o__r-{k}" for k in range(30)]
    pd.DataFrame({"instance_id": ids, "difficulty": ["<15 min fix"] * 24 + ["1-4 hours"] * 6}).to_csv(
        tmp_path / "tiers.csv", index=False)
    subs = tmp_path / "subs"
    subs.mkdir()
    for name, resolved in (("org__m.run1", ids[:12]), ("org__n.run1", ids[5:25])):
        (subs / f"{name}.json").write_text(json.dumps(
            {"resolved_ids": resolved, "submitted_ids": ids, "error_ids": []}))
    # 16 clean in '<15 min fix', 1 clean in '1-4 hours' (k = 25)
    flags = write_flags(tmp_path / "flags.jsonl", [
        ContaminationFlag(benchmark="swe-bench-verified", instance_id=i, model="*", method="rule",
                          contaminated=k % 3 == 0 if k < 24 else k != 25, score=1.0)
        for k, i in enumerate(ids)])
    out = tmp_path / "pub"
    base = ["leaderboard", "--submissions", str(subs), "--flags", str(flags), "--tiers",
            str(tmp_path / "tiers.csv"), "--out", str(out), "--n-boot", "50"]
    result = _run(base + ["--min-clean", "10", "--min-resolved-clean", "0"])
    assert result.exit_code == 0, result.output
    table = pd.read_csv(out / "leaderboard.csv")
    hard = table[table["tier"] == "1-4 hours"]
    assert hard["n_clean"].tolist() == [1, 1]
    assert hard["relative_drop"].isna().all() and hard["drop_ci_low"].isna().all()
    assert hard["note"].tolist() == ["too few (clean n=1, resolved n=0)",
                                     "too few (clean n=1, resolved n=0)"]
    assert (hard["clean_ci_high"] > hard["clean_ci_low"]).all()  # the interval is still shown
    easy = table[table["tier"] != "1-4 hours"]
    assert easy["relative_drop"].notna().all()
    assert not easy["note"].fillna("").str.startswith("too few").any()
    md = (out / "leaderboard.md").read_text()
    html = (out / "index.html").read_text()
    assert "| all submissions | 2 | 30 |" in md     # the pooled summary, with its distinct n
    assert html.count("too few (clean n=1, resolved n=0)") >= 2   # the folded long table
    line = "Flags: rule (30 records, any model)"
    for path in ("leaderboard.md", "index.html", "README.md"):
        assert line in (out / path).read_text(), path
    assert line in result.stderr

    # --min-clean 0: every defined drop shown, and the same as the ruled table elsewhere
    result = _run(base[:-4] + ["--out", str(tmp_path / "all"), "--n-boot", "50", "--min-clean", "0",
                               "--min-resolved-clean", "0"])
    assert result.exit_code == 0, result.output
    every = pd.read_csv(tmp_path / "all" / "leaderboard.csv")
    # org/n resolves 1 of 6 hard instances but not the one clean one: a "100% drop" from n=1
    # (org/m resolves none: no drop either way)
    drops = every.loc[every["tier"] == "1-4 hours", "relative_drop"].tolist()
    assert math.isnan(drops[0]) and drops[1] == 1.0
    assert not every["note"].fillna("").str.startswith("too few").any()
    pd.testing.assert_frame_equal(every[every["tier"] != "1-4 hours"].drop(columns="note"),
                                  easy.drop(columns="note"))


def test_blank_rows_are_explained_in_words_not_as_a_python_warning(tmp_path: Path) -> None:
    """Issue 13, item 12: a submission without a clean instance leaves its clean rate blank; the
    output says so in a note, and no ``UndefinedMetricWarning`` with a file and line leaks."""
    import json as _json

    from click.testing import CliRunner

    from benchchecker_plugin.cli import main
    from benchchecker_plugin.flags import ContaminationFlag, write_flags

    ids = ["a__b-1", "a__b-2"]
    write_flags(tmp_path / "f.jsonl", [ContaminationFlag("swe-bench-verified", i, "*", "test",
                                                         True, 1.0) for i in ids])
    (tmp_path / "ids.json").write_text(_json.dumps(ids))
    report = {"resolved_ids": ids[:1], "submitted_ids": ids}
    (tmp_path / "m.run1.json").write_text(_json.dumps(report))
    res = CliRunner().invoke(main, ["rescore", "--results", str(tmp_path / "m.run1.json"),
                                    "--flags", str(tmp_path / "f.jsonl"), "--instances",
                                    str(tmp_path / "ids.json"), "--n-boot", "0"])
    assert res.exit_code == 0, res.output
    assert ("1 submissions have no clean instance: their clean rate and relative drop are left "
            "blank.") in res.stderr
    assert "UndefinedMetricWarning" not in res.stderr and ".py:" not in res.stderr


def test_our_warnings_are_one_line_in_words(tmp_path: Path) -> None:
    """Issue 13, item 12: a warning raised by benchchecker's code (an AUC undefined with one
    class of labels) is printed as ``benchchecker: warning: ...``, without file and source line."""
    import json as _json

    from click.testing import CliRunner

    from benchchecker_plugin.cli import main
    from benchchecker_plugin.flags import ContaminationFlag, write_flags

    ids = ["a__b-1", "a__b-2", "a__b-3"]
    write_flags(tmp_path / "f.jsonl", [ContaminationFlag("swe-bench-verified", i, "*", "test",
                                                         k % 2 == 0, float(k))
                                       for k, i in enumerate(ids)])
    (tmp_path / "labels.jsonl").write_text("".join(
        _json.dumps({"instance_id": i, "label": 1}) + "\n" for i in ids))
    res = CliRunner().invoke(main, ["score", "--flags", str(tmp_path / "f.jsonl"), "--labels",
                                    str(tmp_path / "labels.jsonl")])
    warned = [ln for ln in res.stderr.splitlines() if ln.startswith("benchchecker: warning: ")]
    assert warned, res.output
    assert ".py:" not in res.stderr and "Warning:" not in res.stderr
