"""A gold patch -> blocks of changed *logical* lines, each with its enclosing function or class.

With the pre-patch files (``read_pre``), the patch is applied in memory and both sides are parsed
whole, so a block's scope is the function that holds it in the post-patch file. Without them
(``read_pre=None``), each hunk's pre- and post-image fragments are parsed on their own and the
scope comes from a definition inside the hunk, else from the hunk header (``@@ ... @@ def f``).

Refused, with a :class:`DataError` that names the instance: an unparsable or empty diff, a binary
diff, and a path that is absolute or climbs out of the repository with ``..``.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Callable

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

from ..errors import DataError
from ..repos.language import detect_language
from .normalize import LogicalLine, ParsedSource, parse_source

__all__ = ["PatchBlock", "apply_patch_to_text", "check_path", "parse_patch"]

_HEADER_DEF = re.compile(r"\b(?:def|class|interface|enum|record)\s+([A-Za-z_$][\w$]*)")
_HEADER_CALL = re.compile(r"([A-Za-z_$][\w$]*)\s*\(")
_JAVA_NOT_NAMES = frozenset({"if", "for", "while", "switch", "catch", "synchronized", "return", "new"})


@dataclass(frozen=True)
class PatchBlock:
    """A run of changed lines of one file, as logical lines.

    ``added``: post-patch logical lines holding an added row; ``removed``: pre-patch logical lines
    holding a removed row. ``scope`` is the qualified name of the enclosing function (or class),
    ``None`` at module level; ``scope_from`` says how it was found (``"tree"``, ``"hunk-header"``).
    ``source_path`` is ``None`` for a file the patch creates; ``path`` is ``None`` for one it deletes.
    """

    path: str | None
    source_path: str | None
    language: str | None
    scope: str | None
    scope_from: str
    added: tuple[LogicalLine, ...]
    removed: tuple[LogicalLine, ...]
    hunk_header: str = ""

    @property
    def file(self) -> str:
        return self.path or self.source_path or ""


def check_path(path: str, instance_id: str) -> str:
    """``path`` if it stays inside the repository; :class:`DataError` for absolute or ``..`` paths."""
    p = PurePosixPath(path)
    if p.is_absolute() or path.startswith("\\") or re.match(r"^[A-Za-z]:", path) or ".." in p.parts:
        raise DataError(f"instance {instance_id!r}: diff path {path!r} is absolute or leaves the "
                        "repository (refused)")
    return path


def _strip(path: str | None) -> str | None:
    if path is None or path == "/dev/null":
        return None
    for prefix in ("a/", "b/"):
        if path.startswith(prefix):
            return path[len(prefix):]
    return path


def apply_patch_to_text(pre: str, pfile, instance_id: str = "?") -> str:  # noqa: ANN001 (unidiff)
    """The post-patch text of one file of a :class:`unidiff.PatchSet` applied to ``pre``."""
    old = pre.split("\n")
    out: list[str] = []
    pos = 0
    for hunk in pfile:
        start = max(hunk.source_start - 1, 0) if hunk.source_length else hunk.source_start
        if start < pos or start > len(old):
            raise DataError(f"instance {instance_id!r}: hunk {hunk.source_start} of {pfile.path} "
                            "does not apply (out of order or past the end)")
        out.extend(old[pos:start])
        pos = start
        for line in hunk:
            value = line.value.rstrip("\n").rstrip("\r")
            if line.line_type in (" ", "-"):
                if pos >= len(old) or old[pos].rstrip("\r") != value:
                    raise DataError(f"instance {instance_id!r}: {pfile.path} line {pos + 1} differs "
                                    "from the patch context (wrong base file?)")
                if line.line_type == " ":
                    out.append(old[pos])
                pos += 1
            elif line.line_type == "+":
                out.append(value)
    out.extend(old[pos:])
    return "\n".join(out)


def _header_scope(header: str) -> str | None:
    m = _HEADER_DEF.search(header)
    if m:
        return m.group(1)
    for m in _HEADER_CALL.finditer(header):
        if m.group(1) not in _JAVA_NOT_NAMES:
            return m.group(1)
    return None


def _fragment(values: list[str], language: str | None, docstrings: bool = True) -> ParsedSource:
    return parse_source(textwrap.dedent("\n".join(values)), language, docstrings=docstrings)


def _fragment_line(frag: ParsedSource, values: list[str], row: int, language: str | None,
                   first_changed: int) -> LogicalLine | None:
    """The logical line of ``row`` in a hunk fragment, robust to a fragment that starts inside a
    string or a bracket: re-parsed from the run's first changed row, else the row on its own."""
    if frag.tree is None or not frag.tree.root_node.has_error:
        return frag.line_at(row)
    tail = _fragment(values[first_changed:], language, docstrings=False)
    if tail.tree is not None and not tail.tree.root_node.has_error:
        ln = tail.line_at(row - first_changed)
        return None if ln is None else LogicalLine(ln.start + first_changed, ln.end + first_changed,
                                                   ln.text, ln.raw)
    plain = parse_source(textwrap.dedent(values[row]), None)
    return LogicalLine(row, row, plain.lines[0].text, values[row]) if plain.lines else None


def _runs(hunk) -> list[list]:  # noqa: ANN001
    runs: list[list] = []
    cur: list = []
    for line in hunk:
        if line.line_type in ("+", "-"):
            cur.append(line)
        elif line.line_type == " " and cur:
            runs.append(cur)
            cur = []
    if cur:
        runs.append(cur)
    return runs


