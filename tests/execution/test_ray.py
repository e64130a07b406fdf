"""``RayExecutor`` and ``--executor ray`` on a real local Ray cluster started by the tests.

Guards: results equal to ``LocalExecutor``'s and in item order; an item's exception recorded as
its error, never retried, never success; a worker process killed mid-run -> its item run again,
nothing lost or duplicated; the Stage II grid (one task per repository) gives the local flags;
a worker that cannot see the repositories names the folder; without ray, the extra is named.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.errors import MissingExtraError
from benchchecker_plugin.execution import ItemResult, LocalExecutor
from benchchecker_plugin.instances import BugInstance
from benchchecker_plugin.stage2 import PresenceConfig, run_stage2
from tests.helpers.flags import untimed_flags
from tests.helpers.git_history import BUGGY, FIXED, PATCH, REFACTORED, history

CONFIG = PresenceConfig(similarity="difflib")
CUTOFFS = {"before-history": "2022-06-01", "buggy": "2023-01-15", "fixed": "2023-02-15",
           "fixed-too": "2023-02-20", "refactored": "2023-06-01"}


def _repo(root: Path, name: str, *, refactor: bool) -> str:
    later = [("2023-03-01", {"calc.py": REFACTORED})] if refactor else []
    return history(root / name, [("2023-01-01", {"calc.py": BUGGY}), ("2023-02-01", {"calc.py": FIXED}), *later])



@pytest.fixture(scope="module")
def grid(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[BugInstance]]:
    root = tmp_path_factory.mktemp("ray_grid") / "repos"
    a = _repo(root, "o__calc", refactor=True)
    b = _repo(root, "o__other", refactor=False)
    insts = [BugInstance("o__calc-1", "swe-bench-verified", "o/calc", a, PATCH),
             BugInstance("o__other-1", "swe-bench-verified", "o/other", b, PATCH),
             BugInstance("o__calc-bad-commit", "swe-bench-verified", "o/calc", "0" * 40, PATCH),
             BugInstance("nobody-1", "swe-bench-verified", "nobody/nothing", a, PATCH),
             BugInstance("o__calc-2", "swe-bench-verified", "o/calc", a, PATCH)]
    return root, insts


def _maybe_fail(x: int) -> int:
    if x % 3 == 1:
        raise ValueError(f"bad item {x}")
    return x * x


@pytest.mark.slow
def test_results_equal_local_in_order_with_errors_recorded(cluster) -> None:  # noqa: ANN001
    from benchchecker_plugin.execution import RayExecutor

    items = list(range(9))
    got = RayExecutor().map(_maybe_fail, items, desc="squares")
    assert got == LocalExecutor().map(_maybe_fail, items)
    assert [r.index for r in got] == items
    assert got[1] == ItemResult(1, error="ValueError: bad item 1") and not got[1].ok
    assert [r.value for r in got if r.ok] == [0, 4, 9, 25, 36, 64]


@pytest.mark.slow
def test_killed_worker_is_retried_nothing_lost_or_duplicated(cluster, tmp_path: Path) -> None:  # noqa: ANN001
    from benchchecker_plugin.execution import RayExecutor

    marker, log = tmp_path / "killed", tmp_path / "done.log"

    def work(x: int) -> int:
        if x == 3 and not marker.exists():
            marker.write_text("x")
            os._exit(1)  # the worker process dies mid-run, item 3 unfinished
        with open(log, "a") as fh:
            fh.write(f"{x}\n")
        return x + 100

    got = RayExecutor(max_retries=2).map(work, list(range(6)))
    assert marker.exists()  # the kill happened
    assert got == [ItemResult(i, i + 100) for i in range(6)]
    assert sorted(int(line) for line in log.read_text().split()) == list(range(6))  # each once


@pytest.mark.slow
def test_worker_dying_past_its_retries_is_an_error_not_success(cluster) -> None:  # noqa: ANN001
    from benchchecker_plugin.execution import RayExecutor

    def work(x: int) -> int:
        if x == 1:
            os._exit(1)
        return x

    got = RayExecutor(max_retries=0).map(work, [0, 1, 2])
    assert got[0] == ItemResult(0, 0) and got[2] == ItemResult(2, 2)
    assert not got[1].ok and got[1].value is None and "lost after 0 retries" in (got[1].error or "")


@pytest.mark.slow
def test_grid_on_ray_gives_the_local_flags_in_order(cluster, grid) -> None:  # noqa: ANN001
    from benchchecker_plugin.execution import RayExecutor

    root, insts = grid
    local = run_stage2(insts, root, CUTOFFS, config=CONFIG)
    ray_run = run_stage2(insts, root, CUTOFFS, config=CONFIG, executor=RayExecutor())
    assert untimed_flags(ray_run.flags) == untimed_flags(local.flags)
    assert [(f.instance_id, f.model) for f in ray_run.flags] == [(i.instance_id, m) for i in insts for m in CUTOFFS]
    assert (ray_run.snapshots, ray_run.blocks_computed) == (local.snapshots, local.blocks_computed)
    cats = {(f.instance_id, f.model): f.evidence["category"] for f in ray_run.flags}
    assert cats[("o__calc-1", "fixed")] != cats[("o__calc-1", "buggy")]  # a grid that decides something
    assert "error" in ray_run.flags[len(CUTOFFS) * 3].evidence  # nobody/nothing: no clone
    chunked = run_stage2(insts, root, CUTOFFS, config=CONFIG, executor=RayExecutor(), instances_per_task=1)
    assert untimed_flags(chunked.flags) == untimed_flags(local.flags)


@pytest.mark.slow
def test_grid_kept_on_ray_resumes_in_this_process(cluster, grid, tmp_path: Path) -> None:  # noqa: ANN001
    """``--state`` is the driver's: a Ray run's kept tasks are taken by a local rerun, whose
    flags equal the Ray run's byte for byte (the task of the instance without a clone is never
    kept: computed again)."""
    from benchchecker_plugin.execution import RayExecutor

    root, insts = grid
    on_ray = run_stage2(insts, root, CUTOFFS, config=CONFIG, executor=RayExecutor(), state=tmp_path / "s",
                        instances_per_task=1)
    assert on_ray.resumed == 0 and len(list((tmp_path / "s").glob("*.json"))) == 4
    here = run_stage2(insts, root, CUTOFFS, config=CONFIG, state=tmp_path / "s", instances_per_task=1)
    assert here.resumed == 4
    assert untimed_flags(here.flags) == untimed_flags(on_ray.flags)
    assert [f.to_dict() for f in here.flags if f.instance_id != "nobody-1"] == \
        [f.to_dict() for f in on_ray.flags if f.instance_id != "nobody-1"]


@pytest.mark.slow
def test_as_completed_share_and_raise_on_ray(cluster) -> None:  # noqa: ANN001
    """Results as the cluster finishes them, each once; a shared value fetched by the workers;
    ``errors="raise"`` raises the item's own exception here."""
    from benchchecker_plugin.execution import RayExecutor

    ex = RayExecutor()
    table = ex.share({"offset": 100})
    got = list(ex.as_completed(lambda x: x + table.get()["offset"], list(range(6)), desc=None))
    assert sorted((r.index, r.value) for r in got) == [(i, i + 100) for i in range(6)]
    with pytest.raises(ValueError, match="bad item 1"):
        ex.map(_maybe_fail, [0, 1, 2], errors="raise")


