"""Republications of the real boards in the shared data, through the command (slow tier).

SWE-bench Verified from its shipped inputs with the published bundle's verdicts (``--from-bundle``):
every table of the bundle and the page equal the published ones, and the new bundle rebuilds byte for
byte. Multi-SWE-bench's Java experiments (91 instances, 5 submissions, the annotation workbook's
tiers, Stage II flags made here as the flows' tests make them): its bundle rebuilds byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.republish import BUNDLE_FILES, PAGE_FILES
from tests.helpers import needs_shared_data
from tests.helpers.real_boards import JAVA_MODELS, PUBLISHED, java_args, same_files, verified_args

pytestmark = pytest.mark.slow


@needs_shared_data("swebench_verified")
@pytest.mark.skipif(not (PUBLISHED / "build.json").is_file(), reason="no bundle published")
def test_verified_from_its_shipped_inputs_equals_the_published_tables(tmp_path: Path) -> None:
    out = tmp_path / "verified"
    res = CliRunner().invoke(main, verified_args(out))
    assert res.exit_code == 0, res.output
    differ = [n for n in BUNDLE_FILES + PAGE_FILES if (PUBLISHED / n).exists()
              and (out / n).read_bytes() != (PUBLISHED / n).read_bytes()]
    # the build facts (date, command, the Stage II line), the texts they fill, and the folder's
    # own changelog and licence note: all else is the published republication
    assert set(differ) <= {"build.json", "CHANGELOG.md", "LICENSE-DATA.md", "README.md", "index.html",
                           "leaderboard.md"}, differ
    res = CliRunner().invoke(main, ["republish", "--rebuild", str(out), "--out", str(tmp_path / "again")])
    assert res.exit_code == 0, res.output
    assert same_files(out, tmp_path / "again") == []


@needs_shared_data("multi_swe_bench")
def test_multi_swe_bench_experiments_republish_and_rebuild(tmp_path: Path) -> None:
    pytest.importorskip("openpyxl")
    out = tmp_path / "java"
    # the latest pull request of index.json (2024-07-24) leaves no computed snapshot before the
    # submissions' date: a floor given instead scores the three models without a cutoff as bands
    res = CliRunner().invoke(main, java_args(tmp_path, out, "--band-floor", "2023-06-01"))
    assert res.exit_code == 0, res.output
    facts = json.loads((out / "build.json").read_text())
    assert (facts["benchmark"], facts["n_instances"], facts["title"]) == ("multi-swe-bench", 91, "Multi-SWE-bench")
    assert set(facts["bands"]) == {s for s, m in JAVA_MODELS.items() if not m.startswith("gpt")}
    assert facts["band_floor_basis"] == "given with --band-floor"
    summary = (out / "summary.csv").read_text()
    assert ",easy," in summary and ",hard," in summary
    res = CliRunner().invoke(main, ["republish", "--rebuild", str(out), "--out", str(tmp_path / "again")])
    assert res.exit_code == 0, res.output
    assert same_files(out, tmp_path / "again") == []
