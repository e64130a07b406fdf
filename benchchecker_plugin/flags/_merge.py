"""Combining several methods' flags into one verdict per (benchmark, instance, model)."""

from __future__ import annotations

import enum
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from ..errors import InputError
from ._record import ANY_MODEL, ContaminationFlag, Verdict

MERGED_METHOD = "merged"
#: the method of the flags stage I and stage II write (defined here, below both stages, which import it)
STAGE1_METHOD = "benchchecker.stage1"
STAGE2_METHOD = "benchchecker.stage2"
ASSUME_REPO_SEEN_REASON = "these repositories are among the most-starred on GitHub"


class MergePolicy(enum.Enum):
    """How the methods' verdicts for one (benchmark, instance, model) combine.

    Every method with a record for the instance (``"*"`` records count for every model) casts one
    vote: true (contaminated), false (clean) or null (undecided). A method without a record does
    not vote, unless ``merge_flags(methods=)`` names it as expected: then it votes null
    ("missing": it was not asked, so it did not say clean).
    With ``t`` true, ``f`` false and ``u`` null-or-missing votes out of ``n = t + f + u``:

    - ``ANY``: true if ``t > 0``; false only if ``f == n`` (every method decided clean); else null.
      (Default: a filter errs on the side of removing what was probably seen, and never calls an
      instance clean that some method could not clear.)
    - ``ALL``: true only if ``t == n``; false if ``f > 0``; else null.
    - ``MAJORITY``: nulls abstain, but a verdict must survive any way they could fall: true if
      ``t > f + u``, false if ``f > t + u``, else null (so a tie is null, and so is a lead the
      undecided could overturn or tie). With no nulls this is the plain majority, tie = null.
    - ``BENCHCHECKER``: the paper's rule: contaminated when the repository is in the training
      data (Stage I, ``benchchecker.stage1``) *and* the fix was present at the cutoff (Stage II,
      ``benchchecker.stage2``); other methods are listed in the evidence but do not vote.
      ``merge_flags(assume_repo_seen=True)`` makes a *missing* Stage I vote true (closed models,
      where Stage I cannot run); an explicit Stage I null stays null.

    Two methods (rows: first vote, columns: second; ``·`` = null or missing)::

        ANY        ALL        MAJORITY     BENCHCHECKER (rows stage1, columns stage2)
           T F ·      T F ·      T F ·        T F ·
        T  T T T   T  T F ·   T  T · ·     T  T F ·
        F  T F ·   F  F F F   F  · F ·     F  F F F
        ·  T · ·   ·  · F ·   ·  · · ·     ·  · F ·

    Three methods, MAJORITY (order does not matter): ``TTT``, ``TTF``, ``TT·`` true; ``FFF``,
    ``FFT``, ``FF·`` false; ``T··``, ``F··``, ``TF·``, ``···`` null.
    """

    ANY = "any"
    ALL = "all"
    MAJORITY = "majority"
    BENCHCHECKER = "benchchecker"


def _combine(votes: Sequence[bool | None], policy: MergePolicy) -> bool | None:
    """One verdict from one vote per expected method (``None``: null or missing)."""
    n = len(votes)
    yes = sum(v is True for v in votes)
    no = sum(v is False for v in votes)
    undecided = n - yes - no
    if policy is MergePolicy.ANY:
        return True if yes else (False if n and no == n else None)
    if policy is MergePolicy.ALL:
        return False if no else (True if n and yes == n else None)
    if yes > no + undecided:
        return True
    if no > yes + undecided:
        return False
    return None


def _benchchecker(stage1: bool | None, stage2: bool | None) -> bool | None:
    if stage1 is False or stage2 is False:
        return False
    if stage1 is True and stage2 is True:
        return True
    return None


def _votes(group: Sequence[ContaminationFlag], model: str) -> dict[str, bool | None]:
    """One vote per method: a record for ``model`` itself wins over a ``"*"`` record."""
    votes: dict[str, bool | None] = {}
    for r in sorted(group, key=lambda r: r.model != model):
        votes.setdefault(r.method, r.contaminated)
    return votes


def merge_flags(flags: Iterable[ContaminationFlag],
                policy: MergePolicy | str = MergePolicy.ANY, *,
                methods: Iterable[str] | None = None,
                assume_repo_seen: bool = False) -> list[ContaminationFlag]:
    """Merge flags of several methods into one record per (benchmark, instance_id, model).

    Records with ``model == "*"`` join every concrete model's group for the same instance; an
    instance flagged only by ``"*"`` records yields one merged ``"*"`` record. When the same
    (benchmark, instance, model, method) appears more than once, the newest ``created_at`` wins.

    ``methods``: the methods every verdict should hear from (a group without one counts it as a
    null vote); default: only the methods with a record for the instance vote.
    ``assume_repo_seen`` (only with ``MergePolicy.BENCHCHECKER``): a group
    without a Stage I record counts Stage I as true, and its evidence says so under ``"assumed"``.

    The merged record has ``method = "merged"``, ``contaminated`` from ``policy`` (see
    :class:`MergePolicy` for the truth tables), ``score`` the maximum of the inputs' scores (each
    method's score is "higher = more likely seen"), ``p_value`` the minimum of the inputs'
    p-values (or null), and evidence listing the policy, every input method's verdict, score and
    p-value, and (when any) the expected methods without a record (``"missing"``) and the
    assumptions made (``"assumed"``). Output order: benchmark, instance_id, model.
    """
    merged: list[ContaminationFlag] = []
    for g in _groups(flags, policy, methods, assume_repo_seen):
        evidence: dict = {"policy": g.policy.value}
        if g.assumed:
            evidence["assumed"] = {STAGE1_METHOD: True, "reason": ASSUME_REPO_SEEN_REASON}
        p_values = [r.p_value for r in g.records if r.p_value is not None]
        evidence["methods"] = {
            f"{r.method}@{r.model}" if r.model != g.model else r.method: {
                "contaminated": r.contaminated, "score": r.score, "p_value": r.p_value}
            for r in g.records
        }
        if g.missing:
            evidence["missing"] = g.missing
        merged.append(ContaminationFlag(
            benchmark=g.benchmark,
            instance_id=g.instance_id,
            model=g.model,
            method=MERGED_METHOD,
            contaminated=g.verdict,
            score=max(r.score for r in g.records),
            p_value=min(p_values) if p_values else None,
            evidence=evidence,
        ))
    return merged


