"""Similarities against obviously-correct references; the embedding model from its package."""

from __future__ import annotations

import difflib

import numpy as np
import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.stage2 import (
    EmbeddingSimilarity,
    ExactSimilarity,
    LexicalSimilarity,
    RerankSimilarity,
    get_similarity,
)
from benchchecker_plugin.stage2._similarity import minilm_path

Q = ["return x + 1", "if a == b :"]
C = ["return x + 1", "return x - 1", "if a != b :", "pass"]


def test_exact_and_lexical_match_references() -> None:
    assert ExactSimilarity().matrix(Q, C).tolist() == [[1, 0, 0, 0], [0, 0, 0, 0]]
    lex = LexicalSimilarity().matrix(Q, C)
    for i, q in enumerate(Q):
        best = max(range(len(C)), key=lambda j: difflib.SequenceMatcher(None, C[j], q).ratio())
        assert int(np.argmax(lex[i])) == best
        assert lex[i, best] == pytest.approx(difflib.SequenceMatcher(None, C[best], q, autojunk=False).ratio())


def test_get_similarity_names() -> None:
    assert get_similarity("exact").name == "exact"
    assert get_similarity("difflib").name == "difflib"
    with pytest.raises(InputError, match="unknown similarity 'nope'"):
        get_similarity("nope")


@pytest.mark.slow
def test_embedding_and_rerank() -> None:
    assert (minilm_path() / "model.safetensors").is_file()
    emb = EmbeddingSimilarity()
    m = emb.matrix(["total = compute(width, height)"],
                   ["total = compute(width, height)", "total = compute(w, h)", "import os"])
    assert m[0, 0] == pytest.approx(1.0, abs=1e-5)
    assert m[0, 1] > m[0, 2]
    rr = RerankSimilarity(LexicalSimilarity(), emb, k=2)
    out = rr.matrix(Q, C)
    assert out[0, 0] == 1.0  # exact stays 1
    lex = LexicalSimilarity().matrix(Q, C)
    top = np.argsort(-lex[1])[:2]
    assert np.allclose(out[1, top], (lex[1, top] + emb.matrix([Q[1]], [C[j] for j in top])[0]) / 2)
    assert rr.name == "difflib+minilm:all-MiniLM-L6-v2-rerank"
