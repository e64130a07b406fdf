"""The published folder rebuilds from its own bundle alone (issue 34, item 6): every table and page
that ``republish_verified.py --rebuild`` writes equals the committed file, byte for byte; and the
bundle's rules (verdict of a submission, explicit model families, paper-vs-ours verdicts)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[2]
PUBLISHED = REPO / "published" / "swebench-verified"


def _module(name: str):  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(REPO / "benchmarks"))
    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow   # the MDE simulation of every cell (~2 min on 2 cores)
@pytest.mark.skipif(not (PUBLISHED / "build.json").is_file(), reason="no bundle published")
def test_the_page_rebuilt_from_the_folder_alone_equals_the_committed_one(tmp_path: Path) -> None:
    bundle = _module("_republish_bundle")
    folder = tmp_path / "bundle"
    folder.mkdir()
    for name in bundle.INPUTS:          # the bundle only: no shared data, no clones, no cache
        if (PUBLISHED / name).exists():
            (folder / name).write_bytes((PUBLISHED / name).read_bytes())
    out = tmp_path / "out"
    script = _module("republish_verified")
    assert script.main(["--rebuild", str(folder), "--out", str(out), "--data-dir",
                        str(tmp_path / "no-data")]) == 0
    for name in bundle.OUTPUTS + bundle.INPUTS:
        if (PUBLISHED / name).exists():
            assert (out / name).read_bytes() == (PUBLISHED / name).read_bytes(), name


def test_a_submission_verdict_combines_its_models() -> None:
    bundle = _module("_republish_bundle")
    assert bundle.submission_verdict(["clean", "contaminated"]) == "contaminated"
    assert bundle.submission_verdict(["clean", "clean"]) == "clean"
    assert bundle.submission_verdict(["clean", "undecided"]) == "undecided"
    assert bundle.submission_verdict([]) == "undecided"
    assert bundle.repo_of("scikit-learn__scikit-learn-10297") == "scikit-learn/scikit-learn"
    assert bundle.repo_of("django__django-11099") == "django/django"


def test_model_families_are_explicit_lists() -> None:
    bundle = _module("_republish_bundle")
    subs = pd.DataFrame({"submission": ["a", "b", "c", "d", "e", "f"],
                         "models": ["claude-4-sonnet-20250514", "claude-4-opus-20250514",
                                    "claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101",
                                    "claude-3-7-sonnet-20250219", "gpt-4o"],
                         "date": ["2025-05-20"] * 6, "resolved_of_500": [1, 2, 3, 4, 5, 6]})
    groups = bundle.groups_of(subs)
    assert groups["Claude 4 (Sonnet 4, Opus 4)"] == ["a", "b"]
    assert groups["Claude 4.5 (Sonnet 4.5, Opus 4.5)"] == ["c", "d"]
    assert groups["top 10 of the 6 scored submissions (by resolved of 500)"] == ["f", "e", "d", "c",
                                                                                  "b", "a"]


def test_paper_vs_ours_verdicts_come_from_the_interval() -> None:
    page = _module("_republish_page")
    row = pd.Series({"drop_ci_low": -0.12, "drop_ci_high": 0.13})
    assert page.verdict_against(row, 0.052, 0.052).startswith("consistent")
    assert page.verdict_against(row, 0.20, 10.0).startswith("inconsistent")
    assert page.verdict_against(pd.Series({"drop_ci_low": float("nan"), "drop_ci_high": 0.1}),
                                0.08, 0.11).startswith("not testable")
    assert page.verdict_against(pd.Series({"drop_ci_low": 0.02, "drop_ci_high": 0.09}), 0.08,
                                0.11) == "consistent (our interval excludes 0 and meets the paper's)"
