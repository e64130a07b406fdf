"""Planting forms: each inserts what its definition says, deterministically."""

from __future__ import annotations

import csv
import html
import io
import json

import numpy as np
import pytest

from benchchecker_plugin.overlap import tokens
from benchchecker_plugin.overlap._planting import Form, perturb, plant, render
from benchchecker_plugin.tsguessing import BenchmarkItem

MMLU = BenchmarkItem("mmlu", "astronomy/3", "Which planet has the shortest year of all?",
                     ("Venus", "Earth", "Mercury", "Mars"), 2)
TQA = BenchmarkItem("truthfulqa", "7", "What happens if you crack your knuckles a lot?",
                    ("Nothing in particular happens", "You get arthritis", "Your knuckles swell",
                     "Your fingers bend", "You go deaf"), 0, {"type": "Adversarial", "category": "Health"})
HOST = ("The first paragraph has several ordinary words in it.\n\n"
        "A second paragraph follows here with more words.\n\nThe end.")


def rng() -> np.random.Generator:
    return np.random.default_rng(3)


def test_plain_forms_are_the_item_text() -> None:
    assert render(Form.VERBATIM, MMLU, rng()) == "Which planet has the shortest year of all?\nMercury"
    assert render(Form.QUESTION_ONLY, MMLU, rng()) == MMLU.question
    assert render(Form.MID_PARAGRAPH, MMLU, rng()) == "Which planet has the shortest year of all? Mercury"


def test_quiz_page_lists_the_options_and_the_gold_letter() -> None:
    lines = render(Form.QUIZ_PAGE, MMLU, rng()).splitlines()
    assert lines[0].startswith("Question ") and lines[0].endswith(": " + MMLU.question)
    assert lines[1:] == ["A) Venus", "B) Earth", "C) Mercury", "D) Mars", "Answer: C"]
    tqa = render(Form.QUIZ_PAGE, TQA, rng()).splitlines()
    options = {line[0]: line[3:] for line in tqa[1:-1]}
    assert len(options) == 4 and options[tqa[-1][-1]] == "Nothing in particular happens"
    assert "You go deaf" not in options.values()        # at most three incorrect answers


def test_csv_row_reads_back_as_the_benchmark_file() -> None:
    row = next(csv.reader(io.StringIO(render(Form.CSV_ROW, MMLU, rng()))))
    assert row == [MMLU.question, "Venus", "Earth", "Mercury", "Mars", "2"]
    tqa = next(csv.reader(io.StringIO(render(Form.CSV_ROW, TQA, rng()))))
    assert tqa[:4] == ["Adversarial", "Health", TQA.question, "Nothing in particular happens"]


def test_perturbation_edits_words_and_only_surface_noise_at_rate_zero() -> None:
    text = "Which of the following statements about the planet Mercury is true of its orbit"
    assert tokens(perturb(text, rng(), 0.0)) == tokens(text)      # normalisation absorbs the noise
    edited = perturb(text, rng(), 0.2)
    assert edited == perturb(text, rng(), 0.2)                    # seeded
    assert tokens(edited) != tokens(text)
    changed = sum(a != b for a, b in zip(tokens(edited), tokens(text)))
    assert 1 <= changed <= len(tokens(text))


def test_plant_keeps_the_host_and_places_each_form() -> None:
    snippets = [(Form.VERBATIM, "QUESTION ONE\nanswer"), (Form.MID_PARAGRAPH, "SPLICED item words")]
    out = plant(HOST, snippets, rng())
    assert out == plant(HOST, snippets, rng())
    assert "\n\nQUESTION ONE\nanswer\n\n" in out
    at = out.index("SPLICED item words")
    assert out[at - 1] == " " and out[at - 2].isalnum() and out[at + 18] == " "
    assert out.replace("\n\nQUESTION ONE\nanswer\n\n", "").replace(" SPLICED item words", "") == HOST


def test_real_layouts_read_back_with_their_own_parsers() -> None:
    rec = json.loads(render(Form.JSON_DUMP, MMLU, np.random.default_rng(1)))
    rec = json.loads(rec) if isinstance(rec, str) else rec
    assert rec == {"question": MMLU.question, "choices": list(MMLU.options), "answer": 2}
    chat = json.loads(render(Form.CHAT, MMLU, rng()))["messages"]
    assert chat[0]["content"].startswith(MMLU.question) and chat[1]["content"] == "The answer is (C) Mercury"
    pro = json.loads(render(Form.MMLU_PRO, MMLU, rng(), others=[TQA]))
    assert len(pro["options"]) == 4 + 5 and pro["options"][pro["answer_index"]] == "Mercury"
    assert set(MMLU.options) <= set(pro["options"])
    page = render(Form.HTML, MMLU, rng())
    assert html.unescape(page.split("<p>")[1].split("</p>")[0]).replace("\xa0", " ") == MMLU.question
    source = render(Form.PYTHON, MMLU, rng())
    compile(source, "test_item.py", "exec")   # a real Python test, the question split in two literals
    assert MMLU.question not in source and "".join(
        eval(line.strip()) for line in source.splitlines()[2:4]) == MMLU.question


@pytest.mark.parametrize("form", list(Form))
def test_every_form_holds_the_question_words(form: Form) -> None:
    text = render(form, MMLU, rng(), others=[TQA])
    if form is Form.PERTURBED:
        return
    got = " ".join(tokens(text))
    assert " ".join(tokens(MMLU.question)) in got or form is Form.WRAPPED and "shortest year" in got


def test_wrapped_hyphenates_a_long_word_at_a_line_end() -> None:
    long = BenchmarkItem("mmlu", "x", "Which characteristically electromagnetic phenomenon "
                         "demonstrates interference of waves?", ("a", "b", "c", "d"), 0)
    text = render(Form.WRAPPED, long, np.random.default_rng(0))
    assert "-\n" in text and tokens(text)[:5] == tokens(long.question)[:5]
