"""Controlled check of TS-Guessing: contaminate a small model with half of a few hundred MMLU
test items, then compare EM / Rouge-L on the contaminated half with the clean half, and the AUC of
the flags' score for telling them apart.

    python benchmarks/tsguessing_contamination.py                  # 200 items, tiny GPT-2
    python benchmarks/tsguessing_contamination.py --items 100 --epochs 150 --batch 25   # reported

The "small model" is a GPT-2 built from config (2 layers, width 64, byte-level BPE with 1,000
tokens trained on the sampled probes' prompts) and trained from scratch on the contaminated half's
full prompts followed by the masked option (AdamW, lr 1e-2), the deliberate-contamination setting
of Deng et al. (who report ~100% EM when the test data is in training). Items are a seeded sample
of usable multichoice probes (prompts of at most ``--max-chars`` characters, to keep training
cheap) across all subjects; halves are split at random with the same seed. The model is asked
through ``benchchecker_plugin.models`` (``hf/<folder>``), exactly as ``benchchecker ts-guess``
does. AUC comes from ``benchchecker_plugin.scoring.roc_auc_score``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("BENCHCHECKER_PROGRESS", "0")
DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mmlu", type=Path, default=DATA / "mmlu")
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--width", type=int, default=64, help="GPT-2 n_embd")
    parser.add_argument("--max-chars", type=int, default=700,
                        help="sample only probes whose prompt has at most this many characters")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    import time

    import torch

    from benchchecker_plugin.tsguessing import controlled_check

    torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        r = controlled_check(args.mmlu, tmp, items=args.items, epochs=args.epochs, batch=args.batch,
                             lr=args.lr, width=args.width, max_chars=args.max_chars, seed=args.seed)
    print(f"{args.items} MMLU multichoice probes, {sum(r.labels)} in training; "
          f"{time.perf_counter() - t0:.0f} s (training + probing)")
    print(f"  contaminated half: EM {r.em_contaminated:.3f}  Rouge-L {r.rouge_contaminated:.3f}  "
          f"flagged {r.flagged_contaminated:.3f}")
    print(f"  clean half:        EM {r.em_clean:.3f}  Rouge-L {r.rouge_clean:.3f}  "
          f"flagged {r.flagged_clean:.3f}")
    print(f"  AUC (Rouge-L score, contaminated vs clean): {r.auc_rouge:.3f}; AUC (EM): {r.auc_em:.3f}")


if __name__ == "__main__":
    main()
