"""Labelled git histories from real code, to measure stage II (tests and ``benchmarks/stage2.py``).

:func:`build_history` copies the Python files of a source tree (an installed package, say) into a
new git repository and, for each case, injects a bug into one real function (a flipped operator
or a dropped statement): the *base commit* holds every buggy function; the gold patch restores the
original code. Then, with controlled commit dates, each case gets its scenario:

=================  =====  ===========================================================
scenario           label  history (cutoff between the commits)
=================  =====  ===========================================================
persisted          True   fix before the cutoff
after-cutoff       False  fix after the cutoff
reverted           False  fix, then reverted, both before the cutoff
reformatted        True   fix, then its function re-spaced and re-wrapped
commented          True   fix, then comments added on and above the fixed line
file-renamed       True   fix, then the file renamed (``git mv``)
function-renamed   True   fix, then the function renamed
moved              True   fix, then the function moved to another file
deleted            False  fix, then the function deleted (the fix is not in the snapshot)
=================  =====  ===========================================================
"""

from __future__ import annotations

import os
import random
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from ..errors import InputError
from ..instances import BugInstance
from ..repos import git
from ._normalize import parse_source

LABELS = {"persisted": True, "after-cutoff": False, "reverted": False, "reformatted": True,
          "commented": True, "file-renamed": True, "function-renamed": True, "moved": True,
          "deleted": False}
SCENARIOS = tuple(LABELS)

_FLIPS = [(" == ", " != "), (" != ", " == "), (" <= ", " < "), (" >= ", " > "), (" < ", " <= "),
          (" > ", " >= "), (" is not ", " is "), (" not in ", " in "), (" and ", " or "),
          (" or ", " and "), (" + 1", " - 1"), (" - 1", " + 1")]


@dataclass(frozen=True)
class LabelledCase:
    """One instance of a synthetic history with its ground truth ``label`` (fix in snapshot)."""

    instance: BugInstance
    label: bool
    scenario: str


@dataclass
class _Site:
    path: str
    name: str
    start: int       # function rows (0-based, inclusive)
    end: int
    row: int         # the fixed row
    fixed: str
    buggy: str | None  # None: the bug drops the row


