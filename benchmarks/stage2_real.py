"""Stage II accuracy on real git histories: a labelled set built from SWE-bench Verified fixes.

    # 1. clone the repositories (9 of the 12 Verified projects fit here; all 12 with a network)
    benchchecker repos fetch --instances ../shared/data/swebench_verified/swebench_verified_composite.jsonl \\
        --into clones/
    # 2. (re)build the labels from the clones -> benchmarks/data/stage2_real_labels.csv
    python benchmarks/stage2_real.py build --repos-dir clones/
    # 3. run Stage II on every labelled (instance, cutoff) pair and score it, with the ablations
    python benchmarks/stage2_real.py score --repos-dir clones/ [--ablations]

How each label is derived (nothing here looks at Stage II's own output):

* **The fix commit.** The instance id ``owner__name-N`` names pull request ``N``. A commit whose
  message names the PR (``Merge pull request #N`` or a squash ``... (#N)``, on any branch) is
  followed to the first commit of the default branch's first-parent history that contains it (a
  fix merged into a stable branch lands on the default branch with that branch's next merge). That
  commit must be dated after the base commit, and the gold patch must apply in reverse there
  (``git apply -R --check`` against its tree: the fixed lines are there). An instance whose fix
  commit cannot be found this way is left out (counted in ``build``'s output).
* **Before: not present (label 0).** Cutoff = the fix commit's committer date minus 2 days. The
  default branch did not hold the fix then (it landed later). ``evidence`` records whether the gold
  patch still applied forward there (the buggy lines verbatim).
* **After: present (label 1)** when, at the cutoff ``fix + 90 days`` (else ``+30``, else ``+7``),
  the gold patch still applies in reverse: the fixed lines persist verbatim (context included,
  else with one line of context, ``-C1``).
* **Reverted: not present (label 0)** when at ``fix + 90 days`` the gold patch applies *forward*
  again: the buggy lines are back and the fixed ones gone.
* **Rewritten**: at ``fix + 90 days`` the patch applies neither way and no earlier ``+30``/``+7``
  cutoff holds it verbatim: whether the fixed behaviour is there cannot be told from the text;
  such pairs are listed with label ``-1`` and kept out of AUC/FPR (their verdicts are reported).

Every git read is plumbing on the clone's default branch (first-parent history, as
``Snapshot.at`` reads it); no working tree is touched. Only ids, cutoffs, labels and how they were
derived are committed (no repository content).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
LABELS = HERE / "data" / "stage2_real_labels.csv"
DEFAULT_INSTANCES = (HERE.parent.parent / "shared" / "data" / "swebench_verified"
                     / "swebench_verified_composite.jsonl")
FIELDS = ["instance_id", "repo", "cutoff", "label", "kind", "fix_commit", "fix_date", "how"]


def _git(repo: Path, *args: str, input_bytes: bytes | None = None,
         env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(repo), *args], input=input_bytes, capture_output=True,
                          env={**os.environ, "LC_ALL": "C", **(env or {})}, check=False)


def _default_ref(repo: Path) -> str:
    out = _git(repo, "symbolic-ref", "-q", "refs/remotes/origin/HEAD").stdout.decode().strip()
    return out or "HEAD"


def _commit_at(repo: Path, ref: str, when: datetime) -> str | None:
    out = _git(repo, "rev-list", "-1", "--first-parent", f"--before={when.isoformat()}", ref).stdout
    return out.decode().strip() or None


def _date(repo: Path, commit: str) -> datetime:
    stamp = _git(repo, "show", "-s", "--format=%cI", commit).stdout.decode().strip()
    return datetime.fromisoformat(stamp).astimezone(UTC)


def _applies(repo: Path, commit: str, patch: str, *, reverse: bool, context: int | None = None) -> bool:
    """Whether ``patch`` applies (``reverse``: un-applies) to ``commit``'s tree (temporary index)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        if _git(repo, "read-tree", commit, env=env).returncode != 0:
            return False
        args = ["apply", "--cached", "--check"] + (["-R"] if reverse else []) + (
            [f"-C{context}"] if context is not None else [])
        return _git(repo, *args, "-", input_bytes=patch.encode(), env=env).returncode == 0


