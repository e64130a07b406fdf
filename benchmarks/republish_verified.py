"""Republish the SWE-bench Verified leaderboard without the instances Stage II flags, beside the
paper's findings: ``benchchecker republish`` with Verified's inputs from the shared data.

    python benchmarks/republish_verified.py --repos-dir CLONES            # what is cloned there
    python benchmarks/republish_verified.py --repos-dir CLONES --fetch    # clone the missing first
    python benchmarks/republish_verified.py --repos-dir CLONES --releases-dir RELEASES  # + release snapshots
    python benchmarks/republish_verified.py --rebuild published/swebench-verified --out DIR

The inputs, all under ``--data-dir`` (default ``../shared/data`` next to the project): the 500
instances with their difficulty tiers (``swebench_verified/swebench_verified_composite.jsonl``),
the submissions (``swebench_experiments/``), the model of each submission with its training cutoff
(``model_cutoffs/submission_models.csv``), the cutoffs' sources (``model_cutoffs/model_cutoffs.csv``)
and the official board (``swebench_leaderboard/leaderboards.json``). Everything else is
``benchchecker_plugin.republish`` (``benchchecker republish --help`` says what each option does);
this script only parses its arguments and makes that one call, writing ``--out`` (default
``published/swebench-verified``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from benchchecker_plugin.republish import BoardSource, RepublishConfig, rebuild, republish
from benchchecker_plugin.rescore_options import RescoreOptions

ROOT = Path(__file__).resolve().parents[1]
DATA = ("SWE-bench Verified (princeton-nlp, 500 instances), swebench_experiments "
        "(SWE-bench/experiments), leaderboards.json of 2025-12-10, model_cutoffs/ (this "
        "project's table)")
#: what the plausible-interval floor (--band-floor, 2023-07-24) rests on, as the first bundle states it
FLOOR_BASIS = ("the latest pull-request creation date among the 130 instances with full fields, a "
               "stated bound")


def _args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared" / "data",
                   help="folder holding swebench_verified/, swebench_experiments/, model_cutoffs/")
    p.add_argument("--repos-dir", type=Path, default=None, help="full clones as owner__name/")
    p.add_argument("--fetch", action="store_true", help="clone the missing repositories first")
    p.add_argument("--releases-dir", type=Path, default=None, metavar="DIR",
                   help="release snapshots for the projects not cloned under --repos-dir")
    p.add_argument("--lag-margin", type=float, default=None, metavar="DAYS")
    p.add_argument("--source", default=None, help="URL template for --fetch")
    p.add_argument("--out", type=Path, default=ROOT / "published" / "swebench-verified")
    p.add_argument("--resamples", type=int, default=RescoreOptions.n_boot)
    p.add_argument("--seed", type=int, default=RescoreOptions.seed)
    p.add_argument("--min-clean", type=int, default=RescoreOptions.min_clean)
    p.add_argument("--min-resolved-clean", type=int, default=RescoreOptions.min_resolved_clean)
    p.add_argument("--stage2-cache", type=Path, default=None, metavar="DIR")
    p.add_argument("--cached-only", action="store_true")
    p.add_argument("--extra-dates", nargs="*", default=(), metavar="YYYY-MM-DD")
    p.add_argument("--no-own-fix", action="store_true")
    p.add_argument("--repos", nargs="*", default=None, help="only these repositories (owner/name)")
    p.add_argument("--submissions", nargs="*", default=None, help="only these submissions")
    p.add_argument("--from-flags", type=Path, default=None, metavar="DIR",
                   help="take the verdicts from an earlier bundle (its flags.csv, cutoffs.csv)")
    p.add_argument("--release-repos", nargs="*", default=(), metavar="OWNER/NAME")
    p.add_argument("--rebuild", type=Path, default=None, metavar="DIR",
                   help="rebuild every table and page into --out from the bundle in DIR alone")
    p.add_argument("--mde-sims", type=int, default=100)
    p.add_argument("--mde-resamples", type=int, default=200)
    p.add_argument("--band-floor", default="2023-07-24", metavar="YYYY-MM-DD")
    return p.parse_args(argv)


def _command(argv: Sequence[str]) -> str:
    return "python benchmarks/republish_verified.py " + " ".join(
        a if not a.startswith("/") else "<" + Path(a).name + ">" for a in argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = _args(argv)
    if args.rebuild is not None:
        paths = rebuild(args.rebuild, args.out)
        print(f"rebuilt {', '.join(dict.fromkeys(p.name for p in paths))} from {args.rebuild}",
              file=sys.stderr)
        return 0
    if args.repos_dir is None and args.from_flags is None:
        raise SystemExit("--repos-dir is required (or --from-flags / --rebuild)")
    data = args.data_dir
    board = BoardSource("verified", data / "swebench_experiments",
                        instances=data / "swebench_verified" / "swebench_verified_composite.jsonl",
                        benchmark="swe-bench-verified",
                        official=data / "swebench_leaderboard" / "leaderboards.json")
    config = RepublishConfig(
        boards=(board,), model_map=data / "model_cutoffs" / "submission_models.csv",
        cutoff_sources=data / "model_cutoffs" / "model_cutoffs.csv",
        repos_dir=None if args.from_flags else args.repos_dir, releases_dir=args.releases_dir,
        lag_margin=args.lag_margin, stage2_cache=args.stage2_cache, cached_only=args.cached_only,
        extra_dates=tuple(args.extra_dates or ()), own_fix=not args.no_own_fix, fetch=args.fetch,
        fetch_source=args.source, from_bundle=args.from_flags, release_repos=tuple(args.release_repos),
        repos=tuple(args.repos) if args.repos is not None else None,
        submissions=tuple(args.submissions) if args.submissions is not None else None,
        resamples=args.resamples, seed=args.seed, min_clean=args.min_clean,
        min_resolved_clean=args.min_resolved_clean, mde_sims=args.mde_sims,
        mde_resamples=args.mde_resamples, band_floor=args.band_floor,
        band_floor_basis=FLOOR_BASIS, title="SWE-bench Verified", data=DATA,
        command=_command(list(argv) if argv is not None else sys.argv[1:]))
    bundle = republish(config, args.out, say=lambda line: print(line, file=sys.stderr))
    print(f"{bundle.facts.stage2}; wrote the bundle and its page into {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    from benchchecker_plugin.errors import BenchcheckerError
    from benchchecker_plugin.warnings_text import warnings_in_words

    with warnings_in_words():   # our warnings as one line in words, as the commands print them
        try:
            raise SystemExit(main())
        except BenchcheckerError as exc:   # one line naming the bad input, as the commands say it
            raise SystemExit(f"error: {exc}") from None
