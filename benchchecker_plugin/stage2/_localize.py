"""Find where a patch block's code lives in a snapshot, then align its lines to snapshot lines.

Localisation, first hit wins:

1. ``same-name``: the block's file (followed through renames since the base commit) holds a
   function with the same qualified name (or, failing that, the same name);
2. ``moved``: another file of the same language holds a function of that name (identifier index);
3. ``subtree``: GumTree-style matching (:mod:`._subtree`) of the post-patch function against the
   functions of the block's file and of files that mention the block's rarest identifiers;
4. ``module``: a block outside any function is looked for among the file's module-level lines.

Nothing found means the file or the function is gone.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import DataError
from ..repos import Snapshot
from ._languages import get_language
from ._normalize import LogicalLine, ParsedSource, Scope, parse_source
from ._patch import PatchBlock
from ._similarity import Similarity
from ._subtree import SubtreeIndex, dice, index_node

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")
IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_KEYWORDS = frozenset("""self None True False return import from class def elif else while
for with assert raise lambda yield pass break continue print super this null true false new
public private protected static final void int long boolean double float char byte short string
String throw throws try catch finally instanceof extends implements""".split())


@dataclass(frozen=True)
class Location:
    """Where a block was found: file, scope, how (``same-name``/``moved``/``subtree``/``module``, or
    ``scope-gone``: a function the patch deletes whole is not in ``scope``, its class or module,
    and there are no lines), the candidate logical lines, and the subtree Dice score when
    ``how == "subtree"``."""

    path: str
    scope: str | None
    how: str
    lines: tuple[LogicalLine, ...]
    dice: float | None = None


@dataclass(frozen=True)
class LineMatch:
    """One patch line aligned to a snapshot line.

    ``kind``: ``exact`` (same normalised text), ``similar`` (best candidate by the similarity),
    ``pre-patch`` (the aligned line is closer to a removed line than to this one: the snapshot
    holds the buggy code), ``unmatched`` (no candidate lines). ``similarity`` is the score that
    counts for the decision: 0 for ``pre-patch`` and ``unmatched``.
    """

    patch_line: str
    snapshot_line: str | None
    snapshot_rows: tuple[int, int] | None
    similarity: float
    kind: str


class SnapshotIndex:
    """Parses snapshot files on demand and caches what localisation needs (thread-unsafe).

    ``files_with(word)`` answers from an inverted index of identifiers (built once per language
    on first use, from the files read through ``git cat-file``), so a run of hundreds of
    instances does not pay one ``git grep`` over thousands of files per lookup.
    """

    def __init__(self, snapshot: Snapshot, *, preprocess: bool = True, max_files: int = 10) -> None:
        self.snapshot = snapshot
        self.preprocess = preprocess
        self.max_files = max_files
        self._parsed: dict[str, ParsedSource | None] = {}
        self._subtrees: dict[tuple[str, int], SubtreeIndex] = {}
        self._words: dict[str | None, dict[str, list[str]]] = {}

    def parsed(self, path: str, language: str | None) -> ParsedSource | None:
        """The parsed snapshot file, ``None`` when it does not exist at the snapshot."""
        if path not in self._parsed:
            if not self.snapshot.exists(path):
                self._parsed[path] = None
            else:
                self._parsed[path] = parse_source(self.snapshot.read(path), language,
                                                  preprocess=self.preprocess)
        return self._parsed[path]

    def _word_index(self, language: str | None) -> dict[str, list[str]]:
        index = self._words.get(language)
        if index is None:
            index = {}
            for path in self.snapshot.files(language):
                try:
                    text = self.snapshot.read(path)
                except DataError:
                    continue  # a non-UTF-8 file cannot hold the code we look for
                for word in set(IDENTIFIER.findall(text)):
                    index.setdefault(word, []).append(path)
            self._words[language] = index
        return index

    def files_with(self, word: str, language: str | None) -> tuple[str, ...]:
        """Files of ``language`` that contain identifier ``word`` (sorted)."""
        return tuple(self._word_index(language).get(word, ()))

    def subtree(self, path: str, parsed: ParsedSource, scope: Scope) -> SubtreeIndex:
        key = (path, scope.node_id)
        if key not in self._subtrees:
            spec = get_language(parsed.language)
            self._subtrees[key] = index_node(parsed.node(scope), spec.comments if spec else frozenset())
        return self._subtrees[key]


def _scope_location(path: str, parsed: ParsedSource, scope: Scope, how: str,
                    score: float | None = None) -> Location:
    return Location(path, scope.qualname, how, parsed.lines_in(scope), score)


def _rare_identifiers(block: PatchBlock, index: SnapshotIndex, limit: int = 2) -> list[str]:
    """The block's identifiers found in the fewest snapshot files (but in some)."""
    words = {w for ln in (*block.added, *block.removed) for w in _IDENT.findall(ln.text)
             if w not in _KEYWORDS}
    counted = [(len(index.files_with(w, block.language)), w) for w in sorted(words)]
    return [w for n, w in sorted(counted) if n > 0][:limit]


