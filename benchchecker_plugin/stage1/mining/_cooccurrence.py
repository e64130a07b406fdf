"""Word co-occurrence patterns: closed frequent sequences (PrefixSpan) over the words of each line.

A line is a sequence of its identifier words (keywords and one-letter names dropped); PrefixSpan
finds closed word sequences that occur, in order, in at least ``min_support`` lines. The lines that
contain a pattern form its cluster, e.g. ``self.assertEqual(resp.status_code, 200)`` repeated with
different arguments surfaces the pattern ``self assertEqual status_code``.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Sequence

from prefixspan import PrefixSpan

from .._sources import SourceFile
from ._fragments import Cluster, Fragment, PatternKind

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_STOP = set(keyword.kwlist) | {"self", "cls", "public", "private", "static", "final", "void", "new",
                               "this", "int", "String", "return"}


def _is_subsequence(pattern: Sequence[str], words: Sequence[str]) -> bool:
    it = iter(words)
    return all(any(w == p for w in it) for p in pattern)


def find_cooccurrences(files: Sequence[SourceFile], *, min_support: int = 3, min_length: int = 3,
                       max_length: int = 6, max_patterns: int = 200, max_lines: int = 20_000,
                       ) -> list[Cluster]:
    """Clusters of lines sharing a closed frequent word sequence.

    ``min_support``: lines that must contain the pattern; ``min_length``/``max_length``: words per
    pattern; at most ``max_patterns`` (the most supported first). Identical lines are counted once
    so copied blocks do not inflate support; when a tree has more than
    ``max_lines`` distinct word-lines, the support threshold is raised proportionally.
    """
    lines: list[Fragment] = []
    seqs: list[list[str]] = []
    seen: set[str] = set()
    for f in files:
        pos = 0
        for line in f.text.splitlines(keepends=True):
            words = [w for w in _IDENT.findall(line.split("#", 1)[0]) if len(w) > 1 and w not in _STOP]
            body = line.rstrip("\r\n")
            if len(words) >= min_length and body.strip() not in seen:
                seen.add(body.strip())
                lead = len(body) - len(body.lstrip())
                lines.append(Fragment(f.path, pos + lead, pos + len(body), body.strip()))
                seqs.append(words)
            pos += len(line)
    if not seqs:
        return []
    support = max(min_support, int(min_support * len(seqs) / max_lines))
    miner = PrefixSpan(seqs)
    miner.minlen, miner.maxlen = min_length, max_length
    found = miner.frequent(support, closed=True)
    found.sort(key=lambda sp: (-sp[0], -len(sp[1]), sp[1]))
    clusters: list[Cluster] = []
    for _, pattern in found[:max_patterns]:
        frags = tuple(lines[i] for i, words in enumerate(seqs) if _is_subsequence(pattern, words))
        if len(frags) >= 2:
            clusters.append(Cluster(PatternKind.COOCCURRENCE, frags, key=" ".join(pattern)))
    return clusters
