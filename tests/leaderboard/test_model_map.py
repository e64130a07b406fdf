"""Submission -> model mapping and the per-submission verdicts that follow from it."""

from __future__ import annotations

import pytest

from benchchecker_plugin.errors import DataError
from benchchecker_plugin.flags import ContaminationFlag, Verdict
from benchchecker_plugin.leaderboard import (
    Submission,
    apply_model_map,
    read_model_map,
    submission_verdicts,
)
from tests.helpers import SHARED_DATA, needs_shared_data

DATA = SHARED_DATA
MAP = DATA / "model_cutoffs" / "submission_models.csv"


@needs_shared_data("model_cutoffs", "submission_models.csv")
def test_real_submission_models():
    mapping = read_model_map(MAP)
    assert len(mapping) == 82
    assert mapping["20231010_rag_claude2"] == "claude-2"
    assert mapping["20240509_amazon-q-developer-agent-20240430-dev"] == ""  # UNDISCLOSED


def test_apply_and_pinned_errors(tmp_path):
    subs = [Submission("a", frozenset(), model="x"), Submission("b", frozenset(), model="y")]
    out = apply_model_map(subs, {"a": "m1;m2"})
    assert [s.model for s in out] == ["m1;m2", "y"] and out[0].models == ("m1", "m2")
    (tmp_path / "m.csv").write_text("submission,who\na,x\n")
    with pytest.raises(DataError, match="needs 'submission' and 'model'"):
        read_model_map(tmp_path / "m.csv")
    (tmp_path / "m.csv").write_text("submission,model\na,x\na,y\n")
    with pytest.raises(DataError, match="duplicate submissions: a"):
        read_model_map(tmp_path / "m.csv")


def _flag(iid, model, contaminated, method="m"):
    return ContaminationFlag(benchmark="swe-bench-verified", instance_id=iid, model=model,
                             method=method, contaminated=contaminated, score=0.0)


def test_submission_verdicts_combine_models():
    flags = [_flag("i1", "A", True), _flag("i1", "B", False),
             _flag("i2", "A", False), _flag("i2", "B", False),
             _flag("i3", "A", False),  # B says nothing -> undecided
             _flag("i4", "*", True),
             _flag("i5", "A", True), _flag("i5", "*", False, method="other"),
             ContaminationFlag(benchmark="mmlu", instance_id="i6", model="*", method="m",
                               contaminated=True, score=0.0)]
    v = submission_verdicts(flags, benchmark="swe-bench-verified", models=("A", "B"))
    assert v == {"i1": Verdict.CONTAMINATED, "i2": Verdict.CLEAN, "i3": Verdict.UNDECIDED,
                 "i4": Verdict.CONTAMINATED, "i5": Verdict.CONTAMINATED}
    unknown = submission_verdicts(flags, benchmark="swe-bench-verified", models=())
    assert unknown == {"i4": Verdict.CONTAMINATED, "i5": Verdict.CLEAN}


def test_verdicts_by_submission_equals_one_submission_at_a_time() -> None:
    """The indexed, shared computation gives every submission exactly its own verdicts."""
    import random

    from benchchecker_plugin.flags import ContaminationFlag
    from benchchecker_plugin.leaderboard import Submission, submission_verdicts, verdicts_by_submission

    rng = random.Random(3)
    flags = [ContaminationFlag(rng.choice(["swe-bench-verified", "other"]), f"i{rng.randrange(40)}",
                               rng.choice(["m1", "m2", "m3", "*"]),
                               rng.choice(["benchchecker.stage1", "benchchecker.stage2"]),
                               rng.choice([True, False, None]), 0.5,
                               created_at=f"2026-0{rng.randrange(1, 4)}-01T00:00:00Z")
             for _ in range(300)]
    flags = list({f.key: f for f in flags}.values())
    subs = [Submission(name=f"s{k}", resolved=frozenset(), model=model)
            for k, model in enumerate(["m1", "m2", "m1;m3", "", "UNDISCLOSED", "m1", "m9", "m3;m1"])]
    got = verdicts_by_submission(flags, subs, benchmark="swe-bench-verified")
    want = {s.name: submission_verdicts(flags, benchmark="swe-bench-verified", models=s.models) for s in subs}
    assert {k: dict(v) for k, v in got.items()} == want
    assert got["s0"] is got["s5"]   # same model: computed once, shared
    assert any(v for v in want.values())
