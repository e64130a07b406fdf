"""Type-1/2 code clones: tree-sitter subtrees hashed with identifiers and literals normalised.

Stands in for NiCad: every named subtree with enough tokens is reduced to its leaf sequence in which
identifiers become ``ID`` and literals ``LIT``; subtrees with equal hashes in different places form a
clone cluster. Clusters contained in a bigger cluster (the children of cloned functions) are dropped.
"""

from __future__ import annotations

import hashlib
import warnings
from collections import defaultdict
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any

from .._sources import SourceFile
from ._fragments import Cluster, Fragment, PatternKind

_LITERAL_TYPES = {"string", "integer", "float", "true", "false", "none", "null_literal",
                  "character_literal", "string_literal", "decimal_integer_literal",
                  "hex_integer_literal", "decimal_floating_point_literal", "concatenated_string"}
_COMMENT_TYPES = {"comment", "line_comment", "block_comment"}


@lru_cache(maxsize=4)
def _parser(language: str) -> Any:
    with warnings.catch_warnings():  # tree_sitter_languages warns about a deprecated constructor
        warnings.simplefilter("ignore", FutureWarning)
        from tree_sitter_languages import get_parser

        return get_parser(language)


def _leaves(node: Any) -> Iterator[str]:
    """Normalised leaf tokens of ``node`` (comments dropped)."""
    stack = [node]
    while stack:
        n = stack.pop()
        t = n.type
        if t in _COMMENT_TYPES:
            continue
        if t in _LITERAL_TYPES or t.endswith("_literal"):
            yield "LIT"
        elif t.endswith("identifier"):
            yield "ID"
        elif n.child_count == 0:
            yield t
        else:
            stack.extend(reversed(n.children))


def _exact_leaves(node: Any) -> Iterator[bytes]:
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in _COMMENT_TYPES:
            continue
        if n.child_count == 0 or n.type in _LITERAL_TYPES:
            yield n.text
        else:
            stack.extend(reversed(n.children))


def find_clones(files: Sequence[SourceFile], *, language: str = "python", min_tokens: int = 25,
                max_lines: int = 60, type1_only: bool = False) -> list[Cluster]:
    """Clone clusters among the named subtrees of ``files``.

    ``min_tokens``: smallest subtree considered (leaf count); ``max_lines``: largest.
    ``type1_only`` keeps identifiers and literals as written (exact clones only).
    Returns clusters sorted by key; every fragment's ``start/end`` are character offsets.
    """
    parser = _parser(language)
    groups: dict[str, list[tuple[Fragment, int, int]]] = defaultdict(list)
    for f in files:
        data = f.text.encode("utf-8")
        tree = parser.parse(data)
        stack = list(tree.root_node.children)
        while stack:
            node = stack.pop()
            if node.child_count == 0 or not node.is_named:
                continue
            stack.extend(node.children)
            lines = node.end_point[0] - node.start_point[0] + 1
            if lines > max_lines or node.type in _COMMENT_TYPES or node.type == "block":
                continue
            toks = list(_exact_leaves(node)) if type1_only else list(_leaves(node))
            if len(toks) < min_tokens:
                continue
            payload = b"\x00".join(t if isinstance(t, bytes) else t.encode() for t in toks)
            key = hashlib.blake2b(node.type.encode() + b"\x01" + payload, digest_size=12).hexdigest()
            start = len(data[:node.start_byte].decode("utf-8", "replace"))
            end = start + len(node.text.decode("utf-8", "replace"))
            groups[key].append((Fragment(f.path, start, end, f.text[start:end]), node.start_byte,
                                node.end_byte))
    clusters = [(k, v) for k, v in groups.items() if len({(fr.path, fr.start) for fr, _, _ in v}) > 1]
    # Drop clusters all of whose fragments lie inside fragments of a bigger cluster.
    spans: dict[str, list[tuple[int, int, int]]] = defaultdict(list)  # path -> (start, end, size)
    for _k, v in clusters:
        for fr, _, _ in v:
            spans[fr.path].append((fr.start, fr.end, len(v)))
    kept = []
    for k, v in clusters:
        def inside(fr: Fragment) -> bool:
            return any(s <= fr.start and fr.end <= e and (e - s) > (fr.end - fr.start)
                       for s, e, _ in spans[fr.path])
        if all(inside(fr) for fr, _, _ in v):
            continue
        frags = tuple(sorted({fr for fr, _, _ in v}, key=lambda x: (x.path, x.start)))
        kept.append(Cluster(PatternKind.CLONE, frags, key=k))
    return sorted(kept, key=lambda c: c.key)
