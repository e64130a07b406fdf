"""The pre-release check on a small local model and a small local benchmark slice: every stage
runs, the flags validate, and the report renders in headless Chromium."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.check import CheckConfig, run_check, write_check_report
from benchchecker_plugin.cli import main
from benchchecker_plugin.errors import InputError
from benchchecker_plugin.flags import read_flags
from tests.helpers import SHARED_DATA, ScriptedModel, needs_shared_data

DATA = SHARED_DATA
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_data = needs_shared_data("mmlu")


def _bug_slice(tmp_path: Path) -> tuple[Path, Path, list]:
    import rich

    from benchchecker_plugin.stage2 import build_history

    repos = tmp_path / "repos"
    cases = build_history(Path(rich.__file__).parent, repos / "synthetic__history",
                          cutoff=datetime(2024, 6, 1, tzinfo=UTC),
                          scenarios=("persisted", "after-cutoff"), per_scenario=1, seed=1)
    instances = tmp_path / "instances.jsonl"
    instances.write_text("".join(json.dumps(c.instance.to_swebench()) + "\n" for c in cases))
    return repos, instances, cases


@needs_data
@pytest.mark.model
def test_check_runs_every_stage_and_writes_a_valid_report(tmp_path: Path, smollm2_model) -> None:
    repos, instances, cases = _bug_slice(tmp_path)
    config = CheckConfig(benchmarks=("swe-bench-verified", "mmlu", "truthfulqa"), cutoff="2024-06-01",
                         repos_dir=repos, limit=3, n_queries=4, n_samples=1,
                         data={"swe-bench-verified": str(instances), "mmlu": str(DATA / "mmlu"),
                               "truthfulqa": str(DATA / "truthfulqa" / "TruthfulQA.csv")})
    result = run_check(smollm2_model, config, model_name="smollm2")
    paths = result.write(tmp_path / "out")
    page = write_check_report(result, tmp_path / "out" / "index.html")

    assert set(result.stage_flags) == {"stage1", "stage2", "ts_guessing_multichoice"}
    assert len(result.stage_flags["stage2"]) == len(cases)
    # Stage II on the labelled history: the persisted fix is present, the later one is not.
    by_label = {c.label: f for c, f in zip(cases, result.stage_flags["stage2"])}
    by_id = {f.instance_id: f.contaminated for f in result.stage_flags["stage2"]}
    assert by_label[True].contaminated is True and by_label[False].contaminated is False
    assert len(result.repos) == 1 and result.repos[0].repo == "synthetic/history"
    merged = read_flags(paths["merged"])  # validates every record
    assert {f.benchmark for f in merged} == {"swe-bench-verified", "mmlu", "truthfulqa"}
    # BenchChecker's definition: contaminated only when Stage I AND Stage II say so (a Stage II
    # "present" beside a Stage I "not detected" was merged as contaminated under policy any)
    stage1 = {f.instance_id: f.contaminated for f in result.stage_flags["stage1"]}
    for f in merged:
        if f.benchmark == "swe-bench-verified":
            assert f.evidence["policy"] == "benchchecker"
            want = None if stage1[f.instance_id] is None or by_id[f.instance_id] is None else \
                stage1[f.instance_id] and by_id[f.instance_id]
            if stage1[f.instance_id] is False or by_id[f.instance_id] is False:
                want = False
            if stage1[f.instance_id] is False and by_id[f.instance_id] is True:
                # Stage I's silence does not clear Stage II's positive in the pre-release report
                want = None
                assert "Stage I inconclusive" in f.evidence.get("note", ""), f.evidence
            assert f.contaminated is want, (f.instance_id, stage1, by_id)
    for stage in ("stage1", "stage2", "ts_guessing_multichoice"):
        read_flags(paths[stage])
    html = page.read_text()
    assert "Stage I: repository presence" in html and "synthetic/history" in html

    if CHROMIUM is None:
        pytest.skip("Chromium not installed (apt-get install -y chromium): report not rendered")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright drives the system Chromium")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--no-first-run"])
        try:
            view = browser.new_page()
            view.goto(page.as_uri())
            assert view.title() == "Pre-release contamination check: smollm2"
            assert view.locator("#instances tbody tr").count() == len(merged)
            assert view.locator("#summary tbody tr").count() >= 3
            assert view.locator("svg").count() == 1
            # one score column per method, filled (not one column mixing units)
            headers = view.locator("#instances thead th").all_inner_texts()
            assert "Stage II line similarity" in headers and "score" not in headers
            column = headers.index("Stage II line similarity")
            cells = view.locator(f"#instances tbody tr td:nth-child({column + 1})").all_inner_texts()
            assert any(c.strip() for c in cells)
        finally:
            browser.close()


def test_check_without_repos_skips_bug_stages_and_says_so(tmp_path: Path) -> None:
    _, instances, _ = _bug_slice(tmp_path)

    config = CheckConfig(benchmarks=("swe-bench-verified",), cutoff="2024-06-01",
                         data={"swe-bench-verified": str(instances)})
    result = run_check(ScriptedModel(spec="none", raises=AssertionError("no model call expected")), config)
    assert result.merged == []
    assert result.notes == ["swe-bench-verified: skipped Stage I and II (2 instances): they read the "
                            "repositories; give --repos-dir with local clones (owner__name/ or name/)"]


def test_bad_benchmark_and_data_option_are_one_line_errors() -> None:
    with pytest.raises(InputError, match="unknown benchmark\\(s\\) humaneval; choose from bugsinpy, "
                                         "defects4j, mmlu, swe-bench-verified, truthfulqa"):
        CheckConfig(benchmarks=("humaneval",), cutoff="2024-01-01")
    res = CliRunner().invoke(main, ["check", "--cutoff", "2024-01-01", "--benchmarks", "mmlu",
                                    "--data", "mmlu", "--dry-run"])
    assert res.exit_code == 2
    # a bare path is the one benchmark's (benchchecker_plugin.local_data); this one is no path
    assert res.output.strip().splitlines()[-1] == "Error: --data mmlu: mmlu does not exist"


@needs_data
def test_check_dry_run_counts_calls_without_loading_a_model(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["check", "--cutoff", "2024-01-01", "--benchmarks", "mmlu",
                                    "--data", f"mmlu={DATA / 'mmlu'}", "--limit", "5", "--dry-run",
                                    "--cache-dir", str(tmp_path / "cache"), "-o", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    assert "dry run:" in res.output
    assert not (tmp_path / "o").exists()


def test_check_dry_run_runs_no_stage_ii_and_says_what_it_would_do(tmp_path: Path) -> None:
    """check --dry-run used to announce Stage I/II without --repos-dir and then run Stage II in
    full (git reads, flags); now Stage II is a note, and the line says what is skipped and why."""
    repos, instances, _ = _bug_slice(tmp_path)
    base = ["check", "--cutoff", "2024-06-01", "--benchmarks", "swe-bench-verified", "--data",
            f"swe-bench-verified={instances}", "--n-queries", "2", "--dry-run",
            "--cache-dir", str(tmp_path / "cache"), "-o", str(tmp_path / "o")]
    res = CliRunner().invoke(main, base)
    assert res.exit_code == 0, res.output
    assert "-> swe-bench-verified: Stage I and II skipped (no --repos-dir)" in res.stderr
    res = CliRunner().invoke(main, [*base, "--repos-dir", str(repos)])
    assert res.exit_code == 0, res.output
    assert ("note: swe-bench-verified: dry run: Stage II (patch presence) would judge 2 instances "
            "in 1 repositories at 2024-06-01; not run") in res.stderr
    assert res.stdout.startswith("dry run:")
    assert not (tmp_path / "o").exists()
