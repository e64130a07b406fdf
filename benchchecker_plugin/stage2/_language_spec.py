"""The language registry itself: :class:`LanguageSpec`, :func:`register_language` and the parsers.

The grammars register here (:mod:`._languages` for Python and Java, :mod:`._grammars` for the
Multi-SWE-bench languages); the registry imports none of them, so registration draws no import
cycle. Use :mod:`._languages`, which imports every grammar, rather than this module.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class LanguageSpec:
    """Node types of one tree-sitter grammar, as stage II uses them.

    ``functions`` / ``classes``: node types that open a named scope (their ``name`` field names it).
    ``comments``: node types dropped by normalisation. ``blocks``: brace-delimited bodies that do
    *not* make one logical line of their content. ``statements``: node types whose rows are one
    logical line when they hold no block. ``docstrings``: whether a statement that is only a string
    literal is documentation (Python). ``strings``: string literal node types (kept as one token;
    ``single_quotes_equal`` lets ``'x'`` and ``"x"`` normalise alike).

    For grammars whose scopes have no ``name`` field (C's declarator chain, a JavaScript arrow
    function named by the variable it is assigned to), ``scope_name(node)`` gives the name,
    dotted when it is qualified (``"Server.Serve"`` for a Go method, ``"Foo.bar"`` for C++
    ``Foo::bar``), or ``None`` when the node is no scope (an anonymous callback: its lines belong
    to the scope around it). ``containers``: further node types searched for nested scopes (the
    types named ``*statement``, ``*declaration``, ``*definition``, ``*block``, ``*body`` ... always
    are). ``split_blocks`` (brace languages): a brace block spanning rows cuts the logical line of
    the statement or bracket that holds it, so a callback's or closure's body stays lines, and a
    node that ends at column 0 ends on the row before. ``collapse``: leaf types whose text is
    whitespace-normalised (C macro bodies). ``fallback``: a registered language tried when this
    grammar's tree has errors; the tree with fewer ``ERROR`` nodes wins (C headers that are C++).
    """

    name: str
    grammar: str
    functions: frozenset[str]
    classes: frozenset[str]
    comments: frozenset[str]
    blocks: frozenset[str] = frozenset()
    statements: frozenset[str] = frozenset()
    strings: frozenset[str] = frozenset()
    docstrings: bool = False
    single_quotes_equal: bool = False
    scope_name: Callable[[Any], str | None] | None = None
    containers: frozenset[str] = frozenset()
    split_blocks: bool = False
    collapse: frozenset[str] = frozenset()
    fallback: str | None = None


_REGISTRY: dict[str, LanguageSpec] = {}
_PARSERS: dict[str, Any] = {}
_QUERIES: dict[str, Any] = {}
_LOCK = threading.Lock()


def register_language(spec: LanguageSpec) -> None:
    """Add (or replace) a language; ``spec.grammar`` must be a ``tree_sitter_languages`` name."""
    _REGISTRY[spec.name] = spec


def get_language(name: str | None) -> LanguageSpec | None:
    """The spec registered under ``name``, ``None`` when the language is not registered."""
    return _REGISTRY.get(name) if name else None


def language_names() -> tuple[str, ...]:
    return tuple(sorted(_REGISTRY))


def get_parser(spec: LanguageSpec) -> Any:
    """A tree-sitter parser for ``spec`` (one per thread; tree-sitter parsers are not shared)."""
    key = f"{spec.grammar}:{threading.get_ident()}"
    parser = _PARSERS.get(key)
    if parser is None:
        import tree_sitter_languages

        with _LOCK, warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # tree-sitter 0.21 deprecation notice
            parser = _PARSERS[key] = tree_sitter_languages.get_parser(spec.grammar)
    return parser


def _error_count(spec: LanguageSpec, tree: Any) -> int:
    query = _QUERIES.get(spec.grammar)
    if query is None:
        import tree_sitter_languages

        with _LOCK, warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            language = tree_sitter_languages.get_language(spec.grammar)
            query = _QUERIES[spec.grammar] = language.query("(ERROR) @e")
    return len(query.captures(tree.root_node))


def parse_text(spec: LanguageSpec, data: bytes) -> tuple[LanguageSpec, Any]:
    """``(spec, tree)`` of ``data``: parsed with ``spec``'s grammar, or with its ``fallback``
    language's when that tree has fewer ``ERROR`` nodes (the spec returned is the one used)."""
    tree = get_parser(spec).parse(data)
    alt = get_language(spec.fallback) if spec.fallback else None
    if alt is None or not tree.root_node.has_error:
        return spec, tree
    alt_tree = get_parser(alt).parse(data)
    if not alt_tree.root_node.has_error or _error_count(alt, alt_tree) < _error_count(spec, tree):
        return alt, alt_tree
    return spec, tree
