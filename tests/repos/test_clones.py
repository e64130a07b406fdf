"""``find_repo``: where an instance's clone is in a ``--repos-dir``."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchchecker_plugin.errors import RepositoryError
from benchchecker_plugin.instances import BugInstance
from benchchecker_plugin.repos import find_repo


def _inst(repo: str) -> BugInstance:
    return BugInstance(benchmark="swe-bench-verified", instance_id=f"{repo.replace('/', '__')}-1",
                       repo=repo, base_commit="0" * 40, patch="")


def test_owner__name_first_then_name(tmp_path: Path) -> None:
    (tmp_path / "django").mkdir()
    assert find_repo(tmp_path, _inst("django/django")) == tmp_path / "django"
    (tmp_path / "django__django").mkdir()
    assert find_repo(tmp_path, _inst("django/django")) == tmp_path / "django__django"


def test_a_file_is_not_a_clone_and_the_error_names_both_places(tmp_path: Path) -> None:
    (tmp_path / "o__r").write_text("not a folder")
    with pytest.raises(RepositoryError) as err:
        find_repo(tmp_path, _inst("o/r"))
    assert str(err.value) == (f"instance 'o__r-1': no clone of o/r at {tmp_path / 'o__r'} or "
                              f"{tmp_path / 'r'}")
    with pytest.raises(RepositoryError, match="no clone of o/r"):
        find_repo(tmp_path / "missing", _inst("o/r"))


def test_find_repo_ignores_case_like_github(tmp_path) -> None:  # noqa: ANN001
    """Regression: Multi-SWE-bench names ``fasterxml/jackson-core``; the clone is FasterXML__jackson-core."""
    (tmp_path / "FasterXML__jackson-core").mkdir()
    inst = BugInstance(benchmark="multi-swe-bench", instance_id="fasterxml__jackson-core-1",
                       repo="fasterxml/jackson-core", base_commit="0" * 40, patch="")
    assert find_repo(tmp_path, inst) == tmp_path / "FasterXML__jackson-core"
    other = BugInstance(benchmark="multi-swe-bench", instance_id="x__y-1", repo="x/y",
                        base_commit="0" * 40, patch="")
    with pytest.raises(RepositoryError, match="no clone of x/y"):
        find_repo(tmp_path, other)
