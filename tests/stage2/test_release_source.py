"""Stage II on release snapshots (stand-in bases, the lag correction, bad input) and the merge-date
rules on git clones; every flag names its snapshot source."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchchecker_plugin.instances import BugInstance
from benchchecker_plugin.repos import ReleaseHistory, SimpleIndex, fetch_releases, git
from benchchecker_plugin.stage2 import PresenceConfig, run_stage2
from tests.helpers.git_history import BUGGY, FIXED, PATCH, commit_all
from tests.helpers.local_index import LocalIndex

HEAD = '"""calc."""\n\n\n'
OLD, NEW = HEAD + BUGGY, HEAD + FIXED
OFFSET = '"""calc."""\nimport os\nimport re\nimport sys\n\n\n' + BUGGY  # add_one three lines down
REL_PATCH = """--- a/calc.py
+++ b/calc.py
@@ -2,6 +2,8 @@
 
 
 def add_one(x):
+    if x is None:
+        return 0
     return int(x) + 1
 
 
"""
CONFIG = PresenceConfig(similarity="difflib")
UTIL = "def helper():\n    return 1\n"
UTIL_PATCH = """--- a/util.py
+++ b/util.py
@@ -1,2 +1,2 @@
 def helper():
-    return 2
+    return 3
"""


def _inst(iid: str = "o__calc-7", repo: str = "o/calc", created: str | None = "2022-12-01T00:00:00Z",
          patch: str = REL_PATCH, version: str | None = None) -> BugInstance:
    return BugInstance(iid, "toy", repo, "0" * 40, patch, created_at=created,
                       extra={"version": version} if version else {})


@pytest.fixture(scope="module")
def releases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("rel")
    idx = LocalIndex(root / "index")
    idx.add("calc", "1.0", "2022-01-10T10:00:00Z", {"calc.py": OLD, "util.py": UTIL})
    idx.add("calc", "1.1", "2022-06-10T10:00:00Z", {"calc.py": OFFSET, "util.py": UTIL})
    idx.add("calc", "2.0", "2023-02-10T10:00:00Z", {"calc.py": NEW, "util.py": UTIL})
    idx.add("other", "0.1", "2022-01-10T10:00:00Z", {"unrelated.py": "x = 1\n"})
    fetch_releases("calc", "o/calc", root / "repos", index=SimpleIndex(idx.file_url))
    fetch_releases("other", "o/other", root / "repos", index=SimpleIndex(idx.file_url))
    return root / "repos"


def test_release_snapshots_at_cutoffs_between_releases(releases: Path) -> None:
    cutoffs = {"before-any": "2021-12", "early": "2022-03", "lagged": "2022-12-31", "late": "2023-06"}
    flags = {f.model: f for f in run_stage2([_inst()], releases, cutoffs, config=CONFIG).flags}
    assert flags["before-any"].contaminated is None
    assert "no release uploaded before the cutoff 2021-12-31T23:59:59+00:00" in flags["before-any"].evidence["error"]
    assert flags["early"].contaminated is False and flags["late"].contaminated is True
    source = dict(flags["early"].evidence["snapshot_source"])
    sha = source.pop("sha256")   # the digest of the sdist read, as the index lists it
    assert source == {
        "kind": "release", "package": "calc", "release": "1.0", "uploaded_at": "2022-01-10T10:00:00+00:00"}
    listed = {r.version: r.sha256 for r in ReleaseHistory.open(releases / "o__calc.releases").releases}
    assert sha == listed["1.0"] and len(sha) == 64
    # the stand-in base: the newest release before the PR, its hunk found three lines down
    base = flags["late"].evidence["base_source"]
    assert (base["release"], base["how"], base["max_offset"]) == ("1.1", "applies-at-offset", 3)
    assert flags["lagged"].contaminated is False and "lag_correction" not in flags["lagged"].evidence


@pytest.mark.parametrize(("margin", "created", "present", "why"), [
    (60, "2022-12-01T00:00:00Z", True, "fix present in 2.0, the first release after the cutoff"),
    (30, "2022-12-01T00:00:00Z", False, "the next release came more than 30 days after the cutoff"),
    (60, "2023-01-05T00:00:00Z", False, "PR created after the cutoff"),
])
def test_lag_correction_with_its_margin(releases: Path, margin: int, created: str, present: bool, why: str) -> None:
    config = PresenceConfig(similarity="difflib", lag_margin_days=margin)
    inst = _inst(created=created)
    grid = run_stage2([inst], releases, {"m": "2022-12-31"}, config=config).flags[0]
    single = list(run_stage2([inst], releases, {"*": "2022-12-31"}, config=config, reuse_counts=False).flags)[0]
    for flag in (grid, single):
        assert flag.contaminated is present
        lag = flag.evidence["lag_correction"]
        assert (lag["applied"], lag["why"], lag["margin_days"]) == (present, why, margin)
        assert flag.evidence["snapshot_source"]["release"] == "1.1"


def test_lag_snapshots_are_shared_by_instances_and_threads(releases: Path) -> None:
    """Several lagged instances of one package, one at a time and on 2 threads: the next
    release's snapshot is indexed once and shared, and every flag is what the instance gets alone."""
    config = PresenceConfig(similarity="difflib", lag_margin_days=60)
    insts = [_inst(f"o__calc-{k}") for k in range(4)]
    alone = [list(run_stage2([i], releases, {"*": "2022-12-31"}, config=config, reuse_counts=False).flags)[0] for i in insts]
    for workers in (1, 2):
        together = list(run_stage2(insts, releases, {"*": "2022-12-31"}, config=config, workers=workers, reuse_counts=False).flags)
        for a, t in zip(alone, together):
            assert t.contaminated is a.contaminated is True
            assert t.evidence["lag_correction"] == a.evidence["lag_correction"]
            assert t.evidence["base_source"] == a.evidence["base_source"]


