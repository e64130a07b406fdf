"""swebench's ``pre_install`` steps that are plain file edits, applied without a shell.

Two shapes are understood: ``sed -i 's/A/B/[g]' FILE`` (a regular-expression substitution per
line, no groups or ``&`` in the replacement), and ``grep -q P FILE && sed -i ... FILE || sed -i
... FILE`` (swebench's sphinx 4.x steps: the first edit when a line of FILE matches P, else the
second). Anything else (a package manager, a download, other shell logic) is not an edit:
:func:`parse_step` gives ``None`` and the caller says the environment cannot be built here.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from ..atomic import write_text_atomic


@dataclass(frozen=True)
class Edit:
    """``sed -i 's/pattern/replacement/[g]' file``; with ``when``, applied only when a line of the
    file matches it (``grep -q when file && sed ... || otherwise``), else ``otherwise``."""

    file: str
    pattern: str
    replacement: str
    every: bool
    when: str | None = None
    otherwise: Edit | None = None


def _sed(argv: list[str]) -> Edit | None:
    expr = argv[2] if len(argv) == 4 and argv[:2] == ["sed", "-i"] else ""
    parts = expr[2:].split(expr[1]) if len(expr) > 3 and expr[0] == "s" else []
    if len(parts) != 3 or parts[2] not in ("", "g") or "\\" in expr or "&" in parts[1]:
        return None
    return Edit(argv[3], parts[0], parts[1], parts[2] == "g")


def parse_step(raw: str) -> Edit | None:
    """One ``pre_install`` step as an edit: ``sed -i 's/A/B/[g]' FILE``, or ``grep -q P FILE &&
    sed -i ... FILE || sed -i ... FILE`` (swebench's sphinx 4.x steps); ``None`` otherwise."""
    try:
        argv = shlex.split(raw)
    except ValueError:
        return None
    if "&&" not in argv:
        return _sed(argv) if "||" not in argv else None
    i, j = argv.index("&&"), argv.index("||") if "||" in argv else -1
    grep, then, other = argv[:i], argv[i + 1:j], argv[j + 1:]
    if j < i or len(grep) != 4 or grep[:2] != ["grep", "-q"]:
        return None
    first, second = _sed(then), _sed(other)
    if first is None or second is None or first.file != grep[3]:
        return None
    return Edit(first.file, first.pattern, first.replacement, first.every, when=grep[2], otherwise=second)


def apply_edits(edits: tuple[Edit, ...], tree: Path) -> None:
    """Apply ``edits`` to the files of ``tree`` in order (a missing file is skipped, as the tree
    may lack it at this commit; nothing outside ``tree`` is touched)."""
    for edit in edits:
        target = tree / edit.file
        if not target.is_file() or tree.resolve() not in target.resolve().parents:
            continue   # sed -i on a missing file fails; the tree simply lacks it at this commit
        lines = target.read_text(encoding="utf-8").split("\n")
        chosen: Edit | None = edit
        if edit.when is not None and not any(re.search(edit.when, ln) for ln in lines):
            chosen = edit.otherwise
        if chosen is None:
            continue
        regex = re.compile(chosen.pattern)
        literal = chosen.replacement.replace("\\", "\\\\")   # sed's replacement here has no groups
        write_text_atomic(target, "\n".join(regex.sub(literal, ln, count=0 if chosen.every else 1) for ln in lines))
