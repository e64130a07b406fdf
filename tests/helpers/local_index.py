"""A package index made in a test: sdists built from given files, a PEP 691 JSON page per package
with PEP 700 upload times, in a folder that is served over HTTP on 127.0.0.1 (or read as file://)."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import tarfile
import threading
from collections.abc import Iterator, Mapping
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

__all__ = ["LocalIndex", "serve"]


class LocalIndex:
    """``root/simple/<name>/index.json`` and ``root/files/<sdist>``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.pages: dict[str, list[dict[str, object]]] = {}

    def add(self, name: str, version: str, uploaded: str, files: Mapping[str, str], *,
            data: bytes | None = None, listed_only: bool = False) -> Path:
        """An sdist ``name-version.tar.gz`` holding ``files`` under ``name-version/`` (or the raw
        ``data``: a corrupt one), listed with upload time ``uploaded``; ``listed_only``: listed on
        the page but not on disk (a missing file)."""
        fname = f"{name}-{version}.tar.gz"
        if data is None:
            buf = io.BytesIO()
            with tarfile.open(fileobj=buf, mode="w:gz") as tf:
                for path, text in {**files, "PKG-INFO": f"Name: {name}\nVersion: {version}\n"}.items():
                    raw = text.encode()
                    info = tarfile.TarInfo(f"{name}-{version}/{path}")
                    info.size = len(raw)
                    tf.addfile(info, io.BytesIO(raw))
            data = buf.getvalue()
        out = self.root / "files" / fname
        if not listed_only:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)
        self.pages.setdefault(name, []).append({
            "filename": fname, "url": f"../../files/{fname}",
            "hashes": {"sha256": hashlib.sha256(data).hexdigest()}, "upload-time": uploaded})
        self._write(name)
        return out

    def _write(self, name: str) -> None:
        page = self.root / "simple" / name / "index.json"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(json.dumps({"meta": {"api-version": "1.1"}, "name": name, "files": self.pages[name]}))

    @property
    def file_url(self) -> str:
        return (self.root / "simple").as_uri() + "/"


class _Handler(SimpleHTTPRequestHandler):
    def send_head(self):  # type: ignore[no-untyped-def]
        if self.path.endswith("/") and self.path.startswith("/simple/"):
            self.path += "index.json"
        return super().send_head()

    def guess_type(self, path):  # type: ignore[no-untyped-def]
        if str(path).endswith("index.json"):
            return "application/vnd.pypi.simple.v1+json"
        return super().guess_type(path)

    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def serve(index: LocalIndex) -> Iterator[str]:
    """The index served on 127.0.0.1; yields its simple URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Handler, directory=str(index.root)))
    thread = threading.Thread(target=partial(server.serve_forever, poll_interval=0.05), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/simple/"
    finally:
        server.shutdown()
        server.server_close()
