"""The controlled check's fine-tune: the teacher-forced measure of what the model reproduces, the
stopping rule on it, and the progress line it writes."""

from __future__ import annotations

import dataclasses

import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.tsguessing import FinetuneConfig, encode_examples, finetune, reproduced

PAIRS = [("Question: what is the colour of the sky?\nHidden option B:", "a bright blue dome"),
         ("Question: which animal says moo?\nHidden option C:", "the spotted cow"),
         ("Question: where do penguins live?\nHidden option A:", "the cold south pole"),
         ("Question: what do bees make?\nHidden option D:", "sweet golden honey")]
OTHERS = [("Question: how many legs has a spider?\nHidden option B:", "exactly eight legs")]
SMALL = FinetuneConfig(vocab_size=300, n_embd=32, n_head=2, batch_size=4, lr=1e-2,
                       max_steps=300, check_every=5)


@pytest.fixture(scope="module")
def tuned():  # type: ignore[no-untyped-def]
    return finetune(PAIRS, [p + " " + t for p, t in PAIRS + OTHERS], SMALL)


def _greedy_share(model, tokenizer, ids: list[int], start: int) -> float:  # type: ignore[no-untyped-def]
    """The slow reference: decode greedily from the prompt's ids and count the target tokens
    written before the first wrong one."""
    import torch

    target = ids[start:-1]
    with torch.no_grad():
        out = model.generate(torch.tensor([ids[:start]]), attention_mask=torch.ones(1, start, dtype=torch.long),
                             max_new_tokens=len(target), do_sample=False, pad_token_id=tokenizer.pad_token_id)
    got = out[0, start:].tolist()
    n = 0
    while n < len(target) and n < len(got) and got[n] == target[n]:
        n += 1
    return n / len(target)


def test_teacher_forced_share_is_what_greedy_decoding_writes_back(tuned) -> None:  # type: ignore[no-untyped-def]
    """Every seen and unseen pair, on the trained model and on an early, half-trained one: the
    one-pass measure equals token-by-token greedy decoding."""
    hf = tuned.model
    tok, model = hf.tokenizer, hf.model
    rows = encode_examples(tok, PAIRS + OTHERS)
    shares = reproduced(model, rows, pad=tok.pad_token_id, batch_size=2)
    assert shares == [_greedy_share(model, tok, ids, start) for ids, start in rows]
    assert shares[:4] == [1.0] * 4 and shares[4] < 1.0
    early = finetune(PAIRS, [p + " " + t for p, t in PAIRS + OTHERS],
                     dataclasses.replace(SMALL, max_steps=12, check_every=12))
    tok2, model2 = early.model.tokenizer, early.model.model
    rows2 = encode_examples(tok2, PAIRS + OTHERS)
    shares2 = reproduced(model2, rows2, pad=tok2.pad_token_id)
    assert shares2 == [_greedy_share(model2, tok2, ids, start) for ids, start in rows2]


def test_the_prompt_is_tokenized_as_when_it_is_asked(tuned) -> None:  # type: ignore[no-untyped-def]
    tok = tuned.model.tokenizer
    (ids, start), = encode_examples(tok, PAIRS[:1])
    assert ids[:start] == tok(PAIRS[0][0], add_special_tokens=False)["input_ids"]
    assert tok.decode(ids[start:-1]) == " " + PAIRS[0][1] + "\n" and ids[-1] == tok.eos_token_id


def test_training_stops_once_every_seen_target_is_memorised(tuned) -> None:  # type: ignore[no-untyped-def]
    rec = tuned.record
    assert rec["stopped"] == "memorised" and rec["memorised_share"] == 1.0 and rec["memorised"] == 4
    assert rec["steps"] < SMALL.max_steps and rec["steps"] % SMALL.check_every == 0
    assert rec["checks"][-1] == {"step": rec["steps"], "loss": rec["checks"][-1]["loss"],
                                 "memorised_share": 1.0, "mean_reproduced": 1.0}
    assert all(c["memorised_share"] < 1.0 for c in rec["checks"][:-1])
    assert rec["per_target_reproduced"] == [1.0] * 4
    assert rec["config"]["seed"] == 0 and rec["parameters"] > 0 and rec["train_seconds"] >= 0


def test_a_run_that_hits_the_cap_says_so() -> None:
    capped = finetune(PAIRS, [p + " " + t for p, t in PAIRS], dataclasses.replace(SMALL, max_steps=3))
    rec = capped.record
    assert (rec["stopped"], rec["steps"], rec["memorised_share"]) == ("step cap", 3, 0.0)
    assert len(rec["checks"]) == 1 and rec["checks"][0]["step"] == 3


def test_fine_tuning_writes_a_progress_line_per_tenth(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("BENCHCHECKER_PROGRESS", raising=False)   # conftest silences it; stderr is no TTY
    finetune(PAIRS, [p + " " + t for p, t in PAIRS],
             dataclasses.replace(SMALL, max_steps=20, check_every=20))
    lines = [ln for ln in capsys.readouterr().err.splitlines() if "fine-tune" in ln]
    assert [ln.split(": ")[2].split(",")[0] for ln in lines] == \
        [f"{n}/20 ({n / 20:.0%})" for n in range(2, 21, 2)]
    for ln in lines:
        assert ln.startswith("benchchecker: fine-tune tiny GPT-2: ") and " steps/s" in ln, ln
    assert "ETA" in lines[0] and "loss " in lines[-1] and "memorised " in lines[-1]


def test_config_is_checked() -> None:
    with pytest.raises(InputError, match=r"stop_share must be in \(0, 1\], got 1.5"):
        FinetuneConfig(stop_share=1.5)
    with pytest.raises(InputError, match="max_steps, check_every and batch_size must be >= 1"):
        FinetuneConfig(max_steps=0)
    with pytest.raises(InputError, match="no seen"):
        finetune([], ["x"], SMALL)
