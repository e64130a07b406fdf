"""Source text -> logical lines (normalised) and named scopes, with tree-sitter.

A *logical line* is a statement as a reader sees it: the physical rows of a call, a literal or a
header split across lines inside brackets, or of a simple statement continued with ``\\``, are one
line. Normalisation (``preprocess=True``) keeps only the code tokens — comments and Python
docstrings are dropped, tokens are joined by one space, a trailing comma before a closing
bracket is dropped and Python's ``'x'`` becomes ``"x"`` — so that reformatting and comments do not
change a line. ``preprocess=False`` is the ablation: one stripped physical row per line, as is.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ._languages import LanguageSpec, get_language, parse_text

_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = frozenset(_OPEN.values())
_PY_STRING = re.compile(r"^([rRbBuUfF]{0,2})('''|')(.*)\2$", re.S)


@dataclass(frozen=True)
class LogicalLine:
    """One logical line: rows ``start``..``end`` (0-based, inclusive), normalised ``text``."""

    start: int
    end: int
    text: str
    raw: str


@dataclass(frozen=True)
class Scope:
    """A function or class: ``qualname`` joins the enclosing scope names with dots."""

    qualname: str
    name: str
    kind: str  # "function" or "class"
    start: int
    end: int
    node_id: int


class ParsedSource:
    """Scopes of one source text, and its logical lines computed lazily per scope.

    Only the subtree of the scope a caller asks about is walked, so that looking at one function
    of a 3,000-line file costs that function, not the file.
    """

    def __init__(self, text: str, language: str | None, spec: LanguageSpec | None, tree: Any,
                 *, preprocess: bool = True, docstrings: bool = True) -> None:
        self.text = text
        self.language = language
        self.spec = spec
        self.tree = tree
        self.preprocess = preprocess
        self.docstrings = docstrings
        self.rows = text.split("\n")
        self._nodes: dict[int, Any] = {}
        self.scopes: tuple[Scope, ...] = tuple(_scopes(tree.root_node, spec, self._nodes)) if spec else ()
        self._functions = [sc for sc in self.scopes if sc.kind == "function"]
        # a grammar that names its scopes (spec.scope_name) leaves unnamed functions in their scope
        self._skip_ids = (frozenset(sc.node_id for sc in self._functions)
                          if spec is not None and spec.scope_name is not None else None)
        self._lines: dict[int | None, tuple[LogicalLine, ...]] = {}

    @property
    def lines(self) -> tuple[LogicalLine, ...]:
        """Every logical line of the file."""
        return self._compute(self.tree.root_node if self.tree else None, skip_functions=False, key=-1)

    def _compute(self, node: Any, *, skip_functions: bool, key: int | None) -> tuple[LogicalLine, ...]:
        if key in self._lines:
            return self._lines[key]
        if self.spec is None or not self.preprocess:
            lines = _plain_lines(self.rows, self.preprocess)
            if node is not None and key != -1:
                lo, hi = node.start_point[0], node.end_point[0]
                lines = [ln for ln in lines if lo <= ln.start <= hi]
            if skip_functions:
                lines = [ln for ln in lines if not any(f.start <= ln.start <= f.end for f in self._functions)]
        else:
            tokens, joins = _walk(node, self.spec, self.docstrings,
                                  self.spec.functions if skip_functions else frozenset(), self._skip_ids)
            lines = list(_group(tokens, joins, self.rows))
        out = self._lines[key] = tuple(lines)
        return out

    def lines_in(self, scope: Scope | None) -> tuple[LogicalLine, ...]:
        """The logical lines of ``scope`` (the lines outside any function when ``None``)."""
        if scope is None:
            return self._compute(self.tree.root_node if self.tree else None, skip_functions=True, key=None)
        return self._compute(self._nodes[scope.node_id], skip_functions=False, key=scope.node_id)

    def line_at(self, row: int) -> LogicalLine | None:
        """The logical line that covers physical ``row`` (``None`` for blank/comment rows)."""
        fn = self.enclosing(row, kind="function")
        lines = self.lines_in(fn)
        starts = [ln.start for ln in lines]
        i = bisect_right(starts, row) - 1
        if i >= 0 and lines[i].start <= row <= lines[i].end:
            return lines[i]
        return None

    def enclosing(self, row: int, kind: str | None = None) -> Scope | None:
        """The innermost function holding ``row``, else the innermost class, else ``None``
        (``kind`` restricts to ``"function"`` or ``"class"``)."""
        for k in ((kind,) if kind else ("function", "class")):
            best: Scope | None = None
            for sc in self.scopes:
                if sc.kind == k and sc.start <= row <= sc.end and (best is None or sc.start >= best.start):
                    best = sc
            if best is not None:
                return best
        return None

    def find(self, qualname: str) -> list[Scope]:
        """Scopes whose qualified name is ``qualname``."""
        return [sc for sc in self.scopes if sc.qualname == qualname]

    def named(self, name: str) -> list[Scope]:
        """Scopes whose own (last) name is ``name``."""
        return [sc for sc in self.scopes if sc.name == name]

    def node(self, scope: Scope) -> Any:
        """The tree-sitter node of ``scope``."""
        return self._nodes[scope.node_id]


_CONTAINER = re.compile(r"(statement|definition|declaration|clause|block|body|module|program)$")


def _scopes(root: Any, spec: LanguageSpec, nodes: dict[int, Any]) -> list[Scope]:
    """Functions and classes, found by descending statement-level nodes only (cheap)."""
    out: list[Scope] = []
    stack: list[tuple[Any, tuple[str, ...]]] = [(root, ())]
    openers = spec.functions | spec.classes | spec.containers
    while stack:
        node, names = stack.pop()
        typ = node.type
        if typ in spec.functions or typ in spec.classes:
            if spec.scope_name is None:
                name_node = node.child_by_field_name("name")
                parts: tuple[str, ...] = (name_node.text.decode("utf-8", "replace")
                                          if name_node is not None else "?",)
            else:  # dotted when qualified; None: no scope (an anonymous function)
                full = spec.scope_name(node)
                parts = tuple(p for p in full.split(".") if p) if full else ()
            if parts:
                names = (*names, *parts)
                out.append(Scope(".".join(names), parts[-1], "function" if typ in spec.functions else "class",
                                 node.start_point[0], node.end_point[0], node.id))
                nodes[node.id] = node
        for child in reversed(node.named_children):
            if _CONTAINER.search(child.type) or child.type in openers:
                stack.append((child, names))
    out.sort(key=lambda sc: (sc.start, -sc.end))
    return out


def _is_docstring(node: Any, spec: LanguageSpec) -> bool:
    """A string-only statement that opens a module, class or function body."""
    if not (spec.docstrings and node.type == "expression_statement" and node.named_child_count == 1
            and node.named_children[0].type in spec.strings):
        return False
    prev = node.prev_named_sibling
    while prev is not None and prev.type in spec.comments:
        prev = prev.prev_named_sibling
    parent = node.parent
    return prev is None and parent is not None and parent.type in ("module", "block")


def _string_token(text: str, spec: LanguageSpec) -> str:
    if spec.single_quotes_equal:
        m = _PY_STRING.match(text)
        if m and '"' not in m.group(3) and "\\" not in m.group(3):
            q = '"""' if m.group(2) == "'''" else '"'
            return f"{m.group(1)}{q}{m.group(3)}{q}"
    return text


