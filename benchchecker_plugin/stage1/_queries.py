"""Query–target pairs instantiated from templates, and the filters that keep the useful ones.

The query is the code just before a slot of one fragment (up to ``query_chars`` characters, cut at
a line start, trailing whitespace removed); the target is that fragment's slot value. A hit is a
generation that, after leading whitespace, starts with the target (and does not continue the
target's last word).

Filters (each a small function, applied by :func:`select_queries`):

* **repetitive** — the pattern recurs (its cluster has >= 2 fragments) and the slot takes at least
  two different values across the cluster (otherwise the target is the pattern itself);
* **distinctive** — the target is not predictable from general code: it holds a name or literal of
  >= ``min_chars`` characters, is not a keyword, builtin or ubiquitous name, not a tiny number, and
  not prose (two words separated by a space: docstring text is not a code pattern);
* **context-independent** — the target is not spelled out inside the query;
* **near-duplicate dropping** — queries whose last lines have simhashes within ``max_distance``
  (and the same target) are reduced to one, since they would give correlated hits.
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ._sources import SourceFile
from .mining._simhash import hamming, simhash
from .mining._templates import Template, code_tokens

_JAVA_KEYWORDS = set("""abstract assert boolean break byte case catch char class const continue default
do double else enum extends final finally float for goto if implements import instanceof int interface
long native new package private protected public return short static strictfp super switch
synchronized this throw throws transient try void volatile while true false null var record String
Object Override List Map""".split())
_COMMON = {"self", "cls", "args", "kwargs", "None", "True", "False", "name", "value", "data", "result",
           "key", "obj", "item", "x", "y", "i", "j", "k", "n", "e", "f", "s", "t", "v", "str", "int"}
_PY_STOP = set(keyword.kwlist) | set(dir(builtins)) | _COMMON
_WORDISH = re.compile(r"[A-Za-z0-9_]")
_PROSE = re.compile(r"[A-Za-z]{2,} [A-Za-z]{2,}")


@dataclass(frozen=True)
class Query:
    """One probe: ``query`` is sent to the model, ``target`` is what an exact hit reproduces.

    ``path``/``offset`` locate the target in the repository; ``pattern`` names the template it came
    from; ``entropy`` is the reference model's max sub-token loss of the target (nats; ``None``
    until scored); ``gap`` is the whitespace that separates query and target in the file.
    """

    path: str
    offset: int
    query: str
    target: str
    pattern: str
    entropy: float | None = None
    gap: str = " "

    def with_entropy(self, value: float) -> Query:
        return replace(self, entropy=float(value))


def is_hit(generation: str, target: str) -> bool:
    """Exact reproduction: the generation, after leading whitespace, starts with ``target`` and
    does not continue its last word (``foo`` is not a hit for target ``fo``)."""
    g = generation.lstrip()
    if not target or not g.startswith(target):
        return False
    nxt = g[len(target):len(target) + 1]
    return not (nxt and _WORDISH.match(nxt) and _WORDISH.match(target[-1]))


def is_repetitive(template: Template, slot: int) -> bool:
    """The pattern recurs and slot ``slot`` takes at least two distinct non-empty values."""
    values = {v.strip() for v in template.slot_values(slot)}
    values.discard("")
    return len(template.cluster.fragments) >= 2 and len(values) >= 2


def is_distinctive(target: str, *, language: str = "python", min_chars: int = 3) -> bool:
    """True when ``target`` is hard to guess from general code (see module docstring)."""
    t = target.strip()
    if len(t) < min_chars or "\n" in t or not _WORDISH.search(t) or _PROSE.search(t):
        return False
    stop = _PY_STOP if language == "python" else _JAVA_KEYWORDS | _COMMON
    if t in stop:
        return False
    return not (t.isdigit() and len(t) <= 2)


def is_context_independent(query: str, target: str) -> bool:
    """The target does not already appear in the query (as a whole word where it is a word)."""
    t = target.strip()
    if _WORDISH.match(t[:1] or " ") and _WORDISH.match(t[-1:] or " "):
        return re.search(rf"(?<![A-Za-z0-9_]){re.escape(t)}(?![A-Za-z0-9_])", query) is None
    return t not in query


def instantiate_queries(files: Sequence[SourceFile], templates: Iterable[Template], *,
                        query_chars: int = 512, max_target_chars: int = 40,
                        max_target_tokens: int = 5) -> list[Query]:
    """Every (fragment, slot) pair of every template as a query (no filtering but shape: targets
    are one line, at most ``max_target_chars`` characters and ``max_target_tokens`` code tokens)."""
    texts = {f.path: f.text for f in files}
    out: list[Query] = []
    for tpl in templates:
        rendered = tpl.render()[:80]
        for j in range(tpl.n_slots):
            if not is_repetitive(tpl, j):
                continue
            for fr, spans in zip(tpl.cluster.fragments, tpl.slots):
                s, e = spans[j]
                target = fr.text[s:e].strip()
                if (not target or len(target) > max_target_chars or "\n" in target
                        or len(code_tokens(target)) > max_target_tokens):
                    continue
                lead = len(fr.text[s:e]) - len(fr.text[s:e].lstrip())
                offset = fr.start + s + lead
                text = texts[fr.path]
                begin = max(0, offset - query_chars)
                if begin > 0:
                    nl = text.find("\n", begin, offset)
                    begin = nl + 1 if nl != -1 else begin
                query = text[begin:offset].rstrip()
                if query:
                    gap = text[begin + len(query):offset] or ""
                    out.append(Query(fr.path, offset, query, target, rendered, gap=gap))
    return out


def drop_near_duplicates(queries: Sequence[Query], *, tail_lines: int = 3,
                         max_distance: int = 3) -> list[Query]:
    """Keep the first of every group of queries whose last ``tail_lines`` lines are near-duplicates
    (simhash within ``max_distance``) and whose targets are equal; also drops exact repeats of one
    (path, offset)."""
    kept: list[Query] = []
    seen_at: set[tuple[str, int]] = set()
    by_target: dict[str, list[int]] = {}
    for q in queries:
        if (q.path, q.offset) in seen_at:
            continue
        h = simhash("\n".join(q.query.splitlines()[-tail_lines:]))
        if any(hamming(h, other) <= max_distance for other in by_target.get(q.target, [])):
            continue
        by_target.setdefault(q.target, []).append(h)
        seen_at.add((q.path, q.offset))
        kept.append(q)
    return kept


def select_queries(queries: Sequence[Query], *, language: str = "python", min_chars: int = 3,
                   max_distance: int = 3) -> list[Query]:
    """Apply the distinctive, context-independent and near-duplicate filters (repetitiveness is
    checked when instantiating), keeping the input order."""
    good = [q for q in queries
            if is_distinctive(q.target, language=language, min_chars=min_chars)
            and is_context_independent(q.query, q.target)]
    return drop_near_duplicates(good, max_distance=max_distance)
