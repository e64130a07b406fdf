"""The one record every bug-fixing benchmark instance is converted into."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any

from ..errors import DataError

_HARNESS = ("version", "environment_setup_commit", "image", "eval_script", "log_parser", "eval_type",
            "image_assets")


_REPO = re.compile(r"[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)?")


@dataclass(frozen=True)
class BugInstance:
    """A bug-fixing instance in SWE-bench form, whatever benchmark it came from.

    ``patch`` is the gold fix as a unified diff from ``base_commit`` (the buggy revision) to the
    fixed code; ``test_patch`` adds the tests. ``fail_to_pass`` / ``pass_to_pass`` name tests (or,
    for BugsInPy, test commands); ``test_cmd`` is the command that runs them, when known.
    ``repo`` is ``owner/name``. ``extra`` keeps loader-specific fields (read-only).
    """

    instance_id: str
    benchmark: str
    repo: str
    base_commit: str
    patch: str
    test_patch: str = ""
    fail_to_pass: tuple[str, ...] = ()
    pass_to_pass: tuple[str, ...] = ()
    language: str = "python"
    test_cmd: str | None = None
    created_at: str | None = None
    fixed_commit: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=False)

    def __post_init__(self) -> None:
        if not _REPO.fullmatch(self.repo) or any(p in (".", "..") for p in self.repo.split("/")):
            # the name becomes a folder under --repos-dir: "x/../outside/secret" must not escape it
            raise DataError(f"instance {self.instance_id!r}: repository {self.repo!r} is not "
                            "'owner/name' (letters, digits, '.', '_', '-')")
        owner, slash, _ = self.repo.partition("/")
        if slash and ("__" in owner or owner.endswith("_")):
            # the clone folder is owner__name (repos.fetch.repo_dir_name): "a__x/b" read "a/x__b"'s
            raise DataError(f"instance {self.instance_id!r}: repository {self.repo!r}: an owner with "
                            "'__' or ending in '_' makes the clone folder owner__name ambiguous")
        object.__setattr__(self, "fail_to_pass", tuple(self.fail_to_pass))
        object.__setattr__(self, "pass_to_pass", tuple(self.pass_to_pass))
        object.__setattr__(self, "extra", MappingProxyType(dict(self.extra)))

    @property
    def created(self) -> datetime | None:
        """``created_at`` (the PR's creation) as a UTC time; ``None`` when absent or not ISO."""
        if not self.created_at:
            return None
        try:
            return datetime.fromisoformat(self.created_at.replace("Z", "+00:00")).astimezone(UTC)
        except ValueError:
            return None

    @property
    def repo_dir_names(self) -> tuple[str, ...]:
        """Folder names this repository is looked up under in a repos dir: ``owner__name``, ``name``."""
        owner, _, name = self.repo.partition("/")
        return (f"{owner}__{name}", name) if name else (owner,)

    def to_swebench(self) -> dict[str, Any]:
        """The SWE-bench dict of this instance (lists for the test fields)."""
        return {
            "instance_id": self.instance_id, "repo": self.repo, "base_commit": self.base_commit,
            "patch": self.patch, "test_patch": self.test_patch,
            "FAIL_TO_PASS": list(self.fail_to_pass), "PASS_TO_PASS": list(self.pass_to_pass),
            "created_at": self.created_at, **{k: v for k, v in self.extra.items() if k in _HARNESS},
        }
