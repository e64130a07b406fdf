"""GumTree-style matching of one function's syntax tree against candidate functions.

Top-down: subtrees of the source function (with at least ``min_size`` nodes) are matched, largest
first, to isomorphic subtrees of a candidate (same structure and token text, comments ignored);
a matched subtree's descendants are not matched again. Bottom-up: a candidate function is kept
when the Dice coefficient of matched descendants, ``2 * matched / (n_src + n_cand)``, reaches
``min_dice`` (GumTree's default 0.5). This finds a function that was renamed or moved.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SubtreeIndex:
    """Hashes of the subtrees of one node: ``sizes[h]`` node count, ``counts[h]`` multiplicity,
    ``order`` the hashes of the source's subtrees largest first with their parent chain."""

    size: int
    counts: Counter
    sizes: dict[int, int]
    parents: dict[int, tuple[int, ...]]


def index_node(node: Any, comments: frozenset[str], min_size: int = 3) -> SubtreeIndex:
    """Hash every subtree of ``node`` bottom-up (iterative; deep trees are fine)."""
    counts: Counter = Counter()
    sizes: dict[int, int] = {}
    parents: dict[int, tuple[int, ...]] = {}
    # post-order with an explicit stack: (node, visited)
    stack: list[tuple[Any, bool]] = [(node, False)]
    result: dict[int, tuple[int, int]] = {}  # node.id -> (hash, size)
    while stack:
        cur, done = stack.pop()
        if not done:
            stack.append((cur, True))
            for child in cur.children:
                if child.type not in comments:
                    stack.append((child, False))
            continue
        kids = [result.pop(c.id) for c in cur.children if c.type not in comments and c.id in result]
        if kids:
            h = hash((cur.type, tuple(k[0] for k in kids)))
        else:
            h = hash((cur.type, cur.text))
        size = 1 + sum(k[1] for k in kids)
        result[cur.id] = (h, size)
        if size >= min_size:
            counts[h] += 1
            sizes[h] = size
            parents.setdefault(h, tuple(k[0] for k in kids))
    total = result[node.id][1] if node.id in result else 1
    return SubtreeIndex(total, counts, sizes, parents)


def dice(src: SubtreeIndex, cand: SubtreeIndex) -> float:
    """Dice coefficient of the nodes of ``src`` covered by top-down isomorphic matches in ``cand``."""
    available = Counter(cand.counts)
    matched_nodes = 0
    covered: set[int] = set()
    for h in sorted(src.counts, key=lambda x: -src.sizes[x]):
        if h in covered:
            continue
        n = min(src.counts[h], available.get(h, 0))
        if n <= 0:
            continue
        available[h] -= n
        matched_nodes += n * src.sizes[h]
        # descendants of a matched subtree are matched with it
        todo = list(src.parents.get(h, ()))
        while todo:
            d = todo.pop()
            if d in covered:
                continue
            covered.add(d)
            todo.extend(src.parents.get(d, ()))
    return 2.0 * matched_nodes / (src.size + cand.size) if (src.size + cand.size) else 0.0
