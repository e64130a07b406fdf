"""A gold patch -> blocks of changed *logical* lines, each with its enclosing function or class.

With the pre-patch files (``read_pre``), the patch is applied in memory and both sides are parsed
whole, so a block's scope is the function that holds it in the post-patch file; each hunk is found
where ``git apply`` finds it, at an offset from its stated line when the file has moved, and a
patch ``git apply`` refuses is refused. Without them (``read_pre=None``), each hunk's pre- and
post-image fragments are parsed on their own and the scope comes from a definition inside the
hunk, else from the hunk header (``@@ ... @@ def f``).

Refused, with a :class:`DataError` that names the instance: an unparsable or empty diff, a binary
diff, and a path that is absolute or climbs out of the repository with ``..``.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

from ..errors import DataError
from ..repos import detect_language
from ._normalize import LogicalLine, ParsedSource, parse_source

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
    ``offset``: how many rows from its stated line ``git apply`` finds the hunk (whole mode; else 0).
    ``rivals``: the removed lines of the patch's other blocks in the same file and scope: a
    snapshot line closer to one of them than to an added line is the old code, not the fix.
    ``readded``: the texts of the added lines of those other blocks (a line removed here and added
    there is moved, not deleted: :mod:`._reorder`).
    """

    path: str | None
    source_path: str | None
    language: str | None
    scope: str | None
    scope_from: str
    added: tuple[LogicalLine, ...]
    removed: tuple[LogicalLine, ...]
    hunk_header: str = ""
    offset: int = 0
    rivals: tuple[LogicalLine, ...] = ()
    readded: tuple[str, ...] = ()

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


@dataclass(frozen=True)
class _Applied:
    """One file's patch applied: the post-patch text and, per hunk, its offset from the stated
    line, the pre-patch row of each context or removed line and the post-patch row of each
    context or added line (0-based, in hunk order)."""

    text: str
    offsets: tuple[int, ...]
    pre_rows: tuple[tuple[int, ...], ...]
    post_rows: tuple[tuple[int, ...], ...]


def _value(line) -> str:  # noqa: ANN001 (unidiff Line)
    return line.value.rstrip("\n").rstrip("\r")


def _context_counts(kinds: list[str]) -> tuple[int, int]:
    """``(leading, trailing)`` context rows of a hunk, counted as ``git apply`` does."""
    leading = trailing = 0
    changed = False
    for k in kinds:
        if k == " ":
            leading += not changed
            trailing += 1
        else:
            changed, trailing = True, 0
    return leading, trailing


def _outward(line: int, n: int):  # noqa: ANN202
    """Candidate start rows in ``git apply``'s order: ``line``, ``+1``, ``-1``, ``+2``, ``-2``, ..."""
    yield line
    for d in range(1, n + 1):
        if line + d <= n:
            yield line + d
        if line - d >= 0:
            yield line - d


def _fits(img: list, want: list[str], at: int) -> bool:
    """Whether ``want`` matches ``img`` rows from ``at``, none of them written by an earlier hunk."""
    if at + len(want) > len(img):
        return False
    return all(isinstance(img[at + i][1], int) and img[at + i][0].rstrip("\r") == w
               for i, w in enumerate(want))


def _locate(img: list, hunk, want: list[str], kinds: list[str]) -> tuple[int, int]:  # noqa: ANN001
    """``(found, stated)`` image rows of a hunk's pre-image, searched as ``git apply`` does
    (found = -1: nowhere). A hunk without any context row follows ``git apply --unidiff-zero``."""
    leading, trailing = _context_counts(kinds)
    zero = leading == 0 and trailing == 0
    begin = hunk.source_start == 0 or (hunk.source_start == 1 and not zero)
    end = not zero and trailing == 0
    stated = hunk.target_start - 1 if hunk.target_start else 0
    n = len(img)
    line = 0 if begin else (n - len(want) if end else stated)
    line = n if line < 0 or line > n else line
    for at in ([line] if begin or end else _outward(line, n)):
        if (not end or at + len(want) == n) and _fits(img, want, at):
            return at, stated
    return -1, stated


