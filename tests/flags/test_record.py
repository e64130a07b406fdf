from __future__ import annotations

import pytest

from benchchecker_plugin.errors import FlagsFormatError
from benchchecker_plugin.flags import ContaminationFlag, Verdict


def test_record_is_frozen_and_evidence_too() -> None:
    flag = ContaminationFlag(benchmark="mmlu", instance_id="anatomy/3", model="*", method="x.y",
                             contaminated=None, score=0.5, evidence={"a": [1, {"b": 2}]})
    with pytest.raises(AttributeError):
        flag.score = 1.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        flag.evidence["a"] = 3  # type: ignore[index]
    assert flag.verdict is Verdict.UNDECIDED
    assert flag.to_dict()["evidence"] == {"a": [1, {"b": 2}]}
    assert flag.applies_to("any-model")
    assert hash(flag) == hash(flag.with_())


@pytest.mark.parametrize("value, verdict", [(True, Verdict.CONTAMINATED), (False, Verdict.CLEAN),
                                            (None, Verdict.UNDECIDED)])
def test_verdict_round_trip(value, verdict) -> None:
    assert Verdict.from_bool(value) is verdict
    assert verdict.to_bool() is value


def test_score_must_be_a_number() -> None:
    with pytest.raises(FlagsFormatError, match="field 'score': must be a number, got True"):
        ContaminationFlag(benchmark="mmlu", instance_id="a/1", model="m", method="x", contaminated=None,
                          score=True)
