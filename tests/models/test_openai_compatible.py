"""openai-compatible/ against a real server: ``transformers serve`` on 127.0.0.1, serving the
exported SmolLM2 folder offline."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest

from benchchecker_plugin.models import GenerationParams, ResponseCache, get_model
from tests.helpers import require_shared_data

if TYPE_CHECKING:   # the hf backend imports torch and transformers: not at collection
    from benchchecker_plugin.models import HFModel

pytestmark = [pytest.mark.server, pytest.mark.model]

SERVE = [sys.executable, "-c", "from transformers.cli.transformers import main; main()", "serve"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(smollm2_folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``transformers serve FOLDER`` on a free port; yields its /v1 URL; killed at the end."""
    port = _free_port()
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    env = dict(os.environ, HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1")
    with open(log, "wb") as out:
        proc = subprocess.Popen([*SERVE, str(smollm2_folder), "--host", "127.0.0.1", "--port", str(port),
                                 "--device", "cpu", "--log-level", "warning"],
                                stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.time() + 180
        while True:
            if proc.poll() is not None:
                # a failure, not a skip: the test extra installs transformers[serving], so a
                # server that does not start is a broken install or a broken backend path
                pytest.fail(f"transformers serve exited ({proc.returncode}): {log.read_text()[-500:]}")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.time() > deadline:
                pytest.fail(f"transformers serve did not answer /health in 180 s: {log.read_text()[-500:]}")
            time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


PROMPTS = ["The capital of France is", "1, 2, 3,", "def fibonacci(n):"]


def test_completions_match_the_local_model(server: str, smollm2_folder: Path, smollm2_model: HFModel,
                                           tmp_path: Path) -> None:
    spec = f"openai-compatible/{smollm2_folder}"
    model = get_model(spec, base_url=server, max_concurrency=2, cache_dir=tmp_path)
    params = GenerationParams(max_tokens=6)
    remote = model.generate(PROMPTS, params)
    local = smollm2_model.generate(PROMPTS, params)
    assert all(c.ok for c in remote), [c.error for c in remote]
    assert [c.text for c in remote] == [c.text for c in local]  # same weights, greedy
    assert remote[1].text.startswith(" 4, 5")
    again = model.generate(PROMPTS, params)  # answered by the cache
    assert all(c.cached for c in again) and [c.text for c in again] == [c.text for c in remote]
    assert ResponseCache(tmp_path).stats().entries == 3


def test_chat_endpoint_and_stop(server: str, smollm2_folder: Path) -> None:
    chat = get_model(f"openai-compatible/{smollm2_folder}", base_url=server, endpoint="chat")
    answer = chat.generate(["What is the capital of France?"], GenerationParams(max_tokens=10))[0]
    assert answer.ok and "Paris" in answer.text
    raw = get_model(f"openai-compatible/{smollm2_folder}", base_url=server)
    stopped = raw.generate(["def fibonacci(n):"], GenerationParams(max_tokens=8, stop=("if",)))[0]
    assert stopped.ok and "if" not in stopped.text and stopped.finish_reason == "stop"


def test_unreachable_server_fails_per_item() -> None:
    dead = get_model("openai-compatible/m", base_url=f"http://127.0.0.1:{_free_port()}/v1", max_retries=1,
                     timeout=5)
    out = dead.generate(["a", "b"], GenerationParams(max_tokens=2))
    assert [c.ok for c in out] == [False, False]
    assert all("ConnectError talking to http://127.0.0.1:" in (c.error or "") for c in out)


def test_cli_commands_use_the_server(server: str, smollm2_folder: Path, tmp_path: Path) -> None:
    """Issue 14, item 1: every command passes --batch-size to the model layer; the
    openai-compatible backend crashed on it from the CLI (TypeError), the path for vLLM,
    llama.cpp and hosted models."""
    from click.testing import CliRunner

    from benchchecker_plugin.cli import main

    data = require_shared_data("mmlu")
    out = tmp_path / "f.jsonl"
    res = CliRunner().invoke(main, ["ts-guess", "--benchmark", "mmlu", "--data", str(data),
                                    "--subject", "astronomy", "--limit", "2", "--model",
                                    f"openai-compatible/{smollm2_folder}", "--base-url", server,
                                    "--cache-dir", str(tmp_path / "cache"), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert "2 asked, 0 failed" in res.stdout
