"""Release snapshots built from sdists made in the test, read from a local simple index."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from benchchecker_plugin.errors import DataError, InputError, RepositoryError
from benchchecker_plugin.repos import ReleaseHistory, SimpleIndex, base_candidates, fetch_releases
from tests.helpers.git_history import BUGGY, FIXED
from tests.helpers.local_index import LocalIndex, serve

OFFSET = "import os\n\n\n" + BUGGY  # the buggy file three lines further down


def _left(folder: Path) -> list[str]:
    """What a fetch left in ``folder``, besides its lock file."""
    return sorted(p.name for p in folder.iterdir() if p.name != ".benchchecker-fetch.lock")


def _index(tmp_path: Path) -> LocalIndex:
    idx = LocalIndex(tmp_path / "index")
    idx.add("calc", "1.0", "2022-01-10T10:00:00.250000Z", {"calc.py": BUGGY})
    idx.add("calc", "1.1", "2022-06-10T10:00:00Z", {"calc.py": OFFSET})
    idx.add("calc", "2.0", "2023-02-10T10:00:00Z", {"calc.py": FIXED, ".gitignore": "*.py\n"})
    idx.add("calc", "1.0.1", "2023-03-01T10:00:00Z", {"calc.py": BUGGY})  # a backport, after 2.0
    return idx


@pytest.mark.server
def test_one_commit_per_release_dated_at_its_upload_time(tmp_path: Path) -> None:
    idx = _index(tmp_path)
    with serve(idx) as url:
        res = fetch_releases("calc", "o/calc", tmp_path / "repos", index=SimpleIndex(url))
    assert res.added == ("1.0", "1.0.1", "1.1", "2.0") and res.listed == 4
    hist = ReleaseHistory.open(res.path)
    assert res.path.name == "o__calc.releases"
    first = hist.releases[0]
    assert first.uploaded_at == datetime(2022, 1, 10, 10, 0, 0, 250000, tzinfo=UTC)
    snap = hist.snapshot(first)
    assert snap.read("calc.py") == BUGGY and "PKG-INFO" in snap.files()
    assert snap.committed_at == datetime(2022, 1, 10, 10, 0, 1, tzinfo=UTC)  # rounded up, never early
    # the sdist's own .gitignore does not drop its files
    assert hist.snapshot(hist.at("2023-02-28")).read("calc.py") == FIXED
    # cutoffs between releases; the backport 1.0.1 (uploaded after 2.0) is not the newest code
    assert [hist.at(c).version for c in ("2022-03", "2022-12-31", "2023-02", "2023-06")] == ["1.0", "1.1", "2.0", "2.0"]
    assert hist.after("2022-12-31", hist.at("2022-12-31")).version == "2.0"
    with pytest.raises(RepositoryError, match=r"package 'calc': no release uploaded before the cutoff "
                       r"2021-12-31T23:59:59\+00:00 \(the first, 1.0, was uploaded 2022-01-10\)"):
        hist.at("2021-12")


def test_file_url_index_and_only_the_releases_cutoffs_need(tmp_path: Path) -> None:
    idx = _index(tmp_path)
    res = fetch_releases("calc", "o/calc", tmp_path / "repos", index=SimpleIndex(idx.file_url),
                         cutoffs=["2022-03"])
    assert res.added == ("1.0", "1.1")  # the release at the cutoff and the next one
    hist = ReleaseHistory.open(res.path)
    with pytest.raises(RepositoryError, match=r"release 2.0 \(the one at the cutoff .*\) was not fetched"):
        hist.at("2023-06")
    again = fetch_releases("calc", "o/calc", tmp_path / "repos", index=SimpleIndex(idx.file_url),
                           versions=["2.0", "1.1"])
    assert again.added == ("2.0",) and again.kept == ("1.0", "1.1")
    assert ReleaseHistory.open(res.path).at("2023-06").version == "2.0"


def test_unknown_package_is_one_line_naming_it(tmp_path: Path) -> None:
    idx = _index(tmp_path)
    with pytest.raises(InputError, match=r"package 'nosuch' on file://.*: no such package \(no .*nosuch/index.json\)"):
        fetch_releases("nosuch", "o/nosuch", tmp_path / "repos", index=SimpleIndex(idx.file_url))


@pytest.mark.server
def test_unknown_package_on_a_served_index(tmp_path: Path) -> None:
    idx = _index(tmp_path)
    with serve(idx) as url, pytest.raises(InputError, match=r"package 'nosuch' on http://.*: no such package \(404\)"):
        fetch_releases("nosuch", "o/nosuch", tmp_path / "repos", index=SimpleIndex(url))
    assert not (tmp_path / "repos").exists() or _left(tmp_path / "repos") == []


@pytest.mark.server
@pytest.mark.parametrize(("kind", "message"), [
    ("corrupt", r"package 'calc' 1.1: sdist calc-1.1.tar.gz is corrupt or not an archive"),
    ("missing", r"calc 1.1: sdist http://.*/files/calc-1.1.tar.gz answered HTTP 404"),
])
def test_corrupt_or_missing_sdist_one_error_nothing_half_written(tmp_path: Path, kind: str, message: str) -> None:
    idx = LocalIndex(tmp_path / "index")
    idx.add("calc", "1.0", "2022-01-10T10:00:00Z", {"calc.py": BUGGY})
    idx.add("calc", "1.1", "2022-06-10T10:00:00Z", {}, data=b"not a tarball" if kind == "corrupt" else None,
            listed_only=kind == "missing")
    repos = tmp_path / "repos"
    with serve(idx) as url, pytest.raises((DataError, RepositoryError), match=message):
        fetch_releases("calc", "o/calc", repos, index=SimpleIndex(url))
    assert _left(repos) == []  # no repository, no partial, no scratch
    # an existing release repository is left as it was
    with serve(idx) as url:
        fetch_releases("calc", "o/calc", repos, index=SimpleIndex(url), versions=["1.0"])
        before = (repos / "o__calc.releases" / ".git" / "benchchecker-releases.json").read_text()
        with pytest.raises((DataError, RepositoryError), match=message):
            fetch_releases("calc", "o/calc", repos, index=SimpleIndex(url))
    assert (repos / "o__calc.releases" / ".git" / "benchchecker-releases.json").read_text() == before
    assert _left(repos) == ["o__calc.releases"]


def test_a_killed_runs_leftovers_go_next_time(tmp_path: Path) -> None:
    idx = _index(tmp_path)
    repos = tmp_path / "repos"
    (repos / ".sdists-dead").mkdir(parents=True)
    (repos / ".o__calc.releases.partial-dead").mkdir()
    fetch_releases("calc", "o/calc", repos, index=SimpleIndex(idx.file_url), versions=["1.0"])
    assert _left(repos) == ["o__calc.releases"]


def test_a_sha256_mismatch_is_corrupt(tmp_path: Path) -> None:
    idx = LocalIndex(tmp_path / "index")
    path = idx.add("calc", "1.0", "2022-01-10T10:00:00Z", {"calc.py": BUGGY})
    path.write_bytes(path.read_bytes() + b"x")
    with pytest.raises(DataError, match=r"calc 1.0: sdist calc-1.0.tar.gz is corrupt \(sha256 "):
        fetch_releases("calc", "o/calc", tmp_path / "repos", index=SimpleIndex(idx.file_url))


def test_base_candidates_by_date_then_by_version(tmp_path: Path) -> None:
    idx = _index(tmp_path)
    files = SimpleIndex(idx.file_url).sdists("calc")
    by_date = base_candidates(files, version=None, created_at=datetime(2022, 12, 1, tzinfo=UTC))
    assert [f.version for f in by_date] == ["1.1", "1.0", "2.0"]  # not the backport 1.0.1
    by_version = base_candidates(files, version="1.0", created_at=None)
    assert [f.version for f in by_version] == ["1.0", "1.0.1", "1.1"]
    assert [f.version for f in base_candidates(files, version="1.1", created_at=None)] == ["1.1", "2.0", "1.0"]


def test_cli_fetch_from_releases_then_patch_presence(tmp_path: Path) -> None:
    """A bad package is one line naming it; the other package is fetched and Stage II reads it."""
    import json

    from click.testing import CliRunner

    from benchchecker_plugin.cli import main
    from tests.helpers.git_history import PATCH

    idx = LocalIndex(tmp_path / "index")
    idx.add("calc", "1.0", "2022-01-10T10:00:00Z", {"calc.py": BUGGY})
    idx.add("calc", "2.0", "2023-02-10T10:00:00Z", {"calc.py": FIXED})
    insts = tmp_path / "insts.jsonl"
    rows = [{"instance_id": "o__calc-7", "repo": "o/calc", "base_commit": "0" * 40, "patch": PATCH,
             "created_at": "2021-12-01T00:00:00Z"},
            {"instance_id": "o__calc-8", "repo": "o/other", "base_commit": "0" * 40, "patch": PATCH}]
    insts.write_text("".join(json.dumps(r) + "\n" for r in rows))
    repos = tmp_path / "repos"
    res = CliRunner().invoke(main, ["repos", "fetch", "--instances", str(insts), "--into", str(repos),
                                    "--from-releases", "calc", "--from-releases", "nosuch",
                                    "--index-url", idx.file_url])
    assert res.exit_code != 0
    assert "failed nosuch: --from-releases 'nosuch': no repository of the instances is named 'nosuch'" in res.output
    assert "releases     o/calc <- calc: 2 added, 0 kept of 2 on the index" in res.output
    out = tmp_path / "flags.jsonl"
    res = CliRunner().invoke(main, ["patch-presence", "--instances", str(insts), "--repos-dir", str(repos),
                                    "--snapshot-source", "releases", "--cutoff", "2023-06",
                                    "--similarity", "difflib", "-o", str(out)])
    assert res.exit_code == 0, res.output
    flags = [json.loads(line) for line in out.read_text().splitlines()]
    assert flags[0]["contaminated"] is True
    assert flags[0]["evidence"]["snapshot_source"]["release"] == "2.0"
    assert "no release snapshots of o/other" in flags[1]["evidence"]["error"]


def test_the_index_pip_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from benchchecker_plugin.repos._index import default_index_url

    conf = tmp_path / "pip.conf"
    conf.write_text("[global]\nindex-url = https://mirror.example/simple\n")
    monkeypatch.delenv("PIP_INDEX_URL", raising=False)
    monkeypatch.setenv("PIP_CONFIG_FILE", str(conf))
    assert default_index_url() == "https://mirror.example/simple"
    monkeypatch.setenv("PIP_INDEX_URL", "file:///srv/simple")
    assert SimpleIndex().url == "file:///srv/simple/"


def test_cli_dry_run_from_releases_lists_what_it_would_fetch(tmp_path: Path) -> None:
    """``--dry-run --from-releases``: the releases a fetch would download (and keep), read from the
    index listing; nothing is downloaded, created or written."""
    import json

    from click.testing import CliRunner

    from benchchecker_plugin.cli import main
    from tests.helpers.git_history import PATCH

    idx = _index(tmp_path)
    insts = tmp_path / "insts.jsonl"
    insts.write_text(json.dumps({"instance_id": "o__calc-7", "repo": "o/calc", "base_commit": "0" * 40,
                                 "patch": PATCH, "created_at": "2021-12-01T00:00:00Z"}) + "\n")
    repos = tmp_path / "repos"
    cutoffs = tmp_path / "cutoffs.json"
    cutoffs.write_text(json.dumps({"m": "2022-03"}))
    args = ["repos", "fetch", "--instances", str(insts), "--into", str(repos), "--from-releases", "calc",
            "--index-url", idx.file_url, "--cutoffs", str(cutoffs), "--dry-run"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    assert (f"would fetch  o/calc <- calc: 2 to download (1.0, 1.1), 0 kept of 4 on the index -> "
            f"{repos.absolute() / 'o__calc.releases'}") in res.stdout
    assert ("dry run: 2 sdist(s) would be downloaded for 1 package(s); only the index listing was "
            "read, nothing was downloaded or written") in res.stderr
    assert not repos.exists()
    fetch_releases("calc", "o/calc", repos, index=SimpleIndex(idx.file_url), versions=["1.0"])
    before = sorted(p.relative_to(repos) for p in repos.rglob("*"))
    res = CliRunner().invoke(main, args)
    assert "would fetch  o/calc <- calc: 1 to download (1.1), 1 kept of 4 on the index" in res.stdout
    assert sorted(p.relative_to(repos) for p in repos.rglob("*")) == before
