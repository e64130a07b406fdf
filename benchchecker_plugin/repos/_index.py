"""A package index's source distributions with their exact upload times (PEP 691 JSON, PEP 700).

>>> index = SimpleIndex()                                   # the index pip reads (PyPI by default)
>>> files = index.sdists("requests")                        # doctest: +SKIP
>>> files[-1].version, files[-1].uploaded_at                # doctest: +SKIP
>>> index.download(files[-1], Path("/tmp/sdists"))          # doctest: +SKIP

The only interface :mod:`._releases` uses is :class:`PackageIndex` (``sdists``, ``download``):
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
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urljoin, urlparse
from urllib.request import url2pathname

from packaging.utils import InvalidName, InvalidSdistFilename, canonicalize_name, parse_sdist_filename
from packaging.version import InvalidVersion, Version

from ..errors import DataError, InputError, RepositoryError
from ._http import Fetched, UrlPolicy, fetch_url

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
    session = PipSession(retries=3)
    session.adapters.pop("file://", None)  # file:// is read by .http under the index's policy only
    return session


def _when(text: object, where: str) -> datetime:
    try:
        when = datetime.fromisoformat(str(text).replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        raise DataError(f"{where}: upload-time {text!r} is not an ISO datetime") from None
    if when > datetime.now(UTC) + _CLOCK_SKEW:
        raise DataError(f"{where}: upload-time {text!r} is in the future; refused (a release cannot "
                        "have been uploaded after now)")
    return when


#: how far an upload time may lie ahead of this machine's clock (clocks differ by seconds, not days)
_CLOCK_SKEW = timedelta(minutes=10)


def project_name(package: object) -> str:
    """The PEP 503 normalised name of ``package``; :class:`InputError` for anything that is not a
    valid project name (path or host characters never become part of a URL or path)."""
    try:
        if not isinstance(package, str):
            raise InvalidName(repr(package))
        return canonicalize_name(package, validate=True)
    except InvalidName:
        raise InputError(f"package {package!r}: not a valid project name (PEP 508: letters, digits "
                         "and . _ -, beginning and ending with a letter or digit)") from None


def release_version(version: object) -> str:
    """``version`` when it is a PEP 440 version; :class:`InputError` naming it otherwise."""
    try:
        Version(str(version))
    except InvalidVersion:
        raise InputError(f"version {version!r}: not a PEP 440 version") from None
    return str(version)


def _field(entry: dict[str, Any], key: str, kind: type, where: str, optional: bool = False) -> Any:
    value = entry.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, kind):
        raise DataError(f"{where}: field {key!r} is {type(value).__name__}, not "
                        f"{'a string' if kind is str else 'an object'}")
    return value


class SimpleIndex:
    """A PEP 691 simple index (``https://…/simple/`` or ``file:///…/simple/``) read through pip's
    session, under :class:`~.http.UrlPolicy`. Files without an upload time or a sha256 are skipped
    (their date is unknown). ``timeout``: seconds a read may wait; ``deadline``: seconds a whole
    request (a page, an sdist) may take; ``max_bytes``: the largest page or sdist read."""

    def __init__(self, url: str | None = None, *, timeout: float = 60.0, deadline: float = 600.0,
                 max_bytes: int = 1 << 30) -> None:
        url = url or default_index_url()
        self.url = url if url.endswith("/") else url + "/"
        if not (timeout > 0 and deadline > 0 and max_bytes > 0):
            raise InputError(f"index {self.url}: timeout, deadline and max_bytes must be > 0 "
                             f"(got {timeout}, {deadline}, {max_bytes})")
        try:
            self.policy = UrlPolicy(self.url)
        except DataError as exc:
            raise InputError(str(exc)) from None
        self.timeout, self.deadline, self.max_bytes = timeout, deadline, max_bytes
        self._s: Any = None

    def __repr__(self) -> str:
        return f"SimpleIndex({self.url!r})"

    @property
    def _http(self) -> Any:
        if self._s is None:
            self._s = _session()
        return self._s

    def _get(self, url: str, what: str, where: str, *, dest: Path | None = None,
             headers: dict[str, str] | None = None) -> Fetched:
        return fetch_url(self._http if urlparse(url).scheme != "file" else None, url, policy=self.policy,
                         what=what, where=where, timeout=self.timeout, deadline=self.deadline,
                         max_bytes=self.max_bytes, headers=headers, dest=dest)

    def _page(self, package: str) -> dict[str, Any]:
        name = project_name(package)
        page = urljoin(self.url, f"{name}/")
        where = f"package {package!r} on {self.url}"
        local = urlparse(page).scheme == "file"
        resp = self._get(urljoin(page, "index.json") if local else page, "page", where,
                         headers={"Accept": _JSON})
        if resp.status == 404:
            missing = url2pathname(urlparse(resp.url).path) if local else "404"
            raise InputError(f"{where}: no such package ({'no ' if local else ''}{missing})")
        if resp.status != 200:
            raise RepositoryError(f"{where}: the index answered HTTP {resp.status}")
        if not local and _JSON not in resp.content_type:
            raise RepositoryError(f"{where}: the index gave {resp.content_type!r}, "
                                  "not the JSON simple API (PEP 691) that carries upload times")
        try:
            data = json.loads(resp.body)
        except (ValueError, RecursionError) as exc:
            raise DataError(f"{where}: the index page {resp.url} is not JSON ({exc})") from None
        if not isinstance(data, dict) or not isinstance(data.get("files"), list):
            raise DataError(f"{where}: the index page {resp.url} has no 'files' list")
        data["_page"] = resp.url
        return data

    def sdists(self, package: str) -> list[ReleaseFile]:
        data = self._page(package)
        name = project_name(package)
        out: dict[str, ReleaseFile] = {}
        unparsable: list[str] = []
        for i, f in enumerate(data["files"]):
            at = f"package {package!r} on {self.url}: page {data['_page']} files[{i}]"
            if not isinstance(f, dict):
                raise DataError(f"{at}: is {type(f).__name__}, not an object")
            filename = _field(f, "filename", str, at)
            try:
                pkg, version = parse_sdist_filename(filename)
            except InvalidSdistFilename:
                if filename.endswith((".tar.gz", ".zip")) and canonicalize_name(filename).startswith(name):
                    unparsable.append(filename)   # an sdist whose version is not PEP 440
                continue  # wheels, eggs, installers: not a release's source tree
            if canonicalize_name(pkg) != name:
                continue
            hashes = _field(f, "hashes", dict, at, optional=True) or {}
            sha = hashes.get("sha256")
            uploaded = _field(f, "upload-time", str, at, optional=True)
            if not sha or not uploaded:
                continue
            if not isinstance(sha, str) or len(sha) != 64 or not all(c in "0123456789abcdef" for c in sha.lower()):
                raise DataError(f"{at}: field 'hashes.sha256' is not a sha256 ({str(sha)[:80]!r})")
            url = urljoin(data["_page"], _field(f, "url", str, at))
            rf = ReleaseFile(package, str(version), filename, url,
                             _when(uploaded, f"package {package!r} on {self.url}: {filename}"), sha.lower())
            # one sdist per version: the first uploaded (a later .zip beside a .tar.gz is the same tree)
            if rf.version not in out or rf.uploaded_at < out[rf.version].uploaded_at:
                out[rf.version] = rf
        if not out and unparsable:
            raise DataError(f"package {package!r} on {self.url}: {len(unparsable)} sdist(s) with a version "
                            f"that is not PEP 440 (e.g. {unparsable[0]!r}), none usable")
        return sorted(out.values(), key=lambda r: (r.uploaded_at, r.parsed_version))

    def download(self, file: ReleaseFile, dest: Path) -> Path:
        dest.mkdir(parents=True, exist_ok=True)
        if Path(file.filename).name != file.filename or file.filename.startswith("."):
            raise DataError(f"{file.package} {file.version}: sdist file name {file.filename!r} is not a "
                            "plain file name; refused")
        final = dest / file.filename
        if final.is_file() and _sha256(final) == file.sha256:
            return final
        part = dest / f".{file.filename}.part-{secrets.token_hex(4)}"
        where = f"{file.package} {file.version}"
        try:
            resp = self._get(file.url, "sdist URL", where, dest=part)
            if resp.status != 200:
                missing = " is missing" if resp.status == 404 and urlparse(resp.url).scheme == "file" else \
                    f" answered HTTP {resp.status}"
                raise RepositoryError(f"{where}: sdist {file.url}{missing}")
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

