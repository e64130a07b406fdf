"""Issue 37, release fetching: what a hostile or broken package index can make ``fetch_releases``
read, and how long it can keep it waiting. Each test failed before the fix: a ``file:///`` URL on
an index page (or a ``302 -> file:///``) had a local file read and committed; a package name with
path characters read outside the ``file://`` index; an index sending a byte every few seconds
was waited on forever; index JSON of the wrong shapes gave tracebacks; an upload time in 2099 was
accepted; a non-PEP 440 version was reported as "no source distribution with an upload time"."""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from benchchecker_plugin.errors import DataError, InputError, RepositoryError
from benchchecker_plugin.repos import SimpleIndex, fetch_releases
from benchchecker_plugin.repos._http import UrlPolicy
from tests.helpers.local_index import LocalIndex

_JSON = "application/vnd.pypi.simple.v1+json"
Route = Callable[[BaseHTTPRequestHandler], None]


@contextlib.contextmanager
def _server(routes: dict[str, Route]) -> Iterator[str]:
    """A server on 127.0.0.1 answering each path with its route (404 otherwise); its base URL."""
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            route = routes.get(self.path)
            if route is None:
                self.send_error(404)
                return
            with contextlib.suppress(OSError):
                route(self)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _page(files: list[object]) -> Route:
    def send(h: BaseHTTPRequestHandler) -> None:
        body = json.dumps({"meta": {"api-version": "1.1"}, "name": "calc", "files": files}).encode()
        h.send_response(200)
        h.send_header("Content-Type", _JSON)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)
    return send