def _walk(root: Any, spec: LanguageSpec, docstrings: bool, skip: frozenset[str],
          skip_ids: frozenset[int] | None = None) -> tuple[list[tuple[int, int, str]], list[tuple[int, int]]]:
    """Tokens ``(row, end_row, text)`` and rows to join, in one pre-order pass over ``root``
    (comments and docstrings dropped; subtrees of a type in ``skip`` left out, only those whose
    id is in ``skip_ids`` when that is given). With ``spec.split_blocks``, the joins are cut
    around the multi-row blocks they hold (:func:`_cut`)."""
    tokens: list[tuple[int, int, str]] = []
    joins: list[tuple[int, int]] = []
    blocks: list[tuple[int, int]] = []
    split = spec.split_blocks
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        typ = node.type
        if typ in spec.comments or (docstrings and _is_docstring(node, spec)) or (
                typ in skip and node is not root and (skip_ids is None or node.id in skip_ids)):
            continue
        srow, erow = node.start_point[0], node.end_point[0]
        if split and erow > srow and node.end_point[1] == 0:
            erow -= 1  # ends with a newline (a preprocessor line): nothing of it on the last row
        kids = node.children
        if typ in spec.strings or not kids:
            if erow > srow:
                joins.append((srow, erow))
            text = node.text.decode("utf-8", "replace")
            if typ in spec.collapse:
                text = " ".join(text.replace("\\\n", " ").split())
            if text.strip() not in ("", "\\"):  # not a line continuation
                tokens.append((srow, erow, _string_token(text, spec)))
            continue
        if split and erow > srow and typ in spec.blocks:
            blocks.append((srow, erow))
        if erow > srow:
            if typ in spec.statements and not spec.blocks:
                joins.append((srow, erow))
            elif typ in spec.statements and not any(c.type in spec.blocks for c in node.named_children):
                joins.append((srow, erow))
            elif kids[0].type in _OPEN and kids[-1].type == _OPEN[kids[0].type] and typ not in spec.blocks:
                joins.append((srow, erow))
        stack.extend(reversed(kids))
    return tokens, (_cut(joins, blocks) if blocks else joins)


