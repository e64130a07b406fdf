"""The demo command: steps run, skips say why, failures fail, and the report names every step."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.demo import DemoContext, StepResult, run_step
from benchchecker_plugin.errors import DataError
from tests.helpers import SHARED_DATA, SWEEP, needs_shared_data, seeded_sample

DATA = SHARED_DATA
N_SAMPLED = 6   # submissions in the fast tier's data folder
NOT_SCORED = {"20250720_mini-v0.0.0-claude-3-7-sonnet-20250219"}   # its list disagrees with the board


def _submissions(runs: Path) -> list[Path]:
    return sorted(p for p in runs.iterdir() if p.is_dir() and not p.name.startswith("_"))


def _sampled_data(folder: Path) -> Path:
    """The shared data folder seen through links, with a seeded sample of the submissions."""
    folder.mkdir()
    for entry in DATA.iterdir():
        if entry.name != "swebench_experiments":
            (folder / entry.name).symlink_to(entry)
    runs = folder / "swebench_experiments"
    runs.mkdir()
    every = _submissions(DATA / "swebench_experiments")
    for entry in DATA.joinpath("swebench_experiments").iterdir():
        if entry not in every:   # index files, _raw/
            (runs / entry.name).symlink_to(entry)
    for entry in seeded_sample(every, N_SAMPLED):
        (runs / entry.name).symlink_to(entry)
    return folder


@needs_shared_data("swebench_experiments")
@SWEEP
def test_leaderboard_step_rescores_the_real_submissions(tmp_path: Path, whole: bool) -> None:
    data = DATA if whole else _sampled_data(tmp_path / "data")
    res = CliRunner().invoke(main, ["demo", "--only", "leaderboard", "-o", str(tmp_path / "o"),
                                    "--data-dir", str(data)])
    assert res.exit_code == 0, res.output
    tmp_path = tmp_path / "o"
    table = pd.read_csv(tmp_path / "leaderboard" / "leaderboard.csv")
    submissions = {p.name for p in _submissions(data / "swebench_experiments")}
    assert len(submissions) == (82 if whole else N_SAMPLED)
    assert set(table["submission"]) == submissions - NOT_SCORED
    assert "mean" not in res.output.lower()           # no mean of per-submission ratios
    html = (tmp_path / "index.html").read_text()
    assert "leaderboard/index.html" in html
    pooled = pd.read_csv(tmp_path / "leaderboard" / "summary.csv")
    assert set(pooled["group"]) >= {"all submissions"}
    assert (tmp_path / "leaderboard" / "patch_date" / "summary.csv").is_file()
    # the headline is the pooled drops over submissions, estimates with intervals, not "too few"
    # (patch-date flags alone left 3 resolved clean instances over all 81 submissions)
    lines = [line.strip() for line in res.output.splitlines() if "pooled drop" in line]
    assert lines[0].startswith("pooled drop, all submissions (Stage II; clean n="), lines
    assert lines[0].endswith("]") and "too few" not in lines[0], lines
    assert lines[-1].startswith("pooled drop, all submissions (patch dates only; clean n=")
    if whole:
        # the clean and resolved-clean counts behind the headline are the step's own summary's
        row = pooled[(pooled["group"] == "all submissions") & (pooled["tier"] == "all")].iloc[0]
        assert lines[0].startswith(f"pooled drop, all submissions (Stage II; clean n={int(row['n_clean'])}, "
                                   f"resolved {int(row['n_resolved_clean'])}): ")
        assert len([line for line in lines if line.endswith("]")]) >= 2, lines   # all, and a year
        assert lines[-1] == ("pooled drop, all submissions (patch dates only; clean n=115, resolved 3): "
                             "too few (clean n=115, resolved n=3)")


@needs_shared_data("swebench_experiments")
def test_leaderboard_step_without_the_bundle_says_why_every_cell_is_too_few(tmp_path: Path) -> None:
    """An installed wheel has no published/ folder: the step runs on patch dates and says why its
    cells cannot be estimated, instead of a page of "too few" with no reason."""
    from benchchecker_plugin.demo._steps import leaderboard_step

    ctx = DemoContext(out_dir=tmp_path / "o", data_dir=_sampled_data(tmp_path / "data"), quick=True)
    result = run_step(leaderboard_step, ctx, "leaderboard", "t")
    assert result.status == "ok", result.note
    assert "the republished Stage II verdicts (published/swebench-verified/flags.csv" in result.note
    assert all(key.startswith("pooled drop,") and "(patch dates; " in key for key in result.headline)
    assert not (tmp_path / "o" / "leaderboard" / "patch_date").exists()


def test_republished_flags_read_each_verdict(tmp_path: Path) -> None:
    from benchchecker_plugin.demo._steps import republished_flags
    from benchchecker_plugin.flags import Verdict

    (tmp_path / "flags.csv").write_text("instance_id,model,contaminated,score,category\n"
                                        "a__b-1,m,true,1.0,present\na__b-2,m,false,0.1,pre-patch-only\n"
                                        "a__b-3,m,,0.5,refactored-inconclusive\n")
    flags = republished_flags(tmp_path)
    assert [f.verdict for f in flags] == [Verdict.CONTAMINATED, Verdict.CLEAN, Verdict.UNDECIDED]
    assert {f.method for f in flags} == {"benchchecker.stage2"}
    assert flags[1].evidence["category"] == "pre-patch-only"
    (tmp_path / "flags.csv").write_text("instance_id,model,verdict\na__b-1,m,true\n")
    with pytest.raises(DataError, match=r"flags.csv: expected columns category, contaminated, "):
        republished_flags(tmp_path)


def test_steps_without_data_are_skipped_not_passed(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("BENCHCHECKER_DATA_DIR", str(tmp_path / "none"))
    monkeypatch.chdir(tmp_path)
    from benchchecker_plugin.demo._steps import leaderboard_step

    ctx = DemoContext(out_dir=tmp_path / "o", data_dir=None, quick=True)
    result = run_step(leaderboard_step, ctx, "leaderboard", "t")
    assert result.status == "skipped"
    assert result.note == "no data folder (../shared/data) with SWE-bench Verified and its submissions"


def test_a_failing_step_is_reported_as_failed(tmp_path: Path) -> None:
    def broken(ctx: DemoContext) -> StepResult:
        raise DataError("x.jsonl: broken on purpose")

    result = run_step(broken, DemoContext(tmp_path, None, True), "broken", "Broken")
    assert (result.status, result.note) == ("failed", "x.jsonl: broken on purpose")


def test_unknown_step_is_a_usage_error(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["demo", "--only", "nope", "-o", str(tmp_path)])
    assert res.exit_code == 2
    assert "unknown step(s) nope; steps: membership, stage2, tsguessing, leaderboard" in res.output


@needs_shared_data("mmlu")
def test_tsguessing_table_and_headline_come_from_a_real_run(small_controlled) -> None:  # type: ignore[no-untyped-def]
    """The step's table and figures, from the controlled check run for real at a small size (it was
    a hand-built result, so a check that stopped memorising went unnoticed): "flagged" counts items,
    like "items" beside it, and every figure names its seed and says what it measures."""
    from benchchecker_plugin.demo._steps import tsguessing_headline, tsguessing_table

    r = small_controlled[2]
    table = tsguessing_table(r)
    flagged = [sum(bool(f.contaminated) for f, seen in zip(r.flags, r.labels) if seen == half)
               for half in (True, False)]
    assert table["items"].tolist() == [6, 6] and table["flagged"].tolist() == flagged == [6, 0]
    headline, measures = tsguessing_headline(r)
    assert list(headline) == [f"{name} (seed 0, 12 MMLU items)" for name in (
        "TS-Guessing controlled", "fine-tune memorised", "EM seen", "EM not seen",
        "AUC ts_guessing (Rouge-L)", "AUC ts_guessing (EM)")]
    assert set(measures) == set(headline) and all(measures.values())
    assert headline["EM seen (seed 0, 12 MMLU items)"] >= 0.9
    assert headline["EM not seen (seed 0, 12 MMLU items)"] <= 0.05
    assert headline["AUC ts_guessing (Rouge-L) (seed 0, 12 MMLU items)"] >= 0.95


@needs_shared_data("mmlu")
def test_tsguessing_headline_of_an_unmemorised_draw_has_no_detector_figure(tmp_path: Path) -> None:
    import dataclasses

    from benchchecker_plugin.demo._steps import tsguessing_headline
    from benchchecker_plugin.tsguessing import CONTROLLED, run_controlled

    config = dataclasses.replace(CONTROLLED, items=8).seeded(0)
    config = dataclasses.replace(config, finetune=dataclasses.replace(config.finetune, max_steps=1))
    r, _ = run_controlled(tmp_path, DATA / "mmlu", config)
    headline, _ = tsguessing_headline(r)
    assert headline == {"TS-Guessing controlled (seed 0, 8 MMLU items)": "fine-tune memorised 0% of "
                        "the 4 seen targets in 1 steps; not a test of the detector",
                        "fine-tune memorised (seed 0, 8 MMLU items)": 0.0}


def test_library_bars_are_off_in_the_demo() -> None:
    """transformers' "Loading weights" and "Writing model shards" bars (an embedding model loaded by
    a step, a model saved) are off once the demo starts, whether or not transformers is loaded yet."""
    import subprocess
    import sys

    code = ("import os, sys\n{before}from benchchecker_plugin.cli._demo_cmd import quiet_library_bars\n"
            "quiet_library_bars()\nfrom transformers.utils import logging\n"
            "print(logging.is_progress_bar_enabled())")
    env = {k: v for k, v in __import__("os").environ.items() if k != "HF_HUB_DISABLE_PROGRESS_BARS"}
    for before in ("", "import transformers.utils.logging\n"):
        done = subprocess.run([sys.executable, "-c", code.format(before=before)], env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.stdout.strip() == "False", done.stderr[-2000:]


@pytest.mark.slow
@needs_shared_data("mmlu")
def test_demo_tsguessing_step_as_a_user_sees_it(tmp_path: Path) -> None:
    """The README's first command, its TS-Guessing step: the controlled headline at or above the
    floors, a progress line during fine-tuning (stderr is not a terminal: one line per tenth, with
    steps, rate, ETA and loss), no third-party progress bar, and the page names each figure's seed
    and what it measures."""
    import os
    import re
    import subprocess

    env = {k: v for k, v in os.environ.items() if k not in ("BENCHCHECKER_PROGRESS",
                                                            "HF_HUB_DISABLE_PROGRESS_BARS")}
    proc = subprocess.run(["benchchecker", "demo", "--only", "tsguessing", "-o", str(tmp_path / "o"),
                           "--data-dir", str(DATA)], capture_output=True, text=True, timeout=900,
                          env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    err, out = proc.stderr, proc.stdout
    tune = [ln for ln in err.splitlines() if ln.startswith("benchchecker: fine-tune tiny GPT-2: ")]
    assert tune and all(re.search(r"\d+/400 \(\d+%\), [\d.e+]+ steps/s", ln) for ln in tune), tune
    assert "loss " in tune[-1] and "memorised 100%" in tune[-1], tune
    for bar in ("Loading weights", "Writing model shards", "it/s]", "[transformers]"):
        assert bar not in err + out, bar
    m = re.search(r"TS-Guessing controlled \(seed 0, 100 MMLU items\): EM seen ([\d.]+) vs unseen "
                  r"([\d.]+), Rouge-L AUC ([\d.]+) \(seed 0; fine-tune memorised 100% of the 50 seen", out)
    assert m, out
    assert float(m[1]) >= 0.9 and float(m[2]) <= 0.05 and float(m[3]) >= 0.95
    html = (tmp_path / "o" / "index.html").read_text()
    assert "what it measures" in html and "EM seen (seed 0, 100 MMLU items)" in html
