"""Models asked from a Ray cluster's workers (``--executor ray`` on ts-guess, check, baselines).

Guards: the flags equal the local run's; API requests from every worker share one concurrency
limit (measured at a real HTTP server); the answers are stored in the driver's cache, so a
re-run sends no request; a lost shard is an errored answer, never one made up; slots whose
holder died come back after their lease; a local model's token scores equal the local ones.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.errors import ExecutionError
from benchchecker_plugin.execution import ItemResult, LocalExecutor
from benchchecker_plugin.models import GenerationParams, get_model
from benchchecker_plugin.models._remote import LocalSlots, ModelRecipe, RemoteModel, _SlotsActor
from tests.helpers import comparable_flags


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Answer)
        self.lock = threading.Lock()
        self.in_flight = 0
        self.peak = 0
        self.prompts: list[str] = []


class _Answer(BaseHTTPRequestHandler):
    """A completions endpoint that answers each prompt with a text derived from it (a little slowly,
    so that requests overlap), and counts requests in flight."""

    server: _Server

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        srv = self.server
        with srv.lock:
            srv.in_flight += 1
            srv.peak = max(srv.peak, srv.in_flight)
            srv.prompts.append(body["prompt"])
        time.sleep(0.03)
        words = body["prompt"].split()
        text = " ".join(words[-3:][::-1])
        data = json.dumps({"choices": [{"text": text, "finish_reason": "stop"}]}).encode()
        with srv.lock:
            srv.in_flight -= 1
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def server() -> Iterator[_Server]:
    srv = _Server()
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _url(srv: _Server) -> str:
    return f"http://127.0.0.1:{srv.server_address[1]}/v1"


def test_local_remote_model_equals_the_model_itself(server: _Server) -> None:
    """RemoteModel on the local executor: the same answers, in order, as the backend asked directly."""
    spec, url = "openai-compatible/echo", _url(server)
    prompts = [f"question {i} about the thing number {i * 7}" for i in range(23)]
    params = GenerationParams(max_tokens=8)
    direct = get_model(spec, base_url=url, use_cache=False).generate(prompts, params)
    remote = get_model(spec, base_url=url, use_cache=False, executor=LocalExecutor(),
                       max_concurrency=4)
    assert isinstance(remote, RemoteModel) and remote.batch_size == 16
    assert remote.cache_identity == get_model(spec, base_url=url, use_cache=False).cache_identity
    assert [c.text for c in remote.generate(prompts, params)] == [c.text for c in direct]
    assert all(c.ok for c in direct) and direct[1].text == "7 number thing"


class _Lossy:
    """An executor whose first item's worker is lost (as after Ray's retries)."""

    def map(self, fn, items, *, desc=""):  # noqa: ANN001, ANN201
        return [ItemResult(i, error="WorkerCrashedError: item 0 lost after 3 retries") if i == 0
                else ItemResult(i, fn(x)) for i, x in enumerate(items)]


def test_a_lost_shard_is_an_errored_answer_and_all_lost_is_an_error(server: _Server) -> None:
    url = _url(server)
    recipe = ModelRecipe("openai-compatible/echo", (("base_url", url),))
    model = RemoteModel(recipe, _Lossy(), identity="x", shard_size=2, slots=LocalSlots(2))
    out = model.generate(["a b c", "d e f", "g h i"], GenerationParams())
    assert [c.ok for c in out] == [False, False, True] and out[2].text == "i h g"
    assert out[0].error == "worker failed: WorkerCrashedError: item 0 lost after 3 retries"
    with pytest.raises(ExecutionError, match="every shard failed on the workers: WorkerCrashedError"):
        model.generate(["a b c"], GenerationParams())


def test_slots_are_leases_that_come_back_when_a_holder_dies() -> None:
    async def scenario() -> tuple[list[str], float, dict[str, int]]:
        slots = _SlotsActor(2, lease_s=0.3)
        a, b = await slots.acquire(), await slots.acquire()
        t0 = time.monotonic()
        await slots.release(a)
        c = await slots.acquire()           # a released slot is free at once
        fast = time.monotonic() - t0
        assert fast < 0.2
        t0 = time.monotonic()
        await slots.acquire()               # b and c are held: waits until b's lease runs out
        waited = time.monotonic() - t0
        return [a, b, c], waited, await slots.stats()

    tokens, waited, stats = asyncio.run(scenario())
    assert len(set(tokens)) == 3
    assert 0.1 <= waited < 2.0
    # b and c were taken at once: both leases ran out, only the last grant is held
    assert stats == {"limit": 2, "peak": 2, "granted": 4, "held": 1}



@pytest.mark.slow
def test_ts_guess_on_ray_equals_local_under_one_limit_and_caches_on_the_driver(
        cluster, server: _Server, shared_data: Path, tmp_path: Path) -> None:  # noqa: ANN001
    mmlu = shared_data / "mmlu"
    common = ["ts-guess", "--benchmark", "mmlu", "--data", str(mmlu), "--subject", "astronomy",
              "--limit", "40", "--model", "openai-compatible/echo", "--base-url", _url(server),
              "--max-concurrency", "3"]
    local = CliRunner().invoke(main, [*common, "--no-cache", "-o", str(tmp_path / "local.jsonl")])
    assert local.exit_code == 0, local.output
    asked_locally = len(server.prompts)
    assert asked_locally == 40
    server.peak = 0
    cache = tmp_path / "cache"
    on_ray = CliRunner().invoke(main, [*common, "--cache-dir", str(cache), "--executor", "ray",
                                       "-o", str(tmp_path / "ray.jsonl")])
    assert on_ray.exit_code == 0, on_ray.output
    from benchchecker_plugin.flags import read_flags

    assert comparable_flags(read_flags(tmp_path / "ray.jsonl")) == comparable_flags(read_flags(tmp_path / "local.jsonl"))
    assert sorted(server.prompts[asked_locally:]) == sorted(server.prompts[:asked_locally])   # each once
    # 40 prompts in shards of 3 over two workers' threads: never more than 3 requests at once
    assert 2 <= server.peak <= 3
    # the answers are in the driver's cache: a re-run asks the server nothing
    before = len(server.prompts)
    again = CliRunner().invoke(main, [*common, "--cache-dir", str(cache), "--executor", "ray",
                                      "-o", str(tmp_path / "again.jsonl")])
    assert again.exit_code == 0, again.output
    assert len(server.prompts) == before
    assert comparable_flags(read_flags(tmp_path / "again.jsonl")) == comparable_flags(read_flags(tmp_path / "ray.jsonl"))


@pytest.mark.slow
def test_baselines_on_ray_equal_local(cluster, tmp_path: Path) -> None:  # noqa: ANN001
    """A local model loaded on each worker: the same four scores per repository as in this process."""
    import shutil

    import benchchecker_plugin
    from benchchecker_plugin.models import tiny_gpt2, train_tokenizer

    src = Path(benchchecker_plugin.__file__).parent
    repos = []
    for name in ("flags", "scoring"):
        shutil.copytree(src / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
        repos += ["--repo", str(tmp_path / name)]
    texts = [p.read_text() for p in (src / "flags").glob("*.py")]
    fast = train_tokenizer(texts, 300, roles=("eos", "bos", "unk", "pad"))
    folder = tmp_path / "tiny"
    fast.save_pretrained(folder)
    tiny_gpt2(fast, n_positions=256, n_embd=32, n_layer=2, n_head=2, seed=0).save_pretrained(folder)
    common = ["baselines", "--model", f"hf/{folder}", *repos, "--batch-size", "4"]
    local = CliRunner().invoke(main, [*common, "--no-cache", "-o", str(tmp_path / "local.jsonl")])
    on_ray = CliRunner().invoke(main, [*common, "--cache-dir", str(tmp_path / "cache"), "--executor", "ray",
                                       "-o", str(tmp_path / "ray.jsonl")])
    assert local.exit_code == 0 and on_ray.exit_code == 0, local.output + on_ray.output
    from benchchecker_plugin.flags import read_flags

    a, b = read_flags(tmp_path / "local.jsonl"), read_flags(tmp_path / "ray.jsonl")
    assert [(f.instance_id, f.method) for f in a] == [(f.instance_id, f.method) for f in b] and len(a) == 8
    assert [f.score for f in b] == pytest.approx([f.score for f in a], rel=1e-5)
    # the token scores came back to the driver's cache
    stats = CliRunner().invoke(main, ["cache", "stats", "--cache-dir", str(tmp_path / "cache")])
    assert stats.exit_code == 0 and "token" in stats.output


@pytest.mark.slow
def test_repo_presence_on_ray_equals_local(cluster, server: _Server, tmp_path: Path) -> None:  # noqa: ANN001
    import shutil

    import benchchecker_plugin

    repo = tmp_path / "flags"
    shutil.copytree(Path(benchchecker_plugin.__file__).parent / "flags", repo,
                    ignore=shutil.ignore_patterns("__pycache__"))
    common = ["repo-presence", "--model", "openai-compatible/echo", "--base-url", _url(server),
              "--max-concurrency", "2", "--repo", str(repo), "--n-queries", "6", "--samples", "2", "--no-cache"]
    local = CliRunner().invoke(main, [*common, "-o", str(tmp_path / "local.jsonl")])
    on_ray = CliRunner().invoke(main, [*common, "--executor", "ray", "-o", str(tmp_path / "ray.jsonl")])
    assert local.exit_code == 0 and on_ray.exit_code == 0, local.output + on_ray.output
    a = comparable_flags(tmp_path / "local.jsonl")
    assert a == comparable_flags(tmp_path / "ray.jsonl")
    (ev,) = [f["evidence"] for f in a.values()]
    assert ev["queries"] > 0 and ev["failed_queries"] == 0, ev


@pytest.mark.slow
def test_check_on_ray_equals_local(cluster, server: _Server, shared_data: Path, tmp_path: Path) -> None:  # noqa: ANN001
    common = ["check", "--model", "openai-compatible/echo", "--base-url", _url(server), "--cutoff", "2024-06",
              "--benchmarks", "mmlu", "--data", f"mmlu={shared_data / 'mmlu'}", "--limit", "12", "--no-cache"]
    local = CliRunner().invoke(main, [*common, "-o", str(tmp_path / "local")])
    on_ray = CliRunner().invoke(main, [*common, "--executor", "ray", "--max-concurrency", "2",
                                       "-o", str(tmp_path / "ray")])
    assert local.exit_code == 0 and on_ray.exit_code == 0, local.output + on_ray.output
    a = comparable_flags(tmp_path / "local" / "flags.jsonl")
    # (--limit 12 is a stratified sample over 12 subjects; items the masking cannot probe are dropped)
    assert 0 < len(a) <= 12 and a == comparable_flags(tmp_path / "ray" / "flags.jsonl")
