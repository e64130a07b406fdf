"""The YAML files under ``--include_path``: those lm-eval could not read, and why lm-eval does not
know a task that one declares.

lm-eval's task index opens every ``*.yaml`` under the folder: a FIFO named ``x.yaml`` made task
loading wait forever. :func:`refuse_special_yaml` names it first (from its ``stat``, never opened).

lm-eval's task index drops a YAML whose ``include:`` chain comes back to itself (it recurses and
gives up on that file), so such a task reads as "no such task". We read the chain ourselves, as
text (``task:`` and ``include:`` lines, the way lm-eval resolves ``include`` relative to the file),
and name the file and its cycle instead.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.safe_io import file_kind, read_input_text

_MAX_FILES = 5000
_INCLUDE = re.compile(r"^include:\s*['\"]?([^'\"#\s]+)", re.M)


def _declares(text: str, task: str) -> bool:
    return re.search(rf"^task:\s*['\"]?{re.escape(task)}['\"]?\s*(#.*)?$", text, re.M) is not None


def _read(path: Path) -> str | None:
    try:
        return read_input_text(path)
    except (InputError, OSError, UnicodeDecodeError):
        return None


def _cycle_from(start: Path) -> list[Path] | None:
    chain = [start.resolve()]
    while True:
        text = _read(chain[-1])
        found = _INCLUDE.search(text) if text is not None else None
        if found is None:
            return None
        nxt = (chain[-1].parent / found.group(1)).resolve()
        if nxt in chain:
            return [*chain[chain.index(nxt):], nxt]
        chain.append(nxt)


def include_cycle(task: str, include_path: str | None) -> str | None:
    """``"FILE: its include: chain comes back to itself (a.yaml -> b.yaml -> a.yaml)"`` for the
    first YAML under ``include_path`` declaring ``task`` whose includes form a cycle, else ``None``."""
    if not include_path:
        return None
    root = Path(include_path)
    files = sorted(p for p in root.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
    for path in files[:_MAX_FILES]:
        text = _read(path)
        if text is None or not _declares(text, task):
            continue
        cycle = _cycle_from(path)
        if cycle is not None:
            names = " -> ".join(p.name for p in cycle)
            return f"{path}: its include: chain comes back to itself ({names}); lm-eval cannot load it"
    return None


def refuse_special_yaml(include_path: str | None) -> None:
    """An :class:`InputError` naming a ``*.yaml`` under ``include_path`` (each file lm-eval's index
    opens) that is a FIFO, a device or a socket; only ``stat`` is called."""
    if not include_path or not os.path.isdir(include_path):
        return   # lm-eval says what is wrong with the folder itself
    for path in sorted(Path(include_path).glob("**/*.yaml")):
        try:
            mode = os.stat(path).st_mode
        except OSError:
            continue   # a dangling link: lm-eval's own error names it
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise InputError(f"--include_path {include_path}: {path} is {file_kind(mode)}, not a regular "
                             "file; refused (lm-eval reads every *.yaml there and would wait on it)")
