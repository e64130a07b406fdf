"""`benchchecker cache stats|clear` and the shared model options (--dry-run, --no-cache, ...)."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.cli._options import ModelOptions, dry_run_summary, model_options
from benchchecker_plugin.models import CachedModel, GenerationParams, ResponseCache
from tests.helpers import ScriptedModel

PARAMS = GenerationParams(max_tokens=3)


def _fill(folder: Path) -> None:
    """Two answers and one error (``bad``) cached for the default model."""
    model = ScriptedModel(lambda prompt, _: prompt, spec="hf/smollm2-135m", fail_on=["bad"])
    CachedModel(model, ResponseCache(folder)).generate(["a", "b", "bad"], PARAMS)


def test_stats_counts_answers_and_errors(tmp_path: Path) -> None:
    _fill(tmp_path)
    result = CliRunner().invoke(main, ["cache", "stats", "--cache-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"cache: {tmp_path / 'responses.sqlite3'}"
    assert lines[1] == "completions: 3 (2 answers, 1 errors, retried on the next run)"
    assert lines[2] == "token scores: 0"
    assert "  hf/smollm2-135m: 3 entries, 1 errors" in lines


def test_stats_of_an_empty_folder_creates_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCHCHECKER_CACHE_DIR", str(tmp_path / "none"))
    result = CliRunner().invoke(main, ["cache", "stats"])
    assert result.exit_code == 0
    assert "(empty: no model call cached yet)" in result.output and not (tmp_path / "none").exists()


def test_clear_asks_then_deletes(tmp_path: Path) -> None:
    _fill(tmp_path)
    refused = CliRunner().invoke(main, ["cache", "clear", "--cache-dir", str(tmp_path)], input="n\n")
    assert refused.exit_code == 1 and ResponseCache(tmp_path).stats().entries == 3
    errors = CliRunner().invoke(main, ["cache", "clear", "--errors-only", "--yes",
                                       "--cache-dir", str(tmp_path)])
    assert errors.exit_code == 0 and "deleted 1 error entries" in errors.output
    assert ResponseCache(tmp_path).stats().entries == 2
    (tmp_path / "models" / "m").mkdir(parents=True)
    (tmp_path / "models" / "m" / "EXPORT.json").write_text('{"exported_by": "benchchecker", "format": 2}')
    done = CliRunner().invoke(main, ["cache", "clear", "-y", "--models", "--cache-dir", str(tmp_path)])
    assert done.exit_code == 0 and "deleted 2 entries" in done.output
    assert ResponseCache(tmp_path).stats().entries == 0 and not (tmp_path / "models").exists()


@click.command()
@model_options
def _probe(model_opts: ModelOptions) -> None:
    model = model_opts.build()
    model.generate(["a", "b", "c"], PARAMS)
    click.echo(dry_run_summary(model) if model_opts.dry_run else "ran")


def test_model_options_dry_run_counts_cached_calls(tmp_path: Path) -> None:
    _fill(tmp_path)
    result = CliRunner().invoke(_probe, ["--dry-run", "--cache-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "dry run: 3 model calls (2 cached) for hf/smollm2-135m"
    no_cache = CliRunner().invoke(_probe, ["--dry-run", "--no-cache", "--cache-dir", str(tmp_path)])
    assert no_cache.output.strip() == "dry run: 3 model calls (0 cached) for hf/smollm2-135m"


def test_model_options_reject_bad_spec() -> None:
    result = CliRunner().invoke(_probe, ["--model", "gpt4", "--dry-run"])
    assert result.exit_code != 0
    assert "model spec 'gpt4' is not recognised" in str(result.exception)


def test_help_teaches() -> None:
    out = CliRunner().invoke(_probe, ["--help"]).output
    for option in ("--model SPEC", "--base-url URL", "--cache-dir", "--no-cache", "--batch-size",
                   "--max-concurrency", "--dry-run", "--device"):
        assert option in out
    assert "[default: hf/smollm2-135m]" in " ".join(out.split())
