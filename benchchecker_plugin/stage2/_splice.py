"""The *modified* patch of an inconclusive instance: the gold patch with its added lines replaced
by the snapshot lines they were aligned to, as a diff against the base commit.

A test runner (:mod:`benchchecker_plugin.testrun`) applies it and runs the benchmark's tests; if
they pass, the snapshot's (refactored) code is the fix. Where the snapshot's lines, put in line by
line, leave a Python file unparsable (a statement reshaped since), the snapshot's statements are
transplanted whole (:func:`splice_patch`); where even that does not parse, :class:`SpliceError`.
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Sequence

from unidiff import PatchSet

from ..errors import ExecutionError
from ..instances import BugInstance
from ..repos import Snapshot
from ._decide import BlockResult
from ._patch import apply_patch_to_text


class SpliceError(ExecutionError):
    """The snapshot's lines, put in place of the patch's, do not make valid code at the base
    commit (a refactoring changed the statement's shape): there is nothing meaningful to test.

    ``file`` is the spliced file, ``line`` the 1-based line Python stopped at (``None``: unknown),
    ``reason`` what it said."""

    def __init__(self, file: str, line: int | None, reason: str) -> None:
        self.file = file
        self.line = line
        self.reason = reason
        where = file if line is None else f"{file}:{line}"
        super().__init__(f"the snapshot's lines do not fit the base commit: {where}: {reason}")


def _parses(text: str, name: str) -> tuple[int | None, str] | None:
    """``None`` when ``text`` is valid Python, else where it is not (line, message)."""
    try:
        ast.parse(text, filename=name)
    except SyntaxError as exc:   # IndentationError included
        return exc.lineno, str(exc.msg)
    except ValueError as exc:   # null bytes
        return None, str(exc)
    return None


def _reindent(raw: str, indent: str) -> list[str]:
    rows = raw.split("\n")
    first = len(rows[0]) - len(rows[0].lstrip())
    out = []
    for r in rows:
        cut = min(first, len(r) - len(r.lstrip()))
        out.append(indent + r[cut:] if r.strip() else r)
    return out


_BODIES = ("body", "orelse", "finalbody")


def whole_statements(text: str, first: int, last: int) -> tuple[int, int]:
    """Rows ``first..last`` (0-based) widened to whole statements of one statement list: the
    innermost list whose statements cover them (a compound statement is entered only when the
    rows lie in one of its bodies), or the rows unchanged when ``text`` does not parse."""
    try:
        stmts: list[ast.stmt] = ast.parse(text).body
    except (SyntaxError, ValueError):
        return first, last
    while True:
        hit = [st for st in stmts if st.lineno - 1 <= last and (st.end_lineno or st.lineno) - 1 >= first]
        if not hit:
            return first, last
        lo = min(min([d.lineno for d in getattr(st, "decorator_list", [])] + [st.lineno]) for st in hit) - 1
        hi = max((st.end_lineno or st.lineno) for st in hit) - 1
        if len(hit) == 1:
            lists = [b for name in _BODIES for b in [getattr(hit[0], name, None)] if b]
            lists += [h.body for h in getattr(hit[0], "handlers", [])]
            inner = [b for b in lists if b[0].lineno - 1 <= first and (b[-1].end_lineno or 0) - 1 >= last]
            if inner:
                stmts = inner[0]
                continue
        return min(lo, first), max(hi, last)


def _block_splice(res: BlockResult, snapshot: Snapshot, gold: str) -> tuple[int, int, list[str]] | None:
    """The block's added region of the gold post-image replaced by the snapshot's rows its lines
    were aligned to, each widened to whole statements and re-indented: the snapshot's statements
    whole, where line-by-line replacement broke their shape."""
    rows = [m.snapshot_rows for m in res.matches if m.snapshot_rows is not None]
    if not rows or res.location is None or not res.block.added:
        return None
    start, end = whole_statements(gold, min(ln.start for ln in res.block.added), max(ln.end for ln in res.block.added))
    source = snapshot.read(res.location.path)
    s0, s1 = whole_statements(source, min(r[0] for r in rows), max(r[1] for r in rows))
    post = gold.split("\n")
    first = post[start] if start < len(post) else ""
    return start, end, _reindent("\n".join(source.split("\n")[s0:s1 + 1]), first[: len(first) - len(first.lstrip())])


def modified_patch(inst: BugInstance, base: Snapshot, results: Sequence[BlockResult],
                   snapshot: Snapshot | None = None) -> str | None:
    """The gold patch with each added line replaced by its aligned snapshot line, as a diff
    against ``base``; ``None`` when no line was aligned (nothing to verify).

    Where that leaves a Python file the gold patch keeps valid unparsable (an ``if (...):`` header
    replaced by a plain statement), and ``snapshot`` is given, each spliced block's added region is
    replaced by the snapshot's rows it was aligned to, whole. :class:`SpliceError` when the file
    still does not parse: its tests could only fail at import, which says nothing about the fix."""
    return splice_patch(inst, base, results, snapshot)[0]


def splice_patch(inst: BugInstance, base: Snapshot, results: Sequence[BlockResult],
                 snapshot: Snapshot | None = None) -> tuple[str | None, bool]:
    """:func:`modified_patch` and whether whole statements were transplanted (then a failing
    test run cannot show the fix absent: the transplant may have replaced more than the fix)."""
    transplanted = False
    patch = PatchSet(inst.patch)
    by_file: dict[str, list[tuple[int, int, list[str]]]] = {}
    blocks: dict[str, list[BlockResult]] = {}
    for res in results:
        path = res.block.path
        if path is None:
            continue
        for line, match in zip(res.block.added, res.matches):
            if match.snapshot_line is None or match.kind == "exact":
                continue
            indent = line.raw[: len(line.raw) - len(line.raw.lstrip())]
            rows = _reindent(match.snapshot_line, indent)
            by_file.setdefault(path, []).append((line.start, line.end, rows))
            if not blocks.get(path) or blocks[path][-1] is not res:
                blocks.setdefault(path, []).append(res)
    if not by_file:
        return None, False
    chunks: list[str] = []
    for pfile in patch:
        target = pfile.path
        source_text = base.read(target) if base.exists(target) else ""
        gold = apply_patch_to_text(source_text, pfile, inst.instance_id)
        post = gold.split("\n")
        for start, end, rows in sorted(by_file.get(target, []), reverse=True):
            post[start:end + 1] = rows
        if target.endswith(".py") and target in by_file and _parses(gold, target) is None:
            broken = _parses("\n".join(post), target)
            if broken is not None and snapshot is not None:
                whole = gold.split("\n")
                spans = [sp for res in blocks[target] if (sp := _block_splice(res, snapshot, gold))]
                for start, end, rows in sorted(spans, reverse=True):
                    whole[start:end + 1] = rows
                if _parses("\n".join(whole), target) is None:
                    post, broken, transplanted = whole, None, True
            if broken is not None:
                raise SpliceError(target, *broken)
        a = source_text.splitlines(keepends=True)
        b = [r + "\n" for r in post]
        if b and not source_text.endswith("\n") and source_text:
            b[-1] = b[-1][:-1]
        chunks.extend(difflib.unified_diff(a, b, f"a/{target}", f"b/{target}"))
    return "".join(c if c.endswith("\n") else c + "\n\\ No newline at end of file\n" for c in chunks), transplanted
