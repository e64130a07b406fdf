"""A fix that only reorders lines: present when each moved line sits between its post-patch
neighbours.

A block whose added lines are its removed lines (the same normalised texts, the same counts)
changes nothing but order (``django__django-15851`` moves ``args.extend(parameters)`` before the
database name). Line alignment cannot see that: the moved line is in the snapshot verbatim either
way, so every snapshot of the file read "present", years before the pull request existed. Here
each moved line is looked for with its neighbours: the logical lines just before and after it in
the post-patch scope. A snapshot copy between the same two lines is the fix (``exact``, 1.0); a
copy elsewhere is the old order (``pre-patch``, 0.0); no copy is ``unmatched``.
"""

from __future__ import annotations

from collections import Counter

from ._localize import LineMatch, Location
from ._normalize import LogicalLine, ParsedSource
from ._patch import PatchBlock


def _post_lines(block: PatchBlock, post: ParsedSource | None) -> tuple[LogicalLine, ...] | None:
    if post is None:
        return None
    scopes = post.find(block.scope) if block.scope else [None]
    return post.lines_in(scopes[0]) if scopes else None


def is_reorder(block: PatchBlock, post: ParsedSource | None = None) -> bool:
    """Whether ``block`` only moves lines: every added line is a removed line of the patch in the
    same file and scope (this block's or another's: a move is often two runs, the line added
    above and removed below), or, for a block that only removes lines, every removed line is
    added by another block of the same file and scope (``readded``) and is in the post-patch
    scope (``post``)."""
    if block.added:
        gone = {r.text for r in (*block.removed, *block.rivals)}
        return all(a.text in gone for a in block.added) and Counter(
            r.text for r in block.removed) <= Counter(a.text for a in block.added)
    lines = _post_lines(block, post)
    return bool(block.removed) and lines is not None and all(
        r.text in block.readded and r.text in {ln.text for ln in lines} for r in block.removed)


def _neighbours(lines: tuple[LogicalLine, ...], i: int) -> tuple[str | None, str | None]:
    return (lines[i - 1].text if i > 0 else None, lines[i + 1].text if i + 1 < len(lines) else None)


def reorder_matches(block: PatchBlock, location: Location, post: ParsedSource | None
                    ) -> tuple[LineMatch, ...] | None:
    """The matches of a reordering block (module doc), one per moved line; ``None`` when
    ``block`` is no reorder or its post-patch scope is unknown (the ordinary alignment decides)."""
    post_lines = _post_lines(block, post)
    if post_lines is None or not is_reorder(block, post):
        return None
    rows = {(ln.start, ln.end): k for k, ln in enumerate(post_lines)}
    out = []
    for moved in block.added or block.removed:
        if block.added:   # the post-patch row of an added line
            k = rows.get((moved.start, moved.end))
            if k is None:
                return None
            wanted = {_neighbours(post_lines, k)}
        else:             # a removed line: wherever the post-patch scope has it
            wanted = {_neighbours(post_lines, k) for k, ln in enumerate(post_lines) if ln.text == moved.text}
        copies = [j for j, ln in enumerate(location.lines) if ln.text == moved.text]
        placed = [j for j in copies if _neighbours(location.lines, j) in wanted]
        if placed:
            ln = location.lines[placed[0]]
            out.append(LineMatch(moved.text, ln.raw, (ln.start, ln.end), 1.0, "exact"))
        elif copies:
            ln = location.lines[copies[0]]
            out.append(LineMatch(moved.text, ln.raw, (ln.start, ln.end), 0.0, "pre-patch"))
        else:
            out.append(LineMatch(moved.text, None, None, 0.0, "unmatched"))
    return tuple(out)
