"""why_clean: what a not-contaminated Stage II verdict rests on, exact on a labelled history
that has each kind (not yet merged, rewritten since, never found), and on hand-made flags."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.flags import ContaminationFlag
from benchchecker_plugin.instances import BugInstance
from benchchecker_plugin.repos import git
from benchchecker_plugin.stage2 import PresenceConfig, run_stage2
from benchchecker_plugin.stage2._why_clean import CleanKind, reading, snapshot_id, why_clean
from tests.helpers.git_history import BUGGY, FIXED, PATCH, commit_all

CONFIG = PresenceConfig(similarity="difflib")
# a fix other than the gold patch: the gold lines never reach the repository
OTHER_FIX = "def add_one(x):\n    assert x is not None, 'no None here'\n    return int(x) + 1\n\n\ndef other():\n    return 3\n"


def _commit(repo: Path, message: str, when: str) -> str:
    return commit_all(repo, when, message, at="12:00:00")


@pytest.fixture(scope="module")
def labelled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[BugInstance], dict[str, str]]:
    """o/calc: base (both files buggy) -> PR 1 fixes calc.py with the gold lines, PR 2 fixes
    calc2.py another way -> calc.py reverted to the buggy code (the fix rewritten away)."""
    root = tmp_path_factory.mktemp("why") / "repos"
    repo = root / "o__calc"
    repo.mkdir(parents=True)
    git(repo, ["init", "-q", "-b", "main"])
    (repo / "calc.py").write_text(BUGGY)
    (repo / "calc2.py").write_text(BUGGY)
    shas = {"base": _commit(repo, "base", "2023-01-01")}
    (repo / "calc.py").write_text(FIXED)
    (repo / "calc2.py").write_text(OTHER_FIX)
    shas["fix"] = _commit(repo, "Fix None (#1), and None in calc2 (#2)", "2023-02-01")
    (repo / "calc.py").write_text(BUGGY)
    shas["rewrite"] = _commit(repo, "Rewrite add_one", "2023-03-01")
    insts = [BugInstance(instance_id=f"o__calc-{n}", benchmark="t", repo="o/calc", base_commit=shas["base"],
                         patch=PATCH.replace("calc.py", path)) for n, path in ((1, "calc.py"), (2, "calc2.py"))]
    return root, insts, shas


CUTOFFS = {"jan": "2023-01-15", "feb": "2023-02-15", "mar": "2023-03-15"}
WHEN = {m: datetime.fromisoformat(f"{d}T23:59:59+00:00") for m, d in CUTOFFS.items()}


def test_each_kind_exact_on_a_labelled_history(labelled) -> None:  # noqa: ANN001
    root, insts, shas = labelled
    flags = run_stage2(insts, root, CUTOFFS, config=CONFIG).flags
    own = {f.instance_id: f for f in run_stage2(insts, root, {"own-fix": "2023-02-01T12:00:00+00:00"}, config=CONFIG).flags}
    got = {}
    for inst in insts:
        mine = [f for f in flags if f.instance_id == inst.instance_id]
        for f in why_clean(mine, own_fix=own[inst.instance_id], cutoffs=WHEN):
            got[(f.instance_id, f.model)] = f
    kinds = {k: f.evidence.get("clean_kind") for k, f in got.items()}
    assert kinds == {
        ("o__calc-1", "jan"): "not-merged", ("o__calc-1", "feb"): None, ("o__calc-1", "mar"): "rewritten-since",
        ("o__calc-2", "jan"): "not-merged", ("o__calc-2", "feb"): "never-found", ("o__calc-2", "mar"): "never-found"}
    assert got[("o__calc-1", "feb")].contaminated is True
    assert got[("o__calc-1", "mar")].evidence["last_found"] == {
        "snapshot_date": "2023-02-01T12:00:00+00:00", "snapshot": {"source": "git", "commit": shas["fix"]},
        "model": "feb", "cutoff": "2023-02-15T23:59:59+00:00"}
    assert "last_found" not in got[("o__calc-2", "mar")].evidence
    want = {"jan": shas["base"], "feb": shas["fix"], "mar": shas["rewrite"]}
    for (_, model), f in got.items():   # every flag names the snapshot it was read at
        assert f.evidence["snapshot"] == {"source": "git", "commit": want[model]}
    # the derivation reads the flags only: the same from flags written and read back (a cache)
    again = why_clean([ContaminationFlag.from_dict(f.to_dict()) for f in flags if f.instance_id == "o__calc-1"],
                      own_fix=own["o__calc-1"], cutoffs=WHEN)
    assert [f.evidence.get("clean_kind") for f in again] == ["not-merged", None, "rewritten-since"]


def _flag(model: str, contaminated: bool | None, source: dict, category: str = "pre-patch-only",
          **extra: object) -> ContaminationFlag:
    return ContaminationFlag("t", "o__r-1", model, "benchchecker.stage2", contaminated, 0.0,
                             evidence={"category": category, "snapshot_source": source, **extra})


def _rel(version: str, uploaded: str) -> dict[str, str]:
    return {"kind": "release", "package": "r", "release": version, "uploaded_at": uploaded, "sha256": "ab" * 32}


def test_release_flags_without_a_fix_date_and_errors() -> None:
    """Release sources name version, sha256 and upload time; with no fix date, absent before the
    first present release reads as not yet merged; an error flag (no snapshot) is left as it was."""
    flags = [_flag("a", False, _rel("1.0", "2022-01-01T00:00:00+00:00")),
             _flag("b", True, _rel("1.1", "2022-06-01T00:00:00+00:00"), category="present"),
             _flag("c", None, _rel("2.0", "2023-01-01T00:00:00+00:00"), category="refactored-inconclusive"),
             ContaminationFlag("t", "o__r-1", "d", "benchchecker.stage2", None, 0.0,
                               evidence={"category": "error", "error": "x"})]
    out = why_clean(flags)
    assert [f.evidence.get("clean_kind") for f in out] == ["not-merged", None, "rewritten-since", None]
    assert out[0].evidence["snapshot"] == {"source": "release", "version": "1.0", "sha256": "ab" * 32,
                                           "uploaded": "2022-01-01T00:00:00+00:00"}
    assert out[2].evidence["last_found"]["snapshot"]["version"] == "1.1" and "cutoff" not in out[2].evidence["last_found"]
    assert out[3] is flags[3] and reading(flags[3]) is None


def test_found_before_the_fix_counts_for_nothing() -> None:
    """A found-present reading dated before the fix landed (present_before_fix) is no evidence of
    the fix: a later absent reading is never-found, not rewritten-since."""
    merged = {"commit": "c" * 40, "merged_at": "2023-02-01T00:00:00+00:00", "after_cutoff": True}
    git_at = lambda d: {"kind": "git", "commit": d[0] * 40, "committed_at": f"{d}T00:00:00+00:00"}  # noqa: E731
    flags = [_flag("a", True, git_at("2023-01-10"), category="present", fix_merged=merged),
             _flag("b", False, git_at("2023-03-10"), fix_merged={**merged, "after_cutoff": False}),
             _flag("m", False, git_at("2023-01-20"), category="merged-after-cutoff", fix_merged=merged)]
    out = why_clean(flags)
    assert [f.evidence.get("clean_kind") for f in out] == [None, CleanKind.NEVER_FOUND.value,
                                                           CleanKind.NOT_MERGED.value]


def test_one_instance_only_and_snapshot_ids() -> None:
    a = _flag("a", False, _rel("1.0", "2022-01-01T00:00:00+00:00"))
    other = ContaminationFlag("t", "o__r-2", "a", "benchchecker.stage2", False, 0.0, evidence={})
    with pytest.raises(InputError, match=r"why_clean: the flags of one instance, got 2 \(o__r-1, o__r-2"):
        why_clean([a, other])
    assert snapshot_id({"kind": "git", "commit": "f" * 40, "committed_at": "x"}) == {"source": "git", "commit": "f" * 40}
    assert datetime(2022, 1, 1, tzinfo=UTC) == reading(a).taken_at  # type: ignore[union-attr]
