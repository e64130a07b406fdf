"""Issue 37, release fetching: what an sdist can make of its snapshot. Each test failed before the
fix: a small sdist expanding to gigabytes (gzip or zip) was extracted and committed; an sdist's own
``.gitattributes`` rewrote its line endings when stored; a vendored ``.git`` folder failed with
"git add -A -f failed"."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import zipfile
from pathlib import Path

import pytest

from benchchecker_plugin.errors import DataError, InputError
from benchchecker_plugin.repos import ReleaseHistory, SimpleIndex, fetch_releases, git
from benchchecker_plugin.repos._archive import ExtractLimits, extract_sdist
from tests.helpers.local_index import LocalIndex


def _tar(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, raw in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(raw)
            tf.addfile(info, io.BytesIO(raw))
    return buf.getvalue()


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for name, raw in members.items():
            zf.writestr(name, raw)
    return buf.getvalue()


def _index_with(tmp_path: Path, data: bytes, fname: str = "calc-1.0.tar.gz") -> LocalIndex:
    idx = LocalIndex(tmp_path / "index")
    idx.add("calc", "1.0", "2022-01-10T10:00:00Z", {}, data=data)
    page = tmp_path / "index" / "simple" / "calc" / "index.json"
    if fname != "calc-1.0.tar.gz":   # a .zip sdist
        (tmp_path / "index" / "files" / "calc-1.0.tar.gz").rename(tmp_path / "index" / "files" / fname)
        doc = json.loads(page.read_text())
        doc["files"][0].update(filename=fname, url=f"../../files/{fname}")
        page.write_text(json.dumps(doc))
    return idx


@pytest.mark.parametrize("kind", ["tar", "zip"])
def test_a_compression_bomb_is_refused_by_ratio_and_nothing_is_stored(tmp_path: Path, kind: str) -> None:
    zeros = b"\0" * (8 << 20)   # 8 MiB of zeros: an archive of a few KiB
    data = _tar({"calc-1.0/big.bin": zeros}) if kind == "tar" else _zip({"calc-1.0/big.bin": zeros})
    assert len(data) < 64 << 10
    idx = _index_with(tmp_path, data, "calc-1.0.tar.gz" if kind == "tar" else "calc-1.0.zip")
    with pytest.raises(DataError, match=r"package 'calc' 1\.0: sdist calc-1\.0\.(tar\.gz|zip): unpacks to more "
                       r"than 200 times its [\d,]+ bytes \(max_ratio; at member 'calc-1\.0/big\.bin'\); refused "
                       r"as a possible archive bomb"):
        fetch_releases("calc", "o/calc", tmp_path / "repos", index=SimpleIndex(idx.file_url))
    assert sorted(p.name for p in (tmp_path / "repos").iterdir()) == [".benchchecker-fetch.lock"]


@pytest.mark.parametrize("kind", ["tar", "zip"])
def test_the_absolute_and_member_caps_are_options(tmp_path: Path, kind: str) -> None:
    make = _tar if kind == "tar" else _zip
    archive = tmp_path / f"calc-1.0.{kind}"
    archive.write_bytes(make({f"calc-1.0/f{i}.txt": bytes(range(256)) * 4 for i in range(8)}))
    (tmp_path / "a").mkdir()
    with pytest.raises(DataError, match=r"sdist calc-1\.0\.\w+: unpacks to more than 4,096 bytes \(max_bytes; "
                       r"at member 'calc-1\.0/f4\.txt'\)"):
        extract_sdist(archive, tmp_path / "a", ExtractLimits(max_bytes=4096))
    (tmp_path / "b").mkdir()
    with pytest.raises(DataError, match=r"sdist calc-1\.0\.\w+: more than 5 members \(max_members\); refused"):
        extract_sdist(archive, tmp_path / "b", ExtractLimits(max_members=5))
    (tmp_path / "c").mkdir()
    extract_sdist(archive, tmp_path / "c")   # the defaults take a real tree
    assert len(list((tmp_path / "c" / "calc-1.0").iterdir())) == 8
    with pytest.raises(InputError, match=r"extraction limits must be > 0"):
        ExtractLimits(max_ratio=0)


def test_a_zip_member_lying_about_its_size_stops_at_the_declared_size(tmp_path: Path) -> None:
    raw = bytearray(_zip({"calc-1.0/big.bin": b"\0" * (1 << 20)}))
    central = raw.rfind(b"PK\x01\x02")   # the central directory's size field says 10 bytes
    raw[central + 24:central + 28] = (10).to_bytes(4, "little")
    local = raw.find(b"PK\x03\x04")
    raw[local + 22:local + 26] = (10).to_bytes(4, "little")
    archive = tmp_path / "calc-1.0.zip"
    archive.write_bytes(bytes(raw))
    (tmp_path / "x").mkdir()
    with pytest.raises(zipfile.BadZipFile):
        extract_sdist(archive, tmp_path / "x")
    assert sum(p.stat().st_size for p in (tmp_path / "x").rglob("*") if p.is_file()) <= 10


def test_the_tree_is_stored_byte_for_byte_whatever_its_gitattributes_say(tmp_path: Path) -> None:
    files = {"calc-1.0/.gitattributes": b"* text eol=crlf ident\n*.py filter=evil\n",
             "calc-1.0/crlf.txt": b"one\r\ntwo\r\n", "calc-1.0/lf.py": b"x = '$Id: kept $'\ny = 2\n",
             "calc-1.0/bin.dat": b"\x00\r\n\x01"}
    idx = _index_with(tmp_path, _tar(files))
    res = fetch_releases("calc", "o/calc", tmp_path / "repos", index=SimpleIndex(idx.file_url))
    snap = ReleaseHistory.open(res.path).snapshot(ReleaseHistory.open(res.path).releases[0])
    for name, raw in files.items():
        assert snap.read_bytes(name.removeprefix("calc-1.0/")) == raw


def test_a_vendored_git_folder_is_left_out_and_named(tmp_path: Path) -> None:
    files = {"calc-1.0/calc.py": b"x = 1\n", "calc-1.0/.git/config": b"[core]\n\tbare = false\n",
             "calc-1.0/.git/HEAD": b"ref: refs/heads/main\n", "calc-1.0/vendor/lib/.git": b"gitdir: /etc\n",
             "calc-1.0/vendor/lib/lib.py": b"y = 2\n", "calc-1.0/sub/.GIT/x": b"z\n"}
    idx = _index_with(tmp_path, _tar(files))
    res = fetch_releases("calc", "o/calc", tmp_path / "repos", index=SimpleIndex(idx.file_url))
    hist = ReleaseHistory.open(res.path)
    snap = hist.snapshot(hist.releases[0])
    assert snap.files() == ("calc.py", "vendor/lib/lib.py")
    message = git(res.path, ["log", "-1", "--format=%B", hist.releases[0].commit or ""]).decode()
    assert "omitted: .git, sub/.GIT, vendor/lib/.git (git cannot store a path named .git)" in message
    sha = hashlib.sha256((tmp_path / "index" / "files" / "calc-1.0.tar.gz").read_bytes()).hexdigest()
    assert hist.releases[0].sha256 == sha
    idx.add("calc", "2.0", "2022-06-10T10:00:00Z", {"calc.py": "x = 2\n"})
    again = fetch_releases("calc", "o/calc", tmp_path / "repos", index=SimpleIndex(idx.file_url))
    assert again.added == ("2.0",) and again.kept == ("1.0",)
    assert ReleaseHistory.open(res.path).releases[0].commit == hist.releases[0].commit   # re-chained alike


def test_the_caps_are_options_of_repos_fetch(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from benchchecker_plugin.cli import main
    from tests.helpers.git_history import PATCH

    text = "".join(f"line {i} of a module that compresses well enough\n" for i in range(40_000))
    idx = _index_with(tmp_path, _tar({"calc-1.0/calc.py": text.encode()}))
    insts = tmp_path / "insts.jsonl"
    insts.write_text(json.dumps({"instance_id": "o__calc-7", "repo": "o/calc", "base_commit": "0" * 40,
                                 "patch": PATCH, "created_at": "2021-12-01T00:00:00Z"}) + "\n")
    argv = ["repos", "fetch", "--instances", str(insts), "--into", str(tmp_path / "repos"),
            "--from-releases", "calc", "--index-url", idx.file_url]
    res = CliRunner().invoke(main, [*argv, "--max-unpack-ratio", "5"])
    assert res.exit_code != 0 and "failed calc: package 'calc' 1.0: sdist calc-1.0.tar.gz: unpacks to more than " \
        "5 times its" in res.output, res.output
    res = CliRunner().invoke(main, [*argv, "--max-unpacked-mib", "1"])
    assert res.exit_code != 0 and "unpacks to more than 1,048,576 bytes (max_bytes" in res.output, res.output
    res = CliRunner().invoke(main, [*argv, "--download-deadline", "30"])
    assert res.exit_code == 0 and "1 added" in res.output, res.output
    res = CliRunner().invoke(main, ["repos", "fetch", "--instances", str(insts), "--into", str(tmp_path / "r"),
                                    "--max-unpack-ratio", "5"])
    assert res.exit_code == 2 and "go with --from-releases" in res.output


def test_hard_links_count_as_their_targets_size(tmp_path: Path) -> None:
    """Found while fixing: 10,000 hard links to one 1 MiB file take no space when extracted, but
    git reads each as a file: 10 GiB hashed. Each link now costs its target's size."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        info = tarfile.TarInfo("calc-1.0/big.bin")
        info.size = 1 << 20
        tf.addfile(info, io.BytesIO(bytes(range(256)) * 4096))
        for i in range(2000):
            link = tarfile.TarInfo(f"calc-1.0/l{i}")
            link.type, link.linkname = tarfile.LNKTYPE, "calc-1.0/big.bin"
            tf.addfile(link)
    archive = tmp_path / "calc-1.0.tar.gz"
    archive.write_bytes(buf.getvalue())
    (tmp_path / "x").mkdir()
    with pytest.raises(DataError, match=r"unpacks to more than 209,715,200 bytes \(max_bytes; at member 'calc-1\.0/l199'\)"):
        extract_sdist(archive, tmp_path / "x", ExtractLimits(max_bytes=200 << 20, max_ratio=1e9))