def _unique(lines: list[LogicalLine | None]) -> tuple[LogicalLine, ...]:
    seen: dict[tuple[int, int], LogicalLine] = {}
    for ln in lines:
        if ln is not None and (ln.start, ln.end) not in seen:
            seen[(ln.start, ln.end)] = ln
    return tuple(seen.values())


def _file_blocks(pfile, path: str | None, source: str | None, read_pre, instance_id: str,  # noqa: ANN001
                 posts: dict[str, ParsedSource] | None, preprocess: bool) -> list[PatchBlock]:
    language = detect_language(path or source or "")
    pre_text = read_pre(source) if (read_pre is not None and source is not None) else None
    whole = read_pre is not None and (source is None or pre_text is not None)
    if whole:
        pre_text = pre_text or ""
        pre = parse_source(pre_text, language, preprocess=preprocess)
        post_text = apply_patch_to_text(pre_text, pfile, instance_id) if path else None
        post = parse_source(post_text, language, preprocess=preprocess) if post_text is not None else None
        if posts is not None and path and post is not None:
            posts[path] = post
    blocks: list[PatchBlock] = []
    for hunk in pfile:
        if not whole:
            pre_vals = [ln.value.rstrip("\r\n") for ln in hunk if ln.line_type in (" ", "-")]
            post_vals = [ln.value.rstrip("\r\n") for ln in hunk if ln.line_type in (" ", "+")]
            pre, post = _fragment(pre_vals, language), _fragment(post_vals, language)
            pre_row = {id(ln): i for i, ln in enumerate(x for x in hunk if x.line_type in (" ", "-"))}
            post_row = {id(ln): i for i, ln in enumerate(x for x in hunk if x.line_type in (" ", "+"))}
        else:
            pre_row = {id(ln): ln.source_line_no - 1 for ln in hunk if ln.source_line_no}
            post_row = {id(ln): ln.target_line_no - 1 for ln in hunk if ln.target_line_no}
        for run in _runs(hunk):
            add_rows = [post_row[id(ln)] for ln in run if ln.line_type == "+"]
            rem_rows = [pre_row[id(ln)] for ln in run if ln.line_type == "-"]
            if whole:
                added = _unique([post.line_at(r) for r in add_rows]) if post is not None else ()
                removed = _unique([pre.line_at(r) for r in rem_rows])
            else:
                added = _unique([_fragment_line(post, post_vals, r, language, min(add_rows))
                                 for r in add_rows])
                removed = _unique([_fragment_line(pre, pre_vals, r, language, min(rem_rows))
                                   for r in rem_rows])
            if not added and not removed:
                continue  # only blank or comment rows changed
            scope_src = (post, add_rows[0]) if add_rows and post is not None else (pre, rem_rows[0])
            found = scope_src[0].enclosing(scope_src[1])
            scope, scope_from = (found.qualname, "tree") if found else (None, "tree")
            if found is None and not whole:
                scope = _header_scope(hunk.section_header or "")
                scope_from = "hunk-header" if scope else "none"
            blocks.append(PatchBlock(path, source, language, scope, scope_from, added, removed,
                                     hunk.section_header or ""))
    return _merge_blocks(blocks)


def _merge_blocks(blocks: list[PatchBlock]) -> list[PatchBlock]:
    out: list[PatchBlock] = []
    for b in blocks:
        if out:
            prev = out[-1]
            shared = ({(x.start, x.end) for x in prev.added} & {(x.start, x.end) for x in b.added}
                      or {(x.start, x.end) for x in prev.removed} & {(x.start, x.end) for x in b.removed})
            if shared and prev.scope == b.scope and prev.hunk_header == b.hunk_header:
                out[-1] = PatchBlock(prev.path, prev.source_path, prev.language, prev.scope, prev.scope_from,
                                     _unique([*prev.added, *b.added]), _unique([*prev.removed, *b.removed]),
                                     prev.hunk_header)
                continue
        out.append(b)
    return out


def parse_patch(diff: str, *, instance_id: str = "?",
                read_pre: Callable[[str], str | None] | None = None,
                posts: dict[str, ParsedSource] | None = None,
                preprocess: bool = True) -> tuple[PatchBlock, ...]:
    """The blocks of ``diff``; ``read_pre(path)`` gives a pre-patch file's text (``None``: absent).

    When ``posts`` is a dict it receives the parsed post-patch file of each path (whole mode).
    ``preprocess=False`` keeps raw rows (whole mode; the exact-matching ablation).

    Raises :class:`DataError` naming ``instance_id`` for a malformed, empty or binary diff and for
    a path outside the repository.
    """
    if not isinstance(diff, str) or not diff.strip():
        raise DataError(f"instance {instance_id!r}: empty patch")
    try:
        patch = PatchSet(diff)
    except UnidiffParseError as exc:
        raise DataError(f"instance {instance_id!r}: malformed diff: {exc}") from exc
    if len(patch) == 0:
        raise DataError(f"instance {instance_id!r}: malformed diff: no file headers found")
    blocks: list[PatchBlock] = []
    for pfile in patch:
        source, target = _strip(pfile.source_file), _strip(pfile.target_file)
        for p in (source, target):
            if p is not None:
                check_path(p, instance_id)
        if pfile.is_binary_file:
            raise DataError(f"instance {instance_id!r}: binary diff for {pfile.path!r} (no text to match)")
        blocks.extend(_file_blocks(pfile, target, source, read_pre, instance_id, posts, preprocess))
    return tuple(blocks)