def test_fuzz_undo_then_pre_image_when_no_release_applies(releases: Path) -> None:
    """A context row no release holds: the hunk is placed where it fits best in the newest
    release before the PR; a release that holds the fix: the patch undone there; neither: the
    patch's own pre-image."""
    fuzz = REL_PATCH.replace(" def add_one(x):\n+", " def add_one(y):\n+")
    flag = run_stage2([_inst(patch=fuzz)], releases, {"m": "2023-06"}, config=CONFIG).flags[0]
    base = flag.evidence["base_source"]
    assert (base["how"], base["release"], base["fuzz_rows"]) == ("applies-with-fuzz", "1.1", 1)
    assert base["tried"][0] == "1.1: calc.py line 2 differs from the patch context (wrong base file?)"
    assert flag.contaminated is True and flag.evidence["blocks"][0]["scope"] == "add_one"
    # a removed row no release holds, but a release holds the fix: the patch undone there
    undo = "diff --git a/calc.py b/calc.py\n" + REL_PATCH.replace(
        "     return int(x) + 1\n", "-    return float(x) + 1\n+    return int(x) + 1\n")
    flag = run_stage2([_inst(patch=undo)], releases, {"m": "2023-06"}, config=CONFIG).flags[0]
    assert (flag.evidence["base_source"]["how"], flag.evidence["base_source"]["release"]) == ("un-applied", "2.0")
    assert flag.contaminated is True
    # neither the buggy nor the fixed rows in any release: the patch's own pre-image
    gone = REL_PATCH.replace("     return int(x) + 1\n", "-    return float(x) + 1\n+    return float(x) + 2\n")
    flag = run_stage2([_inst(patch=gone)], releases, {"m": "2023-06"}, config=CONFIG).flags[0]
    assert flag.evidence["base_source"]["how"] == "pre-image"
    assert "1.1 with fuzz: calc.py fits nowhere" in flag.evidence["base_source"]["tried"]
    assert flag.contaminated is not None
    # two files: the one that fits is read in the release, the other from its own pre-image
    flag = run_stage2([_inst(patch=fuzz + UTIL_PATCH)], releases, {"m": "2023-06"}, config=CONFIG).flags[0]
    base = flag.evidence["base_source"]
    assert (base["how"], base["pre_image_files"]) == ("applies-with-fuzz", ("util.py",))
    assert [b["file"] for b in flag.evidence["blocks"]] == ["calc.py", "util.py"]


def test_bad_input_is_one_line_and_the_other_projects_proceed(releases: Path) -> None:
    no_files = _inst("o__other-3", "o/other")
    unknown = _inst("x__nosuch-1", "x/nosuch")
    flags = run_stage2([no_files, unknown, _inst()], releases, {"m": "2023-06"}, config=CONFIG).flags
    assert flags[0].evidence["error"] == ("DataError: instance 'o__other-3': no fetched release of 'other' holds the "
                                          "patched file(s) (0.1: no calc.py)")
    assert "no clone of x/nosuch" in flags[1].evidence["error"]
    assert "no release snapshots of x/nosuch" in flags[1].evidence["error"]
    assert flags[2].contaminated is True


