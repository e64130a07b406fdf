"""Stage II for many models in one run (``stage2.engine``): the same flags as one run per model,
for a cost that follows the distinct snapshots, not the models.

The labelled history is built from the installed ``rich`` package's source tree (every scenario
of ``stage2.synthetic`` twice); the cutoffs fall before the first fix, between fixes, on commits
shared by several models, after every fix, and before the first commit.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import rich

from benchchecker_plugin.cutoff import CutoffPeriod
from benchchecker_plugin.errors import InputError
from benchchecker_plugin.instances import BugInstance
from benchchecker_plugin.repos import git
from benchchecker_plugin.stage2 import GridRun, PresenceConfig, build_history, run_stage2

CUTOFF = datetime(2024, 1, 1, tzinfo=UTC)
T0 = CUTOFF - timedelta(days=400)  # build_history's base commit
CONFIG = PresenceConfig(similarity="difflib")


def _same(grid_flag, single_flag) -> None:  # noqa: ANN001
    """Equal in everything but the timings and the creation time (the snapshot fields included:
    each is the model's own)."""
    a, b = grid_flag.to_dict(), single_flag.to_dict()
    for d in (a, b):
        d.pop("created_at")
        d["evidence"].pop("timings_s", None)
    assert a == b


def _check_against_single_runs(instances, root: Path, cutoffs: dict) -> GridRun:  # noqa: ANN001
    run = run_stage2(instances, root, cutoffs, config=CONFIG)
    flags = list(run.flags)
    assert [(f.instance_id, f.model) for f in flags] == [(i.instance_id, m) for i in instances for m in cutoffs]
    for model, cutoff in cutoffs.items():
        single = list(run_stage2(instances, root, {model: cutoff}, config=CONFIG, reuse_counts=False).flags)
        for got, want in zip([f for f in flags if f.model == model], single, strict=True):
            _same(got, want)
    return run


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list]:
    root = tmp_path_factory.mktemp("grid")
    cases = build_history(Path(rich.__file__).parent, root / "synthetic__history", cutoff=CUTOFF,
                          per_scenario=2, seed=3)
    return root, cases


def test_grid_equals_one_run_per_model_on_a_labelled_history(history) -> None:  # noqa: ANN001
    root, cases = history
    good = cases[0].instance
    instances = [c.instance for c in cases] + [
        BugInstance(instance_id="bad-diff", benchmark=good.benchmark, repo=good.repo,
                    base_commit=good.base_commit, patch="not a diff"),
        BugInstance(instance_id="bad-commit", benchmark=good.benchmark, repo=good.repo,
                    base_commit="0" * 40, patch=good.patch),
        BugInstance(instance_id="bad-repo", benchmark=good.benchmark, repo="nobody/nothing",
                    base_commit=good.base_commit, patch=good.patch),
    ]
    cutoffs = {
        "no-fix-yet": T0 + timedelta(days=1),
        "early": T0 + timedelta(days=120),
        "mid": (T0 + timedelta(days=230)).date(),
        "at-cutoff": CUTOFF,
        "same-commit": "2023",                      # a period: its last second, still before the late fixes
        "period": CutoffPeriod.parse("2023-12"),   # the same last second again
        "late": "2025-06",
        "before-history": "2020-01-01",
    }
    run = _check_against_single_runs(instances, root, cutoffs)
    # seven cutoffs with a commit, three of them on one commit; blocks of unchanged files reused
    assert run.snapshots == 5 and run.models == 8 and run.blocks_reused > 0
    hows = {b["how"] for f in run.flags if "blocks" in f.evidence for b in f.evidence["blocks"]}
    assert {"same-name", "moved", "subtree", None} <= hows  # reuse is tried on every kind of location
    by = {(f.instance_id, f.model): f for f in run.flags}
    # the labelled scenarios come out as labelled at the build cutoff, and not yet fixed at first
    assert sum(by[(c.instance.instance_id, "at-cutoff")].contaminated is c.label for c in cases) >= len(cases) - 2
    assert not any(by[(c.instance.instance_id, "no-fix-yet")].contaminated for c in cases)
    assert all(by[(c.instance.instance_id, "before-history")].evidence["error"].startswith(
        "RepositoryError: instance") for c in cases)
    assert by[("bad-repo", "late")].evidence["cutoff"] == "2025-06-30T23:59:59+00:00"


