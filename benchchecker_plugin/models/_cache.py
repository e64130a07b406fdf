"""The response cache: SQLite (WAL) rows keyed by model identity + prompt + generation parameters.

A run killed half-way and started again makes no repeated model call for an item that finished:
:class:`CachedModel` asks the inner model only for the prompts the cache lacks, in chunks, and
commits every chunk as soon as it comes back. A failed item is stored *as an error* (so ``cache
stats`` shows it) and is asked again on the next run; it is never served as an answer.

The key holds the model's ``cache_identity`` (its spec plus the options that change its output,
such as ``chat`` or the server URL) — never an API key.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ._base import Completion, GenerationParams, TextModel, TokenScores

DB_NAME = "responses.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS completions (
    key TEXT PRIMARY KEY, identity TEXT NOT NULL, params TEXT NOT NULL,
    text TEXT NOT NULL, finish_reason TEXT, error TEXT, updated_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS token_scores (
    key TEXT PRIMARY KEY, identity TEXT NOT NULL, payload BLOB NOT NULL, updated_at REAL NOT NULL);
"""


def default_cache_dir() -> Path:
    """``$BENCHCHECKER_CACHE_DIR`` if set, else ``~/.cache/benchchecker``."""
    env = os.environ.get("BENCHCHECKER_CACHE_DIR")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "benchchecker"


