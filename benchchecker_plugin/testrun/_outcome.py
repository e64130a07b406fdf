"""What a test run saw (:class:`VerifyOutcome`) and what runs one (:class:`TestRunner`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Protocol

from ..instances import BugInstance


@dataclass(frozen=True)
class VerifyOutcome:
    """What a runner saw: ``passed`` only when every test passed; ``tests`` maps each test that
    decided it (a named test, or a test command) to its result; ``confinement`` says how the
    tests were isolated (``namespaces``, ``none``, or ``docker`` for the swebench harness)."""

    passed: bool
    runner: str
    detail: str
    duration_s: float
    log_tail: str = ""
    tests: tuple[tuple[str, str], ...] = ()
    confinement: str = ""
    decisive: bool = False   # a failure that settles "not there": trusted environment, tests ran

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["tests"] = dict(self.tests)
        return out


class TestRunner(Protocol):
    """Runs an instance's tests with ``diff`` applied to its base commit."""

    name: str

    def run(self, inst: BugInstance, diff: str) -> VerifyOutcome:
        ...
