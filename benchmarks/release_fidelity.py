"""Release snapshots against git snapshots: Stage II verdicts per model cutoff (issue 28).

    # 1. clones of the cloneable projects, and release snapshots of the same projects
    benchchecker repos fetch --instances ../shared/data/swebench_verified/swebench_verified_composite.jsonl \\
        --into clones/
    benchchecker repos fetch --instances ../shared/data/swebench_verified/swebench_verified_composite.jsonl \\
        --into releases/ --cutoffs ../shared/data/model_cutoffs/model_cutoffs.csv \\
        --from-releases requests --from-releases pytest --from-releases sympy ...
    # 2. both Stage II runs at every cutoff of the file, compared
    python benchmarks/release_fidelity.py --repos-dir clones/ --releases-dir releases/ \\
        [--lag-margin 120] [--out fidelity.md] [--json fidelity.json]

For every project that has both a clone (``--repos-dir``: ``owner__name/``) and release snapshots
(``--releases-dir``: ``owner__name.releases/``), Stage II runs twice over the same instances at
every distinct cutoff of ``--cutoffs`` (default: the shared ``model_cutoffs.csv``): once on the
git snapshots (the reference) and once on the release snapshots (with the lag correction when
``--lag-margin`` is given). Verdicts are P (present), A (absent), U (undecided) and E (the tool
failed); the report gives per cutoff the git × release confusion table, the agreement on
present / not present (E counts as a disagreement), the release side's tool errors, and the cause
of every disagreement:

* ``lag``: git P, release A/U, and the fix landed on the default branch before the cutoff but
  after the release at the cutoff was uploaded (merged, not yet released);
* ``lag-corrected-wrongly``: release P by the lag correction, git not P;
* ``main-moved``: release P, git not P (main refactored or reverted the code after a release that
  still holds the fix);
* ``pre-image``: the release side read the gold patch from its own pre-image (no release applies);
* ``release-error`` / ``git-error``: the tool failed on that side (the message is listed);
* ``other``: none of the above (both categories listed).

``--bases-only`` needs no clones: it reads every instance's gold patch against its project's
release snapshots (the stand-in base of ``patch-presence --snapshot-source releases``) and counts
how: ``applies`` (as ``git apply`` would, at the stated lines), ``applies-at-offset``, ``un-applied``
(a release holding the fix, the patch undone there), ``applies-with-fuzz``,
``pre-image`` (no fetched release applies: the patch's own pre-image), or the one-line error.

Goals (issue 28): >= 97% agreement at every cutoff from 2023-01 on, >= 93% before; release-side
tool errors <= 5% of instances.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
CLASSES = ("P", "A", "U", "E")


def verdict_class(flag: Any, corrected: bool = True) -> str:
    """P, A, U or E; ``corrected=False``: the release verdict before the lag correction."""
    if "error" in flag.evidence:
        return "E"
    if not corrected and (flag.evidence.get("lag_correction") or {}).get("applied"):
        return "A"
    return {True: "P", False: "A"}.get(flag.contaminated, "U")


def cause(git: Any, rel: Any, when: datetime) -> str:
    """Why the release verdict differs from git's (module doc)."""
    g, r = verdict_class(git), verdict_class(rel)
    if r == "E":
        return f"release-error: {rel.evidence['error']}"
    if g == "E":
        return f"git-error: {git.evidence['error']}"
    if r == "P" and (rel.evidence.get("lag_correction") or {}).get("applied") and g != "P":
        return "lag-corrected-wrongly"
    if rel.evidence.get("base_source", {}).get("how") == "pre-image" and g == "P":
        return "pre-image"
    if g == "P":
        fix = git.evidence.get("fix_merged") or {}
        up = rel.evidence.get("snapshot_source", {}).get("uploaded_at")
        if fix.get("merged_at") and up and datetime.fromisoformat(up) < datetime.fromisoformat(fix["merged_at"]) <= when:
            return "lag"
    if r == "P":
        return "main-moved"
    return f"other: git {git.evidence.get('category')}, release {rel.evidence.get('category')}"


