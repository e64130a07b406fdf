"""Stage II for every published model cutoff in one run, against one run per model.

    python benchmarks/stage2_cutoffs.py --repos-dir CLONES            # every model x every instance
    python benchmarks/stage2_cutoffs.py --repos-dir CLONES --baseline-models 2 --limit 40

``CLONES`` holds full clones of SWE-bench Verified repositories as ``owner__name/``; the instances
are the SWE-bench Verified ones of those repositories, the cutoffs the published ones of
``model_cutoffs/model_cutoffs.csv`` (models without a published cutoff are left out), both from
``--data-dir`` (default: ``../shared/data`` next to the project).

Times ``run_stage2`` over every model in one run against the named baseline, *one ``run_stage2``
run per model*. One run per model over ~200 instances takes minutes, so the baseline is run for
a random sample of ``--baseline-models`` models only and its mean time per model extrapolated to
all models (printed as such). Each run gets its own similarity (cold line-embedding cache); the
embedding model is loaded before any timing.

The grid's flags for the sampled models are checked against the baseline's: equal except timings
and creation time. With the default ``difflib+minilm`` a line's embedding depends (by ~1e-7) on
the batch it was first computed in, so two runs that batch lines differently can differ in a
rounded similarity's last digit, or, at a near tie, in which line wins. So each flag that differs
is computed once more by a one-model ``run_stage2`` with the grid's similarity (the same line
embeddings): equal to the grid's flag, the difference came from the embedding batches, not from
the grid ("same with the grid's line embeddings"); anything else is counted as different and
makes the benchmark exit 1. With ``--similarity difflib`` every flag must be identical outright.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import time
import warnings
from pathlib import Path
from typing import Any


def _strip(flag: Any) -> dict:  # noqa: ANN401
    d = flag.to_dict()
    d.pop("created_at", None)
    d["evidence"].pop("timings_s", None)
    return d


def _differences(a: Any, b: Any, where: str = "") -> list[str]:  # noqa: ANN401
    """Where two flag dicts differ (paths into the dicts, values shortened)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in _differences(a.get(k), b.get(k), f"{where}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for n, (x, y) in enumerate(zip(a, b)) for d in _differences(x, y, f"{where}[{n}]")]
    return [] if a == b else [f"{where}: grid {str(a)[:120]!r} vs baseline {str(b)[:120]!r}"]


def main() -> None:
    root = Path(__file__).resolve().parents[1]
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repos-dir", type=Path, required=True, help="folder of full clones, owner__name/")
    ap.add_argument("--data-dir", type=Path, default=root / ".." / "shared" / "data")
    ap.add_argument("--baseline-models", type=int, default=4, help="models timed one run each (random)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--limit", type=int, default=None, help="only the first N instances")
    ap.add_argument("--similarity", default="difflib+minilm", choices=["difflib+minilm", "difflib", "exact"])
    ap.add_argument("--threads", type=int, default=1, help="torch threads")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    import torch

    torch.set_num_threads(args.threads)
    from benchchecker_plugin.cutoffs_file import read_cutoffs
    from benchchecker_plugin.errors import RepositoryError
    from benchchecker_plugin.instances import load_instances
    from benchchecker_plugin.repos import find_repo
    from benchchecker_plugin.stage2 import (
        EmbeddingSimilarity,
        LexicalSimilarity,
        PresenceConfig,
        RerankSimilarity,
        run_stage2,
    )

    table = read_cutoffs(args.data_dir / "model_cutoffs" / "model_cutoffs.csv")
    cutoffs = dict(table.cutoffs)
    instances = []
    for inst in load_instances(str(args.data_dir / "swebench_verified" / "swebench_verified_composite.jsonl")):
        try:
            find_repo(args.repos_dir, inst)
        except RepositoryError:
            continue
        instances.append(inst)
    instances = instances[: args.limit] if args.limit else instances
    if not instances:
        sys.exit(f"{args.repos_dir}: no clone of any SWE-bench Verified repository")
    repos = sorted({i.repo for i in instances})
    print(f"{len(cutoffs) + len(table.skipped)} models in the table, {len(cutoffs)} with a published "
          f"cutoff ({len({p.text for p in cutoffs.values()})} distinct), {len(table.skipped)} without "
          f"(left out); {len(instances)} instances of {len(repos)} repositories")

    def fresh_config() -> PresenceConfig:
        if args.similarity == "difflib+minilm":
            return PresenceConfig(similarity=RerankSimilarity(LexicalSimilarity(), EmbeddingSimilarity()))
        return PresenceConfig(similarity=args.similarity)

    EmbeddingSimilarity().embed(["warm up"])  # the model load is kept out of every timing
    grid_config = fresh_config()
    t0 = time.perf_counter()
    run = run_stage2(instances, args.repos_dir, cutoffs, config=grid_config)
    grid_s = time.perf_counter() - t0
    failed = sum(1 for f in run.flags if "error" in f.evidence)
    print(f"grid: {len(run.flags)} flags ({len(instances)} instances x {run.models} models) in {grid_s:.0f} s; "
          f"{run.snapshots} distinct snapshots (vs {len(repos) * run.models} repository x model pairs), "
          f"blocks: {run.blocks_computed} matched, {run.blocks_reused} reused whole, {run.alignments_reused} "
          f"located again at a known place; {failed} failed flags")

    sample = random.Random(args.seed).sample(list(cutoffs), min(args.baseline_models, len(cutoffs)))
    grid_of = {(f.instance_id, f.model): f for f in run.flags}
    times, same, noise, different = [], 0, 0, []
    by_id = {i.instance_id: i for i in instances}
    for model in sample:
        t0 = time.perf_counter()
        flags = list(run_stage2(instances, args.repos_dir, {model: cutoffs[model]}, config=fresh_config(), reuse_counts=False).flags)
        times.append(time.perf_counter() - t0)
        print(f"baseline, one run for {model} (cutoff {cutoffs[model].text}): {times[-1]:.0f} s")
        for f in flags:
            a, b = _strip(grid_of[(f.instance_id, model)]), _strip(f)
            if a == b:
                same += 1
                continue
            again = list(run_stage2([by_id[f.instance_id]], args.repos_dir, {model: cutoffs[model]}, config=grid_config, reuse_counts=False).flags)[0]
            if _strip(again) == a:
                noise += 1
                print(f"  {f.instance_id} / {model}: same with the grid's line embeddings; the two runs "
                      f"differ at {(_differences(a, b) or ['?'])[0]}")
            else:
                different.append((f.instance_id, model))
                for line in _differences(a, b)[:6]:
                    print(f"  {f.instance_id} / {model} differs at {line}")
    per_model = sum(times) / len(times)
    total = per_model * len(cutoffs)
    print(f"flags of the {len(sample)} sampled models: {same} identical, {noise} same with the grid's line "
          f"embeddings, {len(different)} different{': ' + str(different[:5]) if different else ''}")
    print(f"baseline (one run per model): {per_model:.0f} s per model, measured on {len(sample)} random "
          f"models; EXTRAPOLATED to all {len(cutoffs)} models: {total:.0f} s (not measured)")
    print(f"grid (all {len(cutoffs)} models in one run, measured): {grid_s:.0f} s")
    print(f"speed-up of the grid vs one run per model (extrapolated baseline): {total / grid_s:.1f}x")
    print(f"peak memory (max RSS of this process): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6:.1f} GB")
    if different:
        sys.exit(1)


if __name__ == "__main__":
    main()