def _trickle(content_type: str, byte: bytes, every_s: float, times: int,
             length: int | None = None) -> Route:
    """A 200 answer sending ``byte`` every ``every_s`` seconds, ``times`` times (never a read
    timeout; never done when ``length`` promises more)."""
    def send(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", content_type)
        if length is not None:
            h.send_header("Content-Length", str(length))
        h.end_headers()
        for _ in range(times):
            h.wfile.write(byte)
            h.wfile.flush()
            time.sleep(every_s)
    return send


def _entry(url: str, data: bytes, uploaded: str = "2022-01-10T10:00:00Z", name: str = "calc-1.0.tar.gz") -> dict[str, object]:
    return {"filename": name, "url": url, "hashes": {"sha256": hashlib.sha256(data).hexdigest()},
            "upload-time": uploaded}


def _secret(tmp_path: Path) -> tuple[Path, bytes]:
    """A local file an index should never get read: an sdist-shaped archive, right sha256."""
    idx = LocalIndex(tmp_path / "elsewhere")
    path = idx.add("calc", "1.0", "2022-01-10T10:00:00Z", {"secret.txt": "private\n"})
    return path, path.read_bytes()


def test_an_index_file_url_on_the_local_disk_is_refused(tmp_path: Path) -> None:
    secret, data = _secret(tmp_path)
    with _server({"/simple/calc/": _page([_entry(secret.as_uri(), data)])}) as base:
        with pytest.raises(DataError, match=r"index http://127\.0\.0\.1:\d+/simple/: sdist URL 'file:///.*calc-1\.0"
                           r"\.tar\.gz' is not allowed \(https://, or http:// on 127\.0\.0\.1:\d+ only\); refused"):
            fetch_releases("calc", "o/calc", tmp_path / "repos", index=SimpleIndex(base + "/simple/"))
    assert not (tmp_path / "repos" / "o__calc.releases").exists()


def test_a_redirect_onto_the_local_disk_is_refused(tmp_path: Path) -> None:
    secret, data = _secret(tmp_path)

    def redirect(h: BaseHTTPRequestHandler) -> None:
        h.send_response(302)
        h.send_header("Location", secret.as_uri())
        h.send_header("Content-Length", "0")
        h.end_headers()

    with _server({"/simple/calc/": _page([_entry("/files/calc-1.0.tar.gz", data)]),
                  "/files/calc-1.0.tar.gz": redirect}) as base:
        with pytest.raises(DataError, match=r"redirect of sdist URL 'file:///.*' is not allowed"):
            fetch_releases("calc", "o/calc", tmp_path / "repos", index=SimpleIndex(base + "/simple/"))


def test_a_file_index_reads_only_inside_its_folder(tmp_path: Path) -> None:
    secret, data = _secret(tmp_path)
    idx = LocalIndex(tmp_path / "index")
    idx.add("calc", "2.0", "2022-01-10T10:00:00Z", {"calc.py": "x = 1\n"})
    page = tmp_path / "index" / "simple" / "calc" / "index.json"
    doc = json.loads(page.read_text())
    doc["files"] = [_entry(secret.as_uri(), data)]
    page.write_text(json.dumps(doc))
    with pytest.raises(DataError, match=r"sdist URL 'file:///.*elsewhere/files/calc-1\.0\.tar\.gz' is outside "
                       r"the index folder .*index; refused"):
        fetch_releases("calc", "o/calc", tmp_path / "repos", index=SimpleIndex(idx.file_url))


def test_an_https_index_cannot_send_to_plain_http() -> None:
    policy = UrlPolicy("https://pypi.org/simple/")
    assert policy.check("https://files.pythonhosted.org/x.tar.gz", "sdist URL")
    with pytest.raises(DataError, match=r"sdist URL 'http://files.example/x.tar.gz' is not allowed \(https:// only\)"):
        policy.check("http://files.example/x.tar.gz", "sdist URL")
    with pytest.raises(DataError, match=r"'ftp://x/y' is not allowed"):
        policy.check("ftp://x/y", "sdist URL")


@pytest.mark.parametrize("name", ["../elsewhere/simple/calc", "//evil.example/calc", "calc/../../x", "a@b", ""])
def test_a_package_name_with_path_or_host_characters_is_refused_before_any_read(tmp_path: Path, name: str) -> None:
    with _server({}) as base:   # nothing is asked of any index: no route needed
        index = SimpleIndex(base + "/simple/")
        with pytest.raises(InputError, match=r"package .*: not a valid project name \(PEP 508"):
            fetch_releases(name, "o/calc", tmp_path / "repos", index=index)
    with pytest.raises(InputError, match=r"not a valid project name"):
        SimpleIndex((tmp_path / "simple").as_uri()).sdists(name)


def test_an_index_that_trickles_fails_by_the_deadline(tmp_path: Path) -> None:
    with _server({"/simple/calc/": _trickle(_JSON, b" ", 0.1, 40, length=100000)}) as base:
        start = time.monotonic()
        with pytest.raises(RepositoryError, match=r"package 'calc' on http://.*: http://.*/simple/calc/ did not "
                           r"answer in full within the 0\.5 s deadline"):
            SimpleIndex(base + "/simple/", timeout=2.0, deadline=0.5).sdists("calc")
        assert time.monotonic() - start < 2.5


def test_a_page_larger_than_the_cap_is_refused(tmp_path: Path) -> None:
    with _server({"/simple/calc/": _page([{"filename": "x" * 5000}])}) as base:
        with pytest.raises(RepositoryError, match=r"/simple/calc/ is larger than the 1,000 byte limit; refused"):
            SimpleIndex(base + "/simple/", max_bytes=1000).sdists("calc")


@pytest.mark.parametrize(("files", "field"), [
    ([1, None], r"files\[0\]: is int, not an object"),
    ([{"filename": "calc-1.0.tar.gz", "url": "x", "hashes": "x", "upload-time": "2022-01-01T00:00:00Z"}],
     r"files\[0\]: field 'hashes' is str, not an object"),
    ([{"filename": 7}], r"files\[0\]: field 'filename' is int, not a string"),
    ([{"filename": "calc-1.0.tar.gz", "url": ["x"], "hashes": {"sha256": "a" * 64},
       "upload-time": "2022-01-01T00:00:00Z"}], r"files\[0\]: field 'url' is list, not a string"),
    ([{"filename": "calc-1.0.tar.gz", "url": "x", "hashes": {"sha256": "zz"},
       "upload-time": "2022-01-01T00:00:00Z"}], r"files\[0\]: field 'hashes.sha256' is not a sha256"),
])
def test_index_json_of_the_wrong_shape_is_one_error_naming_url_and_field(tmp_path: Path, files: list[object],
                                                                         field: str) -> None:
    with _server({"/simple/calc/": _page(files)}) as base:
        with pytest.raises(DataError, match=r"package 'calc' on http://.*/simple/: page http://.*/simple/calc/ "
                           + field):
            SimpleIndex(base + "/simple/").sdists("calc")


def test_an_upload_time_after_now_is_refused(tmp_path: Path) -> None:
    idx = LocalIndex(tmp_path / "index")
    idx.add("calc", "1.0", "2099-01-01T00:00:00Z", {"calc.py": "x = 1\n"})
    with pytest.raises(DataError, match=r"package 'calc' on file://.*: calc-1\.0\.tar\.gz: upload-time "
                       r"'2099-01-01T00:00:00Z' is in the future; refused"):
        fetch_releases("calc", "o/calc", tmp_path / "repos", index=SimpleIndex(idx.file_url))


def test_a_non_pep440_version_says_so(tmp_path: Path) -> None:
    idx = LocalIndex(tmp_path / "index")
    idx.add("calc", "1.0-final_beta", "2020-01-01T00:00:00Z", {"calc.py": "x = 1\n"})
    with pytest.raises(DataError, match=r"package 'calc' on file://.*: 1 sdist\(s\) with a version that is not "
                       r"PEP 440 \(e\.g\. 'calc-1\.0-final_beta\.tar\.gz'\), none usable"):
        fetch_releases("calc", "o/calc", tmp_path / "repos", index=SimpleIndex(idx.file_url))
    with pytest.raises(InputError, match=r"version '1\.0/\.\./x': not a PEP 440 version"):
        fetch_releases("calc", "o/calc", tmp_path / "repos", index=SimpleIndex(idx.file_url),
                       versions=["1.0/../x"])


def test_a_link_inside_a_file_index_pointing_out_is_refused(tmp_path: Path) -> None:
    """Found while fixing: the check resolves links, so a file of the index that is a link to the
    rest of the disk is outside it."""
    secret, data = _secret(tmp_path)
    idx = LocalIndex(tmp_path / "index")
    sdist = idx.add("calc", "1.0", "2022-01-10T10:00:00Z", {}, data=data)
    sdist.unlink()
    sdist.symlink_to(secret)
    with pytest.raises(DataError, match=r"sdist URL 'file:///.*index/files/calc-1\.0\.tar\.gz' "
                       r"is outside the index folder"):
        fetch_releases("calc", "o/calc", tmp_path / "repos", index=SimpleIndex(idx.file_url))


def test_a_fifo_where_a_file_index_page_should_be_is_not_opened(tmp_path: Path) -> None:
    """A guard (this held before too): only a regular file is read as a ``file://`` index's page;
    a FIFO, which ``read_text`` would wait on forever, is never opened."""
    import os
    (tmp_path / "simple" / "calc").mkdir(parents=True)
    os.mkfifo(tmp_path / "simple" / "calc" / "index.json")
    with pytest.raises(InputError, match=r"package 'calc' on file://.*: no such package \(no .*calc/index\.json\)"):
        SimpleIndex((tmp_path / "simple").as_uri()).sdists("calc")


def test_repos_fetch_from_a_trickling_index_ends_in_one_line_at_the_stated_deadline(tmp_path: Path) -> None:
    """The command, not only the index: a page sent a byte every 0.3 s ends ``repos fetch`` with one
    line naming the URL and the deadline (``--download-deadline``), exit 4, within about it."""
    from click.testing import CliRunner

    from benchchecker_plugin.cli import main
    from tests.helpers.git_history import PATCH

    insts = tmp_path / "insts.jsonl"
    insts.write_text(json.dumps({"instance_id": "o__calc-7", "repo": "o/calc", "base_commit": "0" * 40,
                                 "patch": PATCH, "created_at": "2021-12-01T00:00:00Z"}) + "\n")
    with _server({"/simple/calc/": _trickle(_JSON, b" ", 0.3, 100, length=100000)}) as base:
        start = time.monotonic()
        res = CliRunner().invoke(main, ["repos", "fetch", "--instances", str(insts), "--into",
                                        str(tmp_path / "repos"), "--from-releases", "calc", "--index-url",
                                        base + "/simple/", "--download-deadline", "1"])
        took = time.monotonic() - start
    assert res.exit_code == 4 and "Traceback" not in res.output, res.output
    assert (f"failed calc: package 'calc' on {base}/simple/: {base}/simple/calc/ did not answer in full "
            "within the 1 s deadline (a slow or stalled server)") in res.output
    assert res.output.splitlines()[-1] == "Error: 1 of 1 package(s) could not be fetched: calc"
    assert took < 5


def test_a_git_remote_that_trickles_ends_the_clone_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """git over HTTP has no deadline of its own: a remote sending a byte every 0.5 s held the
    clone for ever. Below STALL_BYTES_PER_S for STALL_SECONDS (here 2 s), git ends it."""
    from click.testing import CliRunner

    from benchchecker_plugin.cli import main
    from benchchecker_plugin.repos import _fetch
    from tests.helpers.git_history import PATCH

    monkeypatch.setattr(_fetch, "STALL_SECONDS", 2)
    for name in ("GIT_HTTP_LOW_SPEED_LIMIT", "GIT_HTTP_LOW_SPEED_TIME"):
        monkeypatch.delenv(name, raising=False)
    insts = tmp_path / "insts.jsonl"
    insts.write_text(json.dumps({"instance_id": "o__calc-7", "repo": "o/calc", "base_commit": "0" * 40,
                                 "patch": PATCH}) + "\n")
    advertisement = _trickle("application/x-git-upload-pack-advertisement", b"0", 0.5, 100)
    with _server({"/o/calc.git/info/refs?service=git-upload-pack": advertisement}) as base:
        start = time.monotonic()
        res = CliRunner().invoke(main, ["repos", "fetch", "--instances", str(insts), "--into",
                                        str(tmp_path / "repos"), "--source", base + "/{owner}/{name}.git"])
        took = time.monotonic() - start
    assert res.exit_code == 4 and "Traceback" not in res.output, res.output
    assert "failed o/calc: git clone failed: fatal: unable to access" in res.output
    assert "Operation too slow" in res.output and took < 20
    assert not any((tmp_path / "repos").glob("*calc*"))   # no half-written clone left