def test_pairs_compute_only_those_flags_and_equal_a_full_run(history) -> None:  # noqa: ANN001
    """A cache filled incrementally and each instance at its own cutoff: ``pairs`` computes only
    the (instance, model) pairs asked, each equal to the full grid's flag."""
    root, cases = history
    instances = [c.instance for c in cases[:4]] + [
        BugInstance(instance_id="bad-repo", benchmark=cases[0].instance.benchmark, repo="nobody/nothing",
                    base_commit=cases[0].instance.base_commit, patch=cases[0].instance.patch)]
    cutoffs = {"early": T0 + timedelta(days=120), "at-cutoff": CUTOFF, "late": "2025-06",
               "before-history": "2020-01-01"}
    full = {(f.instance_id, f.model): f for f in run_stage2(instances, root, cutoffs, config=CONFIG).flags}
    ids = [i.instance_id for i in instances]
    pairs = [(ids[0], "early"), (ids[0], "late"), (ids[1], "at-cutoff"), (ids[2], "before-history"),
             ("bad-repo", "late")]
    run = run_stage2(instances, root, cutoffs, config=CONFIG, pairs=pairs)
    assert [(f.instance_id, f.model) for f in run.flags] == [pairs[0], pairs[1], pairs[2], pairs[3], pairs[4]]
    for f in run.flags:
        _same(f, full[(f.instance_id, f.model)])
    assert run.snapshots == 3   # early, at-cutoff, late: the commits some pair needs
    assert run_stage2(instances, root, cutoffs, config=CONFIG, pairs=[]).flags == ()
    with pytest.raises(InputError, match="pairs: model\\(s\\) nobody not in the cutoffs mapping"):
        run_stage2(instances, root, cutoffs, config=CONFIG, pairs=[(ids[0], "nobody")])


def _commit(repo: Path, message: str, when: datetime) -> str:
    stamp = when.strftime("%Y-%m-%dT%H:%M:%S+0000")
    git(repo, ["add", "-A"])
    git(repo, ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "commit", "-q",
               "-m", message], env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    return git(repo, ["rev-parse", "HEAD"]).decode().strip()


FUNCS = '''def f(x):
    y = x * 2
    if y > 10:
        return y - 1
    return y


def g(x):
    return x + 1
'''


@pytest.fixture()
def small_history(tmp_path: Path) -> tuple[Path, BugInstance, dict[str, datetime]]:
    """base (bug in f) -> fix -> another file changed -> g changed in the same file -> file
    renamed: each commit one day apart; the cutoff of model ``cN`` is just after commit N."""
    root = tmp_path / "repos"
    repo = root / "o__small"
    repo.mkdir(parents=True)
    git(repo, ["init", "-q", "-b", "main"])
    (repo / "a.py").write_text(FUNCS.replace("y > 10", "y >= 10"))
    (repo / "b.py").write_text("VALUE = 1\n")
    day = datetime(2023, 1, 1, tzinfo=UTC)
    base = _commit(repo, "base", day)
    (repo / "a.py").write_text(FUNCS)
    patch = git(repo, ["diff", "--no-color"]).decode()
    _commit(repo, "fix", day + timedelta(days=1))
    (repo / "b.py").write_text("VALUE = 2\n")
    _commit(repo, "b changed", day + timedelta(days=2))
    (repo / "a.py").write_text(FUNCS.replace("x + 1", "x + 2"))
    _commit(repo, "g changed", day + timedelta(days=3))
    git(repo, ["mv", "a.py", "c.py"])
    _commit(repo, "renamed", day + timedelta(days=4))
    inst = BugInstance(instance_id="o__small-1", benchmark="toy", repo="o/small", base_commit=base, patch=patch)
    cutoffs = {f"c{n}": day + timedelta(days=n, hours=1) for n in range(5)}
    return root, inst, cutoffs


def test_a_block_is_reused_only_where_its_file_is_the_same_blob_at_the_same_path(small_history) -> None:  # noqa: ANN001
    root, inst, cutoffs = small_history
    run = run_stage2([inst], root, cutoffs, config=CONFIG)
    assert run.snapshots == 5
    # c2 takes c1's block whole (only b.py changed); c3 (a.py changed, f not) locates it again, at
    # c1's location, so it is not aligned again; c4 (renamed: another location) computes it again
    assert (run.blocks_computed, run.blocks_reused, run.alignments_reused) == (3, 1, 1)
    reused = {f.model: (f.evidence["timings_s"]["blocks_reused"], f.evidence["timings_s"]["alignments_reused"])
              for f in run.flags}
    assert reused == {"c0": (0, 0), "c1": (0, 0), "c2": (1, 0), "c3": (0, 1), "c4": (0, 0)}
    assert [f.contaminated for f in run.flags] == [False, True, True, True, True]
    assert run.flags[-1].evidence["blocks"][0]["found_in"] == "c.py"
    _check_against_single_runs([inst], root, cutoffs)


