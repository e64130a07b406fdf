"""A multiple-choice document read from what its task shows the model (issue 30)."""

from __future__ import annotations

import pytest

from benchchecker_plugin.errors import DataError
from benchchecker_plugin.tsguessing import answer_index, mc_item, option_texts, prepare_probes

DOC = {"question": "Which organ pumps blood?  ", "subject": "anatomy",
       "choices": {"text": ["the lungs", "the heart", "the stomach", "the kidneys"],
                   "label": ["A", "B", "C", "D"]}, "answerKey": "B"}
LETTERED = ("Which organ pumps blood?\nA. the lungs\nB. the heart\nC. the stomach\n"
            "D. the kidneys\nAnswer:")


def test_text_choices_and_the_question_field() -> None:
    item = mc_item("arc", "7", "Question: Which organ pumps blood?\nAnswer:",
                   DOC["choices"]["text"], 1, DOC)
    # the field the prompt shows, as the document holds it (surrounding spaces kept)
    assert item.question == DOC["question"] and item.answer == 1
    assert item.options == tuple(DOC["choices"]["text"]) and item.metadata == {}


def test_label_choices_take_the_option_texts_the_prompt_shows() -> None:
    item = mc_item("mmlu", "anatomy/7", LETTERED, ["A", "B", "C", "D"], "B", DOC)
    assert item.options == tuple(DOC["choices"]["text"]) and item.answer == 1
    assert item.metadata == {"subject": "anatomy"}   # task_rules.yaml: MMLU's hint field
    # no document field: the prompt up to its first option
    assert mc_item("x", "1", LETTERED, ["A", "B", "C", "D"], 1, {"c": DOC["choices"]["text"]}
                   ).question == "Which organ pumps blood?"
    assert option_texts(["(A)", "(B)"], {"o": ["yes it is", "no"]}, "yes it is / no") == [
        "yes it is", "no"]
    # options that look like labels themselves ("2", "4") are still texts of the document
    assert option_texts(["A", "B"], {"c": ["2", "10"]}, "Q\nA. 2\nB. 10") == ["2", "10"]
    # MMLU's "1 2 3 4" options behind letter choices: shown as whole words
    numbers = {"choices": ["1", "2", "3", "4"]}
    assert option_texts(["A", "B", "C", "D"], numbers, "Q?\nA. 1\nB. 2\nC. 3\nD. 4\nAnswer:") == [
        "1", "2", "3", "4"]
    # ARC-shaped "1 2 3 4" option texts (text choices) beside its A-D label list: the texts
    arc = {"choices": {"text": ["1", "2", "3", "4"], "label": ["A", "B", "C", "D"]}}
    assert option_texts(["1", "2", "3", "4"], arc, "Question: A B C D?\nAnswer:") == [
        "1", "2", "3", "4"]


@pytest.mark.parametrize(("target", "index"), [(2, 2), ("2", 2), ("the stomach", 2), (" 0", 0)])
def test_targets(target: object, index: int) -> None:
    assert answer_index(target, DOC["choices"]["text"]) == index


@pytest.mark.parametrize(("choices", "target", "message"), [
    ("the heart", 0, "the choices are a str, not a list"),
    (["only"], 0, "1 choice(s); a multiple-choice probe needs at least 2"),
    (["a", "b"], 2, "target index 2 outside its 2 choices"),
    (["a", "b"], -1, "target index -1 outside its 2 choices"),
    (["a", "b"], "c", "target 'c' is neither one of the 2 choices nor an index"),
    (["a", "b"], [0, 1], "target [0, 1] names several correct choices; TS-Guessing needs one"),
    (["a", "b"], True, "target True is a bool, not an index or a choice"),
    (["a", 3], 0, "the choices are not all text: ['a', 3]"),
    (["A", "B"], 0, "the choices are labels (A, B) and no list of option texts in the document "
                    "appears in its prompt"),
])
def test_bad_documents_are_one_line(choices: object, target: object, message: str) -> None:
    with pytest.raises(DataError) as exc:
        mc_item("t", "0", "Question?", choices, target, {})
    assert str(exc.value) == message


def test_two_option_and_long_option_rules() -> None:
    """Winogrande names both candidates in its sentence: nothing to hide; PIQA-like options are
    asked with the correct one shown; a HellaSwag ending past 24 words is not asked."""
    wino = mc_item("wg", "0", "The trophy doesn't fit in the suitcase because _ is too large.",
                   ["trophy", "suitcase"], 0)
    piqa = mc_item("pq", "0", "How do you open a stuck jar lid?",
                   ["run the lid under hot water and twist", "put the jar in the freezer overnight"], 0)
    # both wrong endings are long, so whichever the item's content draws is past 24 words
    long = mc_item("hs", "0", "A man walks into a kitchen.",
                   ["he cooks.", " ".join(["word"] * 25), " ".join(["sleeps"] * 25)], 0)
    prep = prepare_probes([wino, piqa, long], "multichoice")
    assert [p.instance_id for p in prep.probes] == ["0"] and prep.probes[0].benchmark == "pq"
    assert prep.probes[0].target == "put the jar in the freezer overnight"
    assert "A: run the lid under hot water and twist\nB: [MASK]" in prep.probes[0].prompt
    assert {r.value: n for r, n in prep.dropped.items()} == {"option_in_question": 1,
                                                             "long_option": 1}
