"""The per-repository caches of Stage II (``stage2.caches``): each value made once, whichever
worker thread asks first, so two workers over one repository index it once."""

from __future__ import annotations

import threading
import time
from collections import Counter
from pathlib import Path

import pytest

import benchchecker_plugin.stage2._caches as caches
from benchchecker_plugin.instances import BugInstance
from benchchecker_plugin.stage2 import PresenceConfig, run_stage2
from benchchecker_plugin.stage2._caches import OnceMap
from tests.helpers.flags import untimed_flags
from tests.helpers.git_history import BUGGY, FIXED, PATCH, history

CONFIG = PresenceConfig(similarity="difflib")
OTHERS = {f"pkg/mod{k}.py": f"def helper_{k}(x):\n    return add_one(x) + {k}\n" for k in range(6)}


def test_two_workers_over_one_repository_index_it_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fix moved to another file by the cutoff: every instance looks its function up in the
    identifier index and parses the file it finds there. On two threads, each file is parsed
    once and the index is built once (slowed down, so that the other worker asks meanwhile)."""
    root = tmp_path / "repos"
    base = history(root / "o__calc", [("2023-01-01", {"calc.py": BUGGY, **OTHERS}),
                                      ("2023-02-01", {"calc.py": "VALUE = 1\n", "pkg/moved.py": FIXED})])
    insts = [BugInstance(f"o__calc-{k}", "toy", "o/calc", base, PATCH) for k in range(8)]
    alone = list(run_stage2(insts, root, {"*": "2023-03-01"}, config=CONFIG, reuse_counts=False).flags)
    assert {f.evidence["blocks"][0]["how"] for f in alone} == {"moved"}
    assert all(f.contaminated is True for f in alone)

    moves: list[tuple[str, str | None]] = []
    parses: Counter[str] = Counter()
    real_init, real_move, real_parse = caches._Words.__init__, caches._Words._move, caches.parse_source

    def slow_init(self, language):  # noqa: ANN001, ANN202
        time.sleep(0.05)  # a second worker asking now would make an index of its own
        real_init(self, language)

    def counted_move(self, snapshot, cache):  # noqa: ANN001, ANN202
        moves.append((snapshot.commit, self.language))
        time.sleep(0.05)
        return real_move(self, snapshot, cache)

    def counted_parse(text, language, **kw):  # noqa: ANN001, ANN003, ANN202
        parses[text] += 1
        time.sleep(0.05)
        return real_parse(text, language, **kw)

    monkeypatch.setattr(caches._Words, "__init__", slow_init)
    monkeypatch.setattr(caches._Words, "_move", counted_move)
    monkeypatch.setattr(caches, "parse_source", counted_parse)
    together = list(run_stage2(insts, root, {"*": "2023-03-01"}, config=CONFIG, workers=2, reuse_counts=False).flags)
    assert len(moves) == len(set(moves)) == 1
    assert parses and set(parses.values()) == {1}
    assert untimed_flags(together) == untimed_flags(alone)


def test_once_map_makes_each_value_once_and_forgets_failures() -> None:
    made: Counter[str] = Counter()
    cache: OnceMap[str, str] = OnceMap()
    gate = threading.Barrier(4)

    def make(key: str) -> str:
        made[key] += 1
        time.sleep(0.05)
        return key.upper()

    def ask(key: str) -> None:
        gate.wait()
        assert cache.get(key, lambda: make(key)) == key.upper()

    threads = [threading.Thread(target=ask, args=(k,)) for k in ("a", "a", "a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert made == {"a": 1, "b": 1} and sorted(cache.values()) == ["A", "B"]

    def boom() -> str:
        raise ValueError("no")

    with pytest.raises(ValueError):
        cache.get("c", boom)
    with pytest.raises(KeyError):
        cache["c"]
    assert cache.get("c", lambda: "C") == "C" and cache["c"] == "C" and len(cache) == 3
