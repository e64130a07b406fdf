"""Test-suite verification of an inconclusive instance.

The gold patch's added lines are replaced by the snapshot lines they were aligned to, which gives
a *modified* diff against the base commit (:func:`modified_patch`). A runner applies it and runs
the benchmark's tests; if they pass, the snapshot's (refactored) code is the fix.

* :class:`LocalRunner` — exports the base commit into a temporary folder (``git archive``; the
  clone is not touched), applies the modified diff and the test patch, runs the test command
  (from the instance, or given) without a shell, with a scrubbed environment, confined to that
  folder and with a time limit (:mod:`.sandbox`), and decides from the named tests' results
  (:mod:`.testlog`), never from the exit code alone. The folder is deleted afterwards.
* :class:`SwebenchRunner` — submits the modified diff as a prediction to the swebench harness
  (Docker) and grades the test log with swebench's own ``get_eval_report``.
"""

from __future__ import annotations

import ast
import difflib
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

from unidiff import PatchSet

from ..errors import ExecutionError
from ..instances.bug import BugInstance
from ..repos.clones import find_repo  # its home is repos/; re-exported for old imports
from ..repos.git import apply_diff, export_tree
from ..repos.snapshot import Snapshot
from .decide import BlockResult
from .patch import apply_patch_to_text
from .sandbox import run_steps, split_command
from .testlog import judge_run

__all__ = ["LocalRunner", "SpliceError", "SwebenchRunner", "TestRunner", "VerifyOutcome", "find_repo",
           "grade_swebench_log", "modified_patch", "splice_patch", "swebench_test_spec"]


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


class SpliceError(ExecutionError):
    """The snapshot's lines, put in place of the patch's, do not make valid code at the base
    commit (a refactoring changed the statement's shape): there is nothing meaningful to test."""


def _parses(text: str, name: str) -> str | None:
    """``None`` when ``text`` is valid Python, else where it is not (``name:line: message``)."""
    try:
        ast.parse(text, filename=name)
    except SyntaxError as exc:   # IndentationError included
        return f"{name}:{exc.lineno}: {exc.msg}"
    except ValueError as exc:   # null bytes
        return f"{name}: {exc}"
    return None


def _reindent(raw: str, indent: str) -> list[str]:
    rows = raw.split("\n")
    first = len(rows[0]) - len(rows[0].lstrip())
    out = []
    for r in rows:
        cut = min(first, len(r) - len(r.lstrip()))
        out.append(indent + r[cut:] if r.strip() else r)
    return out


_BODIES = ("body", "orelse", "finalbody")


def _whole_statements(text: str, first: int, last: int) -> tuple[int, int]:
    """Rows ``first..last`` (0-based) widened to whole statements of one statement list: the
    innermost list whose statements cover them (a compound statement is entered only when the
    rows lie in one of its bodies), or the rows unchanged when ``text`` does not parse."""
    try:
        stmts: list[ast.stmt] = ast.parse(text).body
    except (SyntaxError, ValueError):
        return first, last
    while True:
        hit = [st for st in stmts if st.lineno - 1 <= last and (st.end_lineno or st.lineno) - 1 >= first]
        if not hit:
            return first, last
        lo = min(min([d.lineno for d in getattr(st, "decorator_list", [])] + [st.lineno]) for st in hit) - 1
        hi = max((st.end_lineno or st.lineno) for st in hit) - 1
        if len(hit) == 1:
            lists = [b for name in _BODIES for b in [getattr(hit[0], name, None)] if b]
            lists += [h.body for h in getattr(hit[0], "handlers", [])]
            inner = [b for b in lists if b[0].lineno - 1 <= first and (b[-1].end_lineno or 0) - 1 >= last]
            if inner:
                stmts = inner[0]
                continue
        return min(lo, first), max(hi, last)


def _block_splice(res: BlockResult, snapshot: Snapshot, gold: str) -> tuple[int, int, list[str]] | None:
    """The block's added region of the gold post-image replaced by the snapshot's rows its lines
    were aligned to, each widened to whole statements and re-indented: the snapshot's statements
    whole, where line-by-line replacement broke their shape."""
    rows = [m.snapshot_rows for m in res.matches if m.snapshot_rows is not None]
    if not rows or res.location is None or not res.block.added:
        return None
    start, end = _whole_statements(gold, min(ln.start for ln in res.block.added), max(ln.end for ln in res.block.added))
    source = snapshot.read(res.location.path)
    s0, s1 = _whole_statements(source, min(r[0] for r in rows), max(r[1] for r in rows))
    post = gold.split("\n")
    first = post[start] if start < len(post) else ""
    return start, end, _reindent("\n".join(source.split("\n")[s0:s1 + 1]), first[: len(first) - len(first.lstrip())])