@pytest.mark.slow
def test_worker_that_cannot_see_the_repositories_names_the_folder(cluster, grid, tmp_path: Path) -> None:  # noqa: ANN001
    from benchchecker_plugin.execution import RayExecutor

    _, insts = grid
    gone = tmp_path / "not-mounted"
    run = run_stage2(insts[:2], gone, {"m": "2023-02-15"}, config=CONFIG, executor=RayExecutor())
    assert len(run.flags) == 2 and all(f.contaminated is None for f in run.flags)
    for f in run.flags:
        assert f"repository folder {gone} is not visible on worker" in f.evidence["error"]


@pytest.mark.slow
def test_patch_presence_cli_ray_equals_local(cluster, grid, tmp_path: Path) -> None:  # noqa: ANN001
    root, insts = grid
    src = tmp_path / "instances.jsonl"
    src.write_text("".join(json.dumps({"instance_id": i.instance_id, "repo": i.repo, "base_commit": i.base_commit,
                                       "patch": i.patch}) + "\n" for i in insts))
    cut = tmp_path / "cutoffs.json"
    cut.write_text(json.dumps(CUTOFFS))
    outs = {}
    for kind in ("local", "ray"):
        for form in (["--cutoffs", str(cut)], ["--cutoff", "2023-02-15", "--model", "m"]):
            out = tmp_path / f"{kind}-{form[0].strip('-')}.jsonl"
            res = CliRunner().invoke(main, ["patch-presence", "--instances", str(src), "--repos-dir", str(root),
                                            *form, "--similarity", "difflib", "--executor", kind, "-o", str(out)])
            assert res.exit_code == 0, res.output
            outs[(kind, form[0])] = [json.loads(line) for line in out.read_text().splitlines()]
    for form in ("--cutoffs", "--cutoff"):
        rows = [[{k: v for k, v in r.items() if k != "created_at"} for r in outs[(kind, form)]]
                for kind in ("local", "ray")]
        for r in rows[0] + rows[1]:
            r["evidence"].pop("timings_s", None)
        assert rows[0] == rows[1] and len(rows[0]) == len(insts) * (len(CUTOFFS) if form == "--cutoffs" else 1)


