"""BugsInPy instances: ``projects/<project>/bugs/<n>/{bug.info, bug_patch.txt, run_test.sh}``."""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..errors import DataError, InputError
from ._bug import BugInstance

_KV = re.compile(r'^\s*([A-Za-z_][\w.]*)\s*=\s*"?(.*?)"?\s*$')


def read_info(path: Path) -> dict[str, str]:
    """The ``key="value"`` lines of a BugsInPy ``bug.info`` / ``project.info`` file."""
    out: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        m = _KV.match(line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def _repo_name(url: str, project: str) -> str:
    m = re.search(r"github\.com[/:]([^/]+)/([^/\s]+?)(?:\.git)?/?$", url.strip())
    return f"{m.group(1)}/{m.group(2)}" if m else project


def load_bugsinpy(root: str | os.PathLike[str]) -> list[BugInstance]:
    """Every bug under ``root`` (the BugsInPy checkout, or its ``projects`` folder).

    ``instance_id`` is ``<project>-<n>``; ``base_commit`` the buggy commit; ``fixed_commit`` the
    fix; ``fail_to_pass`` the test commands of ``run_test.sh`` (also joined as ``test_cmd``).
    """
    base = Path(root)
    projects = base / "projects" if (base / "projects").is_dir() else base
    if not projects.is_dir():
        raise InputError(f"{root}: not a BugsInPy folder (no projects/)")
    out: list[BugInstance] = []
    for proj in sorted(p for p in projects.iterdir() if (p / "bugs").is_dir()):
        pinfo = read_info(proj / "project.info") if (proj / "project.info").is_file() else {}
        repo = _repo_name(pinfo.get("github_url", ""), proj.name)
        bugs = sorted((b for b in (proj / "bugs").iterdir() if b.is_dir()),
                      key=lambda b: (not b.name.isdigit(), int(b.name) if b.name.isdigit() else 0, b.name))
        for bug in bugs:
            iid = f"{proj.name}-{bug.name}"
            info_file, patch_file = bug / "bug.info", bug / "bug_patch.txt"
            if not info_file.is_file() or not patch_file.is_file():
                raise DataError(f"{bug}: instance {iid!r} lacks bug.info or bug_patch.txt")
            info = read_info(info_file)
            if not info.get("buggy_commit_id"):
                raise DataError(f"{info_file}: instance {iid!r} has no buggy_commit_id")
            cmds: tuple[str, ...] = ()
            if (bug / "run_test.sh").is_file():
                cmds = tuple(c.strip() for c in (bug / "run_test.sh").read_text(
                    encoding="utf-8", errors="replace").splitlines() if c.strip())
            out.append(BugInstance(
                instance_id=iid, benchmark="bugsinpy", repo=repo, base_commit=info["buggy_commit_id"],
                patch=patch_file.read_text(encoding="utf-8", errors="surrogateescape"),
                fail_to_pass=cmds, language="python", test_cmd=" && ".join(cmds) or None,
                fixed_commit=info.get("fixed_commit_id"),
                extra={k: v for k, v in info.items() if k in ("python_version", "test_file")}))
    return out