def modified_patch(inst: BugInstance, base: Snapshot, results: Sequence[BlockResult],
                   snapshot: Snapshot | None = None) -> str | None:
    """The gold patch with each added line replaced by its aligned snapshot line, as a diff
    against ``base``; ``None`` when no line was aligned (nothing to verify).

    Where that leaves a Python file the gold patch keeps valid unparsable (an ``if (...):`` header
    replaced by a plain statement), and ``snapshot`` is given, each spliced block's added region is
    replaced by the snapshot's rows it was aligned to, whole. :class:`SpliceError` when the file
    still does not parse: its tests could only fail at import, which says nothing about the fix."""
    return splice_patch(inst, base, results, snapshot)[0]


def splice_patch(inst: BugInstance, base: Snapshot, results: Sequence[BlockResult],
                 snapshot: Snapshot | None = None) -> tuple[str | None, bool]:
    """:func:`modified_patch` and whether whole statements were transplanted (then a failing
    test run cannot show the fix absent: the transplant may have replaced more than the fix)."""
    transplanted = False
    patch = PatchSet(inst.patch)
    by_file: dict[str, list[tuple[int, int, list[str]]]] = {}
    blocks: dict[str, list[BlockResult]] = {}
    for res in results:
        path = res.block.path
        if path is None:
            continue
        for line, match in zip(res.block.added, res.matches):
            if match.snapshot_line is None or match.kind == "exact":
                continue
            indent = line.raw[: len(line.raw) - len(line.raw.lstrip())]
            rows = _reindent(match.snapshot_line, indent)
            by_file.setdefault(path, []).append((line.start, line.end, rows))
            if not blocks.get(path) or blocks[path][-1] is not res:
                blocks.setdefault(path, []).append(res)
    if not by_file:
        return None, False
    chunks: list[str] = []
    for pfile in patch:
        target = pfile.path
        source_text = base.read(target) if base.exists(target) else ""
        gold = apply_patch_to_text(source_text, pfile, inst.instance_id)
        post = gold.split("\n")
        for start, end, rows in sorted(by_file.get(target, []), reverse=True):
            post[start:end + 1] = rows
        if target.endswith(".py") and target in by_file and _parses(gold, target) is None:
            broken = _parses("\n".join(post), target)
            if broken is not None and snapshot is not None:
                whole = gold.split("\n")
                spans = [sp for res in blocks[target] if (sp := _block_splice(res, snapshot, gold))]
                for start, end, rows in sorted(spans, reverse=True):
                    whole[start:end + 1] = rows
                if _parses("\n".join(whole), target) is None:
                    post, broken, transplanted = whole, None, True
            if broken is not None:
                raise SpliceError(f"the snapshot's lines do not fit the base commit: {broken}")
        a = source_text.splitlines(keepends=True)
        b = [r + "\n" for r in post]
        if b and not source_text.endswith("\n") and source_text:
            b[-1] = b[-1][:-1]
        chunks.extend(difflib.unified_diff(a, b, f"a/{target}", f"b/{target}"))
    return "".join(c if c.endswith("\n") else c + "\n\\ No newline at end of file\n" for c in chunks), transplanted


class LocalRunner:
    """Runs the tests in a throw-away export of the base commit (see module doc).

    ``allow_unsandboxed`` lets the run go ahead where the tests cannot be confined (no user
    namespaces); the environment is still scrubbed and no shell is used.
    """

    name = "local"

    def __init__(self, repos_dir: str | os.PathLike[str], *, test_cmd: str | None = None,
                 timeout: float = 900.0, allow_unsandboxed: bool = False) -> None:
        self.repos_dir = Path(repos_dir)
        self.test_cmd = test_cmd
        self.timeout = timeout
        self.allow_unsandboxed = allow_unsandboxed
        if test_cmd is not None:
            split_command(test_cmd, what="--test-cmd")  # refused before any instance runs

    def run(self, inst: BugInstance, diff: str) -> VerifyOutcome:
        cmd = self.test_cmd or inst.test_cmd
        if not cmd:
            raise ExecutionError(f"instance {inst.instance_id!r}: no test command (give one with "
                                 "--test-cmd)")
        steps = split_command(cmd, what=f"instance {inst.instance_id!r}: test command")
        repo = find_repo(self.repos_dir, inst)
        t0 = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="benchchecker-verify-") as tmp:
            tree = export_tree(repo, inst.base_commit, Path(tmp) / "tree")
            for part in (diff, inst.test_patch):
                if part.strip():
                    apply_diff(tree, part)
            how, runs = run_steps(steps, tmp, tree, timeout=self.timeout,
                                  allow_unsandboxed=self.allow_unsandboxed)
        verdict = judge_run(inst, runs)
        tail = "\n".join(r.output for r in runs)[-2000:]
        return VerifyOutcome(verdict.passed, self.name, verdict.detail,
                             round(time.perf_counter() - t0, 3), tail, verdict.tests, how)


