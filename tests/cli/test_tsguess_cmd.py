"""``benchchecker ts-guess`` end to end on a tiny local model, and its input errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.flags import read_flags
from tests.helpers import SHARED_DATA, tiny_lm
from tests.helpers.mc_tasks import ARC, write_lm_eval_tasks

TQA = SHARED_DATA / "truthfulqa" / "TruthfulQA.csv"


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.setenv(var, "1")
    monkeypatch.setenv("BENCHCHECKER_PROGRESS", "0")


@pytest.fixture(scope="module")
def untrained_lm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not TQA.exists():
        pytest.skip(f"shared data not present: {TQA}")
    return tiny_lm.build_tiny_lm(tmp_path_factory.mktemp("tsg_cli_lm"),
                                 [TQA.read_text(encoding="utf-8")[:20000]])


@pytest.mark.model
def test_truthfulqa_question_mode_writes_flags_and_summary(untrained_lm: Path, tmp_path: Path) -> None:
    out = tmp_path / "f.jsonl"
    res = CliRunner().invoke(main, ["ts-guess", "--benchmark", "truthfulqa", "--mode", "question",
                                    "--model", f"hf/{untrained_lm}", "--data", str(TQA), "--limit", "3",
                                    "--max-tokens", "4", "--cache-dir", str(tmp_path / "cache"),
                                    "-o", str(out)])
    assert res.exit_code == 0, res.output
    lines = res.stdout.strip().splitlines()
    assert lines[0] == ("truthfulqa question: 817 items, 84 dropped (meaningless_category 53, "
                        "no_content_word 6, too_short 25), 3 asked, 0 failed")
    assert lines[1].startswith("exact match ") and lines[1].endswith(f"-> {out}")
    flags = read_flags(out)
    assert [f.instance_id for f in flags] == ["0", "1", "2"]
    assert {f.method for f in flags} == {"ts_guessing.question"} and flags[0].model == f"hf/{untrained_lm}"
    assert flags[0].evidence["target"] == "watermelon" and "[MASK]" in flags[0].evidence["masked_item"]


@pytest.mark.model
def test_answers_are_cached_and_dry_run_counts_calls(untrained_lm: Path, tmp_path: Path) -> None:
    """ts-guess goes through the response cache: a dry run after a run needs no model call; with
    --no-cache it would ask every probe again; neither writes flags (issue 13, item 4)."""
    args = ["ts-guess", "--benchmark", "truthfulqa", "--mode", "multichoice", "--model",
            f"hf/{untrained_lm}", "--data", str(TQA), "--limit", "3", "--max-tokens", "4",
            "--device", "cpu", "--cache-dir", str(tmp_path / "cache")]
    first = CliRunner().invoke(main, [*args, "-o", str(tmp_path / "f.jsonl")])
    assert first.exit_code == 0, first.output
    dry = CliRunner().invoke(main, [*args, "--dry-run", "-o", str(tmp_path / "g.jsonl")])
    assert dry.exit_code == 0, dry.output
    assert dry.stdout.strip() == (f"truthfulqa multichoice: 3 probes; dry run: 3 model calls "
                                  f"(3 cached) for hf/{untrained_lm}; nothing written")
    assert not (tmp_path / "g.jsonl").exists()
    fresh = CliRunner().invoke(main, [*args[:-2], "--no-cache", "--dry-run", "-o",
                                      str(tmp_path / "g.jsonl")])
    assert "dry run: 3 model calls (0 cached)" in fresh.stdout
    # a dry run writes nothing, so it needs no -o (issue 29: it demanded one)
    bare = CliRunner().invoke(main, [*args, "--dry-run"])
    assert bare.exit_code == 0, bare.output
    assert "dry run: 3 model calls (3 cached)" in bare.stdout
    missing = CliRunner().invoke(main, args)
    assert missing.exit_code == 2 and "give -o/--output (or --dry-run)" in missing.output


def test_help_teaches() -> None:
    res = CliRunner().invoke(main, ["ts-guess", "--help"])
    assert res.exit_code == 0
    for text in ("--benchmark", "--mode", "--data", "--limit", "Example:", "ts_guessing.multichoice"):
        assert text in res.output


def test_bad_inputs_exit_non_zero_with_one_line(tmp_path: Path) -> None:
    runner = CliRunner()
    missing = tmp_path / "nope.csv"
    missing.write_text("Type,Question\n")
    res = runner.invoke(main, ["ts-guess", "--benchmark", "truthfulqa", "--data", str(missing), "-o",
                               str(tmp_path / "o.jsonl")])
    assert res.exit_code == 2
    assert "missing column(s) Category, Best Answer, Incorrect Answers" in res.output
    if (SHARED_DATA / "mmlu").exists():
        res = runner.invoke(main, ["ts-guess", "--benchmark", "mmlu", "--data", str(SHARED_DATA / "mmlu"),
                                   "--subject", "astrology", "-o", str(tmp_path / "o.jsonl")])
        assert res.exit_code == 2 and "--subject astrology: not a subject of mmlu" in res.output
    res = runner.invoke(main, ["ts-guess", "--benchmark", "gsm8k", "-o", "x"])
    assert res.exit_code == 2 and "gsm8k" in res.output
    res = runner.invoke(main, ["ts-guess", "--benchmark", "truthfulqa", "--data", str(TQA),
                               "--model", "nope/x",
                               "-o", str(tmp_path / "o.jsonl")])
    if TQA.exists():
        assert res.exit_code == 2 and "model spec 'nope/x' is not recognised" in res.output


# ---- --task NAME --include_path DIR: any lm-eval multiple-choice task (issue 30) ----------

def _invoke(*args: object):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, ["ts-guess", *[str(a) for a in args]])


@pytest.mark.parametrize(("args", "line"), [
    ((), "Error: give one of --benchmark or --task"),
    (("--benchmark", "mmlu", "--task", "x"), "Error: give one of --benchmark or --task"),
    (("--benchmark", "mmlu", "--include_path", "x"), "Error: --include_path and --metadata need --task"),
    (("--task", "x", "--mode", "question"), "Error: --task probes multichoice only and reads the "
                                             "task's own data (no --mode question, --data or --subject)"),
    (("--task", "x", "--metadata", "{no"), "Error: --metadata '{no': not JSON (Expecting property "
                                           "name enclosed in double quotes: line 1 column 2 (char 1))"),
])
def test_task_option_errors(args: tuple, line: str, tmp_path: Path) -> None:
    res = _invoke(*args, "-o", tmp_path / "x.jsonl")
    assert res.exit_code != 0
    assert res.stderr.strip().splitlines()[-1] == line


@pytest.mark.slow
def test_task_dry_run_counts_every_probe_of_the_group(tmp_path: Path) -> None:
    tasks = write_lm_eval_tasks(tmp_path / "tasks")
    res = _invoke("--task", "arc_group,winogrande_local", "--include_path", tasks, "--model",
                  "hf/never-loaded", "--dry-run", "--cache-dir", tmp_path / "cache", "-o",
                  tmp_path / "x.jsonl")
    assert res.exit_code == 0, res.output
    assert ("no detector for this task: winogrande_local (no option can be hidden in any of its "
            "items (option_in_question 2))") in res.stderr
    assert (f"arc_group,winogrande_local: {2 * len(ARC)} probes; dry run: {2 * len(ARC)} model "
            "calls (0 cached) for hf/never-loaded; nothing written") in res.stdout
    assert not (tmp_path / "x.jsonl").exists()
