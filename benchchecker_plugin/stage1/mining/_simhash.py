"""Text-duplication clusters: 64-bit simhash of normalised line windows, Hamming distance <= k.

Each file is cut into windows of ``window`` non-blank lines (whitespace collapsed); a window's
simhash sums ±1 per bit over the blake2b hashes of its word tokens. Candidate pairs come from
banding (with ``k + 1`` bands, two hashes within distance ``k`` agree on at least one band), are
confirmed with an exact popcount, and joined with union-find. Overlapping windows of one file are
never paired (they share lines by construction).
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from ...errors import InputError
from .._sources import SourceFile
from ._fragments import Cluster, Fragment, PatternKind

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+|\S")


def _token_hashes(tokens: Sequence[str]) -> np.ndarray:
    return np.array([int.from_bytes(hashlib.blake2b(t.encode(), digest_size=8).digest(), "little")
                     for t in tokens], dtype=np.uint64)


def simhash(text: str) -> int:
    """The 64-bit simhash of ``text`` (word and punctuation tokens, equal weights)."""
    tokens = _WORD.findall(text)
    if not tokens:
        return 0
    hashes = _token_hashes(tokens)
    bits = np.unpackbits(hashes.view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
    votes = bits.sum(axis=0, dtype=np.int64) * 2 - len(tokens)
    out = np.packbits((votes > 0).astype(np.uint8), bitorder="little")
    return int.from_bytes(out.tobytes(), "little")


def hamming(a: int, b: int) -> int:
    """Number of differing bits of two 64-bit hashes."""
    return (a ^ b).bit_count()


def _windows(f: SourceFile, window: int) -> list[Fragment]:
    starts, ends, normed = [], [], []
    pos = 0
    for line in f.text.splitlines(keepends=True):
        stripped = " ".join(line.split())
        if stripped:
            starts.append(pos)
            ends.append(pos + len(line.rstrip("\r\n")))
        pos += len(line)
        if stripped:
            normed.append(stripped)
    out = []
    for i in range(0, max(0, len(normed) - window + 1)):
        s, e = starts[i], ends[i + window - 1]
        out.append(Fragment(f.path, s, e, f.text[s:e]))
    return out


class _UnionFind:
    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, x: int) -> int:
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def find_near_duplicates(files: Sequence[SourceFile], *, window: int = 4, max_distance: int = 3,
                         min_tokens: int = 12, max_bucket: int = 200) -> list[Cluster]:
    """Clusters of near-duplicate line windows across (and within) ``files``.

    ``window``: non-blank lines per window; ``max_distance``: Hamming distance ``k`` on 64-bit hashes;
    ``min_tokens``: windows with fewer word tokens are skipped (blank-ish boilerplate);
    ``max_bucket``: band buckets larger than this are ignored (ubiquitous boilerplate).
    Overlapping windows of one cluster are merged into one fragment.
    """
    if max_distance < 0 or max_distance > 63:
        raise InputError(f"max_distance must be in 0..63, got {max_distance}")
    frags: list[Fragment] = []
    for f in files:
        frags.extend(w for w in _windows(f, window) if len(_WORD.findall(w.text)) >= min_tokens)
    if not frags:
        return []
    hashes = [simhash(fr.text) for fr in frags]
    bands = max_distance + 1
    width = 64 // bands
    uf = _UnionFind(len(frags))
    for b in range(bands):
        lo = b * width
        hi = 64 if b == bands - 1 else lo + width
        mask = (1 << (hi - lo)) - 1
        buckets: dict[int, list[int]] = defaultdict(list)
        for i, h in enumerate(hashes):
            buckets[(h >> lo) & mask].append(i)
        for members in buckets.values():
            if len(members) < 2 or len(members) > max_bucket:
                continue
            for x in range(len(members)):
                i = members[x]
                for y in range(x + 1, len(members)):
                    j = members[y]
                    a, c = frags[i], frags[j]
                    if a.path == c.path and a.start < c.end and c.start < a.end:
                        continue
                    if hamming(hashes[i], hashes[j]) <= max_distance:
                        uf.union(i, j)
    groups: dict[int, list[int]] = defaultdict(list)
    for i in range(len(frags)):
        groups[uf.find(i)].append(i)
    clusters = []
    for root, members in groups.items():
        merged = _merge_overlaps([frags[i] for i in members], files)
        if len(merged) >= 2:
            clusters.append(Cluster(PatternKind.NEAR_DUPLICATE, tuple(merged),
                                    key=f"simhash:{hashes[root]:016x}"))
    return sorted(clusters, key=lambda c: (c.fragments[0].path, c.fragments[0].start))


def _merge_overlaps(frags: list[Fragment], files: Sequence[SourceFile]) -> list[Fragment]:
    text_of = {f.path: f.text for f in files}
    out: list[Fragment] = []
    for fr in sorted(frags, key=lambda x: (x.path, x.start)):
        if out and out[-1].path == fr.path and fr.start <= out[-1].end:
            last = out[-1]
            end = max(last.end, fr.end)
            out[-1] = Fragment(fr.path, last.start, end, text_of[fr.path][last.start:end])
        else:
            out.append(fr)
    return out