def swebench_test_spec(inst: BugInstance) -> Any:
    """The swebench ``TestSpec`` of ``inst``: swebench's ``make_test_spec`` when the instance has
    the harness fields (``image``, ``eval_script``, ``log_parser``, ``eval_type``), else a
    grading-only spec with the repository's log parser from swebench's own table."""
    from ..extras import require

    require("swebench.harness.utils", "--verify swebench")
    from swebench.harness.utils import make_test_spec
    from swebench.types import TestSpec

    row = inst.to_swebench()
    if all(k in row for k in ("image", "eval_script", "log_parser", "eval_type")):
        return make_test_spec(row)
    from swebench.harness.log_parsers.python import MAP_REPO_TO_PARSER_PY

    parser = MAP_REPO_TO_PARSER_PY.get(inst.repo)
    if parser is None:
        raise ExecutionError(f"instance {inst.instance_id!r}: swebench has no log parser for {inst.repo}")
    return TestSpec(instance_id=inst.instance_id, image="", eval_script_list=[], repo=inst.repo,
                    version=str(inst.extra.get("version", "")), FAIL_TO_PASS=list(inst.fail_to_pass),
                    PASS_TO_PASS=list(inst.pass_to_pass), log_parser=parser.__name__,
                    eval_type="pass_and_fail")


def grade_swebench_log(inst: BugInstance, prediction: dict[str, Any],
                       log_path: str | os.PathLike[str]) -> bool:
    """Whether the swebench test log shows the instance resolved (swebench's ``get_eval_report``)."""
    from swebench.harness.grading import get_eval_report

    report = get_eval_report(test_spec=swebench_test_spec(inst), prediction=prediction,
                             test_log_path=str(log_path), include_tests_status=True)
    return bool(report.get(inst.instance_id, {}).get("resolved", False))


def _docker_harness(inst: BugInstance, prediction: dict[str, Any], run_id: str, timeout: int) -> Path:
    """Run one prediction through the swebench harness in Docker; the test log's path."""
    try:
        import docker

        client = docker.from_env()
    except Exception as exc:  # docker raises DockerException subclasses and OSErrors alike
        raise ExecutionError(f"instance {inst.instance_id!r}: Docker is not available for the "
                             f"swebench runner: {exc}") from exc
    from swebench.harness.run_evaluation import LOG_TEST_OUTPUT, RUN_EVALUATION_LOG_DIR, run_instance

    spec = swebench_test_spec(inst)
    if not spec.image:
        raise ExecutionError(f"instance {inst.instance_id!r}: no swebench image/eval_script fields "
                             "(load the instances from a SWE-bench/* dataset of swebench 5)")
    run_instance(spec, prediction, client, run_id, timeout)
    model = prediction["model_name_or_path"]
    return Path(RUN_EVALUATION_LOG_DIR) / run_id / model / inst.instance_id / LOG_TEST_OUTPUT


class SwebenchRunner:
    """Submits the modified diff to the swebench harness; grades with swebench's functions.

    ``harness(inst, prediction, run_id, timeout) -> log path`` defaults to the Docker harness;
    pass another callable to run elsewhere (a remote runner, or a test double).
    """

    name = "swebench"
    model_name = "benchchecker-stage2-snapshot"

    def __init__(self, *, run_id: str = "benchchecker-stage2", timeout: int = 1800,
                 harness: Callable[[BugInstance, dict[str, Any], str, int], Path] | None = None) -> None:
        self.run_id = run_id
        self.timeout = timeout
        self.harness = harness or _docker_harness

    def prediction(self, inst: BugInstance, diff: str) -> dict[str, Any]:
        return {"instance_id": inst.instance_id, "model_name_or_path": self.model_name, "model_patch": diff}

    def run(self, inst: BugInstance, diff: str) -> VerifyOutcome:
        t0 = time.perf_counter()
        pred = self.prediction(inst, diff)
        log = self.harness(inst, pred, self.run_id, self.timeout)
        if not Path(log).is_file():
            raise ExecutionError(f"instance {inst.instance_id!r}: the harness wrote no test log at {log}")
        passed = grade_swebench_log(inst, pred, log)
        return VerifyOutcome(passed, self.name, "resolved" if passed else "not resolved",
                             round(time.perf_counter() - t0, 3),
                             Path(log).read_text(encoding="utf-8", errors="replace")[-2000:],
                             confinement="docker")