def localize(block: PatchBlock, index: SnapshotIndex, *, base_commit: str | None,
             post: ParsedSource | None = None, min_dice: float = 0.6) -> Location | None:
    """Where ``block`` lives in the snapshot of ``index``; ``None`` when its code is gone.

    ``post`` is the parsed post-patch file (needed for subtree matching). ``min_dice`` is a little
    stricter than GumTree's 0.5: here a match must be *the same function*, renamed or moved,
    not a sibling that looks alike; functions whose name the post-patch file also has are such
    siblings and are skipped.
    """
    lang = block.language
    origin = block.source_path or block.path
    path = (index.snapshot.path_since(base_commit, block.source_path)
            if (base_commit and block.source_path) else origin)
    parsed = index.parsed(path, lang) if path else None  # so ``parsed`` implies ``path``
    want = block.scope
    simple = want.rsplit(".", 1)[-1] if want else ""
    if path and parsed is not None and want is None:
        return Location(path, None, "module", parsed.lines_in(None))
    if path and parsed is not None and want:
        same = parsed.find(want)
        if len(same) > 1:  # a property's getter and setter, overloads: one name, several bodies
            lines = tuple(dict.fromkeys(ln for sc in same for ln in parsed.lines_in(sc)))
            return Location(path, want, "same-name", lines)
        if not same and not block.added and post is not None and not post.find(want):
            # the patch deletes the whole function and it is gone from where it was (its class,
            # or the module): the deletion is there. No lines to compare: a look-alike line of
            # the class (``self.stale = True``) is not the deleted function
            owner = parsed.find(want.rsplit(".", 1)[0]) if "." in want else [None]
            if owner:
                return Location(path, owner[0].qualname if owner[0] else None, "scope-gone", ())
        if not same and not block.added and "." in want:
            # a pure deletion of a whole method: look where it was (its class), not at a
            # namesake in another class (Package.__init__ for a removed Module.__init__)
            owner = parsed.find(want.rsplit(".", 1)[0])
            if owner:
                return _scope_location(path, parsed, owner[0], "same-name")
        hits = same or parsed.named(simple)
        if hits:
            return _scope_location(path, parsed, hits[0], "same-name")
    if want and simple and lang:  # ``simple`` implies ``want``
        for other in index.files_with(simple, lang)[: index.max_files * 3]:
            if other == path:
                continue
            cand = index.parsed(other, lang)
            hits = cand.find(want) or cand.named(simple) if cand is not None else []
            if hits and cand is not None:
                return _scope_location(other, cand, hits[0], "moved")
    # GumTree-style: the post-patch function against functions of related files
    if post is None or not want or get_language(lang) is None:
        return None
    src_scopes = [s for s in post.scopes if s.qualname == want]
    if not src_scopes:
        return None
    spec = get_language(lang)
    src_index = index_node(post.node(src_scopes[0]), spec.comments if spec else frozenset())
    files = ([path] if path and parsed is not None else []) + [
        p for w in _rare_identifiers(block, index) for p in index.files_with(w, lang)[: index.max_files]]
    siblings = {sc.name for sc in post.scopes}
    best: tuple[float, str, ParsedSource, Scope] | None = None
    src_rows = src_scopes[0].end - src_scopes[0].start + 1
    for f in dict.fromkeys(files):
        cand = index.parsed(f, lang)
        if cand is None:
            continue
        for scope in cand.scopes:
            rows = scope.end - scope.start + 1
            if scope.kind != src_scopes[0].kind or scope.name in siblings or not (
                    src_rows * min_dice / 1.5 <= rows <= src_rows * 1.5 / min_dice):
                continue  # another function of the file, or a size Dice cannot bridge
            score = dice(src_index, index.subtree(f, cand, scope))
            if score >= min_dice and (best is None or score > best[0]):
                best = (score, f, cand, scope)
    if best is None:
        return None
    return _scope_location(best[1], best[2], best[3], "subtree", round(best[0], 4))


