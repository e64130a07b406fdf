"""Test helper: a tiny GPT-2 (built from config, byte-level BPE trained on the texts), optionally
trained to memorise some texts, saved as a Hugging Face folder; and a TextModel over it.

Imported by path from the TS-Guessing, task and CLI tests (``load_helper()`` below).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Sequence

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"


def build_tiny_lm(folder: Path, vocab_texts: Sequence[str], memorise: Sequence[str] = (),
                  steps: int = 150, seed: int = 0) -> Path:
    """Save a 2-layer GPT-2 + tokenizer in ``folder``; train it on ``memorise`` (greedy decoding then
    reproduces those texts' continuations)."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    torch.manual_seed(seed)
    torch.set_num_threads(2)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=600, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(list(vocab_texts), trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>", bos_token="<|endoftext|>",
                                   unk_token="<|endoftext|>", pad_token="<|endoftext|>")
    config = GPT2Config(vocab_size=len(fast), n_positions=1024, n_embd=64, n_layer=2, n_head=2,
                        bos_token_id=fast.eos_token_id, eos_token_id=fast.eos_token_id)
    model = GPT2LMHeadModel(config)
    if memorise:
        opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
        batch = fast(list(memorise), return_tensors="pt", padding=True)
        labels = batch["input_ids"].masked_fill(batch["attention_mask"] == 0, -100)
        model.train()
        for _ in range(steps):
            loss = model(**batch, labels=labels).loss
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
    fast.save_pretrained(folder)
    model.save_pretrained(folder)
    return folder


class GreedyHF:
    """Stand-in TextModel over a local folder (batch of one, greedy, stops at ``params.stop``),
    used only while ``benchchecker_plugin.models.get_model`` is not available."""

    def __init__(self, folder: Path) -> None:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.spec = f"hf/{folder}"
        self.tok = AutoTokenizer.from_pretrained(folder)
        self.model = AutoModelForCausalLM.from_pretrained(folder).eval()

    def generate(self, prompts, params):  # type: ignore[no-untyped-def]
        import torch

        from benchchecker_plugin.models import Completion

        out = []
        for prompt in prompts:
            ids = self.tok(prompt, return_tensors="pt")
            with torch.no_grad():
                gen = self.model.generate(**ids, max_new_tokens=params.max_tokens, do_sample=False,
                                          pad_token_id=self.tok.eos_token_id)
            text = self.tok.decode(gen[0, ids["input_ids"].shape[1]:], skip_special_tokens=True)
            for s in params.stop:
                text = text.split(s)[0]
            out.append(Completion(text))
        return out


def text_model(folder: Path):  # type: ignore[no-untyped-def]
    """``get_model("hf/<folder>")`` when the model layer has it, else :class:`GreedyHF`."""
    from benchchecker_plugin import models

    if hasattr(models, "get_model"):
        return models.get_model(f"hf/{folder}")
    return GreedyHF(folder)


def load_helper():  # type: ignore[no-untyped-def]
    """This module, importable from any test folder."""
    name = "tsguessing_tiny_lm"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]