def _refusal(img: list, hunk, want: list[str], stated: int, path: str,  # noqa: ANN001
             instance_id: str) -> DataError:
    """Why a hunk found nowhere fails at its stated line: the first row there that differs."""
    for i, w in enumerate(want):
        at = stated + i
        if at >= len(img) or img[at][0].rstrip("\r") != w:
            return DataError(f"instance {instance_id!r}: {path} line {hunk.source_start + i} differs "
                             "from the patch context (wrong base file?)")
        if not isinstance(img[at][1], int):
            return DataError(f"instance {instance_id!r}: hunk {hunk.source_start} of {path} does not "
                             "apply (it overlaps an earlier hunk)")
    return DataError(f"instance {instance_id!r}: hunk {hunk.source_start} of {path} does not apply "
                     "(it must match at the start or the end of the file)")


def _apply(pre: str, pfile, instance_id: str) -> _Applied:  # noqa: ANN001 (unidiff PatchedFile)
    """Apply ``pfile`` to ``pre`` the way ``git apply`` does (see :func:`apply_patch_to_text`)."""
    ends_nl = pre == "" or pre.endswith("\n")
    rows = pre.split("\n")
    if ends_nl:
        rows.pop()
    # image rows: (text, tag); tag is the pre-patch row, or (hunk, k) for a row a hunk wrote
    img: list[tuple[str, int | tuple[int, int]]] = [(r, i) for i, r in enumerate(rows)]
    offsets: list[int] = []
    pre_rows: list[tuple[int, ...]] = []
    for h, hunk in enumerate(pfile):
        lines = [ln for ln in hunk if ln.line_type in (" ", "-", "+")]
        kinds = [ln.line_type for ln in lines]
        want = [_value(ln) for ln in lines if ln.line_type != "+"]
        found, stated = _locate(img, hunk, want, kinds)
        if found < 0:
            raise _refusal(img, hunk, want, stated, pfile.path, instance_id)
        old = img[found:found + len(want)]
        pre_rows.append(tuple(tag for _, tag in old if isinstance(tag, int)))  # all of them
        offsets.append(found - stated)
        made: list[tuple[str, int | tuple[int, int]]] = []
        src = iter(old)
        for ln in lines:
            if ln.line_type == "-":
                next(src)
                continue
            text = next(src)[0] if ln.line_type == " " else _value(ln)
            made.append((text, (h, len(made))))
        img[found:found + len(want)] = made
    post: dict[tuple[int, int], int] = {tag: i for i, (_, tag) in enumerate(img) if not isinstance(tag, int)}
    post_rows = tuple(tuple(post[(h, k)] for k in range(sum(ln.line_type in (" ", "+") for ln in hunk)))
                      for h, hunk in enumerate(pfile))
    text = "\n".join(t for t, _ in img) + ("\n" if ends_nl and img else "")
    return _Applied(text, tuple(offsets), tuple(pre_rows), post_rows)


