"""Benchmark items for TS-Guessing: MMLU and TruthfulQA, from the hub or from local files.

Instance ids (what the flags' ``instance_id`` holds):

- MMLU: ``"<subject>/<row index>"``, the 0-based row of the question in that subject's *test*
  split (the row in ``<subject>_test.csv`` without its header; in ``cais/mmlu`` the position
  inside the subject's block of the ``all`` config, which keeps the CSV order).
- TruthfulQA: ``"<row index>"``, the 0-based row in the original 817-row ``TruthfulQA.csv``
  (the same order as the ``generation`` config of ``truthfulqa/truthful_qa``). Each item also
  carries ``question_sha1`` (first 12 hex digits of the SHA-1 of the question text) in its
  metadata, so a reordered copy can be matched.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..errors import DataError, HubUnavailableError
from ..hub_reach import load_hub_dataset
from ..safe_io import open_input

MMLU_HUB = "cais/mmlu"
TRUTHFULQA_HUB = "truthfulqa/truthful_qa"
BENCHMARKS = ("mmlu", "truthfulqa")

_MMLU_COLUMNS = ("question", "choice0", "choice1", "choice2", "choice3", "answer")
_TQA_COLUMNS = ("Type", "Category", "Question", "Best Answer", "Incorrect Answers")


@dataclass(frozen=True)
class BenchmarkItem:
    """One multiple-choice question: ``options[answer]`` is the correct option.

    ``metadata`` holds the benchmark's extra fields (MMLU: ``subject``; TruthfulQA: ``type``,
    ``category``, ``source``, ``question_sha1``).
    """

    benchmark: str
    instance_id: str
    question: str
    options: tuple[str, ...]
    answer: int
    metadata: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", tuple(self.options))
        object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))
        if not 0 <= self.answer < len(self.options):
            raise DataError(f"{self.benchmark} instance {self.instance_id}: answer index "
                            f"{self.answer} outside its {len(self.options)} options")


def text_sha1(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


# --------------------------------------------------------------------------------------- MMLU

def _mmlu_csv_dir(path: Path, split: str) -> Path:
    if path.is_dir() and (path / split).is_dir():
        return path / split
    if path.is_dir():
        return path
    raise DataError(f"MMLU data folder not found: {path} (expected <folder>/{split}/*_{split}.csv)")


def _read_mmlu_csv(file: Path, subject: str) -> list[BenchmarkItem]:
    try:
        return _parse_mmlu_csv(file, subject)
    except UnicodeDecodeError as exc:
        raise DataError(f"{file}: not UTF-8 text ({exc.reason})") from None


def _parse_mmlu_csv(file: Path, subject: str) -> list[BenchmarkItem]:
    items = []
    with io.TextIOWrapper(open_input(file), newline="", encoding="utf-8-sig") as fh:   # -sig: no BOM
        reader = csv.reader(fh)
        header = next(reader, None)
        if header is None:
            return []
        has_header = [h.strip() for h in header] == list(_MMLU_COLUMNS) or header[-1].strip() == "answer"
        rows = reader if has_header else [header, *reader]
        for index, row in enumerate(rows):
            if len(row) != 6:
                raise DataError(f"{file}: row {index} has {len(row)} fields, expected 6 "
                                "(question, four choices, answer)")
            answer = row[5].strip()
            if answer in ("A", "B", "C", "D"):
                answer_index = "ABCD".index(answer)
            else:
                answer_index = _int(answer, file, index)
            items.append(BenchmarkItem("mmlu", f"{subject}/{index}", row[0], tuple(row[1:5]),
                                       answer_index, {"subject": subject}))
    return items


def _int(text: str, file: Path, index: int) -> int:
    try:
        return int(text)
    except ValueError:
        raise DataError(f"{file}: row {index}: field 'answer' is {text!r}, expected 0-3 or A-D") from None


def load_mmlu(path: str | os.PathLike[str] | None = None, *, split: str = "test",
              subjects: Iterable[str] | None = None) -> list[BenchmarkItem]:
    """MMLU questions, ordered by subject then row.

    ``path`` is a folder of ``<subject>_<split>.csv`` files (or its parent holding ``<split>/``),
    with or without the header ``question,choice0..3,answer`` and with answers 0-3 or A-D. Without
    ``path`` the ``all`` config of ``cais/mmlu`` is loaded through :mod:`datasets` (which respects
    ``HF_DATASETS_OFFLINE``).
    """
    wanted = set(subjects) if subjects is not None else None
    if path is not None:
        folder = _mmlu_csv_dir(Path(path), split)
        files = sorted(folder.glob(f"*_{split}.csv"))
        if not files:
            raise DataError(f"no *_{split}.csv files in MMLU folder {folder}")
        items: list[BenchmarkItem] = []
        for file in files:
            subject = file.name[: -len(f"_{split}.csv")]
            if wanted is None or subject in wanted:
                items.extend(_read_mmlu_csv(file, subject))
        return items
    return _mmlu_from_hub(split, wanted)


def _mmlu_from_hub(split: str, wanted: set[str] | None) -> list[BenchmarkItem]:
    try:
        ds = load_hub_dataset(MMLU_HUB, "all", split=split)
    except Exception as exc:  # datasets raises many types; re-raised as ours with the cause
        raise HubUnavailableError.of(f"{MMLU_HUB} (split {split})", exc) from exc
    counters: dict[str, int] = defaultdict(int)
    items = []
    for row in ds:
        subject = row["subject"]
        index = counters[subject]
        counters[subject] += 1
        if wanted is None or subject in wanted:
            items.append(BenchmarkItem("mmlu", f"{subject}/{index}", row["question"],
                                       tuple(row["choices"]), int(row["answer"]), {"subject": subject}))
    return items


# --------------------------------------------------------------------------------- TruthfulQA

def _split_answers(text: str) -> tuple[str, ...]:
    return tuple(a.strip() for a in text.split(";") if a.strip())


def _tqa_item(index: int, question: str, best: str, incorrect: Iterable[str], type_: str,
              category: str, source: str) -> BenchmarkItem:
    options = (best.strip(), *[a for a in incorrect if a.strip()])
    return BenchmarkItem("truthfulqa", str(index), question.strip(), options, 0,
                         {"type": type_, "category": category, "source": source,
                          "question_sha1": text_sha1(question.strip())})


def load_truthfulqa(path: str | os.PathLike[str] | None = None) -> list[BenchmarkItem]:
    """TruthfulQA questions; ``options`` are the best answer (index 0) then the incorrect answers.

    ``path`` is the upstream ``TruthfulQA.csv`` (columns Type, Category, Question, Best Answer,
    Correct Answers, Incorrect Answers, Source; answers separated by ``;``). Without ``path`` the
    ``generation`` config of ``truthfulqa/truthful_qa`` is loaded through :mod:`datasets`.
    """
    if path is None:
        return _truthfulqa_from_hub()
    file = Path(path)
    if not file.is_file():
        raise DataError(f"TruthfulQA file not found: {file}")
    with io.TextIOWrapper(open_input(file), newline="", encoding="utf-8-sig") as fh:   # -sig: no BOM
        try:
            reader = csv.DictReader(fh)
            missing = [c for c in _TQA_COLUMNS if c not in (reader.fieldnames or ())]
            if missing:
                raise DataError(f"{file}: missing column(s) {', '.join(missing)}")
            items = []
            for i, r in enumerate(reader):
                short = [c for c in _TQA_COLUMNS if r.get(c) is None]   # csv gives None past the end
                if short:
                    raise DataError(f"{file}: line {reader.line_num}: missing field(s) {', '.join(short)}")
                items.append(_tqa_item(i, r["Question"], r["Best Answer"],
                                       _split_answers(r["Incorrect Answers"]), r["Type"],
                                       r["Category"], r.get("Source") or ""))
            return items
        except UnicodeDecodeError as exc:
            raise DataError(f"{file}: not UTF-8 text ({exc.reason})") from None


def _truthfulqa_from_hub() -> list[BenchmarkItem]:
    try:
        ds = load_hub_dataset(TRUTHFULQA_HUB, "generation", split="validation")
    except Exception as exc:  # datasets raises many types; re-raised as ours with the cause
        raise HubUnavailableError.of(TRUTHFULQA_HUB, exc) from exc
    return [_tqa_item(i, r["question"], r["best_answer"], r["incorrect_answers"], r["type"],
                      r["category"], r.get("source") or "") for i, r in enumerate(ds)]


def load_items(benchmark: str, path: str | os.PathLike[str] | None = None) -> list[BenchmarkItem]:
    """Items of ``benchmark`` (``mmlu``: test split; ``truthfulqa``) from ``path`` or the hub."""
    if benchmark == "mmlu":
        return load_mmlu(path)
    if benchmark == "truthfulqa":
        return load_truthfulqa(path)
    raise DataError(f"unknown benchmark {benchmark!r} for TS-Guessing (choose from {', '.join(BENCHMARKS)})")