def compare(git_flags: Sequence[Any], rel_flags: Sequence[Any], whens: dict[str, datetime],
            corrected: bool = True) -> dict[str, Any]:
    """Per cutoff: confusion table, agreement, release errors, and the causes of disagreements."""
    rel_by = {(f.instance_id, f.model): f for f in rel_flags}
    per: dict[str, dict[str, Any]] = defaultdict(lambda: {"table": Counter(), "pairs": 0, "agree": 0,
                                                          "release_errors": 0, "causes": Counter(),
                                                          "disagreements": []})
    for g in git_flags:
        r = rel_by.get((g.instance_id, g.model))
        if r is None:
            continue
        row = per[g.model]
        gc, rc = verdict_class(g), verdict_class(r, corrected)
        row["table"][(gc, rc)] += 1
        row["pairs"] += 1
        row["release_errors"] += rc == "E"
        if gc != "E" and rc != "E" and (gc == "P") == (rc == "P"):
            row["agree"] += 1
        elif not (gc == "E" and rc == "E"):
            why = cause(g, r, whens[g.model])
            row["causes"][why.split(":")[0]] += 1
            row["disagreements"].append({"instance_id": g.instance_id, "git": gc, "release": rc, "cause": why})
    out = {}
    for cutoff in sorted(per, key=lambda c: whens[c]):
        row = per[cutoff]
        n = row["pairs"]
        goal = 0.97 if whens[cutoff] >= datetime(2023, 1, 1, tzinfo=UTC) else 0.93
        out[cutoff] = {"pairs": n, "agree": row["agree"], "agreement": row["agree"] / n if n else float("nan"),
                       "goal": goal, "release_errors": row["release_errors"],
                       "table": {f"{a}>{b}": row["table"][(a, b)] for a in CLASSES for b in CLASSES
                                 if row["table"][(a, b)]},
                       "causes": dict(row["causes"]), "disagreements": row["disagreements"]}
    return out


def markdown(result: dict[str, Any], command: str) -> str:
    lines = [f"Command: `{command}`", "",
             "| cutoff | pairs | agree (P vs not P) | goal | release errors | causes |",
             "|---|---:|---:|---:|---:|---|"]
    for cutoff, r in result.items():
        causes = ", ".join(f"{k} {v}" for k, v in sorted(r["causes"].items())) or "-"
        mark = "ok" if r["agreement"] >= r["goal"] else "below"
        lines.append(f"| {cutoff} | {r['pairs']} | {r['agree']} ({100 * r['agreement']:.1f}%) | "
                     f"{100 * r['goal']:.0f}% {mark} | {r['release_errors']} | {causes} |")
    for cutoff, r in result.items():
        lines += ["", f"**{cutoff}** (rows git, columns release)", "",
                  "| git \\ release | " + " | ".join(CLASSES) + " |", "|---" * (len(CLASSES) + 1) + "|"]
        for a in CLASSES:
            lines.append(f"| {a} | " + " | ".join(str(r["table"].get(f"{a}>{b}", 0)) for b in CLASSES) + " |")
        for d in r["disagreements"]:
            lines.append(f"- {d['instance_id']}: git {d['git']}, release {d['release']}: {d['cause']}")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    from benchchecker_plugin.cutoff import parse_cutoff
    from benchchecker_plugin.cutoffs_file import read_cutoffs
    from benchchecker_plugin.errors import RepositoryError
    from benchchecker_plugin.instances import load_instances
    from benchchecker_plugin.repos import find_releases, find_repo
    from benchchecker_plugin.stage2 import PresenceConfig, run_stage2

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--instances", type=Path,
                   default=DATA / "swebench_verified" / "swebench_verified_composite.jsonl")
    p.add_argument("--cutoffs", type=Path, default=DATA / "model_cutoffs" / "model_cutoffs.csv",
                   help="model cutoffs (CSV with model and cutoff columns, or JSON {model: cutoff})")
    p.add_argument("--repos-dir", type=Path, default=None, help="git clones as owner__name/")
    p.add_argument("--bases-only", action="store_true",
                   help="only read each gold patch against the release snapshots (no clones needed)")
    p.add_argument("--releases-dir", type=Path, required=True, help="release snapshots as owner__name.releases/")
    p.add_argument("--repos", nargs="*", default=None, help="only these owner/name projects")
    p.add_argument("--lag-margin", type=float, default=None, metavar="DAYS",
                   help="apply the release lag correction with this margin")
    p.add_argument("--similarity", default="difflib+minilm")
    p.add_argument("--out", type=Path, default=None, help="Markdown report (default: stdout)")
    p.add_argument("--json", type=Path, default=None, help="the numbers and every disagreement as JSON")
    p.add_argument("--save-flags", type=Path, default=None, metavar="DIR",
                   help="also write both runs' flags: DIR/git.jsonl and DIR/releases.jsonl")
    args = p.parse_args(argv)

    instances = load_instances(args.instances)
    if args.bases_only:
        return bases_only(instances, args)
    if args.repos_dir is None:
        p.error("--repos-dir is required (unless --bases-only)")
    both, skipped = [], set()
    for inst in instances:
        if args.repos is not None and inst.repo not in args.repos:
            continue
        try:
            find_repo(args.repos_dir, inst)
            find_releases(args.releases_dir, inst.repo)
            both.append(inst)
        except RepositoryError:
            skipped.add(inst.repo)
    if not both:
        raise SystemExit(f"no project has both a clone under {args.repos_dir} and release snapshots "
                         f"under {args.releases_dir}")
    distinct = sorted(set(read_cutoffs(args.cutoffs).cutoffs.values()), key=lambda c: parse_cutoff(c))
    cutoffs = {getattr(c, "text", str(c)): c for c in distinct}
    whens = {k: parse_cutoff(v) for k, v in cutoffs.items()}
    print(f"{len(both)} instances of {len({i.repo for i in both})} projects x {len(cutoffs)} cutoffs; "
          f"without both sources: {', '.join(sorted(skipped)) or 'none'}", file=sys.stderr)
    git_flags = run_stage2(both, args.repos_dir, cutoffs, config=PresenceConfig(similarity=args.similarity, snapshot_source="git")).flags
    rel_flags = run_stage2(both, args.repos_dir, cutoffs, config=PresenceConfig(similarity=args.similarity, snapshot_source="releases",
                                               releases_dir=args.releases_dir,
                                               lag_margin_days=args.lag_margin)).flags
    if args.save_flags is not None:
        from benchchecker_plugin.flags import write_flags

        args.save_flags.mkdir(parents=True, exist_ok=True)
        write_flags(args.save_flags / "git.jsonl", git_flags)
        write_flags(args.save_flags / "releases.jsonl", rel_flags)
    result = compare(git_flags, rel_flags, whens)
    command = "python benchmarks/release_fidelity.py " + " ".join(argv if argv is not None else sys.argv[1:])
    text = markdown(result, command)
    before = None
    if args.lag_margin is not None:  # the same run, read without the correction
        before = compare(git_flags, rel_flags, whens, corrected=False)
        text = ("## With the lag correction (--lag-margin)\n\n" + text
                + "\n## Without the lag correction\n\n" + markdown(before, command))
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    if args.json:
        args.json.write_text(json.dumps({"command": command, "instances": len(both), "cutoffs": result,
                                         "cutoffs_uncorrected": before}, indent=1) + "\n", encoding="utf-8")
    return 0


