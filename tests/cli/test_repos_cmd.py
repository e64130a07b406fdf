"""``benchchecker repos fetch`` through click's CliRunner (and one real kill of a running fetch)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from benchchecker_plugin.cli import main
from benchchecker_plugin.flags import read_flags
from benchchecker_plugin.repos import git

BODY = "".join(f"def helper_{i}(x):\n    return x * {i} + 1\n\n\n" for i in range(6))


def commit(work: Path, when: str, files: dict[str, str | bytes]) -> str:
    for name, data in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_bytes(data if isinstance(data, bytes) else data.encode())
    stamp = f"{when}T12:00:00+0000"
    git(work, ["add", "-A"])
    git(work, ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", when],
        env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    return git(work, ["rev-parse", "HEAD"]).decode().strip()


def source(src: Path, dirname: str, *history: dict[str, str | bytes]) -> tuple[Path, list[str]]:
    """A work repository with one dated commit per ``history`` entry, pushed to ``src/dirname.git``."""
    work = src / "work" / dirname
    work.mkdir(parents=True)
    git(work, ["init", "-q", "-b", "main"])
    shas = [commit(work, f"2023-0{i + 1}-10", files) for i, files in enumerate(history)]
    git(src, ["clone", "-q", "--bare", str(work), f"{dirname}.git"])
    git(work, ["remote", "add", "origin", str(src / f"{dirname}.git")])
    return work, shas


def write_instances(path: Path, rows: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture()
def world(tmp_path: Path) -> dict[str, Any]:
    src = tmp_path / "src"
    src.mkdir()
    work, (base, fix) = source(src, "own__one",
                               {"pkg/mod.py": "def area(w, h):\n    return w + h\n\n\n" + BODY},
                               {"pkg/mod.py": "def area(w, h):\n    return w * h\n\n\n" + BODY})
    _, (two,) = source(src, "own__two", {"lib.py": "X = 1\n"})
    patch = git(work, ["diff", base, fix]).decode()
    rows = [{"instance_id": "one-1", "repo": "own/one", "base_commit": base, "patch": patch},
            {"instance_id": "two-1", "repo": "own/two", "base_commit": two, "patch": patch},
            {"instance_id": "bad-1", "repo": "own/missing", "base_commit": two, "patch": patch}]
    return {"template": f"file://{src}/{{dir}}.git", "rows": rows, "work": work, "tmp": tmp_path}


def fetch(*args: str) -> Result:
    return CliRunner().invoke(main, ["repos", "fetch", *args])


def test_help_teaches() -> None:
    out = CliRunner().invoke(main, ["repos", "fetch", "--help"])
    assert out.exit_code == 0
    for word in ("--instances", "--into", "--source", "{owner}", "--jobs", "--update", "--dry-run",
                 "owner__name", "Example", "partial"):
        assert word in out.output
    assert "fetch" in CliRunner().invoke(main, ["repos", "--help"]).output


def test_a_repository_name_that_escapes_is_refused_before_cloning(world: dict[str, Any]) -> None:
    """A ``repo`` like ``bad/../x`` is refused when the instances are read (issue 14, item 11),
    before anything is cloned, naming the instance."""
    tmp = world["tmp"]
    rows = world["rows"][:1] + [{**world["rows"][0], "instance_id": "bad-1", "repo": "bad/../x"}]
    insts = write_instances(tmp / "bad.jsonl", rows)
    res = fetch("--instances", str(insts), "--into", str(tmp / "repos"), "--source", world["template"])
    assert res.exit_code == 2, res.output
    assert "instance 'bad-1': repository 'bad/../x' is not 'owner/name'" in res.stderr
    assert not (tmp / "repos" / "own__one").exists()


def test_fetch_reports_each_repository_and_a_failure_fails_alone(world: dict[str, Any]) -> None:
    tmp = world["tmp"]
    into = tmp / "repos"
    insts = write_instances(tmp / "all.jsonl", world["rows"])
    res = fetch("--instances", str(insts), "--into", str(into), "--source", world["template"], "--jobs", "2")
    assert res.exit_code == 4, res.output
    where = re.escape(str(into / "own__one"))
    assert re.search(rf"^cloned +own/one -> {where} in [\d.]+ s$", res.stdout, re.M)
    assert re.search(r"^cloned +own/two -> ", res.stdout, re.M)
    failed = [ln for ln in res.stderr.splitlines() if ln.startswith("failed ")]
    assert len(failed) == 1 and failed[0].startswith("failed own/missing: ")
    assert "3 repositories: 2 cloned, 1 failed" in res.stderr
    assert "Error: 1 of 3 repositories could not be fetched: own/missing" in res.stderr

    # the clones are what patch-presence reads from --repos-dir
    good = write_instances(tmp / "good.jsonl", world["rows"][:1])
    out = tmp / "flags.jsonl"
    res = CliRunner().invoke(main, ["patch-presence", "--instances", str(good), "--repos-dir", str(into),
                                    "--cutoff", "2023-06-01", "--similarity", "difflib", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert [f.contaminated for f in read_flags(out)] == [True]

    # a second run skips them; a dry run says so and changes nothing
    before = sorted(p.name for p in into.rglob("*"))
    both = write_instances(tmp / "both.jsonl", world["rows"][:2])
    res = fetch("--instances", str(both), "--into", str(into), "--source", world["template"], "--dry-run")
    assert res.exit_code == 0, res.output
    assert re.findall(r"^(\S+) +(\S+)", res.stdout, re.M) == [("skipped", "own/one"), ("skipped", "own/two")]
    assert sorted(p.name for p in into.rglob("*")) == before


def test_dry_run_on_a_new_folder_creates_nothing(world: dict[str, Any]) -> None:
    tmp = world["tmp"]
    insts = write_instances(tmp / "i.jsonl", world["rows"][:2])
    res = fetch("--instances", str(insts), "--into", str(tmp / "new"), "--source", world["template"],
                "--dry-run")
    assert res.exit_code == 0, res.output
    listed = re.findall(r"^(\S+) +(\S+)", res.stdout, re.M)
    assert listed == [("would-clone", "own/one"), ("would-clone", "own/two")]
    assert "2 repositories: 2 would-clone" in res.stderr and not (tmp / "new").exists()


def test_update_picks_up_a_pushed_commit_and_missing_base_commits_are_warned(world: dict[str, Any]) -> None:
    tmp = world["tmp"]
    into = tmp / "repos"
    rows = world["rows"][:1] + [{**world["rows"][0], "instance_id": "one-2", "base_commit": "e" * 40}]
    insts = write_instances(tmp / "i.jsonl", rows)
    res = fetch("--instances", str(insts), "--into", str(into), "--source", world["template"])
    assert res.exit_code == 0, res.output
    assert (f"warning: own/one: 1 base commit(s) not in the clone: {'e' * 12} (Stage II fails for their "
            "instances)") in res.stderr
    new = commit(world["work"], "2023-05-10", {"pkg/other.py": "Y = 2\n"})
    git(world["work"], ["push", "-q", "origin", "main"])
    res = fetch("--instances", str(insts), "--into", str(into), "--source", world["template"], "--update")
    assert res.exit_code == 0, res.output
    assert re.search(r"^updated +own/one -> .* in [\d.]+ s  \(1 new commit\(s\) on main\)$", res.stdout, re.M)
    assert git(into / "own__one", ["rev-parse", "refs/remotes/origin/HEAD"]).decode().strip() == new


def test_bad_template_is_an_input_error(world: dict[str, Any]) -> None:
    insts = write_instances(world["tmp"] / "i.jsonl", world["rows"][:1])
    bad = "https://h/{owner}/{nme}"
    res = fetch("--instances", str(insts), "--into", str(world["tmp"] / "r"), "--source", bad)
    assert res.exit_code == 2 and f"source template {bad!r}: use only the placeholders" in res.stderr


def _git_at_least(major: int, minor: int) -> bool:
    version = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout
    found = re.search(r"(\d+)\.(\d+)", version)
    return bool(found) and (int(found[1]), int(found[2])) >= (major, minor)


@pytest.mark.skipif(not _git_at_least(2, 32), reason="needs GIT_CONFIG_GLOBAL (git 2.32+)")
def test_a_killed_fetch_leaves_no_clone_and_the_next_run_redoes_it(tmp_path: Path) -> None:
    """A real ``SIGKILL`` of the command (and its git) while the pack is half transferred."""
    src = tmp_path / "src"
    src.mkdir()
    rnd = os.urandom(2_000_000)  # incompressible: a 2 MB pack
    _, (head,) = source(src, "own__big", {f"blob{i}.bin": rnd[i::4] for i in range(4)})
    # the source's pack-objects sends 100 kB, then stalls: the clone is caught half way
    hook = tmp_path / "slow-pack-objects"
    hook.write_text('#!/bin/sh\n"$@" | { head -c 100000; sleep 120; cat; }\n')
    hook.chmod(0o755)
    (tmp_path / "gitconfig").write_text(f"[uploadpack]\n\tpackObjectsHook = {hook}\n")
    insts = write_instances(tmp_path / "i.jsonl", [{"instance_id": "big-1", "repo": "own/big",
                                                    "base_commit": head, "patch": "x"}])
    into = tmp_path / "repos"
    args = ["repos", "fetch", "--instances", str(insts), "--into", str(into),
            "--source", f"file://{src}/{{dir}}.git"]
    env = {**os.environ, "GIT_CONFIG_GLOBAL": str(tmp_path / "gitconfig"), "BENCHCHECKER_PROGRESS": "0"}
    proc = subprocess.Popen([sys.executable, "-c", "from benchchecker_plugin.cli import main; main()", *args],
                            env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        packs = ".own__big.partial-*/.git/objects/pack/tmp_pack_*"
        while not any(p.stat().st_size for p in into.glob(packs)):
            assert proc.poll() is None and time.monotonic() < deadline, "the clone never got half way"
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    partials = list(into.glob(".own__big.partial-*"))
    assert len(partials) == 1 and not (into / "own__big").exists()

    res = fetch(*args[2:])
    assert res.exit_code == 0, res.output
    assert re.search(r"^cloned +own/big -> .*\(removed 1 half-written clone\(s\) of an interrupted run\)$",
                     res.stdout, re.M)
    assert not partials[0].exists()
    assert git(into / "own__big", ["rev-parse", "HEAD"]).decode().strip() == head
    git(into / "own__big", ["fsck", "--connectivity-only", "--no-progress"])
