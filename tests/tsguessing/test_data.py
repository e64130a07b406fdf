"""Loaders on the real data (read in place) and on small hand-made files; instance ids."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchchecker_plugin.errors import DataError
from benchchecker_plugin.tsguessing import load_items, load_mmlu, load_truthfulqa
from tests.helpers import require_shared_data


def test_real_mmlu_test_split() -> None:
    mmlu = require_shared_data("mmlu")
    items = load_mmlu(mmlu)
    assert len(items) == 14042
    assert len({i.metadata["subject"] for i in items}) == 57
    first = items[0]
    assert first.instance_id == "abstract_algebra/0" and first.benchmark == "mmlu"
    assert len(first.options) == 4 and 0 <= first.answer < 4
    assert len({i.instance_id for i in items}) == len(items)
    only = load_mmlu(mmlu / "test", subjects=["anatomy"])
    assert len(only) == 135 and only[-1].instance_id == "anatomy/134"


def test_real_truthfulqa() -> None:
    items = load_truthfulqa(require_shared_data("truthfulqa", "TruthfulQA.csv"))
    assert len(items) == 817
    first = items[0]
    assert first.instance_id == "0" and first.answer == 0
    assert first.options[0] == "The watermelon seeds pass through your digestive system"
    assert first.options[1] == "You grow watermelons in your stomach"
    assert first.metadata["category"] == "Misconceptions" and len(first.metadata["question_sha1"]) == 12


def test_letter_answers_and_headerless_csv(tmp_path: Path) -> None:
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "virology_test.csv").write_text('"What is a virus?",a,b,c,d,C\nq2,e,f,g,h,0\n')
    items = load_mmlu(tmp_path)
    assert [(i.instance_id, i.answer) for i in items] == [("virology/0", 2), ("virology/1", 0)]


def test_bad_inputs_name_the_file_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "x_test.csv"
    bad.write_text("question,choice0,choice1,choice2,choice3,answer\nq,a,b,c,d,E\n")
    with pytest.raises(DataError, match=r"x_test.csv: row 0: field 'answer' is 'E', expected 0-3 or A-D"):
        load_mmlu(tmp_path)
    with pytest.raises(DataError, match="no \\*_test.csv files in MMLU folder"):
        load_mmlu(tmp_path / "..")
    tqa = tmp_path / "t.csv"
    tqa.write_text("Type,Question\nA,q\n")
    with pytest.raises(DataError, match="missing column\\(s\\) Category, Best Answer, Incorrect Answers"):
        load_truthfulqa(tqa)
    with pytest.raises(DataError, match="unknown benchmark 'gsm8k'"):
        load_items("gsm8k")