@dataclass
class Fix:
    commit: str
    date: datetime


_FIRST_PARENT: dict[tuple[Path, str], list[str]] = {}


def _landed(repo: Path, ref: str, commit: str) -> str | None:
    """The first commit of ``ref``'s first-parent history that contains ``commit`` (binary search:
    once a first-parent commit contains it, every later one does)."""
    key = (repo, ref)
    if key not in _FIRST_PARENT:
        out = _git(repo, "rev-list", "--first-parent", "--reverse", ref).stdout.decode().split()
        _FIRST_PARENT[key] = out
    chain = _FIRST_PARENT[key]
    lo, hi = 0, len(chain)
    while lo < hi:
        mid = (lo + hi) // 2
        if _git(repo, "merge-base", "--is-ancestor", commit, chain[mid]).returncode == 0:
            hi = mid
        else:
            lo = mid + 1
    return chain[lo] if lo < len(chain) else None


def find_fix(repo: Path, ref: str, iid: str, base: str, patch: str) -> Fix | None:
    """The first-parent commit of the default branch at which the instance's pull request had
    landed (see the module doc): a commit naming the PR, on any branch, followed to where the
    default branch first contains it (a stable branch merged later, say)."""
    number = iid.rsplit("-", 1)[-1]
    base_date = _date(repo, base)
    pattern = rf"(pull request #{number}\b|\(#{number}\))"
    out = _git(repo, "log", "--all", "-E", f"--grep={pattern}", "--format=%H", ref).stdout.decode()
    for sha in reversed(out.split()):
        landed = _landed(repo, ref, sha)
        if landed is None:
            continue
        when = _date(repo, landed)
        if when >= base_date and _applies(repo, landed, patch, reverse=True):
            return Fix(landed, when)
    return None


def build(args: argparse.Namespace) -> None:
    rows = [json.loads(line) for line in open(args.instances, encoding="utf-8") if line.strip()]
    out: list[dict] = []
    skipped: Counter = Counter()
    t0 = time.perf_counter()
    for i, row in enumerate(rows):
        owner, name = row["repo"].split("/")
        repo = Path(args.repos_dir) / f"{owner}__{name}"
        if not repo.is_dir():
            skipped["repository not cloned"] += 1
            continue
        ref = _default_ref(repo)
        if _git(repo, "cat-file", "-e", f"{row['base_commit']}^{{commit}}").returncode != 0:
            skipped["base commit missing"] += 1
            continue
        fix = find_fix(repo, ref, row["instance_id"], row["base_commit"], row["patch"])
        if fix is None:
            skipped["fix commit not found"] += 1
            continue
        common = {"instance_id": row["instance_id"], "repo": row["repo"], "fix_commit": fix.commit,
                  "fix_date": fix.date.isoformat()}
        before = fix.date - timedelta(days=2)
        snap = _commit_at(repo, ref, before)
        if snap is None:
            skipped["no commit before the fix"] += 1
        else:
            fwd = _applies(repo, snap, row["patch"], reverse=False)
            out.append({**common, "cutoff": before.isoformat(), "label": 0, "kind": "before-fix",
                        "how": "buggy lines verbatim" if fwd else "fix not yet landed"})
        done = False
        for days in (90, 30, 7):
            when = fix.date + timedelta(days=days)
            snap = _commit_at(repo, ref, when)
            if snap is None:
                continue
            for ctx, how in ((None, "fixed lines verbatim"), (1, "fixed lines verbatim (-C1)")):
                if _applies(repo, snap, row["patch"], reverse=True, context=ctx):
                    out.append({**common, "cutoff": when.isoformat(), "label": 1, "kind": f"after-fix+{days}d",
                                "how": how})
                    done = True
                    break
            if done:
                break
            if days == 90 and _applies(repo, snap, row["patch"], reverse=False):
                out.append({**common, "cutoff": when.isoformat(), "label": 0, "kind": "reverted",
                            "how": "gold patch applies forward again"})
                done = True
                break
        if not done:
            when = fix.date + timedelta(days=90)
            out.append({**common, "cutoff": when.isoformat(), "label": -1, "kind": "rewritten",
                        "how": "patch applies neither way"})
        if sys.stderr.isatty() or (i + 1) % 50 == 0:
            print(f"\r{i + 1}/{len(rows)} instances, {len(out)} pairs", end="", file=sys.stderr)
    print(file=sys.stderr)
    LABELS.parent.mkdir(parents=True, exist_ok=True)
    with open(LABELS, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, FIELDS)
        w.writeheader()
        w.writerows(out)
    kinds = Counter(r["kind"].split("+")[0] for r in out)
    repos = Counter(r["repo"] for r in out)
    print(f"{len(out)} labelled pairs from {len({r['instance_id'] for r in out})} instances of "
          f"{len(repos)} repositories in {time.perf_counter() - t0:.0f} s -> {LABELS.relative_to(HERE.parent)}")
    print("  kinds:", dict(kinds))
    print("  left out:", dict(skipped) or "none")


