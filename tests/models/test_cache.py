"""The SQLite response cache: kill-and-resume makes zero repeated calls, errors are retried,
API keys never reach the file, token scores round-trip, concurrent use is safe."""

from __future__ import annotations

import http.server
import json
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from benchchecker_plugin.models import (
    DB_NAME,
    CachedLogprobModel,
    CachedModel,
    Completion,
    GenerationParams,
    LogprobModel,
    ResponseCache,
    TokenScores,
    with_cache,
)
from tests.helpers import ScriptedModel

PARAMS = GenerationParams(max_tokens=5)
PROMPTS = [f"prompt {i}" for i in range(20)]


def _echo(prompt: str, params: GenerationParams) -> Completion:
    return Completion(text=f"echo:{prompt}:{params.max_tokens}", finish_reason="length")


def counting_model(fail: Sequence[str] = (), crash_at: int | None = None) -> ScriptedModel:
    """A backend that answers ``echo:<prompt>:<max_tokens>`` (errors ``boom`` on ``fail``; raises
    mid-batch once ``crash_at`` prompts were asked) and records every prompt in ``prompts``."""
    return ScriptedModel(_echo, spec="counting/model", fail_on=fail, error="boom", crash_after=crash_at)


def test_exception_mid_run_then_resume_repeats_no_finished_item(tmp_path: Path) -> None:
    first = counting_model(crash_at=10)
    cached = CachedModel(first, ResponseCache(tmp_path), chunk_size=4)
    with pytest.raises(RuntimeError, match="simulated crash"):
        cached.generate(PROMPTS, PARAMS)
    assert first.prompts == PROMPTS[:10]  # chunks 1-2 committed, chunk 3 died after 2 calls

    second = counting_model()
    out = CachedModel(second, ResponseCache(tmp_path), chunk_size=4).generate(PROMPTS, PARAMS)
    assert second.prompts == PROMPTS[8:]  # nothing of the 8 committed items is asked again
    assert [c.text for c in out] == [f"echo:{p}:5" for p in PROMPTS]
    assert [c.cached for c in out] == [True] * 8 + [False] * 12

    third = counting_model()
    again = CachedModel(third, ResponseCache(tmp_path)).generate(PROMPTS, PARAMS)
    assert third.prompts == [] and all(c.cached for c in again)


CHILD = textwrap.dedent("""
    import sys, time
    from benchchecker_plugin.models import CachedModel, Completion, GenerationParams, ResponseCache

    class Slow:
        spec = "counting/model"
        def generate(self, prompts, params):
            time.sleep(0.3)
            return [Completion(text=f"echo:{p}:{params.max_tokens}") for p in prompts]

    prompts = [f"prompt {i}" for i in range(20)]
    CachedModel(Slow(), ResponseCache(sys.argv[1]), chunk_size=2).generate(
        prompts, GenerationParams(max_tokens=5))
    print("finished all", flush=True)
""")


def _count_rows(db: Path) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db, timeout=10) as conn:
        try:
            return int(conn.execute("SELECT COUNT(*) FROM completions").fetchone()[0])
        except sqlite3.OperationalError:  # table not created yet
            return 0


@pytest.mark.timeout(120)
def test_killed_process_resumes_with_zero_repeated_calls(tmp_path: Path) -> None:
    """A real process, SIGKILLed half-way; the rerun asks only for what the dead run did not store."""
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    proc = subprocess.Popen([sys.executable, str(script), str(tmp_path)], stdout=subprocess.PIPE)
    deadline = time.time() + 90
    while _count_rows(tmp_path / DB_NAME) < 4 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "child finished before it could be killed"
    done = _count_rows(tmp_path / DB_NAME)
    assert 4 <= done < 20

    resumed = counting_model()
    out = CachedModel(resumed, ResponseCache(tmp_path), chunk_size=2).generate(PROMPTS, PARAMS)
    assert len(resumed.prompts) == 20 - done
    assert set(resumed.prompts).isdisjoint(p for p, c in zip(PROMPTS, out) if c.cached)
    assert [c.text for c in out] == [f"echo:{p}:5" for p in PROMPTS]


