"""Fixtures of the harness task tests: a tiny GPT-2 that has memorised half of a few real MMLU
probes (the "contaminated" half), and the same items' flags from ``benchchecker ts-guess``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import require_shared_data, tiny_lm

SUBJECT = "astronomy"
N_PROBES = 6


@pytest.fixture(scope="session")
def mmlu_dir() -> Path:
    return require_shared_data("mmlu")


@pytest.fixture(scope="session")
def probe_set() -> tuple[str, int]:
    """(MMLU subject, number of probes) the memorising model and the harness runs use."""
    return SUBJECT, N_PROBES


@pytest.fixture(scope="session")
def memorising_lm(tmp_path_factory: pytest.TempPathFactory, mmlu_dir: Path) -> Path:
    """Model folder: trained on the first 3 of the first 6 astronomy multichoice probes; the first
    reply starts with a blank line (as SmolLM2's often do), which a newline stop would empty."""
    from benchchecker_plugin.tsguessing import load_mmlu, prepare_probes

    probes = prepare_probes(load_mmlu(mmlu_dir, subjects=[SUBJECT]), "multichoice").probes
    vocab = [p.prompt + " " + p.target for p in probes]
    memorise = [p.prompt + ("\n\n" if i == 0 else " ") + p.target + "\n"
                for i, p in enumerate(probes[: N_PROBES // 2])]
    return tiny_lm.build_tiny_lm(tmp_path_factory.mktemp("tsg_lm"), vocab, memorise, steps=60)