@dataclass(frozen=True)
class _Group:
    """The records of one (benchmark, instance, model) and the verdict they merge to."""

    benchmark: str
    instance_id: str
    model: str
    records: list[ContaminationFlag]
    verdict: bool | None
    missing: list[str]
    assumed: bool
    policy: MergePolicy


def _groups(flags: Iterable[ContaminationFlag], policy: MergePolicy | str,
            methods: Iterable[str] | None, assume_repo_seen: bool) -> Iterator[_Group]:
    """Every (benchmark, instance, model) group of ``flags`` with its merged verdict, in output
    order: the one place the merge rules live (``merge_flags`` and ``verdicts_for`` use it)."""
    policy = MergePolicy(policy)
    if assume_repo_seen and policy is not MergePolicy.BENCHCHECKER:
        raise InputError(f"assume_repo_seen applies only to the '{MergePolicy.BENCHCHECKER.value}' "
                         f"policy, not to '{policy.value}'")
    latest: dict[tuple[str, str, str, str], ContaminationFlag] = {}
    for flag in flags:
        if flag.method == MERGED_METHOD:
            raise InputError(
                f"cannot merge already-merged flags (instance {flag.instance_id}); "
                "merge the per-method files instead")
        old = latest.get(flag.key)
        if old is None or flag.created_at >= old.created_at:
            latest[flag.key] = flag

    by_instance: dict[tuple[str, str], list[ContaminationFlag]] = defaultdict(list)
    for flag in latest.values():
        by_instance[(flag.benchmark, flag.instance_id)].append(flag)
    fixed = None if methods is None else set(methods)

    for (benchmark, instance_id), records in sorted(by_instance.items()):
        if len(records) == 1 and fixed is None and policy is not MergePolicy.BENCHCHECKER:
            # one record, one vote: every policy returns it (the common case, kept cheap)
            only = records[0]
            yield _Group(benchmark, instance_id, only.model, records, only.contaminated, [], False, policy)
            continue
        models = sorted({r.model for r in records if r.model != ANY_MODEL}) or [ANY_MODEL]
        for model in models:
            group = sorted((r for r in records if r.applies_to(model)), key=lambda r: r.method)
            votes = _votes(group, model)
            expected = fixed if fixed is not None else set(votes)
            assumed = False
            if policy is MergePolicy.BENCHCHECKER:
                missing = sorted(m for m in (STAGE1_METHOD, STAGE2_METHOD) if m not in votes)
                stage1 = votes.get(STAGE1_METHOD)
                if assume_repo_seen and STAGE1_METHOD not in votes:
                    stage1, assumed = True, True
                    missing.remove(STAGE1_METHOD)
                verdict = _benchchecker(stage1, votes.get(STAGE2_METHOD))
            else:
                missing = sorted(set(expected) - set(votes))
                verdict = _combine([*votes.values(), *[None] * len(missing)], policy)
            yield _Group(benchmark, instance_id, model, group, verdict, missing, assumed, policy)


def verdicts_for(flags: Iterable[ContaminationFlag], *, benchmark: str, model: str,
                 policy: MergePolicy | str = MergePolicy.ANY,
                 assume_repo_seen: bool = False) -> Mapping[str, Verdict]:
    """Per-instance verdict for one benchmark and one model (``"*"`` records included).

    This is what scorers and harness adapters consume. A file written by ``flags merge`` (records
    of method ``"merged"``) is taken as it is. Instances without any applicable record are
    absent from the result (the caller decides how to count them). Only the methods with a record
    for an instance vote on it (see :class:`MergePolicy`).
    """
    relevant = [f for f in flags if f.benchmark == benchmark and f.applies_to(model)]
    done = [f for f in relevant if f.method == MERGED_METHOD]
    if done:  # a file written by ``flags merge``: its verdicts are final
        if len(done) != len(relevant):
            raise InputError(f"flags for {benchmark} / model {model!r} mix merged records with "
                             "per-method ones; give either the merged file or the per-method files")
        out_done: dict[str, Verdict] = {}
        for m in sorted(done, key=lambda f: f.model == model):  # the model's own record wins over "*"
            out_done[m.instance_id] = m.verdict
        return out_done
    from_bool = Verdict.from_bool
    if MergePolicy(policy) is not MergePolicy.BENCHCHECKER and not assume_repo_seen:
        ids = [f.instance_id for f in relevant]
        if len(set(ids)) == len(ids):
            # one record per instance (one method, one model): under every policy but
            # benchchecker's, the verdict is that record's own (a leaderboard's common case)
            return {f.instance_id: from_bool(f.contaminated) for f in relevant}
    out: dict[str, Verdict] = {}
    for g in _groups(relevant, policy, None, assume_repo_seen):
        # A concrete-model merge already includes the "*" records; prefer it.
        if g.model == model or (g.model == ANY_MODEL and g.instance_id not in out):
            out[g.instance_id] = from_bool(g.verdict)
    return out
