"""Fixtures of the harness-wrapper tests: real local data slices, a tiny local causal LM, flags."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from benchchecker_plugin.flags import ContaminationFlag, write_flags

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
MMLU_SUBJECT = "abstract_algebra"
N_DOCS = 6

CHAT_TEMPLATE = (
    "{% for message in messages %}{{ message['role'] }}: {{ message['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}assistant:{% endif %}"
)


def needs_data(*parts: str) -> Path:
    path = DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not present: {path}")
    return path


@pytest.fixture(scope="session")
def mmlu_rows() -> list[dict[str, str]]:
    """The first rows of a real MMLU test file (read in place from the shared data)."""
    path = needs_data("mmlu", "test", f"{MMLU_SUBJECT}_test.csv")
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return rows[:N_DOCS]


def build_tiny_lm(folder: Path, texts: list[str]) -> Path:
    """A 2-layer GPT-2 built from config, with a byte-level BPE tokenizer trained on ``texts``
    (and a plain chat template), saved as a Hugging Face model folder."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    torch.manual_seed(0)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(list(texts) + ["user: assistant: Answer:"], trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>",
                                   bos_token="<|endoftext|>", unk_token="<|endoftext|>",
                                   pad_token="<|endoftext|>")
    fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(folder)
    config = GPT2Config(vocab_size=len(fast), n_positions=512, n_embd=32, n_layer=2, n_head=2,
                        bos_token_id=fast.eos_token_id, eos_token_id=fast.eos_token_id)
    GPT2LMHeadModel(config).save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_lm(tmp_path_factory: pytest.TempPathFactory, mmlu_rows: list[dict[str, str]]) -> Path:
    """The tiny GPT-2 model folder (session-wide)."""
    return build_tiny_lm(tmp_path_factory.mktemp("tiny_gpt2"),
                         [" ".join(r.values()) for r in mmlu_rows])


def _make_flags(path: Path, benchmark: str, verdicts: dict[str, bool | None],
                model: str = "*") -> Path:
    """Write one flags file: ``verdicts`` maps instance id -> contaminated (True/False/None)."""
    flags = [ContaminationFlag(benchmark=benchmark, instance_id=iid, model=model,
                               method="test.fixture", contaminated=c,
                               score=1.0 if c else 0.0)
             for iid, c in verdicts.items()]
    return write_flags(path, flags)


@pytest.fixture
def make_flags():
    """``make_flags(path, benchmark, {instance_id: True/False/None}, model="*") -> path``."""
    return _make_flags


@pytest.fixture
def read_jsonl():
    def read(path: Path) -> list[dict]:
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
                if line.strip()]
    return read


@pytest.fixture(scope="session")
def mmlu_csv(tmp_path_factory: pytest.TempPathFactory, mmlu_rows: list[dict[str, str]]) -> Path:
    """The MMLU rows as a local CSV with ``subject`` and ``benchmark`` columns (what the lm-eval /
    Inspect tasks of the tests read)."""
    path = tmp_path_factory.mktemp("mmlu_slice") / "abstract_algebra.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=[*mmlu_rows[0], "subject", "benchmark"])
        writer.writeheader()
        for row in mmlu_rows:
            writer.writerow({**row, "subject": MMLU_SUBJECT, "benchmark": "mmlu"})
    return path


def mmlu_id(i: int) -> str:
    return f"{MMLU_SUBJECT}/{i}"


@pytest.fixture
def cli():
    """Invoke ``benchchecker ARGS`` in-process; returns click's Result (stderr kept apart)."""
    from click.testing import CliRunner

    from benchchecker_plugin.cli import main

    def invoke(*args: str):
        return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    return invoke


@pytest.fixture
def error_line():
    """The one ``Error: ...`` line a failed command printed on stderr."""
    def get(result) -> str:
        lines = [ln for ln in result.stderr.replace("\r", "\n").splitlines()
                 if ln.startswith("Error:")]
        assert len(lines) == 1, result.stderr
        assert result.exit_code != 0
        return lines[0]
    return get
