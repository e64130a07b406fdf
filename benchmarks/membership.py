"""The controlled membership evaluation in full, plus Stage I on the real pretrained SmolLM2-135M.

    python benchmarks/membership.py --out results/membership            # full controlled run
    python benchmarks/membership.py --out /tmp/m --quick                 # the CI-sized run
    python benchmarks/membership.py --out /tmp/m --skip-controlled \\
        --pretrained hf/smollm2-135m --nonmember-dir /tmp/new/smolagents --nonmember-dir ...

Controlled: see ``benchchecker_plugin.membership._evaluate`` (train a GPT-2 on member packages,
score members and non-members under strong and weak memorisation; writes membership.json, whose
``timings`` give the seconds of every phase). The full run took ~4 min on the shared 2-core machine
(load average ~6.5), ~88% of it training.

Pretrained: members are long-established popular packages installed here (first released years
before the model); non-members are folders you pass with ``--nonmember-dir`` — source trees of
packages first published after the model's release (e.g. wheels fetched with ``pip download`` into
a temporary folder and unzipped; never into the project). Stage I (and, the model being local, the
four logit baselines) score every repository; results go to OUT/pretrained.json.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path

import torch

from benchchecker_plugin.flags import write_flags
from benchchecker_plugin.membership import (
    MEMBERSHIP_FULL,
    MEMBERSHIP_QUICK,
    folder_repo,
    package_repo,
    run_membership,
    score_repos,
)
from benchchecker_plugin.stage1 import build_queries

OLD_PACKAGES = ("requests", "click", "jinja2", "yaml", "dateutil", "urllib3", "tqdm", "attr")


def pretrained(args: argparse.Namespace) -> dict:
    from benchchecker_plugin.models import get_model

    members = [r for r in (package_repo(p, args.repo_bytes) for p in OLD_PACKAGES) if r][:args.n_repos]
    nonmembers = [r for r in (folder_repo(Path(d).name, Path(d), args.repo_bytes)
                              for d in args.nonmember_dir) if r]
    model = get_model(args.pretrained, batch_size=args.batch_size, cache_dir=args.cache_dir,
                      dry_run=args.cached_only)
    t0 = time.perf_counter()
    queries = {r.name: build_queries(list(r.files), n_queries=args.n_queries) for r in members + nonmembers}
    run, flags = score_repos(model, members, nonmembers, queries=queries, n_samples=args.samples,
                             regime="pretrained", baselines=not args.no_baselines)
    if args.cached_only:
        print(model.summary())  # every answer from the cache: "N model calls (N cached)"
    per_repo = {}
    for f in flags:
        per_repo.setdefault(f.instance_id, {})[f.method] = {"score": f.score, **dict(f.evidence)} \
            if f.method == "benchchecker.stage1" else f.score
    doc = {"model": args.pretrained, "members": [r.name for r in members],
           "nonmembers": [r.name for r in nonmembers], "run": run, "per_repo": per_repo,
           "seconds": round(time.perf_counter() - t0, 1)}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "pretrained.json").write_text(json.dumps(doc, indent=2, default=str) + "\n")
    write_flags(out / "pretrained_flags.jsonl", flags)
    return doc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--skip-controlled", action="store_true")
    ap.add_argument("--pretrained", default=None, help="model spec, e.g. hf/smollm2-135m")
    ap.add_argument("--nonmember-dir", action="append", default=[])
    ap.add_argument("--n-repos", type=int, default=5)
    ap.add_argument("--repo-bytes", type=int, default=20000)
    ap.add_argument("--n-queries", type=int, default=30)
    ap.add_argument("--samples", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--cache-dir", default=None)
    ap.add_argument("--cached-only", action="store_true",
                    help="answer only from --cache-dir (a dry-run model: nothing loaded or called)")
    ap.add_argument("--no-baselines", action="store_true",
                    help="Stage I only (token scoring of long files is slow on a shared CPU)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    if not args.skip_controlled:
        doc = run_membership(args.out, config=MEMBERSHIP_QUICK if args.quick else MEMBERSHIP_FULL)
        for run in doc["runs"]:
            print(run["regime"], {k: (v["auc"], v["tpr"], v["fpr"], v["tpr_at_5fpr"])
                                  for k, v in run["methods"].items()})
        print("training:", doc["setup"]["training"])
        print("seconds per phase:", {k: v for k, v in doc["timings"].items() if k != "mining_per_repo"})
    if args.pretrained:
        doc = pretrained(args)
        print(json.dumps(doc["run"], indent=1))
        for name, d in doc["per_repo"].items():
            s1 = d["benchchecker.stage1"]
            print(f"{name:<16} stage1 {s1['hits']}/{s1['queries']} p={10 ** -s1['score']:.3g} "
                  f"loss={d.get('benchchecker.baseline.loss', float('nan')):.3f} "
                  f"mink++={d.get('benchchecker.baseline.min_k_pp', float('nan')):.3f}")


if __name__ == "__main__":
    main()
