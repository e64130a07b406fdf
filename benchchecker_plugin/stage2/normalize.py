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
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any, Iterator

from .languages import LanguageSpec, get_language, get_parser

__all__ = ["LogicalLine", "ParsedSource", "Scope", "normalize_code", "parse_source"]

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
    """Logical lines and scopes of one source text (and its tree, for subtree matching)."""

    def __init__(self, text: str, language: str | None, lines: list[LogicalLine],
                 scopes: list[Scope], tree: Any, nodes: dict[int, Any] | None = None) -> None:
        self.text = text
        self.language = language
        self.lines = tuple(lines)
        self.scopes = tuple(scopes)
        self.tree = tree
        self._nodes = nodes or {}
        self._starts = [ln.start for ln in self.lines]

    def line_at(self, row: int) -> LogicalLine | None:
        """The logical line that covers physical ``row`` (``None`` for blank/comment rows)."""
        i = bisect_right(self._starts, row) - 1
        if i >= 0 and self.lines[i].start <= row <= self.lines[i].end:
            return self.lines[i]
        return None

    def enclosing(self, row: int) -> Scope | None:
        """The innermost function holding ``row``, else the innermost class, else ``None``."""
        best: Scope | None = None
        for kind in ("function", "class"):
            for s in self.scopes:
                if s.kind == kind and s.start <= row <= s.end and (best is None or s.start >= best.start):
                    best = s
            if best is not None:
                return best
        return None

    def lines_in(self, scope: Scope | None) -> tuple[LogicalLine, ...]:
        """The logical lines of ``scope`` (all lines outside any function when ``None``)."""
        if scope is None:
            fns = [s for s in self.scopes if s.kind == "function"]
            return tuple(ln for ln in self.lines if not any(f.start <= ln.start <= f.end for f in fns))
        return tuple(ln for ln in self.lines if scope.start <= ln.start <= scope.end)

    def find(self, qualname: str) -> list[Scope]:
        """Scopes whose qualified name is ``qualname``."""
        return [s for s in self.scopes if s.qualname == qualname]

    def named(self, name: str) -> list[Scope]:
        """Scopes whose own (last) name is ``name``."""
        return [s for s in self.scopes if s.name == name]

    def node(self, scope: Scope) -> Any:
        """The tree-sitter node of ``scope``."""
        return self._nodes[scope.node_id]


def _children(node: Any) -> list[Any]:
    return node.children


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


def _walk(root: Any, spec: LanguageSpec, preprocess: bool, docstrings: bool) -> tuple[list[tuple[int, int, str]],
                                                                   list[tuple[int, int]], list[Scope], dict[int, Any]]:
    """Tokens (row, end_row, text), rows to join, and scopes, in one pre-order pass."""
    tokens: list[tuple[int, int, str]] = []
    joins: list[tuple[int, int]] = []
    scopes: list[Scope] = []
    nodes: dict[int, Any] = {}
    stack: list[tuple[Any, tuple[str, ...]]] = [(root, ())]
    while stack:
        node, names = stack.pop()
        typ = node.type
        srow, erow = node.start_point[0], node.end_point[0]
        if preprocess and (typ in spec.comments or (docstrings and _is_docstring(node, spec))):
            continue
        if typ in spec.functions or typ in spec.classes:
            name_node = node.child_by_field_name("name")
            name = name_node.text.decode("utf-8", "replace") if name_node is not None else "?"
            names = (*names, name)
            scopes.append(Scope(".".join(names), name, "function" if typ in spec.functions else "class",
                                srow, erow, node.id))
            nodes[node.id] = node
        kids = node.children
        if typ in spec.strings or not kids:
            if erow > srow:
                joins.append((srow, erow))
            text = node.text.decode("utf-8", "replace")
            if text:
                tokens.append((srow, erow, _string_token(text, spec) if preprocess else text))
            continue
        if erow > srow:
            if typ in spec.statements and not spec.blocks:
                joins.append((srow, erow))
            elif typ in spec.statements and not any(c.type in spec.blocks for c in node.named_children):
                joins.append((srow, erow))
            elif kids[0].type in _OPEN and kids[-1].type == _OPEN[kids[0].type] and typ not in spec.blocks:
                joins.append((srow, erow))
        for child in reversed(kids):
            stack.append((child, names))
    return tokens, joins, scopes, nodes


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
            yield LogicalLine(cur_start, cur_end, _join_tokens(current), "\n".join(rows[cur_start:cur_end + 1]))
            current = []
        if not current:
            cur_start, cur_end = start, end
        cur_end = max(cur_end, end)
        current.append(text)
    if current:
        yield LogicalLine(cur_start, cur_end, _join_tokens(current), "\n".join(rows[cur_start:cur_end + 1]))


def _plain_lines(rows: list[str], preprocess: bool) -> list[LogicalLine]:
    out = []
    for i, row in enumerate(rows):
        text = " ".join(row.split()) if preprocess else row.strip()
        if text:
            out.append(LogicalLine(i, i, text, row))
    return out


def parse_source(text: str, language: str | None, *, preprocess: bool = True,
                 docstrings: bool = True) -> ParsedSource:
    """Parse ``text`` of ``language`` into logical lines and scopes.

    ``docstrings=False`` keeps string-only statements (for fragments that start mid-body, where
    the first statement is not a docstring).
    An unregistered language gives one whitespace-normalised line per non-blank row and no scopes.
    """
    rows = text.split("\n")
    spec = get_language(language)
    if spec is None:
        return ParsedSource(text, language, _plain_lines(rows, preprocess), [], None)
    tree = get_parser(spec).parse(text.encode("utf-8", "surrogateescape"))
    tokens, joins, scopes, nodes = _walk(tree.root_node, spec, preprocess, docstrings)
    if preprocess:
        lines = list(_group(tokens, joins, rows))
    else:
        lines = _plain_lines(rows, False)
    # byte columns vs. rows: tree-sitter rows are rows whatever the encoding, so no fix-up needed
    return ParsedSource(text, language, lines, scopes, tree, nodes)


def normalize_code(text: str, language: str | None) -> list[str]:
    """The normalised logical lines of ``text`` (convenience for tests and callers)."""
    return [ln.text for ln in parse_source(text, language).lines]