def test_cost_follows_distinct_snapshots_not_models(small_history) -> None:  # noqa: ANN001
    root, inst, cutoffs = small_history
    two = run_stage2([inst], root, {"m1": cutoffs["c1"], "m2": cutoffs["c3"]}, config=CONFIG)
    many = {f"m{k}": cutoffs["c1"] if k % 2 else cutoffs["c3"] + timedelta(minutes=k) for k in range(12)}
    twelve = run_stage2([inst], root, many, config=CONFIG)
    assert (two.snapshots, two.blocks_computed, two.alignments_reused) == (2, 1, 1)
    assert (twelve.snapshots, twelve.blocks_computed, twelve.alignments_reused) == (2, 1, 1)
    assert len(twelve.flags) == 12 and twelve.models == 12
    # models on one commit get equal flags, each with its own evidence dict
    same = [f for f in twelve.flags if f.evidence["snapshot_commit"] == twelve.flags[0].evidence["snapshot_commit"]]
    assert len(same) == 6 and all(f.evidence == same[0].evidence for f in same)
    assert len({id(f.evidence) for f in same}) == 6


def test_bad_cutoffs_are_refused_naming_the_model(small_history) -> None:  # noqa: ANN001
    root, inst, _ = small_history
    with pytest.raises(InputError, match="no models"):
        run_stage2([inst], root, {}, config=CONFIG)
    with pytest.raises(InputError, match="model 'm2': cutoff 'soon' is not a date"):
        run_stage2([inst], root, {"m1": "2023", "m2": "soon"}, config=CONFIG)


def test_identifier_index_moves_between_commits_like_a_fresh_index(history) -> None:  # noqa: ANN001
    """Reference: the index moved from commit to commit (forwards and back) answers every word as
    ``SnapshotIndex`` built afresh at that commit does."""
    from benchchecker_plugin.repos import Snapshot
    from benchchecker_plugin.stage2 import SnapshotIndex
    from benchchecker_plugin.stage2._caches import BlobCache, SharedIndex

    root, cases = history
    repo = root / "synthetic__history"
    cache = BlobCache()
    days = (1, 200, 120, 1000, 1)  # forwards, back, far forwards, back to the start
    snaps = [Snapshot.at(repo, T0 + timedelta(days=d)) for d in days]
    assert len({s.commit for s in snaps}) == 4
    words = sorted({w for c in cases for w in (c.instance.extra["function"], "self", "Console", "render")})
    for snap in snaps:
        shared = SharedIndex(snap, cache, preprocess=True, max_files=10)
        fresh = SnapshotIndex(snap)
        for w in words:
            assert shared.files_with(w, "python") == fresh.files_with(w, "python"), (snap.commit, w)
        assert shared.files_with("no_such_identifier_anywhere", "python") == ()
        snap.close()


def test_worker_threads_give_the_same_flags(history) -> None:  # noqa: ANN001
    root, cases = history
    instances = [c.instance for c in cases]
    cutoffs = {"early": T0 + timedelta(days=120), "at-cutoff": CUTOFF, "late": "2025-06"}
    one = run_stage2(instances, root, cutoffs, config=CONFIG)
    two = run_stage2(instances, root, cutoffs, config=CONFIG, workers=2)
    for a, b in zip(one.flags, two.flags, strict=True):
        _same(a, b)


def test_one_progress_bar_for_the_whole_grid(small_history, monkeypatch,  # noqa: ANN001
                                             capsys) -> None:  # noqa: ANN001
    """Issue 29: one bar per snapshot (~300 lines for 18 instances); now one for the run."""
    monkeypatch.delenv("BENCHCHECKER_PROGRESS", raising=False)       # log lines (not a terminal)
    root, inst, cutoffs = small_history
    run_stage2([inst], root, cutoffs, config=CONFIG)
    names = {ln.split(":")[1].strip() for ln in capsys.readouterr().err.splitlines()
             if ln.startswith("benchchecker: patch presence")}
    assert names == {f"patch presence (1 instances x {len(set(cutoffs.values()))} cutoffs)"}