def test_git_is_preferred_where_both_exist(releases: Path, tmp_path: Path) -> None:
    repos = tmp_path / "repos"
    shutil.copytree(releases, repos)
    clone = repos / "o__calc"
    clone.mkdir()
    git(clone, ["init", "-q"])
    (clone / "calc.py").write_text(OLD)
    base = commit_all(clone, "2022-01-01")
    inst = BugInstance("o__calc-7", "toy", "o/calc", base, REL_PATCH)
    auto = run_stage2([inst], repos, {"m": "2023-06"}, config=CONFIG).flags[0]
    assert auto.evidence["snapshot_source"]["kind"] == "git" and auto.contaminated is False
    rel = run_stage2([inst], repos, {"m": "2023-06"}, config=PresenceConfig(similarity="difflib", snapshot_source="releases")).flags[0]
    assert rel.evidence["snapshot_source"]["release"] == "2.0" and rel.contaminated is True


def _history(repo: Path, middle: str | None) -> str:
    """base (buggy) 2022-01; ``middle`` (None: calc.py deleted) 2022-03; the fix '(#7)' 2023-01."""
    repo.mkdir()
    git(repo, ["init", "-q"])
    (repo / "calc.py").write_text(BUGGY)
    base = commit_all(repo, "2022-01-01")
    if middle is None:
        (repo / "calc.py").unlink()
        (repo / "misc.py").write_text("x = 1\n")
    else:
        (repo / "calc.py").write_text(middle)
    commit_all(repo, "2022-03-01")
    (repo / "calc.py").write_text(FIXED)
    stamp = "2023-01-01T00:00:00+0000"
    git(repo, ["add", "-A"])
    git(repo, ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "Fix add_one (#7)"],
        env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    return base


def test_merged_after_the_cutoff_settles_clean_on_git(tmp_path: Path) -> None:
    base = _history(tmp_path / "o__calc", None)
    inst = BugInstance("o__calc-7", "toy", "o/calc", base, PATCH)
    on = run_stage2([inst], tmp_path, {"m": "2022-06"}, config=CONFIG).flags[0]
    assert on.contaminated is False and on.evidence["category"] == "merged-after-cutoff"
    assert on.evidence["fix_merged"]["merged_at"] == "2023-01-01T00:00:00+00:00"
    assert "(was file-or-function-gone)" in on.evidence["fix_merged"]["rule"]
    off = run_stage2([inst], tmp_path, {"m": "2022-06"}, config=PresenceConfig(similarity="difflib", merge_dates=False)).flags[0]
    assert off.contaminated is None and off.evidence["category"] == "file-or-function-gone"
    later = run_stage2([inst], tmp_path, {"m": "2023-06"}, config=CONFIG).flags[0]
    assert later.contaminated is True and later.evidence["fix_merged"]["after_cutoff"] is False


def test_fixed_code_present_before_the_fix_stays_present_and_is_marked(tmp_path: Path) -> None:
    base = _history(tmp_path / "o__calc", FIXED)
    inst = BugInstance("o__calc-7", "toy", "o/calc", base, PATCH)
    flag = list(run_stage2([inst], tmp_path, {"*": "2022-06"}, config=CONFIG, reuse_counts=False).flags)[0]
    assert flag.contaminated is True
    assert "merged after the cutoff" in flag.evidence["present_before_fix"]


def test_two_workers_over_one_repository_index_it_once(releases: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two threads over instances of one repository: its snapshot at the cutoff is indexed once,
    and the flags are those of one thread."""
    import benchchecker_plugin.stage2._repository as repository

    built: list[str] = []
    real = repository.SharedIndex

    def counted(snap, *args, **kw):  # noqa: ANN001, ANN002, ANN003, ANN202
        built.append(snap.commit)
        return real(snap, *args, **kw)

    insts = [_inst(f"o__calc-{k}", patch=UTIL_PATCH if k % 2 else REL_PATCH) for k in range(6)]
    alone = list(run_stage2(insts, releases, {"*": "2023-06"}, config=CONFIG, reuse_counts=False).flags)
    monkeypatch.setattr(repository, "SharedIndex", counted)
    together = list(run_stage2(insts, releases, {"*": "2023-06"}, config=CONFIG, workers=2, reuse_counts=False).flags)
    assert len(built) == len(set(built)) == 1
    assert [f.contaminated for f in together] == [f.contaminated for f in alone]