def _cut(joins: list[tuple[int, int]], blocks: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Each join with the rows strictly inside its outermost multi-row blocks taken out:
    ``foo(function () {`` / body lines / ``});`` instead of one line for the whole call."""
    blocks.sort(key=lambda b: (b[0], -b[1]))
    starts = [b[0] for b in blocks]
    out: list[tuple[int, int]] = []
    for s, e in joins:
        i = bisect_left(starts, s)
        cur = s
        while i < len(blocks) and blocks[i][0] <= e:
            bs, be = blocks[i]
            i += 1
            if be > e or bs < cur:
                continue  # not inside this join, or inside a block already cut out
            out.append((cur, bs))
            cur = be
        out.append((cur, e))
    return out


def _merge(joins: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in sorted(joins):
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


def _join_tokens(tokens: list[str]) -> str:
    kept = [t for i, t in enumerate(tokens)
            if not (t == "," and i + 1 < len(tokens) and tokens[i + 1] in _CLOSERS)]
    return " ".join(kept)


def _group(tokens: list[tuple[int, int, str]], joins: list[tuple[int, int]],
           rows: list[str]) -> Iterator[LogicalLine]:
    spans = _merge(joins)
    j = 0
    current: list[str] = []
    cur_start = cur_end = -1
    for row, erow, text in sorted(tokens, key=lambda t: t[0]):
        while j < len(spans) and spans[j][1] < row:
            j += 1
        start, end = (spans[j] if j < len(spans) and spans[j][0] <= row else (row, max(row, erow)))
        if current and start > cur_end:
            yield _line(cur_start, cur_end, current, rows)
            current = []
        if not current:
            cur_start, cur_end = start, end
        cur_end = max(cur_end, end)
        current.append(text)
    if current:
        yield _line(cur_start, cur_end, current, rows)


def _line(start: int, end: int, tokens: list[str], rows: list[str]) -> LogicalLine:
    return LogicalLine(start, end, _join_tokens(tokens), "\n".join(rows[start:end + 1]))


def _plain_lines(rows: list[str], preprocess: bool) -> list[LogicalLine]:
    out = []
    for i, row in enumerate(rows):
        text = " ".join(row.split()) if preprocess else row.strip()
        if text:
            out.append(LogicalLine(i, i, text, row))
    return out


def parse_source(text: str, language: str | None, *, preprocess: bool = True,
                 docstrings: bool = True) -> ParsedSource:
    """Parse ``text`` of ``language``: scopes now, logical lines on demand.

    An unregistered language gives one whitespace-normalised line per non-blank row and no scopes.
    ``docstrings=False`` keeps string-only statements (for fragments that start mid-body, where
    the first statement is not a docstring).
    """
    spec = get_language(language)
    if spec is None:
        return ParsedSource(text, language, None, None, preprocess=preprocess, docstrings=docstrings)
    key = (text, language, preprocess, docstrings)
    cache: OrderedDict | None = getattr(_RECENT, "parsed", None)
    if cache is None:
        cache = _RECENT.parsed = OrderedDict()
    if key in cache:
        cache.move_to_end(key)
        return cache[key]
    spec, tree = parse_text(spec, text.encode("utf-8", "surrogateescape"))
    parsed = ParsedSource(text, language, spec, tree, preprocess=preprocess, docstrings=docstrings)
    if len(text) <= _CACHE_ONE:
        cache[key] = parsed
        while sum(len(k[0]) for k in cache) > _CACHE_CHARS:
            cache.popitem(last=False)
    return parsed


# the same hunk fragment is parsed again for each changed row of a run (patch._fragment_line):
# the latest texts (each up to _CACHE_ONE characters, _CACHE_CHARS in all, per thread) are kept,
# so that a hunk is parsed once, not once per row (a 4,000-row C++ hunk took minutes)
_CACHE_ONE = 500_000
_CACHE_CHARS = 2_000_000
_RECENT = threading.local()


def normalize_code(text: str, language: str | None) -> list[str]:
    """The normalised logical lines of ``text`` (convenience for tests and callers)."""
    return [ln.text for ln in parse_source(text, language).lines]