def bases_only(instances: Sequence[Any], args: argparse.Namespace) -> int:
    """How each instance's gold patch is read against its project's release snapshots: Stage II
    at the latest release (exact matching: the base reading is what is looked at), each flag's
    ``evidence.base_source``."""
    from benchchecker_plugin.stage2 import PresenceConfig, run_stage2

    chosen = [i for i in instances if args.repos is None or i.repo in args.repos]
    config = PresenceConfig(similarity="exact", snapshot_source="releases", releases_dir=args.releases_dir)
    run = run_stage2(chosen, args.releases_dir, {"latest": "2100-01-01"}, config=config, reuse_counts=False)
    per: dict[str, Counter] = defaultdict(Counter)
    rows = []
    for inst, flag in zip(chosen, run.flags, strict=True):
        source = flag.evidence.get("base_source")
        if "error" in flag.evidence or not isinstance(source, Mapping):
            how = "error"
            error = str(flag.evidence.get("error", "no base source"))
            rows.append({"instance_id": inst.instance_id, "how": how, "error": error.split(": ", 1)[-1]})
        else:
            how = source["how"]
            rows.append({"instance_id": inst.instance_id, "how": how, "release": source["release"]})
        per[inst.repo][how] += 1
    kinds = ("applies", "applies-at-offset", "un-applied", "applies-with-fuzz", "pre-image", "error")
    lines = ["| project | instances | " + " | ".join(kinds) + " | read |", "|---" * (len(kinds) + 3) + "|"]
    total: Counter = Counter()
    for repo, c in sorted(per.items()):
        total.update(c)
        n = sum(c.values())
        lines.append(f"| {repo} | {n} | " + " | ".join(str(c[k]) for k in kinds)
                     + f" | {100 * (n - c['error']) / n:.1f}% |")
    n = sum(total.values())
    if n:
        lines.append(f"| all | {n} | " + " | ".join(str(total[k]) for k in kinds)
                     + f" | {100 * (n - total['error']) / n:.1f}% |")
    lines += [f"- {r['instance_id']}: {r['error']}" for r in rows if r["how"] == "error"]
    text = "\n".join(lines) + "\n"
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