def _key(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def completion_key(identity: str, prompt: str, params: GenerationParams) -> str:
    """The cache key of one generation request."""
    return _key("completion", identity, prompt, params.cache_key())


def scores_key(identity: str, text: str) -> str:
    """The cache key of the token scores of one text."""
    return _key("token_scores", identity, text)


@dataclass(frozen=True)
class CacheStats:
    """What a cache holds, and how this process used it (``hits``/``misses`` count items)."""

    path: str
    entries: int
    errors: int
    token_score_entries: int
    size_bytes: int
    hits: int
    misses: int
    by_model: tuple[tuple[str, int, int], ...]  # (identity, entries, errors)


class ResponseCache:
    """A thread-safe SQLite store of completions and token scores under ``cache_dir``.

    One connection guarded by a lock serves all threads of a process; several processes may share
    the file (WAL mode, busy timeout).
    """

    def __init__(self, cache_dir: str | os.PathLike[str] | None = None) -> None:
        self.dir = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"cache dir {self.dir}: cannot create it ({exc})") from exc
        self.path = self.dir / DB_NAME
        self._lock = threading.Lock()
        self._hits = 0
        self._misses = 0
        try:
            self._conn = sqlite3.connect(self.path, timeout=60.0, check_same_thread=False)
            tables = {r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if tables and not tables & {"completions", "token_scores"}:
                self._conn.close()   # another program's database: never add our tables to it
                raise InputError(f"cache file {self.path}: a SQLite database of another program (tables "
                                 f"{', '.join(sorted(tables)[:5])}); not a benchchecker cache, left as it is")
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.executescript(_SCHEMA)
            self._conn.commit()
            # a corrupt page would surface mid-run as "every item failed" and lose the answers
            # computed so far: check once, here, and say what to do
            check = self._conn.execute("PRAGMA quick_check").fetchone()
        except sqlite3.DatabaseError as exc:
            raise _db_problem(self.path, exc) from exc
        if not check or check[0] != "ok":
            self._conn.close()
            raise InputError(f"cache file {self.path}: corrupt ({check[0] if check else 'no answer'}"
                             "); remove it (its answers are lost), or run with --no-cache")

    # -- completions -----------------------------------------------------------------------
    def get_completions(self, keys: Sequence[str]) -> dict[str, Completion]:
        """The successful completions stored under ``keys`` (errors count as absent)."""
        found: dict[str, Completion] = {}
        with self._lock, _told(self.path):
            for start in range(0, len(keys), 500):
                chunk = list(keys[start:start + 500])
                rows = self._conn.execute(
                    f"SELECT key, text, finish_reason FROM completions WHERE error IS NULL AND key IN "
                    f"({','.join('?' * len(chunk))})", chunk).fetchall()
                found.update({k: Completion(text=t, finish_reason=f, cached=True) for k, t, f in rows})
            self._hits += len(found)
            self._misses += len(set(keys)) - len(found)
        return found

    def put_completions(self, identity: str, params: GenerationParams,
                        items: Sequence[tuple[str, Completion]]) -> None:
        """Store ``(key, completion)`` pairs in one transaction; a failed item is stored as an error."""
        now = time.time()
        p = json.dumps(params.cache_key(), sort_keys=True)
        rows = [(k, identity, p, c.text if c.ok else "", c.finish_reason, c.error, now) for k, c in items]
        with self._lock, _told(self.path), self._conn:
            self._conn.executemany("INSERT OR REPLACE INTO completions VALUES (?,?,?,?,?,?,?)", rows)

    # -- token scores ----------------------------------------------------------------------
    def get_scores(self, keys: Sequence[str]) -> dict[str, TokenScores]:
        found: dict[str, TokenScores] = {}
        with self._lock, _told(self.path):
            for start in range(0, len(keys), 500):
                chunk = list(keys[start:start + 500])
                rows = self._conn.execute(
                    f"SELECT key, payload FROM token_scores WHERE key IN ({','.join('?' * len(chunk))})",
                    chunk).fetchall()
                found.update({k: _unpack_scores(b) for k, b in rows})
            self._hits += len(found)
            self._misses += len(set(keys)) - len(found)
        return found

    def put_scores(self, identity: str, items: Sequence[tuple[str, TokenScores]]) -> None:
        now = time.time()
        rows = [(k, identity, _pack_scores(s), now) for k, s in items]
        with self._lock, _told(self.path), self._conn:
            self._conn.executemany("INSERT OR REPLACE INTO token_scores VALUES (?,?,?,?)", rows)

    # -- maintenance -----------------------------------------------------------------------
    def stats(self) -> CacheStats:
        with self._lock, _told(self.path):
            entries, errors = self._conn.execute(
                "SELECT COUNT(*), COUNT(error) FROM completions").fetchone()
            n_scores = self._conn.execute("SELECT COUNT(*) FROM token_scores").fetchone()[0]
            by_model = self._conn.execute(
                "SELECT identity, COUNT(*), COUNT(error) FROM completions GROUP BY identity "
                "ORDER BY identity").fetchall()
        size = sum(f.stat().st_size for f in self.dir.glob(DB_NAME + "*") if f.is_file())
        return CacheStats(str(self.path), entries, errors, n_scores, size, self._hits, self._misses,
                          tuple((str(i), int(n), int(e)) for i, n, e in by_model))

    def clear(self, *, errors_only: bool = False) -> int:
        """Delete entries (or only the error rows); returns how many rows went."""
        with self._lock, _told(self.path), self._conn:
            if errors_only:
                n = self._conn.execute("DELETE FROM completions WHERE error IS NOT NULL").rowcount
            else:
                n = self._conn.execute("DELETE FROM completions").rowcount
                n += self._conn.execute("DELETE FROM token_scores").rowcount
        with self._lock, _told(self.path):
            self._conn.execute("VACUUM")
        return int(n)

    def close(self) -> None:
        with self._lock:
            self._conn.close()


#: SQLite's primary result codes that say what is wrong with the file or the disk under it
_SQLITE_IOERR, _SQLITE_CORRUPT, _SQLITE_FULL, _SQLITE_NOTADB = 10, 11, 13, 26
#: free space under which a disk counts as full, and the size of the write that asks the OS why
_FULL_BYTES = _PROBE_BYTES = 1 << 20


def _disk_reason(folder: Path) -> str | None:
    """Why writing under ``folder`` fails, in the OS's words, or ``None`` when it does not: SQLite
    says only "disk I/O error" where a write, a sync or a grown ``-shm`` file failed for want of
    space (or a quota, a file size limit, a read-only disk). Asks ``statvfs``, then writes and
    syncs a temporary file of :data:`_PROBE_BYTES` (removed at once)."""
    import tempfile

    with contextlib.suppress(OSError, AttributeError):
        st = os.statvfs(folder)
        if st.f_bavail * st.f_frsize < _FULL_BYTES:
            return f"{os.strerror(errno.ENOSPC)}: {st.f_bavail * st.f_frsize} bytes free"
    try:
        with tempfile.TemporaryFile(dir=folder) as fh:
            fh.write(b"\0" * _PROBE_BYTES)
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def _db_problem(path: Path, exc: sqlite3.DatabaseError) -> InputError:
    """One line saying what is wrong with the cache file at ``path``; only a file that is not a
    database (or a corrupt one) is advised to be removed, never one on a full disk."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    text = str(exc)
    if primary == _SQLITE_FULL or "disk is full" in text:
        return InputError(f"cache file {path}: the disk is full ({exc}); free some space, or run with "
                          "--no-cache")
    reason = _disk_reason(path.parent) if primary == _SQLITE_IOERR or "disk I/O error" in text else None
    if reason is not None and reason.startswith(os.strerror(errno.ENOSPC)):
        return InputError(f"cache file {path}: the disk is full ({reason}; SQLite said: {exc}); free some "
                          "space, or run with --no-cache")
    if reason is not None:
        return InputError(f"cache file {path}: cannot write ({reason}; SQLite said: {exc}); run with "
                          "--no-cache, or give another --cache-dir")
    if path.is_dir():
        return InputError(f"cache file {path}: is a folder, not a cache file; move it away, or give "
                          "another --cache-dir")
    if primary in (_SQLITE_NOTADB, _SQLITE_CORRUPT) or "not a database" in text or "malformed" in text:
        return InputError(f"cache file {path}: not a usable SQLite database ({exc}); remove it, or run "
                          "with --no-cache")
    return InputError(f"cache file {path}: cannot use it ({exc}); run with --no-cache, or give another "
                      "--cache-dir")


@contextlib.contextmanager
def _told(path: Path) -> Iterator[None]:
    try:
        yield
    except sqlite3.DatabaseError as exc:
        raise _db_problem(path, exc) from None


def _pack_scores(s: TokenScores) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, logprobs=s.logprobs, mu=s.mu, sigma=s.sigma,
             offsets=np.asarray(s.offsets, dtype=np.int64).reshape(-1, 2),
             tokens=np.asarray(json.dumps(list(s.tokens), ensure_ascii=False)))
    return buf.getvalue()


def _unpack_scores(blob: bytes) -> TokenScores:
    with np.load(io.BytesIO(blob), allow_pickle=False) as z:
        return TokenScores(tokens=tuple(json.loads(str(z["tokens"]))),
                           offsets=tuple((int(a), int(b)) for a, b in z["offsets"]),
                           logprobs=z["logprobs"], mu=z["mu"], sigma=z["sigma"])


class CachedModel:
    """Wraps any :class:`TextModel`: answers from the cache, asks the model only for the rest.

    Misses go to the inner model in chunks of ``chunk_size`` and each chunk is committed as soon as
    it returns, so killing the run loses at most the chunk in flight. Duplicate prompts in one call
    are asked once. ``token_scores`` is cached the same way when the inner model has it.
    """

    def __init__(self, model: TextModel, cache: ResponseCache, *, chunk_size: int = 16) -> None:
        if chunk_size < 1:
            raise InputError(f"chunk_size must be >= 1, got {chunk_size}")
        self.inner = model
        self.cache = cache
        self.chunk_size = chunk_size
        self.spec = model.spec
        self.cache_identity: str = getattr(model, "cache_identity", model.spec)

    def _through_cache(self, keys: list[str], items: Sequence[str], found: dict[str, Any],
                       compute: Callable[[list[str]], list[Any]],
                       store: Callable[[list[tuple[str, Any]]], None]) -> list[Any]:
        """Answer ``keys`` from ``found``; compute the missing ones (each distinct key once) in
        chunks of ``chunk_size``, storing each chunk as soon as it returns (so a killed run loses
        at most the chunk in flight)."""
        todo: dict[str, str] = {}
        for k, item in zip(keys, items):
            if k not in found:
                todo.setdefault(k, item)
        pending = list(todo.items())
        for start in range(0, len(pending), self.chunk_size):
            chunk = pending[start:start + self.chunk_size]
            answers = compute([item for _, item in chunk])
            if len(answers) != len(chunk):
                raise RuntimeError(f"model {self.spec} returned {len(answers)} answers "
                                   f"for {len(chunk)} inputs")
            pairs = [(k, a) for (k, _), a in zip(chunk, answers)]
            store(pairs)
            found.update(pairs)
        return [found[k] for k in keys]

    def generate(self, prompts: Sequence[str], params: GenerationParams) -> list[Completion]:
        keys = [completion_key(self.cache_identity, p, params) for p in prompts]
        return self._through_cache(
            keys, prompts, self.cache.get_completions(keys),
            lambda chunk: self.inner.generate(chunk, params),
            lambda pairs: self.cache.put_completions(self.cache_identity, params, pairs))

    def generate_samples(self, prompts: Sequence[str], params: GenerationParams,
                         n: int) -> list[list[Completion]]:
        """``n`` samples per prompt, sample ``s`` cached as the request with seed ``params.seed + s``
        (the same entry ``generate`` with that seed uses). Prompts missing any sample go to the inner
        model's ``generate_samples`` (all ``n`` at once) when it has one, else one call per seed."""
        if n < 1:
            raise InputError(f"n must be >= 1, got {n}")
        seeded = [replace(params, seed=params.seed + s) for s in range(n)] if params.seed is not None \
            else None
        inner = getattr(self.inner, "generate_samples", None)
        if seeded is None or inner is None:
            per_seed = [self.generate(prompts, seeded[s] if seeded else params) for s in range(n)]
            return [[per_seed[s][i] for s in range(n)] for i in range(len(prompts))]
        keys = {p: [completion_key(self.cache_identity, p, ps) for ps in seeded] for p in prompts}
        found = self.cache.get_completions([k for ks in keys.values() for k in ks])
        todo = [p for p, ks in keys.items() if any(k not in found for k in ks)]
        for start in range(0, len(todo), self.chunk_size):
            chunk = todo[start:start + self.chunk_size]
            answers = inner(chunk, params, n)
            if len(answers) != len(chunk) or any(len(a) != n for a in answers):
                raise RuntimeError(f"model {self.spec} returned {len(answers)} sample lists "
                                   f"for {len(chunk)} prompts x {n}")
            for s in range(n):
                pairs = [(keys[p][s], a[s]) for p, a in zip(chunk, answers)]
                self.cache.put_completions(self.cache_identity, seeded[s], pairs)
                found.update(pairs)
        return [[found[k] for k in keys[p]] for p in prompts]

    def __getattr__(self, name: str) -> object:  # tokenizer, device, ... of the inner model
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)


class CachedLogprobModel(CachedModel):
    """A :class:`CachedModel` around a local model: ``token_scores`` is cached too."""

    def token_scores(self, texts: Sequence[str]) -> list[TokenScores]:
        keys = [scores_key(self.cache_identity, t) for t in texts]
        return self._through_cache(
            keys, texts, self.cache.get_scores(keys),
            lambda chunk: self.inner.token_scores(chunk),  # type: ignore[attr-defined]
            lambda pairs: self.cache.put_scores(self.cache_identity, pairs))


def with_cache(model: TextModel, cache: ResponseCache, *, chunk_size: int | None = None) -> CachedModel:
    """Wrap ``model`` in the cache; the wrapper has ``token_scores`` only when ``model`` has it.

    ``chunk_size`` (how many prompts are asked, then committed, at a time) defaults to the model's
    ``batch_size`` (or 16).
    """
    size = chunk_size if chunk_size is not None else int(getattr(model, "batch_size", 16) or 16)
    cls = CachedLogprobModel if callable(getattr(model, "token_scores", None)) else CachedModel
    return cls(model, cache, chunk_size=size)