def align(added: Sequence[LogicalLine], removed: Sequence[LogicalLine], location: Location,
          similarity: Similarity, taken: Mapping[str, int] | None = None) -> tuple[LineMatch, ...]:
    """Align each added line to its most similar candidate line of ``location``.

    An aligned line that is at least as similar to one of the ``removed`` lines as to the added
    line (and is not the added line itself) is the pre-patch code: the match counts 0. When the
    snapshot holds a removed line verbatim, an added line without an exact copy is pre-patch at
    once (no similarity is computed for it: the embedding cannot change that verdict).
    ``taken``: texts (with counts) of the unchanged lines around the patch (its post-patch
    scope); a snapshot line equal to one of them is that line, not a rewritten added line, so it
    only matches an added line exactly, and only when the snapshot has more copies of the text
    than the context accounts for (an added duplicate of an existing line is not "present" just
    because the existing line is).
    """
    taken = taken or {}
    cands = [ln.text for ln in location.lines]
    if not added:
        return ()
    if not cands:
        return tuple(LineMatch(a.text, None, None, 0.0, "unmatched") for a in added)
    queries = [a.text for a in added]
    rem = [r.text for r in removed]
    # the snapshot still holds a removed line verbatim (not one of the context lines): an added
    # line with no exact copy is pre-patch whatever the similarity says, so it is not scored
    kept = [j for j, c in enumerate(cands) if c in set(rem) and c not in taken]
    verbatim = set(cands)
    settled = {i for i, q in enumerate(queries) if kept and q not in verbatim}
    # one call for the other added lines and the removed ones (their rows give the rivals below)
    scored = [i for i in range(len(queries)) if i not in settled]
    both = (similarity.matrix([queries[i] for i in scored] + rem, cands) if scored
            else np.zeros((len(rem), len(cands))))
    sims = np.zeros((len(queries), len(cands)))
    sims[scored] = both[: len(scored)]
    rem_sims = both[len(scored):]
    if taken:
        cols = [j for j, c in enumerate(cands) if c in taken]
        for i, q in enumerate(queries):
            for j in cols:
                if cands[j] != q:
                    sims[i, j] = 0.0
    best = [int(np.argmax(sims[i])) for i in range(len(added))]
    spare = Counter(cands)
    spare.subtract(taken)
    out = []
    for i, a in enumerate(added):
        if i in settled:
            line = location.lines[kept[0]]
            out.append(LineMatch(a.text, line.raw, (line.start, line.end), 0.0, "pre-patch"))
            continue
        j = best[i]
        s = float(sims[i, j])
        line = location.lines[j]
        if cands[j] == a.text:
            spare[a.text] -= 1
            if spare[a.text] >= 0:
                out.append(LineMatch(a.text, line.raw, (line.start, line.end), 1.0, "exact"))
            else:  # every copy in the snapshot is a context line: the added copy is missing
                out.append(LineMatch(a.text, line.raw, (line.start, line.end), 0.0, "pre-patch"))
            continue
        if rem:
            rival = float(rem_sims[:, j].max())
            if rival >= s:
                out.append(LineMatch(a.text, line.raw, (line.start, line.end), 0.0, "pre-patch"))
                continue
        out.append(LineMatch(a.text, line.raw, (line.start, line.end), round(s, 6), "similar"))
    return tuple(out)
