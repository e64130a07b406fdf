"""``benchmarks/republish_verified.py --fetch --repos A B``: only A and B are cloned, and the page
says why each other repository is not covered (issue 29, item 9: all 12 were cloned, and the
others read as "not covered (their repository was cloned)")."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tests.helpers import require_shared_data

REPO = Path(__file__).resolve().parents[2]


def _module(name: str):  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        spec = importlib.util.spec_from_file_location(f"i29_{name}", REPO / "benchmarks" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    return module


@pytest.mark.slow   # loads the 500 instances and tries two clones (~3 s)
def test_fetch_clones_only_the_chosen_repositories(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    data = require_shared_data("swebench_verified").parent
    script = _module("republish_verified")
    args = ["--data-dir", str(data), "--repos-dir", str(tmp_path / "clones"), "--fetch",
            "--source", f"file://{tmp_path}/no-mirrors/{{dir}}.git", "--out", str(tmp_path / "out"),
            "--repos", "psf/requests", "pallets/flask"]
    with pytest.raises(SystemExit, match="no instance is covered"):   # the mirrors do not exist
        script.main(args)
    fetched = [ln.split(":")[0] for ln in capsys.readouterr().err.splitlines()
               if ln.startswith("fetch ")]
    assert sorted(fetched) == ["fetch pallets/flask", "fetch psf/requests"]
    with pytest.raises(SystemExit, match=r"--repos: psf/request: not a repository of these "):
        script.main([*args[:-2], "psf/request"])


def test_the_page_gives_each_uncovered_repository_its_reason() -> None:
    page = _module("_republish_page")
    info = {"missing_repos": ["astropy/astropy", "sympy/sympy"], "unfinished": ["sympy/sympy"],
            "left_out_repos": ["django/django", "pallets/flask"]}
    assert page._not_covered(info) == (
        "astropy/astropy (no clone under --repos-dir); sympy/sympy (Stage II not run); "
        "django/django, pallets/flask (left out by --repos)")
    assert page._not_covered({"missing_repos": [], "unfinished": []}) == "none"


def test_a_band_runs_from_the_floor_to_the_submission_date_over_computed_snapshots() -> None:
    from types import SimpleNamespace

    script = _module("republish_verified")
    dates = ["2023-04-30", "2023-08-31", "2024-04-30", "2024-06-01", "2025-03-31"]
    sub = SimpleNamespace(date="2024-06-17")
    assert script._band_dates(sub, dates, "2023-07-24") == ("2023-08-31", "2024-06-01")
    # no computed snapshot inside the interval: not scored (the caller says why)
    assert script._band_dates(SimpleNamespace(date="2023-08-01"), dates, "2023-07-24") is None
