"""Speed goals of the scorer (issue 3), measured against their baselines in the same run.

    python benchmarks/scoring.py            # full run (the scikit-learn loop alone takes ~15 s)
    python benchmarks/scoring.py --quick    # the scikit-learn bootstrap loop timed on 100 resamples
                                            # and scaled to 1000 (said so in the output)

1. AUC and ROC curve on 1e7 scores vs ``sklearn.metrics.roc_auc_score`` / ``roc_curve``
   (goal >= 3x).
2. Bootstrap AUC interval, 1000 resamples of 1e5, vs a loop of scikit-learn on index resamples
   (goal >= 30x).
3. The full leaderboard rate table, 82 submissions x 500 instances x 5 tiers, 10,000 resamples
   (goal <= 5 s); the real SWE-bench experiments when ../shared/data is present.

Numba compilation is kept out: every kernel is called once on small data before timing
(``cache=True`` also makes later processes skip it). Best of ``--repeat`` runs is reported.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numba
import numpy as np
from sklearn import metrics as skm

from benchchecker_plugin.scoring import bootstrap_auc, rate_table, roc_auc_score, roc_curve

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def warm_up():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 1000)
    s = rng.random(1000)
    roc_auc_score(y, s)
    roc_curve(y, s)
    bootstrap_auc(y, s, n_boot=10)
    rate_table({"a": {"i0"}}, ["i0", "i1"], {"i0": True, "i1": False}, {"i0": "x", "i1": "y"},
               n_boot=10)


def auc_figure(repeat):
    rng = np.random.default_rng(1)
    n = 10_000_000
    y = rng.integers(0, 2, n)
    s = rng.normal(size=n) + 0.5 * y
    ours = best(lambda: roc_auc_score(y, s), repeat)
    theirs = best(lambda: skm.roc_auc_score(y, s), repeat)
    assert abs(roc_auc_score(y, s) - skm.roc_auc_score(y, s)) < 1e-12
    ours_c = best(lambda: roc_curve(y, s), repeat)
    theirs_c = best(lambda: skm.roc_curve(y, s), repeat)
    return {"n": n, "auc_ours_s": ours, "auc_sklearn_s": theirs, "auc_speedup": theirs / ours,
            "roc_ours_s": ours_c, "roc_sklearn_s": theirs_c, "roc_speedup": theirs_c / ours_c}


def bootstrap_figure(quick, repeat):
    rng = np.random.default_rng(2)
    n, n_boot = 100_000, 1000
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + 0.5 * y, 3)
    ours = best(lambda: bootstrap_auc(y, s, n_boot=n_boot, seed=0), repeat)
    loops = 100 if quick else n_boot
    t = time.perf_counter()
    for _ in range(loops):
        idx = rng.integers(0, n, n)
        skm.roc_auc_score(y[idx], s[idx])
    theirs = (time.perf_counter() - t) * n_boot / loops
    return {"n": n, "n_boot": n_boot, "ours_s": ours, "sklearn_loop_s": theirs,
            "sklearn_loop_measured_resamples": loops, "speedup": theirs / ours}


def leaderboard_figure(repeat):
    from benchchecker_plugin.leaderboard import load_instance_ids, load_submissions, load_tiers

    composite = DATA / "swebench_verified" / "swebench_verified_composite.jsonl"
    if (DATA / "swebench_experiments").is_dir() and composite.is_file():
        subs = load_submissions(DATA / "swebench_experiments")
        resolved = {x.name: x.resolved for x in subs}
        ids = load_instance_ids(composite)
        tiers = load_tiers(composite)
        source = "real swebench_experiments"
    else:
        rng = np.random.default_rng(3)
        ids = [f"i{k}" for k in range(500)]
        tiers = {i: ["<15 min fix", "15 min - 1 hour", "1-4 hours", ">4 hours"][k % 4]
                 for k, i in enumerate(ids)}
        resolved = {f"s{k}": {i for i in ids if rng.random() < 0.4} for k in range(82)}
        source = "synthetic"
    verdicts = {i: (k % 3 == 0) if k % 17 else None for k, i in enumerate(ids)}
    secs = best(lambda: rate_table(resolved, ids, verdicts, tiers, n_boot=10_000, seed=0), repeat)
    return {"source": source, "submissions": len(resolved), "instances": len(ids),
            "n_boot": 10_000, "seconds": secs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    warm_up()
    print(f"numba threads: {numba.get_num_threads()}; compile time excluded (warm-up before timing)")
    a = auc_figure(args.repeat)
    print(f"1. AUC on {a['n']:.0e} scores: ours {a['auc_ours_s']:.3f} s, sklearn.roc_auc_score "
          f"{a['auc_sklearn_s']:.3f} s -> {a['auc_speedup']:.1f}x (goal >= 3x); ROC curve: ours "
          f"{a['roc_ours_s']:.3f} s, sklearn.roc_curve {a['roc_sklearn_s']:.3f} s -> "
          f"{a['roc_speedup']:.1f}x")
    b = bootstrap_figure(args.quick, args.repeat)
    note = "" if b["sklearn_loop_measured_resamples"] == b["n_boot"] else \
        f" (loop timed on {b['sklearn_loop_measured_resamples']} resamples, scaled)"
    print(f"2. Bootstrap {b['n_boot']} x {b['n']:.0e}: ours {b['ours_s']:.3f} s, scikit-learn loop "
          f"{b['sklearn_loop_s']:.2f} s{note} -> {b['speedup']:.0f}x (goal >= 30x)")
    c = leaderboard_figure(args.repeat)
    print(f"3. Leaderboard table {c['submissions']} x {c['instances']} ({c['source']}), "
          f"{c['n_boot']} resamples per tier: {c['seconds']:.2f} s (goal <= 5 s)")
    print(json.dumps({"auc": a, "bootstrap": b, "leaderboard": c}))


if __name__ == "__main__":
    main()
