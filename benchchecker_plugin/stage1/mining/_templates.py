"""Templates of a cluster: the tokens all fragments share (``difflib.SequenceMatcher``) and the
slots where they differ, with each fragment's slot values as character spans."""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from ._fragments import Cluster

SLOT = "<*>"
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?|\"[^\"\n]*\"|'[^'\n]*'|\S")


def code_tokens(text: str) -> list[tuple[int, int]]:
    """Character spans of the code tokens of ``text`` (names, numbers, short strings, symbols)."""
    return [m.span() for m in _TOKEN.finditer(text)]


@dataclass(frozen=True)
class Template:
    """``parts`` is the shared token sequence with :data:`SLOT` where fragments differ;
    ``slots[i][j]`` is the (start, end) span, relative to fragment ``i``'s text, of slot ``j``
    (``start == end`` when the fragment has nothing there)."""

    cluster: Cluster
    parts: tuple[str, ...]
    slots: tuple[tuple[tuple[int, int], ...], ...]

    @property
    def n_slots(self) -> int:
        return sum(1 for p in self.parts if p == SLOT)

    def slot_values(self, j: int) -> list[str]:
        return [fr.text[s:e] for fr, spans in zip(self.cluster.fragments, self.slots)
                for (s, e) in [spans[j]]]

    def render(self) -> str:
        return " ".join(self.parts)


def extract_template(cluster: Cluster, *, max_fragments: int = 20) -> Template:
    """Align every fragment with the first one and keep the tokens matched in all of them.

    Uses at most ``max_fragments`` fragments (the first ones) so a huge cluster stays cheap.
    """
    frags = cluster.fragments[:max_fragments]
    spans = [code_tokens(fr.text) for fr in frags]
    toks = [[fr.text[s:e] for s, e in sp] for fr, sp in zip(frags, spans)]
    base = toks[0]
    common = set(range(len(base)))
    maps: list[dict[int, int]] = []
    for other in toks[1:]:
        sm = SequenceMatcher(None, base, other, autojunk=False)
        m: dict[int, int] = {}
        for a, b, size in sm.get_matching_blocks():
            for k in range(size):
                m[a + k] = b + k
        maps.append(m)
        common &= set(m)
    parts: list[str] = []
    runs: list[tuple[int, int]] = []  # base token index ranges [a, b) of each slot
    i = 0
    while i < len(base):
        if i in common:
            parts.append(base[i])
            i += 1
            continue
        j = i
        while j < len(base) and j not in common:
            j += 1
        parts.append(SLOT)
        runs.append((i, j))
        i = j
    # A fragment can also differ by *inserting* tokens between two shared ones: add empty base runs.
    cidx = sorted(common)
    for prev, nxt in zip(cidx, cidx[1:]):
        if nxt == prev + 1 and any(m[nxt] != m[prev] + 1 for m in maps):
            runs.append((nxt, nxt))
    runs.sort()
    parts = _parts_from_runs(base, common, runs)
    slots = []
    for f_i, (fr, sp) in enumerate(zip(frags, spans)):
        row = []
        for a, b in runs:
            if f_i == 0:
                lo_t, hi_t = a, b
            else:
                m = maps[f_i - 1]
                lo_t = m[a - 1] + 1 if a - 1 in m and (a - 1) in common else 0
                hi_t = m[b] if b in m and b in common else len(sp)
            row.append(_char_span(sp, lo_t, hi_t, len(fr.text)))
        slots.append(tuple(row))
    used = Cluster(cluster.kind, frags, cluster.key)  # the fragments the template describes
    return Template(used, tuple(parts), tuple(slots))


def _parts_from_runs(base: list[str], common: set[int], runs: list[tuple[int, int]]) -> list[str]:
    starts = {a: b for a, b in runs}
    parts: list[str] = []
    i = 0
    while i <= len(base):
        if i in starts:
            parts.append(SLOT)
            b = starts.pop(i)
            if b > i:
                i = b
                continue
        if i == len(base):
            break
        parts.append(base[i])
        i += 1
    return parts


def _char_span(spans: list[tuple[int, int]], lo: int, hi: int, n_chars: int) -> tuple[int, int]:
    if hi <= lo:
        pos = spans[lo][0] if lo < len(spans) else n_chars
        return (pos, pos)
    return (spans[lo][0], spans[hi - 1][1])
