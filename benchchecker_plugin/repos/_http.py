"""Reading what a package index names, under a URL policy, a size cap and a per-request deadline.

>>> policy = UrlPolicy("https://pypi.org/simple/")
>>> policy.check("https://files.pythonhosted.org/packages/x.tar.gz", "sdist")  # doctest: +SKIP

Every URL an index gives (its pages, its file URLs) and every redirect is checked before it is
read (:class:`UrlPolicy`): ``https`` anywhere; ``http`` only on the host and port of an ``http``
index the user named (a local mirror); ``file://`` only when the user named a ``file://`` index,
and then only inside its folder (the folder holding ``simple/`` when the index is a ``simple/``
folder, the layout of bandersnatch mirrors: ``web/simple/``, ``web/packages/``), links resolved.
Redirects are followed here, one hop at a time (at most :data:`MAX_REDIRECTS`), never by the
HTTP session, which would follow ``302 -> file:///`` onto the local disk.

A request has a deadline for the whole of it (connect, headers, body), not only a timeout per
read: an index that sends a byte every few seconds fails when the deadline passes. The request
runs in a helper thread; at the deadline its socket is shut down and the caller gets one line
naming the URL.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any
from urllib.parse import urljoin, urlparse
from urllib.request import url2pathname

from ..errors import DataError, RepositoryError

MAX_REDIRECTS = 5
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


def _local_root(index: str) -> Path:
    folder = Path(os.path.realpath(url2pathname(urlparse(index).path)))
    return folder.parent if folder.name == "simple" else folder


@dataclass(frozen=True)
class UrlPolicy:
    """Which URLs may be read for the index ``index`` (the URL the user named)."""

    index: str

    def __post_init__(self) -> None:
        if urlparse(self.index).scheme not in ("https", "http", "file"):
            raise DataError(f"index {self.index!r}: not an https://, http:// or file:// URL")

    def check(self, url: str, what: str) -> str:
        """``url`` when it may be read; :class:`DataError` naming the index, ``what`` and the URL."""
        home, got = urlparse(self.index), urlparse(url)
        if got.scheme == "https":
            return url
        if got.scheme == "http" and home.scheme == "http" and got.netloc == home.netloc:
            return url
        if got.scheme == "file" and home.scheme == "file" and not got.netloc:
            root = _local_root(self.index)
            path = os.path.realpath(url2pathname(got.path))
            if os.path.commonpath([str(root), path]) == str(root):
                return url
            raise DataError(f"index {self.index}: {what} {url!r} is outside the index folder {root}; refused")
        allowed = {"https": "https:// only", "http": f"https://, or http:// on {home.netloc} only",
                   "file": f"https://, or file:// inside {_local_root(self.index)} only"}[home.scheme]
        raise DataError(f"index {self.index}: {what} {url!r} is not allowed ({allowed}); refused")


@dataclass(frozen=True)
class Fetched:
    """What a request answered: the final URL (after redirects), status and content type."""

    url: str
    status: int
    content_type: str
    body: bytes


class _Cancelled(Exception):
    pass


def fetch_url(session: Any, url: str, *, policy: UrlPolicy, what: str, where: str, timeout: float,
              deadline: float, max_bytes: int, headers: dict[str, str] | None = None,
              dest: Path | None = None) -> Fetched:
    """GET ``url`` (``file://`` read directly), following redirects under ``policy``; the body
    (or, with ``dest``, written there and ``b""`` returned). :class:`RepositoryError` naming
    ``where`` and the URL when it fails, answers nothing within ``deadline`` seconds, or sends
    more than ``max_bytes``; :class:`DataError` when a URL breaks the policy."""
    cancel = threading.Event()
    live: dict[str, Any] = {}
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["value"] = _follow(session, url, policy=policy, what=what, where=where, timeout=timeout,
                                   max_bytes=max_bytes, headers=headers or {}, dest=dest,
                                   cancel=cancel, live=live)
        except BaseException as exc:  # handed to the caller's thread, raised there
            box["error"] = exc

    thread = threading.Thread(target=work, name="benchchecker-fetch", daemon=True)
    thread.start()
    thread.join(deadline)
    if thread.is_alive():
        cancel.set()
        _shut(live.get("resp"))
        thread.join(1.0)
        raise RepositoryError(f"{where}: {url} did not answer in full within the {deadline:g} s "
                              "deadline (a slow or stalled server); try again later or raise it "
                              "with --download-deadline")
    if "error" in box:
        raise box["error"]
    value: Fetched = box["value"]
    return value


def _shut(resp: Any) -> None:
    """Shut the socket of a streaming response down (wakes a read blocked in another thread)."""
    sock = getattr(getattr(getattr(getattr(getattr(resp, "raw", None), "_fp", None), "fp", None), "raw", None),
                   "_sock", None)
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def _follow(session: Any, url: str, *, policy: UrlPolicy, what: str, where: str, timeout: float,
            max_bytes: int, headers: dict[str, str], dest: Path | None, cancel: threading.Event,
            live: dict[str, Any]) -> Fetched:
    for _hop in range(MAX_REDIRECTS + 1):
        policy.check(url, what)
        if urlparse(url).scheme == "file":
            return _read_file(url, where=where, max_bytes=max_bytes, dest=dest)
        try:
            resp = session.get(url, headers=headers, timeout=timeout, stream=True, allow_redirects=False)
        except OSError as exc:
            raise RepositoryError(f"{where}: {url} did not answer ({exc})") from exc
        live["resp"] = resp
        try:
            if resp.status_code in _REDIRECTS and resp.headers.get("location"):
                url, what = urljoin(url, resp.headers["location"]), f"redirect of {what}"
                continue
            body = b""
            if resp.status_code == 200:
                body = _read_body(resp, url, where=where, max_bytes=max_bytes, dest=dest, cancel=cancel)
            return Fetched(url, int(resp.status_code), str(resp.headers.get("content-type", "")), body)
        except OSError as exc:
            raise RepositoryError(f"{where}: reading {url} failed ({exc})") from exc
        finally:
            resp.close()
    raise RepositoryError(f"{where}: {url}: more than {MAX_REDIRECTS} redirects")


def _too_big(where: str, url: str, max_bytes: int) -> RepositoryError:
    return RepositoryError(f"{where}: {url} is larger than the {max_bytes:,} byte limit; refused")


def _read_body(resp: Any, url: str, *, where: str, max_bytes: int, dest: Path | None,
               cancel: threading.Event) -> bytes:
    declared = resp.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise _too_big(where, url, max_bytes)
    chunks: list[bytes] = []
    total = 0
    with _sink(dest) as out:
        for chunk in resp.iter_content(1 << 16):
            if cancel.is_set():
                raise _Cancelled()
            total += len(chunk)
            if total > max_bytes:
                raise _too_big(where, url, max_bytes)
            if out is None:
                chunks.append(chunk)
            else:
                out.write(chunk)
        if cancel.is_set():
            raise _Cancelled()
    return b"".join(chunks)


@contextlib.contextmanager
def _sink(dest: Path | None) -> Iterator[IO[bytes] | None]:
    if dest is None:
        yield None
        return
    with open(dest, "wb") as out:
        yield out


def _read_file(url: str, *, where: str, max_bytes: int, dest: Path | None) -> Fetched:
    path = Path(url2pathname(urlparse(url).path))
    try:
        if not path.is_file():   # a folder, a FIFO, a device: never opened
            return Fetched(url, 404, "", b"")
        if path.stat().st_size > max_bytes:
            raise _too_big(where, url, max_bytes)
        data = path.read_bytes()
    except OSError as exc:
        raise RepositoryError(f"{where}: reading {path} failed ({exc.strerror or exc})") from None
    if len(data) > max_bytes:
        raise _too_big(where, url, max_bytes)
    if dest is not None:
        dest.write_bytes(data)
        data = b""
    return Fetched(url, 200, "application/vnd.pypi.simple.v1+json" if path.name == "index.json" else "", data)