def read_labels(path: Path = LABELS) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def run_stage2(labels: list[dict], instances_path: Path, repos_dir: Path, **config) -> dict[tuple[str, str], object]:
    """``{(instance_id, cutoff): flag}`` for every labelled pair, grouped by cutoff."""
    from benchchecker_plugin.instances import load_instances
    from benchchecker_plugin.stage2 import PresenceConfig, run_stage2

    wanted = {r["instance_id"] for r in labels}
    by_id = {i.instance_id: i for i in load_instances(str(instances_path)) if i.instance_id in wanted}
    by_cutoff: dict[str, list] = defaultdict(list)
    for r in labels:
        by_cutoff[r["cutoff"]].append(by_id[r["instance_id"]])
    cfg = PresenceConfig(**config)
    out = {}
    os.environ.setdefault("BENCHCHECKER_PROGRESS", "0")
    for n, (cutoff, insts) in enumerate(sorted(by_cutoff.items())):
        for inst, flag in zip(insts, list(run_stage2(insts, repos_dir, {"m": cutoff}, config=cfg, reuse_counts=False).flags)):
            out[(inst.instance_id, cutoff)] = flag
        print(f"\r  {n + 1}/{len(by_cutoff)} cutoffs", end="", file=sys.stderr)
    print(file=sys.stderr)
    return out


