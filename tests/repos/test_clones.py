"""``find_repo``: where an instance's clone is in a ``--repos-dir`` (its home is ``repos/``; the
old ``stage2.verify`` / ``stage2.presence`` imports still name the same function)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchchecker_plugin.errors import RepositoryError
from benchchecker_plugin.instances.bug import BugInstance
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


def test_old_imports_name_the_same_function() -> None:
    from benchchecker_plugin.stage2.presence import find_repo as from_presence
    from benchchecker_plugin.stage2.verify import find_repo as from_verify

    assert from_verify is find_repo and from_presence is find_repo
