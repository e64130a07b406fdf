"""A package index's source distributions with their exact upload times (PEP 691 JSON, PEP 700).

>>> index = SimpleIndex()                                   # the index pip reads (PyPI by default)
>>> files = index.sdists("requests")                        # doctest: +SKIP
>>> files[-1].version, files[-1].uploaded_at                # doctest: +SKIP
>>> index.download(files[-1], Path("/tmp/sdists"))          # doctest: +SKIP

The only interface :mod:`.releases` uses is :class:`PackageIndex` (``sdists``, ``download``):
tests and air-gapped users give a local simple index (a folder served over HTTP, or a
``file://`` URL whose ``NAME/index.json`` files are PEP 691 documents). :class:`SimpleIndex`
reads the index through pip's own network session (pip's certificates, proxies and retries)
and checks every downloaded file against the sha256 the index gives; nothing else is contacted.
It does not run ``pip download``: pip builds an sdist's metadata before it saves the file, which
runs the release's ``setup.py`` (old releases fail on today's Python, and it is code from the
registry run for nothing).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urljoin, urlparse
from urllib.request import url2pathname

from packaging.utils import InvalidSdistFilename, canonicalize_name, parse_sdist_filename
from packaging.version import Version

from ..errors import DataError, InputError, RepositoryError

__all__ = ["DEFAULT_INDEX", "PackageIndex", "ReleaseFile", "SimpleIndex", "default_index_url"]

DEFAULT_INDEX = "https://pypi.org/simple/"
_JSON = "application/vnd.pypi.simple.v1+json"


@dataclass(frozen=True)
class ReleaseFile:
    """One source distribution on the index: ``uploaded_at`` is the index's PEP 700 time (UTC)."""

    package: str
    version: str
    filename: str
    url: str
    uploaded_at: datetime
    sha256: str

    @property
    def parsed_version(self) -> Version:
        return Version(self.version)


class PackageIndex(Protocol):
    """Where releases come from: the sdists of a package (sorted by upload time) and a download."""

    url: str

    def sdists(self, package: str) -> list[ReleaseFile]:
        """Every source distribution of ``package``; :class:`InputError` for an unknown name."""
        ...

    def download(self, file: ReleaseFile, dest: Path) -> Path:
        """``file`` saved into folder ``dest`` (checked against its sha256); its path."""
        ...


def default_index_url() -> str:
    """The index pip reads: ``PIP_INDEX_URL``, else pip's configured ``index-url``, else PyPI."""
    env = os.environ.get("PIP_INDEX_URL")
    if env:
        return env
    try:
        from pip._internal.configuration import Configuration
        from pip._internal.exceptions import ConfigurationError
    except ImportError:  # pragma: no cover - pip is part of every venv we support
        return DEFAULT_INDEX
    conf = Configuration(isolated=False)
    try:
        conf.load()
    except ConfigurationError:
        return DEFAULT_INDEX
    for key in ("global.index-url", "download.index-url"):
        try:
            return str(conf.get_value(key))
        except ConfigurationError:  # no such key
            continue
    return DEFAULT_INDEX


def _session() -> Any:
    try:
        from pip._internal.network.session import PipSession
    except ImportError as exc:  # pragma: no cover
        raise RepositoryError("pip is not importable: it is the client release snapshots use") from exc
    return PipSession(retries=3)


def _when(text: object, where: str) -> datetime:
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        raise DataError(f"{where}: upload-time {text!r} is not an ISO datetime") from None


