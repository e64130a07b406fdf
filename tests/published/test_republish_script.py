"""``benchmarks/republish_verified.py --fetch --repos A B``: only A and B are cloned (not all 12),
the script being argument parsing around one ``benchchecker_plugin.republish`` call."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from benchchecker_plugin.errors import InputError
from tests.helpers import require_shared_data

REPO = Path(__file__).resolve().parents[2]


def _script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("republish_script", REPO / "benchmarks" / "republish_verified.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow   # loads the 500 instances and tries two clones (~3 s)
def test_fetch_clones_only_the_chosen_repositories(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = require_shared_data("swebench_verified").parent
    script = _script()
    args = ["--data-dir", str(data), "--repos-dir", str(tmp_path / "clones"), "--fetch",
            "--source", f"file://{tmp_path}/no-mirrors/{{dir}}.git", "--out", str(tmp_path / "out"),
            "--repos", "psf/requests", "pallets/flask"]
    with pytest.raises(InputError, match="no instance is covered"):   # the mirrors do not exist
        script.main(args)
    fetched = [ln.split(":")[0] for ln in capsys.readouterr().err.splitlines() if ln.startswith("fetch ")]
    assert sorted(fetched) == ["fetch pallets/flask", "fetch psf/requests"]
    with pytest.raises(InputError, match=r"--repos: psf/request: not a repository of these "):
        script.main([*args[:-2], "psf/request"])


def test_the_scripts_floor_basis_is_the_first_bundles() -> None:
    """The script states Verified's floor basis itself (an input, like its data line); the library
    keeps the same words for bundles whose facts do not name one (the published first bundle)."""
    from benchchecker_plugin.republish._facts import VERIFIED_FLOOR_BASIS

    assert _script().FLOOR_BASIS == VERIFIED_FLOOR_BASIS
