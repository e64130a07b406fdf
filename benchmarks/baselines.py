"""``benchchecker baselines`` speed: one repository's files scored by the default model.

    python benchmarks/baselines.py --repo clones/psf__requests --cutoff 2024-06     # a repos-fetch clone
    python benchmarks/baselines.py --repo clones/psf__requests --cutoff 2024-06 --whole
    python benchmarks/baselines.py                 # offline fallback: the installed `requests` package

Times what the command does after loading the model: reading the files (as of ``--cutoff`` for a
git clone), one forward pass per file (``--max-chars``, default the command's 4000: each file's
first 4000 characters), the four scores per repository. ``--whole`` also times whole files (long
ones in context-length windows; the cost the issue measured, 43 files half done after 17 min).
Model loading is kept out of the timing; the response cache is off. The target (issue 29): at
most 2 minutes for a SWE-bench repository's ~40 files with the default model on 2 CPU cores.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


def _default_repo() -> Path:
    import requests

    return Path(requests.__file__).parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="hf/smollm2-135m")
    parser.add_argument("--repo", type=Path, default=None, help="folder or git clone")
    parser.add_argument("--cutoff", default=None, help="read a git clone as of this date")
    parser.add_argument("--max-chars", type=int, default=4000)
    parser.add_argument("--whole", action="store_true", help="also time whole files")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()

    import torch

    from benchchecker_plugin.baselines import METHODS, head, repo_logit_scores
    from benchchecker_plugin.models import get_model
    from benchchecker_plugin.stage1 import read_sources

    torch.set_num_threads(args.threads)
    repo = args.repo or _default_repo()
    files = [f.text for f in read_sources(repo, cutoff=args.cutoff)]
    model = get_model(args.model, use_cache=False, device=args.device, batch_size=args.batch_size)
    model.token_scores(["def warm_up():\n    return 1\n"])
    caps = [args.max_chars] + ([None] if args.whole else [])
    print(f"{repo.name}: {len(files)} files, {sum(map(len, files)):,} characters; model "
          f"{args.model}, {args.threads} thread(s), {args.device}")
    for cap in caps:
        tokens = sum(len(model.tokenizer(head(t, cap))["input_ids"]) for t in files)
        start = time.perf_counter()
        [result] = repo_logit_scores(model, {repo.name: files}, batch_size=args.batch_size,
                                     max_chars=cap)
        took = time.perf_counter() - start
        scores = ", ".join(f"{m} {result.scores[m]:.4g}" for m in METHODS)
        print(f"  max_chars={cap or 'whole files'}: {tokens:,} tokens in {took:.1f} s "
              f"({tokens / took:,.0f} tokens/s); {scores}")


if __name__ == "__main__":
    main()