def test_errors_are_stored_and_retried(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    first = counting_model(fail=["prompt 3", "prompt 7"])
    out = CachedModel(first, cache).generate(PROMPTS[:10], PARAMS)
    assert [i for i, c in enumerate(out) if not c.ok] == [3, 7]
    assert out[3].error == "boom" and out[3].text == ""
    stats = cache.stats()
    assert (stats.entries, stats.errors) == (10, 2)

    second = counting_model()
    out2 = CachedModel(second, cache).generate(PROMPTS[:10], PARAMS)
    assert second.prompts == ["prompt 3", "prompt 7"]
    assert all(c.ok for c in out2)
    assert cache.stats().errors == 0


def test_key_separates_params_and_model(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    model = counting_model()
    cached = CachedModel(model, cache)
    cached.generate(["a", "a", "b"], PARAMS)
    assert model.prompts == ["a", "b"]  # a duplicate in one call is asked once
    cached.generate(["a"], GenerationParams(max_tokens=6))
    cached.generate(["a"], GenerationParams(max_tokens=5, stop=("\n",)))
    other = counting_model()
    other.spec = "counting/other"
    CachedModel(other, cache).generate(["a"], PARAMS)
    assert model.prompts == ["a", "b", "a", "a"] and other.prompts == ["a"]
    s = cache.stats()
    assert s.entries == 5 and s.hits == 0 and s.misses == 5
    assert dict((i, n) for i, n, _ in s.by_model) == {"counting/model": 4, "counting/other": 1}
    CachedModel(model, cache).generate(["a", "b"], PARAMS)
    assert cache.stats().hits == 2


def test_concurrent_threads_share_one_cache(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    model = counting_model()
    cached = CachedModel(model, cache, chunk_size=3)
    results: dict[int, list[str]] = {}

    def work(k: int) -> None:
        results[k] = [c.text for c in cached.generate(PROMPTS[k:k + 10], PARAMS)]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(results[k] == [f"echo:{p}:5" for p in PROMPTS[k:k + 10]] for k in range(8))
    assert cache.stats().entries == 17
    assert set(model.prompts) == set(PROMPTS[:17])


class ScoringModel(ScriptedModel):
    """The counting backend that also scores texts (a LogprobModel); records them in ``scored``."""

    def __init__(self) -> None:
        super().__init__(_echo, spec="counting/model")
        self.scored: list[str] = []

    def token_scores(self, texts: Sequence[str]) -> list[TokenScores]:
        self.scored.extend(texts)
        return [TokenScores(tokens=tuple(t), offsets=tuple((i, i + 1) for i in range(len(t))),
                            logprobs=-np.arange(len(t), dtype=np.float64) / 3,
                            mu=np.full(len(t), -2.5), sigma=np.linspace(0.1, 1, len(t))) for t in texts]


def test_token_scores_are_cached_and_round_trip(tmp_path: Path) -> None:
    inner = ScoringModel()
    cached = with_cache(inner, ResponseCache(tmp_path))
    assert isinstance(cached, CachedLogprobModel) and isinstance(cached, LogprobModel)
    assert not isinstance(with_cache(counting_model(), ResponseCache(tmp_path)), LogprobModel)
    fresh = cached.token_scores(["héllo", "ab", ""])
    again = with_cache(ScoringModel(), ResponseCache(tmp_path)).token_scores(["ab", "héllo", ""])
    assert inner.scored == ["héllo", "ab", ""]
    for a, b in zip(fresh, [again[1], again[0], again[2]]):
        assert a.tokens == b.tokens and a.offsets == b.offsets
        for x, y in ((a.logprobs, b.logprobs), (a.mu, b.mu), (a.sigma, b.sigma)):
            np.testing.assert_array_equal(x, y)
    assert ResponseCache(tmp_path).stats().token_score_entries == 3


class _Handler(http.server.BaseHTTPRequestHandler):
    seen_auth: list[str] = []
    status = 200

    def do_POST(self) -> None:  # noqa: N802 - http.server API
        type(self).seen_auth.append(self.headers.get("Authorization", ""))
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        answer = {"choices": [{"text": f"re:{body['prompt']}", "finish_reason": "length"}]}
        data = json.dumps(answer if self.status == 200 else {"error": "bad"}).encode()
        self.send_response(self.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def echo_server() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_api_key_never_reaches_the_cache(tmp_path: Path, echo_server: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from benchchecker_plugin.models import get_model

    secret = "sk-test-SECRET-0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    _Handler.seen_auth, _Handler.status = [], 200
    model = get_model("openai-compatible/m", base_url=echo_server, cache_dir=tmp_path)
    out = model.generate(["q1", "q2"], PARAMS)
    assert [c.text for c in out] == ["re:q1", "re:q2"]
    assert _Handler.seen_auth == [f"Bearer {secret}"] * 2  # the key was really used
    _Handler.status = 400
    bad = get_model("openai-compatible/m", base_url=echo_server, cache_dir=tmp_path, max_retries=0)
    failed = bad.generate(["q3"], PARAMS)[0]
    assert not failed.ok and "HTTP 400" in (failed.error or "") and secret not in (failed.error or "")
    assert secret not in repr(model) and secret not in repr(model.inner)
    for f in tmp_path.rglob("*"):
        if f.is_file():
            assert secret.encode() not in f.read_bytes(), f


def test_generate_samples_share_cache_entries_with_per_seed_requests(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from benchchecker_plugin.membership import LocalCausalLM
    from benchchecker_plugin.models import tiny_gpt2, train_tokenizer

    tok = train_tokenizer(["def add(a, b):\n    return a + b\n"] * 8, 280)
    lm = LocalCausalLM(tiny_gpt2(tok, n_positions=32, n_embd=16, n_layer=1, n_head=2, eos_in_config=False,
                                 seed=0), tok, "local/tiny", batch_size=2)
    cached = with_cache(lm, ResponseCache(tmp_path))
    params = GenerationParams(max_tokens=4, temperature=1.0, seed=7)
    first = cached.generate_samples(["def", "return", "a"], params, 3)
    calls = lm.calls
    again = cached.generate_samples(["def", "return", "a"], params, 3)
    assert lm.calls == calls and again == [[replace(c, cached=True) for c in s] for s in first]
    seed8 = cached.generate(["def", "return", "a"], replace(params, seed=8))  # sample 1, from the cache
    assert lm.calls == calls and [c.text for c in seed8] == [s[1].text for s in first]
    more = cached.generate_samples(["def", "new prompt"], params, 3)  # only the new prompt is asked
    assert lm.calls == calls + 1 and more[0] == again[0]


def test_a_corrupt_cache_is_a_clear_error_on_open(tmp_path: Path) -> None:
    """Issue 14, item 5: a corrupt page made every later item fail ("20 asked, 20 failed", exit 0)
    and `cache stats` print a traceback. It is found when the cache is opened."""
    from click.testing import CliRunner

    from benchchecker_plugin.cli import main
    from benchchecker_plugin.errors import InputError
    from benchchecker_plugin.models import Completion, GenerationParams, ResponseCache

    cache = ResponseCache(tmp_path)
    params = GenerationParams()
    cache.put_completions("m", params, [(f"k{i}", Completion("x" * 500)) for i in range(400)])
    cache._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    cache._conn.close()
    data = bytearray(cache.path.read_bytes())
    assert len(data) > 4096 * 8
    data[4096 * 3:4096 * 6] = b"\xff" * (4096 * 3)      # pages 4-6: garbage
    cache.path.write_bytes(bytes(data))
    with pytest.raises(InputError, match="corrupt|not a usable SQLite database"):
        ResponseCache(tmp_path)
    res = CliRunner().invoke(main, ["cache", "stats", "--cache-dir", str(tmp_path)])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert f"cache file {cache.path}:" in res.stderr
