"""The exception hierarchy: every input error is ours *and* a ``ValueError``.

Regression (issue 15, item 1): public functions raised bare ``ValueError`` / ``TypeError`` /
``KeyError`` for bad arguments, which a ``except BenchcheckerError`` (the CLI's) did not catch;
they now raise :class:`InputError` subclasses, still caught by callers that catch ``ValueError``.
"""

from __future__ import annotations

import pytest

from benchchecker_plugin import errors
from benchchecker_plugin.errors import BenchcheckerError, DataError, FlagsFormatError, InputError
from benchchecker_plugin.execution import LocalExecutor
from benchchecker_plugin.flags import ContaminationFlag
from benchchecker_plugin.models import GenerationParams
from benchchecker_plugin.stage1 import binomial_test, calibrate_p0


@pytest.mark.parametrize("name", errors.__all__)
def test_every_error_is_ours_and_input_errors_are_value_errors(name: str) -> None:
    cls = getattr(errors, name)
    assert issubclass(cls, BenchcheckerError)
    assert issubclass(cls, ValueError) == issubclass(cls, InputError)
    if issubclass(cls, InputError):
        assert cls.exit_code == 2


def test_value_error_handlers_still_catch_input_errors() -> None:
    try:
        GenerationParams(max_tokens=0)
    except ValueError as exc:
        assert isinstance(exc, InputError)
        assert "GenerationParams.max_tokens must be >= 1, got 0" in str(exc)
    else:
        pytest.fail("GenerationParams(max_tokens=0) was accepted")


@pytest.mark.parametrize("call, error, words", [
    (lambda: LocalExecutor(workers=0), InputError, "workers must be >= 1, got 0"),
    (lambda: binomial_test(5, 3, 0.1), InputError, "hits=5, n=3"),
    (lambda: calibrate_p0([(0, 0)]), DataError, "0 queries over 1 repositories"),
    (lambda: ContaminationFlag(benchmark="b", instance_id="i", model="m", method="x",
                               contaminated=None, score="high"),
     FlagsFormatError, "field 'score': must be a number, got 'high'"),
])
def test_public_boundaries_name_the_bad_input(call, error, words) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error) as err:
        call()
    assert words in str(err.value)
    assert "\n" not in str(err.value)
