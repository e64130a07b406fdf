"""Issue 14, item 12: API keys reached disk when a server echoed the request's headers in an
error body (stored in the cache's error column) or sat in the base URL. After a run, no file of
the cache (database and WAL) or the flags holds the key."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from tests.helpers import require_shared_data

KEY = "sk-test-SECRET-0123456789"
URL_PASSWORD = "urlpass-SECRET-42"


class _Echo(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = json.dumps({"error": "bad request", "headers": dict(self.headers)}).encode()
        self.send_response(400)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def echo_server() -> Iterator[int]:
    server = HTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()


@pytest.mark.parametrize("userinfo", ["", f"user:{URL_PASSWORD}@"])
def test_no_key_reaches_disk(userinfo: str, echo_server: int, tmp_path: Path,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    data = require_shared_data("mmlu")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    out = tmp_path / "flags.jsonl"
    res = CliRunner().invoke(main, [
        "ts-guess", "--benchmark", "mmlu", "--data", str(data), "--subject", "astronomy",
        "--limit", "2", "--model", "openai-compatible/m", "--base-url",
        f"http://{userinfo}127.0.0.1:{echo_server}/v1",
        "--cache-dir", str(tmp_path / "cache"), "-o", str(out)])
    assert res.exit_code == 3, res.output       # every probe failed: HTTP 400
    flags = [json.loads(x) for x in out.read_text().splitlines()]
    assert all("HTTP 400" in f["evidence"]["error"] for f in flags)
    assert "***" in flags[0]["evidence"]["error"]           # the echoed header, redacted
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name.startswith("responses.sqlite3") for p in files)
    for path in files:
        raw = path.read_bytes()
        assert KEY.encode() not in raw and URL_PASSWORD.encode() not in raw, path
    assert KEY not in res.output and URL_PASSWORD not in res.output