def test_ray_address_needs_executor_ray(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["patch-presence", "--instances", "x.jsonl", "--repos-dir", str(tmp_path),
                                    "--cutoff", "2023-01-01", "--ray-address", "auto", "-o", str(tmp_path / "o")])
    assert res.exit_code != 0 and "--ray-address needs --executor ray" in res.output


def test_without_ray_the_extra_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    from benchchecker_plugin.execution import RayExecutor

    monkeypatch.setitem(sys.modules, "ray", None)  # as if ray were not installed
    with pytest.raises(MissingExtraError, match=r"pip install 'benchchecker_plugin\[ray\]'"):
        RayExecutor()


def _node_env(token: str) -> dict[str, str]:
    """The environment of every process of the ``ray start`` cluster: its own auth token (Ray
    >= 2.5x enables token authentication; each node and the driver must hold the token)."""
    env = {k: v for k, v in os.environ.items() if k not in ("RAY_ADDRESS", "RAY_AUTH_TOKEN_PATH")}
    return {**env, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token}


def _start_node(args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen:
    """``ray start ... --block`` in its own process group, once it says the runtime started."""
    fh = open(log, "w")  # noqa: SIM115 (the child writes it; closed with the process)
    proc = subprocess.Popen(["ray", "start", "--block", "--num-cpus=1", "--disable-usage-stats",
                             "--node-ip-address=127.0.0.1", *args], stdout=fh, stderr=subprocess.STDOUT,
                            start_new_session=True, env=env)
    deadline = time.monotonic() + 180
    while "Ray runtime started" not in log.read_text():
        if proc.poll() is not None or time.monotonic() > deadline:
            _stop(proc)
            pytest.fail(f"ray start {' '.join(args)} did not start:\n{log.read_text()[-3000:]}")
        time.sleep(0.5)
    return proc


def _stop(proc: subprocess.Popen) -> None:
    """Stop one node this test started: SIGTERM to its own process group, then SIGKILL."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("ray") is None, reason="the ray command line is not installed")
def test_head_and_worker_started_with_ray_start(grid, tmp_path: Path) -> None:  # noqa: ANN001
    """A head and a worker node (`ray start`, 127.0.0.1); the grid runs in a separate driver,
    one task per instance, and gives the local flags."""
    root, insts = grid
    with socket.socket() as s:   # a free port: another cluster (an xdist worker's) may hold Ray's default
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    temp = Path(tempfile.mkdtemp(prefix="bcray"))  # short: Ray's socket paths live under it
    nodes = []
    env = _node_env(secrets.token_hex(32))
    try:
        nodes.append(_start_node(["--head", f"--port={port}", "--include-dashboard=false", f"--temp-dir={temp}"],
                                 tmp_path / "head.log", env))
        nodes.append(_start_node([f"--address=127.0.0.1:{port}"], tmp_path / "worker.log", env))
        driver = (
            "import json, sys, time, ray\n"
            "from benchchecker_plugin.instances import BugInstance\n"
            "from benchchecker_plugin.execution import RayExecutor\n"
            "from benchchecker_plugin.stage2 import PresenceConfig, run_stage2\n"
            "root, insts, cutoffs = sys.argv[1], [BugInstance(**d) for d in json.loads(sys.argv[2])], "
            "json.loads(sys.argv[3])\n"
            "cfg = PresenceConfig(similarity='difflib')\n"
            f"ray.init(address='127.0.0.1:{port}')\n"
            "deadline = time.monotonic() + 120\n"
            "while sum(1 for n in ray.nodes() if n['Alive']) < 2 and time.monotonic() < deadline:\n"
            "    time.sleep(0.5)\n"
            "nodes = sum(1 for n in ray.nodes() if n['Alive'])\n"
            "got = run_stage2(insts, root, cutoffs, config=cfg, executor=RayExecutor(), instances_per_task=1)\n"
            "want = run_stage2(insts, root, cutoffs, config=cfg)\n"
            "strip = lambda fs: [{k: v for k, v in f.to_dict().items() if k != 'created_at'} for f in fs]\n"
            "a, b = strip(got.flags), strip(want.flags)\n"
            "[d['evidence'].pop('timings_s', None) for d in a + b]\n"
            "print(json.dumps({'nodes': nodes, 'same': a == b, 'n': len(a)}))\n")
        fields = [{"instance_id": i.instance_id, "benchmark": i.benchmark, "repo": i.repo,
                   "base_commit": i.base_commit, "patch": i.patch} for i in insts]
        out = subprocess.run([sys.executable, "-c", driver, str(root), json.dumps(fields), json.dumps(CUTOFFS)],
                             capture_output=True, text=True, timeout=300, env=env)
        assert out.returncode == 0, out.stderr[-3000:]
        got = json.loads(out.stdout.strip().splitlines()[-1])
        assert got == {"nodes": 2, "same": True, "n": len(insts) * len(CUTOFFS)}
    finally:
        for proc in reversed(nodes):
            _stop(proc)
        shutil.rmtree(temp, ignore_errors=True)


def test_calibrate_mines_each_repository_on_ray_as_locally(cluster, tmp_path: Path) -> None:  # noqa: ANN001
    """`repo-presence calibrate --executor ray`: one mining task per repository (real code: two of
    this package's own folders), the same files and queries as in this process."""
    import functools

    import benchchecker_plugin
    from benchchecker_plugin.execution import RayExecutor
    from benchchecker_plugin.stage1 import mine_repository

    src = Path(benchchecker_plugin.__file__).parent
    repos = []
    for name in ("flags", "stage1"):
        shutil.copytree(src / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
        repos.append(str(tmp_path / name))
    mine = functools.partial(mine_repository, n_queries=8, seed=1)
    local = LocalExecutor().map(mine, repos)
    on_ray = RayExecutor(max_retries=1).map(mine, repos)
    assert all(r.ok and r.value[1] for r in local)
    assert [r.value for r in on_ray] == [r.value for r in local]
    res = CliRunner().invoke(main, ["repo-presence", "calibrate", "--model", "openai-compatible/m",
                                    "--base-url", "http://127.0.0.1:9/v1", "--no-cache", "--dry-run",
                                    "--repo", repos[0], "--repo", repos[1], "--n-queries", "8",
                                    "--executor", "ray", "-o", str(tmp_path / "cal.json")])
    assert res.exit_code == 0, res.output
    assert res.output.startswith("2 repositories;")
