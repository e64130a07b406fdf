"""GumTree-style Dice: identical 1, renamed function high, unrelated function low."""

from __future__ import annotations

from benchchecker_plugin.stage2 import parse_source
from benchchecker_plugin.stage2._subtree import dice, index_node

SRC = """
def scale(values, factor):
    out = []
    for v in values:
        if v is None:
            continue
        out.append(v * factor + 1)
    return out


def scale_v2(values, factor):
    out = []
    for v in values:
        if v is None:
            continue
        out.append(v * factor + 1)
    return out


def unrelated(path):
    with open(path) as fh:
        return fh.read().split()
"""


def _index(name: str):  # noqa: ANN202
    parsed = parse_source(SRC, "python")
    (scope,) = parsed.find(name)
    return index_node(parsed.node(scope), frozenset({"comment"}))


def test_dice_orders_candidates() -> None:
    src = _index("scale")
    assert dice(src, src) == 1.0
    renamed = dice(src, _index("scale_v2"))
    other = dice(src, _index("unrelated"))
    assert renamed > 0.8 > 0.5 > other