def apply_patch_to_text(pre: str, pfile, instance_id: str = "?") -> str:  # noqa: ANN001 (unidiff)
    """The post-patch text of one file of a :class:`unidiff.PatchSet` applied to ``pre``.

    Each hunk is located as ``git apply`` locates it: its pre-image (context and removed rows,
    compared exactly up to a trailing ``\\r``) is searched outward from the line its header states
    (``+1``, ``-1``, ``+2``, ...; the nearest match wins), never over rows an earlier hunk wrote, with
    no fuzz and no reduced context; a hunk without trailing context must end the file and one stated
    at line 0 or 1 must start it. Raises :class:`DataError` naming the instance and the first row
    that differs at the stated line when the pre-image is found nowhere.
    """
    return _apply(pre, pfile, instance_id).text


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
        applied = _apply(pre_text, pfile, instance_id)
        post = parse_source(applied.text, language, preprocess=preprocess) if path else None
        if posts is not None and path and post is not None:
            posts[path] = post
    blocks: list[PatchBlock] = []
    for h, hunk in enumerate(pfile):
        offset = 0
        if not whole:
            pre_vals = [ln.value.rstrip("\r\n") for ln in hunk if ln.line_type in (" ", "-")]
            post_vals = [ln.value.rstrip("\r\n") for ln in hunk if ln.line_type in (" ", "+")]
            pre, post = _fragment(pre_vals, language), _fragment(post_vals, language)
            pre_row = {id(ln): i for i, ln in enumerate(x for x in hunk if x.line_type in (" ", "-"))}
            post_row = {id(ln): i for i, ln in enumerate(x for x in hunk if x.line_type in (" ", "+"))}
        else:
            offset = applied.offsets[h]
            pre_lines = (x for x in hunk if x.line_type in (" ", "-"))
            post_lines = (x for x in hunk if x.line_type in (" ", "+"))
            pre_row = {id(ln): r for ln, r in zip(pre_lines, applied.pre_rows[h])}
            post_row = {id(ln): r for ln, r in zip(post_lines, applied.post_rows[h])}
        for run in _runs(hunk):
            add_rows = [post_row[id(ln)] for ln in run if ln.line_type == "+"]
            rem_rows = [pre_row[id(ln)] for ln in run if ln.line_type == "-"]
            if whole:
                added = _unique([post.line_at(r) for r in add_rows]) if post is not None else ()
                removed = _unique([pre.line_at(r) for r in rem_rows])
            else:
                assert post is not None  # the hunk's fragment, parsed above (never None)
                added = _unique([_fragment_line(post, post_vals, r, language, min(add_rows))
                                 for r in add_rows])
                removed = _unique([_fragment_line(pre, pre_vals, r, language, min(rem_rows))
                                   for r in rem_rows])
            if not added and not removed:
                continue  # only blank or comment rows changed
            if whole:
                blocks.extend(PatchBlock(path, source, language, scope, "tree", add, rem,
                                         hunk.section_header or "", offset)
                              for scope, add, rem in _by_scope(added, removed, pre, post))
                continue
            scope_src = (post, add_rows[0]) if add_rows and post is not None else (pre, rem_rows[0])
            found = scope_src[0].enclosing(scope_src[1])
            scope, scope_from = (found.qualname, "tree") if found else (None, "tree")
            if found is None and not whole:
                scope = _header_scope(hunk.section_header or "")
                scope_from = "hunk-header" if scope else "none"
            blocks.append(PatchBlock(path, source, language, scope, scope_from, added, removed,
                                     hunk.section_header or "", offset))
    return _merge_blocks(blocks)


def _by_scope(added: tuple[LogicalLine, ...], removed: tuple[LogicalLine, ...], pre: ParsedSource,
              post: ParsedSource | None) -> list[tuple[str | None, tuple[LogicalLine, ...],
                                                       tuple[LogicalLine, ...]]]:
    """One run's lines split by the function (else class) that holds each line.

    A run that adds a whole new function after the end of another, or a nested helper function
    beside the lines that call it, is several blocks: each is localised by its own name. Added
    lines take their scope in the post-patch file, removed lines in the pre-patch file; a removed
    line whose scope is not in the post-patch file (the patch renamed or removed it) stays with
    the run's first added scope, so it is still the rival of the lines that replaced it."""
    def name(src: ParsedSource | None, ln: LogicalLine) -> str | None:
        found = src.enclosing(ln.start) if src is not None else None
        return found.qualname if found else None

    post_names = {sc.qualname for sc in post.scopes} if post is not None else set()
    groups: dict[str | None, tuple[list[LogicalLine], list[LogicalLine]]] = {}
    for ln in added:
        groups.setdefault(name(post, ln), ([], []))[0].append(ln)
    first = next(iter(groups), None)
    for ln in removed:
        scope = name(pre, ln)
        if added and scope not in groups and (scope is None or scope not in post_names):
            scope = first
        groups.setdefault(scope, ([], []))[1].append(ln)
    return [(scope, tuple(add), tuple(rem)) for scope, (add, rem) in groups.items()]


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
                                     prev.hunk_header, prev.offset)
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
    return _with_rivals(blocks)


def _with_rivals(blocks: list[PatchBlock]) -> tuple[PatchBlock, ...]:
    """Each block with the removed lines (and the added texts) of the other blocks of its file
    and scope."""
    pool: dict[tuple[str, str | None], list[LogicalLine]] = {}
    adds: dict[tuple[str, str | None], list[tuple[int, str]]] = {}
    for k, b in enumerate(blocks):
        pool.setdefault((b.file, b.scope), []).extend(b.removed)
        adds.setdefault((b.file, b.scope), []).extend((k, a.text) for a in b.added)
    out = []
    for k, b in enumerate(blocks):
        others = tuple(r for r in pool[(b.file, b.scope)] if r not in b.removed)
        readded = tuple(t for j, t in adds[(b.file, b.scope)] if j != k)
        out.append(replace(b, rivals=others, readded=readded) if others or readded else b)
    return tuple(out)
