"""A republication that runs Stage II on clones (a labelled history: a fix merged, a fix rewritten
away, a fix other than the gold patch): what clean rests on per (submission, instance), the own fix
recall table, the cache that a second run reads instead of computing."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.repos import git
from benchchecker_plugin.republish import BoardSource, RepublishConfig, republish
from tests.helpers.git_history import BUGGY, FIXED, PATCH, commit_all

OTHER_FIX = "def add_one(x):\n    assert x is not None, 'no None here'\n    return int(x) + 1\n\n\ndef other():\n    return 3\n"


def _commit(repo: Path, message: str, when: str) -> str:
    return commit_all(repo, when, message, at="12:00:00")


@pytest.fixture
def labelled(tmp_path: Path) -> RepublishConfig:
    """o/calc: PR 1 fixes calc.py with the gold lines (2023-02-01), rewritten away on 2023-03-01;
    PR 2 fixes calc2.py another way. Submissions on models whose cutoffs fall before, between and
    after; a third board-less model only in the cutoffs."""
    repos = tmp_path / "repos"
    repo = repos / "o__calc"
    repo.mkdir(parents=True)
    git(repo, ["init", "-q", "-b", "main"])
    (repo / "calc.py").write_text(BUGGY)
    (repo / "calc2.py").write_text(BUGGY)
    base = _commit(repo, "base", "2023-01-01")
    (repo / "calc.py").write_text(FIXED)
    (repo / "calc2.py").write_text(OTHER_FIX)
    _commit(repo, "Fix None (#1), and None in calc2 (#2)", "2023-02-01")
    (repo / "calc.py").write_text(BUGGY)
    _commit(repo, "Rewrite add_one", "2023-03-01")
    instances = tmp_path / "instances.jsonl"
    instances.write_text("".join(json.dumps({
        "instance_id": f"o__calc-{n}", "repo": "o/calc", "base_commit": base, "problem_statement": "p",
        "patch": PATCH.replace("calc.py", path), "difficulty": "15 min - 1 hour",
        "created_at": "2023-01-20T00:00:00Z"}) + "\n" for n, path in ((1, "calc.py"), (2, "calc2.py"))))
    subs = tmp_path / "experiments"
    for name, resolved in (("20230601_jan", ["o__calc-1"]), ("20230601_feb", ["o__calc-2"]),
                           ("20230601_mar", ["o__calc-1", "o__calc-2"])):
        (subs / name / "results").mkdir(parents=True)
        (subs / name / "results" / "results.json").write_text(json.dumps({"resolved": resolved}))
    model_map = tmp_path / "map.csv"
    model_map.write_text("submission,model\n20230601_jan,jan\n20230601_feb,feb\n20230601_mar,mar\n")
    cutoffs = tmp_path / "cutoffs.csv"
    cutoffs.write_text("model,cutoff\njan,2023-01-15\nfeb,2023-02-15\nmar,2023-03-15\n")
    return RepublishConfig(boards=(BoardSource("verified", subs, instances=instances),), model_map=model_map,
                           cutoffs=cutoffs, repos_dir=repos, stage2_cache=tmp_path / "cache",
                           similarity="difflib", resamples=20, mde_sims=0, min_clean=0,
                           min_resolved_clean=0)


def test_stage2_on_clones_records_why_clean_the_recall_and_caches(labelled: RepublishConfig,
                                                                  tmp_path: Path) -> None:
    import dataclasses

    heard: list[str] = []
    bundle = republish(labelled, tmp_path / "out", say=heard.append)
    rows = bundle.instances.set_index(["submission", "instance_id"])
    assert rows.loc[("20230601_jan", "o__calc-1"), "clean_kind"] == "not-merged"
    assert rows.loc[("20230601_feb", "o__calc-1"), "verdict"] == "contaminated"
    assert rows.loc[("20230601_mar", "o__calc-1"), "clean_kind"] == "rewritten-since"
    assert rows.loc[("20230601_feb", "o__calc-2"), "clean_kind"] == "never-found"
    assert rows["snapshot"].str.match(r"^git:[0-9a-f]{12}$").all()
    recall = pd.read_csv(tmp_path / "out" / "own_fix_recall.csv", keep_default_na=False)
    assert list(recall["verdict"]) == ["present", "pre-patch-only"]      # PR 2's fix is not the gold patch
    assert recall["miss_reason"][1].startswith("gold patch not in the snapshot")
    facts = bundle.facts
    assert facts.fix_dates is not None and facts.fix_dates["n_known"] == 2
    assert "3 models, and each at its own fix snapshot); 8 (instance, cutoff) pairs computed" in facts.stage2
    assert any(line.startswith("stage II o/calc: 8 (instance, cutoff) pairs") for line in heard)
    again = republish(dataclasses.replace(labelled, cached_only=True), tmp_path / "again")
    assert "0 (instance, cutoff) pairs computed in this run" in again.facts.stage2
    assert "8 read from the Stage II cache" in again.facts.stage2
    pd.testing.assert_frame_equal(again.instances, bundle.instances)
    for name in ("instances.csv", "flags.csv", "snapshots.csv", "own_fix_recall.csv", "summary.csv"):
        assert (tmp_path / "out" / name).read_bytes() == (tmp_path / "again" / name).read_bytes(), name
    with pytest.raises(InputError, match="no instance is covered: no clone under"):
        republish(dataclasses.replace(labelled, repos_dir=tmp_path / "cache"), tmp_path / "x")


def test_state_keeps_stage2_tasks_and_a_rerun_takes_them(labelled: RepublishConfig, tmp_path: Path) -> None:
    """``--state``: the rerun takes Stage II's task from the state folder (no cache here) and
    writes the same tables."""
    import dataclasses

    config = dataclasses.replace(labelled, stage2_cache=None, state=tmp_path / "state")
    first = republish(config, tmp_path / "out")
    assert first.facts.stage2.endswith("0 read from the Stage II cache, 0 task(s) taken from --state")
    assert len(list((tmp_path / "state").glob("*.json"))) == 1
    again = republish(config, tmp_path / "again")
    assert again.facts.stage2.endswith(", 1 task(s) taken from --state")
    for name in ("instances.csv", "flags.csv", "snapshots.csv", "own_fix_recall.csv", "summary.csv"):
        assert (tmp_path / "out" / name).read_bytes() == (tmp_path / "again" / name).read_bytes(), name
    with pytest.raises(InputError, match="--state keeps Stage II's work on the clones: it goes with --repos-dir"):
        dataclasses.replace(config, repos_dir=None, flags=tmp_path / "f.jsonl")
