"""Our warnings in words outside the ``benchchecker`` commands too (issue 29: raw Python warnings
under plain ``inspect eval`` with the hook, and in the republish script)."""

from __future__ import annotations

import warnings

import pytest

from benchchecker_plugin.scoring import _roc as roc
from benchchecker_plugin.warnings_text import warnings_in_words


def test_our_warnings_are_one_line_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        with warnings_in_words():
            for _ in range(2):   # raised in our code (as the scorer's nan warning is); once
                warnings.warn_explicit("AUC is nan: only one class", roc.UndefinedMetricWarning,
                                       filename=roc.__file__, lineno=1)
            warnings.warn_explicit("a library's own warning", DeprecationWarning,
                                   filename=warnings.__file__, lineno=1)
    err = capsys.readouterr().err.splitlines()
    ours = [ln for ln in err if ln.startswith("benchchecker: warning: ")]
    assert ours == ["benchchecker: warning: AUC is nan: only one class"]
    assert "UndefinedMetricWarning" not in "\n".join(err)
    assert not any("a library's own warning" in ln for ln in ours)     # theirs keep their form
    assert warnings.showwarning.__module__ == "warnings"                        # restored