def _commit(repo: Path, message: str, when: datetime, paths: Sequence[str] = ()) -> str:
    stamp = when.strftime("%Y-%m-%dT%H:%M:%S+0000")
    git(repo, ["add", "-A", "--", *paths] if paths else ["add", "-A"])
    git(repo, ["-c", "user.name=benchchecker", "-c", "user.email=bench@checker.invalid",
               "-c", "commit.gpgsign=false", "commit", "-q", "--allow-empty", "-m", message],
        env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    return git(repo, ["rev-parse", "HEAD"]).decode().strip()


def _sites(repo: Path, files: Sequence[str], rng: random.Random) -> list[_Site]:
    """One injectable site per file, in functions whose name is unique in the tree."""
    parsed = {}
    names: dict[str, int] = {}
    for f in files:
        try:
            text = (repo / f).read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        p = parse_source(text, "python")
        parsed[f] = (text, p)
        for s in p.scopes:
            names[s.name] = names.get(s.name, 0) + 1
    out = []
    for f, (text, p) in parsed.items():
        rows = text.split("\n")
        fns = [s for s in p.scopes if s.kind == "function" and names[s.name] == 1
               and not s.name.startswith("__") and s.end - s.start >= 4]
        rng.shuffle(fns)
        for fn in fns:
            if any(o.kind == "function" and o is not fn and fn.start < o.start <= fn.end for o in p.scopes):
                continue  # nested functions make moves ambiguous
            body = [ln for ln in p.lines_in(fn) if ln.start > fn.start and ln.start == ln.end
                    and '"' not in ln.raw and "'" not in ln.raw and "#" not in ln.raw]
            flips = [(ln, a, b) for ln in body for a, b in _FLIPS if a in ln.raw]
            if flips:
                ln, a, b = flips[0]
                out.append(_Site(f, fn.name, fn.start, fn.end, ln.start, rows[ln.start],
                                 rows[ln.start].replace(a, b, 1)))
                break
            simple = [ln for ln in body if re.match(r"^\s+[A-Za-z_][\w.]*\s*(=|\()", ln.raw)
                      and ln.start < fn.end]
            if len(simple) >= 2:
                ln = simple[len(simple) // 2]
                out.append(_Site(f, fn.name, fn.start, fn.end, ln.start, rows[ln.start], None))
                break
    return out


def _replace_row(repo: Path, site: _Site, new: str | None) -> None:
    path = repo / site.path
    rows = path.read_text(encoding="utf-8").split("\n")
    if new is None:
        del rows[site.row]
    else:
        rows[site.row] = new
    path.write_text("\n".join(rows), encoding="utf-8")


def _func_rows(repo: Path, site: _Site) -> tuple[list[str], int, int]:
    rows = (repo / site.path).read_text(encoding="utf-8").split("\n")
    return rows, site.start, site.end


def _reformat(line: str) -> str:
    body = line.lstrip()
    indent = line[: len(line) - len(body)]
    body = re.sub(r"\s*(==|!=|<=|>=|\+|-)\s*", r"\1", body)
    body = re.sub(r",\s*", ",", body)
    m = re.search(r"\((?=[^)])", body)
    if m and not body.rstrip().endswith(":"):
        body = body[: m.end()] + "\n" + indent + "        " + body[m.end():]
    return indent + body


def _apply_scenario(repo: Path, site: _Site, scenario: str, rng: random.Random) -> str:
    rows, start, end = _func_rows(repo, site)
    if scenario == "reformatted":
        for r in range(start + 1, end + 1):
            if rows[r].strip() and not any(q in rows[r] for q in "\"'#"):
                rows[r] = _reformat(rows[r])
        (repo / site.path).write_text("\n".join(rows), encoding="utf-8")
    elif scenario == "commented":
        indent = site.fixed[: len(site.fixed) - len(site.fixed.lstrip())]
        rows[site.row] = rows[site.row] + "  # fixed: see the issue tracker"
        rows.insert(site.row, f"{indent}# Bug fix: this line used to be wrong.")
        (repo / site.path).write_text("\n".join(rows), encoding="utf-8")
    elif scenario == "file-renamed":
        new = str(Path(site.path).with_name(f"renamed_{Path(site.path).name}"))
        git(repo, ["mv", site.path, new])
        return new
    elif scenario == "function-renamed":
        text = "\n".join(rows)
        (repo / site.path).write_text(re.sub(rf"\b{re.escape(site.name)}\b", f"{site.name}_v2", text),
                                      encoding="utf-8")
    elif scenario in ("moved", "deleted"):
        func = rows[start:end + 1]
        del rows[start:end + 1]
        (repo / site.path).write_text("\n".join(rows), encoding="utf-8")
        if scenario == "moved":
            import textwrap

            target = Path(site.path).with_name(f"moved_{site.name}.py")
            (repo / target).write_text("import os\n\n\n" + textwrap.dedent("\n".join(func)) + "\n",
                                       encoding="utf-8")
            return str(target)
    return site.path


def build_history(source: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
                  repo: str | os.PathLike[str], *, cutoff: datetime,
                  scenarios: Sequence[str] = SCENARIOS, per_scenario: int = 3,
                  n_cases: int | None = None, max_files: int | None = None, seed: int = 0,
                  repo_name: str = "synthetic/history") -> list[LabelledCase]:
    """Build the history in ``repo`` (created; must not exist) from the ``.py`` files of
    ``source`` (one folder or several; each lands in the repository under its own name).

    ``per_scenario`` cases of each scenario, or ``n_cases`` cycling through the scenarios.
    Returns the labelled cases in order; their instances share one base commit.
    """
    sources = [Path(source)] if isinstance(source, (str, os.PathLike)) else [Path(s) for s in source]
    dest = Path(repo)
    if dest.exists():
        raise InputError(f"{dest}: exists; build_history makes a new repository")
    files = [(src, p) for src in sources for p in sorted(src.rglob("*.py")) if "__pycache__" not in p.parts]
    if max_files:
        files = files[:max_files]
    if not files:
        raise InputError(f"{', '.join(map(str, sources))}: no Python files to build a history from")
    dest.mkdir(parents=True)
    rels = []
    for src, f in files:
        rel = f"{src.name}/{f.relative_to(src).as_posix()}"
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, dest / rel)
        rels.append(rel)
    rng = random.Random(seed)
    git(dest, ["init", "-q", "-b", "main"])
    plan = ([scenarios[k % len(scenarios)] for k in range(n_cases)] if n_cases
            else [s for s in scenarios for _ in range(per_scenario)])
    sites = _sites(dest, rels, rng)
    rng.shuffle(sites)
    if len(sites) < len(plan):
        raise InputError(f"only {len(sites)} injectable functions for {len(plan)} cases")
    sites = sites[: len(plan)]
    for site in sites:  # the buggy tree
        _replace_row(dest, site, site.buggy)
    t0 = cutoff - timedelta(days=400)
    base = _commit(dest, "base: every injected bug", t0)
    step = timedelta(days=300) / max(1, len(plan))
    # pre-cutoff events first, in date order; after-cutoff fixes last (dates stay monotonic)
    order = sorted(range(len(plan)), key=lambda k: plan[k] == "after-cutoff")
    cases: dict[int, LabelledCase] = {}
    for n, k in enumerate(order):
        site, scenario = sites[k], plan[k]
        fix_path = dest / site.path
        rows = fix_path.read_text(encoding="utf-8").split("\n")
        if site.buggy is None:
            rows.insert(site.row, site.fixed)
        else:
            rows[site.row] = site.fixed
        fix_path.write_text("\n".join(rows), encoding="utf-8")
        patch = git(dest, ["diff", "--no-color", "--", site.path]).decode()
        when = (cutoff + timedelta(days=10) + n * step if scenario == "after-cutoff"
                else t0 + timedelta(days=30) + n * step)
        touched = [str(Path(site.path).parent)]
        _commit(dest, f"fix {site.name}", when, touched)
        if scenario == "reverted":
            git(dest, ["revert", "--no-edit", "--no-commit", "HEAD"])
            _commit(dest, f"revert fix {site.name}", when + step / 2, touched)
        elif scenario not in ("persisted", "after-cutoff"):
            _apply_scenario(dest, site, scenario, rng)
            _commit(dest, f"{scenario} {site.name}", when + step / 2, touched)
        cases[k] = LabelledCase(BugInstance(
            instance_id=f"{repo_name.replace('/', '__')}-{k}", benchmark="swe-bench-verified",
            repo=repo_name, base_commit=base, patch=patch, language="python",
            extra={"scenario": scenario, "function": site.name}), LABELS[scenario], scenario)
    return [cases[k] for k in range(len(plan))]
