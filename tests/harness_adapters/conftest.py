"""Fixtures of the harness-wrapper tests: real local data slices, a tiny local causal LM, flags."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from benchchecker_plugin.flags import ContaminationFlag, write_flags
from tests.helpers import require_shared_data

MMLU_SUBJECT = "abstract_algebra"
N_DOCS = 6

CHAT_TEMPLATE = (
    "{% for message in messages %}{{ message['role'] }}: {{ message['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}assistant:{% endif %}"
)


@pytest.fixture(scope="session")
def mmlu_rows() -> list[dict[str, str]]:
    """The first rows of a real MMLU test file (read in place from the shared data)."""
    path = require_shared_data("mmlu", "test", f"{MMLU_SUBJECT}_test.csv")
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return rows[:N_DOCS]


def build_tiny_lm(folder: Path, texts: list[str]) -> Path:
    """A 2-layer GPT-2 built from config, with a byte-level BPE tokenizer trained on ``texts``
    (and a plain chat template), saved as a Hugging Face model folder."""
    from benchchecker_plugin.models import tiny_gpt2, train_tokenizer

    fast = train_tokenizer(list(texts) + ["user: assistant: Answer:"], 400,
                           roles=("eos", "bos", "unk", "pad"))
    fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(folder)
    tiny_gpt2(fast, n_positions=512, n_embd=32, n_layer=2, n_head=2, seed=0).save_pretrained(folder)
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

