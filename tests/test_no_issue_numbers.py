"""Comments and docstrings say the reason, not a number in our issue tracker (a reader of the code
has the code, not the tracker). An upstream project's issue may be cited by its project's name
(``msgspec issue #648``)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: "issue 29", "issues 29, 34", "(#39)"; not a colour (#444) or an upstream project's issue
_OURS = re.compile(r"\bissues? #?\d+|\(#\d+\)")
_UPSTREAM = re.compile(r"\b(msgspec|lm-eval|lm-evaluation-harness|inspect_ai|swebench|numba|pandas) "
                       r"issue #?\d+")
#: files another branch was rewriting at the time (their own numbers go with that rewrite)
_LEFT = {"benchchecker_plugin/check/_page.py"}


def _hits(text: str) -> list[str]:
    return [m.group(0) for line in text.splitlines() if not _UPSTREAM.search(line)
            for m in _OURS.finditer(line)]


def test_no_issue_numbers_in_the_packages() -> None:
    bad = [f"{p.relative_to(ROOT)}:{n}" for pkg in ("benchchecker_plugin", "harness_adapters")
           for p in sorted((ROOT / pkg).rglob("*.py")) if str(p.relative_to(ROOT)) not in _LEFT
           for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if _hits(line)]
    assert not bad, bad


def test_the_pattern() -> None:
    assert _hits("# one bar (issue 29)") == ["issue 29"]
    assert _hits('"""the subset (issues 39)"""') == ["issues 39"]
    assert _hits("fixed (#39)") == ["(#39)"]
    assert _hits("msgspec issue #648") == [] and _hits('color="#444"') == []