def metrics(labels: list[dict], flags: dict) -> dict:
    import numpy as np

    from benchchecker_plugin.scoring import rates_at_threshold, roc_auc_score

    scored = [r for r in labels if r["label"] in ("0", "1")]
    y = np.array([int(r["label"]) for r in scored])
    verdict = [flags[(r["instance_id"], r["cutoff"])].contaminated for r in scored]
    failed = [("error" in flags[(r["instance_id"], r["cutoff"])].evidence) for r in scored]
    # the ranking score: a verdict first (present > undecided > absent), then the line similarity
    rank = np.array([{True: 2.0, None: 1.0, False: 0.0}[v] + flags[(r["instance_id"], r["cutoff"])].score
                     for r, v in zip(scored, verdict)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auc = roc_auc_score(y, rank)
    neg = y == 0
    pos = y == 1
    fp = sum(1 for v, n in zip(verdict, neg) if n and v is True)
    tp = sum(1 for v, p in zip(verdict, pos) if p and v is True)
    und = sum(1 for v in verdict if v is None)
    decided = [(v, lab) for v, lab in zip(verdict, y) if v is not None]
    acc = sum(1 for v, lab in decided if int(v) == lab) / max(len(decided), 1)
    del rates_at_threshold
    return {"pairs": len(scored), "positives": int(pos.sum()), "negatives": int(neg.sum()),
            "auc": round(float(auc), 4), "fpr": round(fp / max(int(neg.sum()), 1), 4),
            "tpr": round(tp / max(int(pos.sum()), 1), 4), "undecided": round(und / len(scored), 4),
            "decided_accuracy": round(acc, 4), "failed": int(sum(failed))}


def _plain(obj: object) -> object:
    """JSON for the read-only mappings and tuples a flag's evidence is made of."""
    return dict(obj) if hasattr(obj, "items") else list(obj)  # type: ignore[call-overload]


def score(args: argparse.Namespace) -> None:
    labels = read_labels()
    if args.limit:
        ids = sorted({r["instance_id"] for r in labels})[: args.limit]
        labels = [r for r in labels if r["instance_id"] in set(ids)]
    if args.only:
        keep = {(r["instance_id"], r["cutoff"]) for r in map(json.loads, open(args.only, encoding="utf-8"))}
        labels = [r for r in labels if (r["instance_id"], r["cutoff"]) in keep]
    configs = {} if args.ablations_only else {"default": {}}
    if args.ablations or args.ablations_only:
        configs["no preprocessing"] = {"preprocess": False}
        configs["exact matching"] = {"similarity": "exact"}
    report = {}
    for name, cfg in configs.items():
        t0 = time.perf_counter()
        flags = run_stage2(labels, Path(args.instances), Path(args.repos_dir), **cfg)
        m = metrics(labels, flags)
        m["seconds"] = round(time.perf_counter() - t0, 1)
        report[name] = m
        print(f"{name:>17}: AUC {m['auc']:.3f}  FPR {m['fpr']:.3f}  TPR {m['tpr']:.3f}  "
              f"undecided {m['undecided']:.1%}  decided accuracy {m['decided_accuracy']:.3f}  "
              f"failed {m['failed']}  ({m['pairs']} pairs: {m['positives']} present, "
              f"{m['negatives']} not; {m['seconds']} s)")
        if name == "default":
            rew = [r for r in labels if r["label"] == "-1"]
            c = Counter(flags[(r["instance_id"], r["cutoff"])].evidence.get("category") for r in rew)
            print(f"{'':>17}  rewritten fixes (unlabelled, {len(rew)}): {dict(c)}")
            if args.dump:
                with open(args.dump, "w", encoding="utf-8") as fh:
                    for r in labels:
                        f = flags[(r["instance_id"], r["cutoff"])]
                        fh.write(json.dumps({**r, "contaminated": f.contaminated, "score": f.score,
                                             "evidence": f.evidence}, default=_plain) + "\n")
    print("paper (SWE-bench Verified, their labels): AUC no preprocessing 0.786, exact matching 0.688")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("build", "score"):
        p = sub.add_parser(name)
        p.add_argument("--repos-dir", required=True, help="folder of clones owner__name/")
        p.add_argument("--instances", default=str(DEFAULT_INSTANCES))
    sub.choices["score"].add_argument("--ablations", action="store_true",
                                      help="also without preprocessing and with exact matching")
    sub.choices["score"].add_argument("--ablations-only", action="store_true",
                                      help="only the two ablations (the default was scored before)")
    sub.choices["score"].add_argument("--limit", type=int, default=0, help="only the first N instances")
    sub.choices["score"].add_argument("--only", help="only the pairs of this JSON Lines file (a --dump)")
    sub.choices["score"].add_argument("--dump", help="write every pair's flag (JSON Lines) here")
    sub.choices["score"].add_argument("--json", help="write the metrics (JSON) here")
    args = ap.parse_args()
    {"build": build, "score": score}[args.cmd](args)


if __name__ == "__main__":
    main()