class SimpleIndex:
    """A PEP 691 simple index (``https://…/simple/`` or ``file:///…/simple/``) read through pip's
    session. Files without an upload time or a sha256 are refused (their date is unknown)."""

    def __init__(self, url: str | None = None, *, timeout: float = 60.0) -> None:
        url = url or default_index_url()
        self.url = url if url.endswith("/") else url + "/"
        self.timeout = timeout
        self._s: Any = None

    def __repr__(self) -> str:
        return f"SimpleIndex({self.url!r})"

    @property
    def _http(self) -> Any:
        if self._s is None:
            self._s = _session()
        return self._s

    def _page(self, package: str) -> dict[str, Any]:
        name = canonicalize_name(package)
        page = urljoin(self.url, f"{name}/")
        where = f"package {package!r} on {self.url}"
        if urlparse(page).scheme == "file":
            path = Path(url2pathname(urlparse(page).path)) / "index.json"
            if not path.is_file():
                raise InputError(f"{where}: no such package (no {path})")
            text = path.read_text(encoding="utf-8")
        else:
            try:
                resp = self._http.get(page, headers={"Accept": _JSON}, timeout=self.timeout)
            except OSError as exc:
                raise RepositoryError(f"{where}: the index did not answer ({exc})") from exc
            if resp.status_code == 404:
                raise InputError(f"{where}: no such package (404)")
            if resp.status_code != 200:
                raise RepositoryError(f"{where}: the index answered HTTP {resp.status_code}")
            if _JSON not in resp.headers.get("content-type", ""):
                raise RepositoryError(f"{where}: the index gave {resp.headers.get('content-type')!r}, "
                                      "not the JSON simple API (PEP 691) that carries upload times")
            text = resp.text
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise DataError(f"{where}: the index page is not JSON ({exc})") from None
        if not isinstance(data, dict) or not isinstance(data.get("files"), list):
            raise DataError(f"{where}: the index page has no 'files' list")
        data["_page"] = page
        return data

    def sdists(self, package: str) -> list[ReleaseFile]:
        data = self._page(package)
        name = canonicalize_name(package)
        out: dict[str, ReleaseFile] = {}
        for f in data["files"]:
            filename = str(f.get("filename", ""))
            try:
                pkg, version = parse_sdist_filename(filename)
            except InvalidSdistFilename:
                continue  # wheels, eggs, installers: not a release's source tree
            if canonicalize_name(pkg) != name or not f.get("upload-time"):
                continue
            sha = (f.get("hashes") or {}).get("sha256")
            if not sha:
                continue
            rf = ReleaseFile(package, str(version), filename, urljoin(data["_page"], str(f["url"])),
                             _when(f["upload-time"], f"{package} {filename}"), str(sha))
            # one sdist per version: the first uploaded (a later .zip beside a .tar.gz is the same tree)
            if rf.version not in out or rf.uploaded_at < out[rf.version].uploaded_at:
                out[rf.version] = rf
        return sorted(out.values(), key=lambda r: (r.uploaded_at, r.parsed_version))

    def download(self, file: ReleaseFile, dest: Path) -> Path:
        dest.mkdir(parents=True, exist_ok=True)
        final = dest / file.filename
        if final.is_file() and _sha256(final) == file.sha256:
            return final
        part = dest / f".{file.filename}.part-{secrets.token_hex(4)}"
        try:
            if urlparse(file.url).scheme == "file":
                src = Path(url2pathname(urlparse(file.url).path))
                if not src.is_file():
                    raise RepositoryError(f"{file.package} {file.version}: sdist {file.url} is missing")
                part.write_bytes(src.read_bytes())
            else:
                try:
                    resp = self._http.get(file.url, timeout=self.timeout, stream=True)
                except OSError as exc:
                    raise RepositoryError(f"{file.package} {file.version}: download of {file.url} "
                                          f"failed ({exc})") from exc
                if resp.status_code != 200:
                    raise RepositoryError(f"{file.package} {file.version}: sdist {file.url} "
                                          f"answered HTTP {resp.status_code}")
                with open(part, "wb") as out:
                    for chunk in resp.iter_content(1 << 20):
                        out.write(chunk)
            got = _sha256(part)
            if got != file.sha256:
                raise DataError(f"{file.package} {file.version}: sdist {file.filename} is corrupt "
                                f"(sha256 {got[:12]}…, the index says {file.sha256[:12]}…)")
            part.replace(final)
        finally:
            part.unlink(missing_ok=True)
        return final


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()

