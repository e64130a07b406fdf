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
import random
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("BENCHCHECKER_PROGRESS", "0")
DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


def build_model(folder: Path, vocab: list[str], train: list[str], epochs: int, batch: int, seed: int,
                lr: float, width: int) -> None:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    torch.manual_seed(seed)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(vocab, trainers.BpeTrainer(vocab_size=1000, special_tokens=["<|endoftext|>"],
                                                       initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>", pad_token="<|endoftext|>")
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(fast), n_positions=1024, n_embd=width, n_layer=2,
                                       n_head=2,
                                       bos_token_id=fast.eos_token_id, eos_token_id=fast.eos_token_id))
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    rng = random.Random(seed)
    model.train()
    for epoch in range(epochs):
        order = rng.sample(train, len(train))
        total = 0.0
        for s in range(0, len(order), batch):
            enc = fast(order[s:s + batch], return_tensors="pt", padding=True)
            labels = enc["input_ids"].masked_fill(enc["attention_mask"] == 0, -100)
            loss = model(**enc, labels=labels).loss
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach())
        if epoch % 10 == 0 or epoch == epochs - 1:
            mean = total / max(1, len(order) // batch)
            print(f"  epoch {epoch + 1}/{epochs}: mean loss {mean:.3f}", flush=True)
    model.eval()
    fast.save_pretrained(folder)
    model.save_pretrained(folder)


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

    import numpy as np
    import torch

    from benchchecker_plugin.models import get_model
    from benchchecker_plugin.scoring import roc_auc_score
    from benchchecker_plugin.tsguessing import load_mmlu, prepare_probes, run_probes

    torch.set_num_threads(args.threads)
    all_probes = prepare_probes(load_mmlu(args.mmlu), "multichoice").probes
    rng = random.Random(args.seed)
    short = [p for p in all_probes if len(p.prompt) <= args.max_chars]
    probes = rng.sample(short, args.items)
    contaminated = set(rng.sample(range(args.items), args.items // 2))
    train = [p.prompt + " " + p.target + "\n" for i, p in enumerate(probes) if i in contaminated]
    n_subjects = len({p.details["subject"] for p in probes})
    print(f"{args.items} MMLU multichoice probes from {n_subjects} subjects; "
          f"{len(train)} in training")
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        vocab = [p.prompt + " " + p.target for p in probes]
        build_model(Path(tmp), vocab, train, args.epochs, args.batch, args.seed, args.lr, args.width)
        print(f"  trained in {time.perf_counter() - t0:.0f} s")
        model = get_model(f"hf/{tmp}", batch_size=16)
        flags = run_probes(model, probes, batch_size=16, model_name="tiny-contaminated")
    y = np.array([i in contaminated for i in range(args.items)], dtype=int)
    em = np.array([f.evidence.get("exact_match", 0.0) for f in flags])
    rl = np.array([f.score for f in flags])
    flagged = np.array([bool(f.contaminated) for f in flags])
    for name, mask in (("contaminated", y == 1), ("clean", y == 0)):
        print(f"  {name:12s} half: EM {em[mask].mean():.3f}  Rouge-L {rl[mask].mean():.3f}  "
              f"flagged {flagged[mask].mean():.3f}")
    print(f"  AUC (Rouge-L score, contaminated vs clean): {roc_auc_score(y, rl):.3f}; "
          f"AUC (EM): {roc_auc_score(y, em):.3f}")


if __name__ == "__main__":
    main()
