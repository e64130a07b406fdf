"""Scoring: normalisation, EM, Rouge-L (hand-computed), answer cleaning; flags score against the
masked option, not the correct answer."""

from __future__ import annotations

import pytest

from benchchecker_plugin.tsguessing import (
    BenchmarkItem,
    Mode,
    clean_answer,
    exact_match,
    normalize,
    prepare_probes,
    probe_flag,
    rouge_l_f1,
    score_guess,
)


def test_normalize_and_exact_match() -> None:
    assert normalize("  The Cat, sat!  ") == "cat sat"
    assert exact_match("the cat sat.", "Cat sat") == 1.0
    assert exact_match("cat", "cat sat") == 0.0
    assert exact_match("", "") == 0.0  # an empty target never matches


def test_rouge_l_hand_computed() -> None:
    # LCS("the cat sat on the mat", "the cat lay on a mat") = the cat on mat = 4; P = 4/6, R = 4/6
    assert rouge_l_f1("the cat lay on a mat", "the cat sat on the mat") == pytest.approx(4 / 6)
    # answer 2 tokens all in target of 4 in order: P = 1, R = 0.5, F = 2/3
    assert rouge_l_f1("cat mat", "the cat on mat") == pytest.approx(2 / 3)
    assert rouge_l_f1("", "anything") == 0.0


@pytest.mark.parametrize("raw, clean", [
    (" Paris\nmore", "Paris"),
    # leading blank lines (what SmolLM2 often writes first) are skipped, not read as ""
    ("\nParis", "Paris"),
    ("\n\n  \n Paris \nLondon", "Paris"),
    ("\r\n\tParis\r\n", "Paris"),
    # label prefixes and announcements
    ("B: the liver", "the liver"),
    ("B) the liver", "the liver"),
    ("(B) the liver", "the liver"),
    ("b. the liver", "the liver"),
    ("Answer: 'the liver'", "the liver"),
    ("Hidden option C: a thing", "a thing"),
    ("Option C) a thing", "a thing"),
    ("The answer is A: Glycine", "Glycine"),
    ("The answer is: C: stabilizing selection", "stabilizing selection"),
    ("The answer to this question is: nekton", "nekton"),
    ("The hidden word is watermelon", "watermelon"),
    ("Hidden word: Watermelon", "Watermelon"),
    # quotes
    ('"the liver"', "the liver"),
    ("`the liver`", "the liver"),
    ('The hidden word is "melon".', "melon"),
    ("It's 'fine'", "It's 'fine'"),
    # multi-line replies: label-only lines are skipped, the first line with text wins
    ("\n\nThe answer is:\nC: stabilizing selection\n\nThe answer is:", "stabilizing selection"),
    ("Hidden option B:\n\nA: spastic paralysis\nB: atrophy", "spastic paralysis"),
    (" [MASK]\n\nThe answer is:\nC: Ursa Major", "[MASK]"),
    ("Cortex\nHidden option B: Cortex", "Cortex"),
    # text that only looks like a label is kept
    ("Word processing", "Word processing"),
    ("Answers vary", "Answers vary"),
    ("Answer.", "Answer."),
    ("a.m. radio", "a.m. radio"),
    ("K: not an option letter", "K: not an option letter"),
    ("\nHidden option B:\nHidden option E:\nE: Lower leg", "Lower leg"),
    ("C = 64π", "C = 64π"),
    # nothing to read
    ("", ""),
    ("\n\n \n", ""),
    ("The answer is:\nB:\n", ""),
])
def test_clean_answer(raw: str, clean: str) -> None:
    assert clean_answer(raw) == clean


ITEM = BenchmarkItem("mmlu", "anatomy/0", "Where is the facial nerve compressed?",
                     ("the stylomastoid foramen", "the internal acoustic meatus", "a jugular notch",
                      "the cribriform plate"), 0, {"subject": "anatomy"})


def test_flag_scores_against_the_masked_option_not_the_correct_answer() -> None:
    probe = prepare_probes([ITEM], Mode.MULTICHOICE, seed=0).probes[0]
    masked = probe.details["masked_option_index"]
    assert masked != 0 and probe.target == ITEM.options[masked]
    hit = probe_flag(probe, " " + ITEM.options[masked] + "\n", "m")
    assert hit.contaminated is True and hit.score == 1.0 and hit.evidence["exact_match"] == 1.0
    correct = probe_flag(probe, ITEM.options[0], "m")  # answering the question is not a guess
    assert correct.contaminated is False and correct.evidence["exact_match"] == 0.0
    assert correct.score == pytest.approx(rouge_l_f1(ITEM.options[0], ITEM.options[masked]))
    assert hit.method == "ts_guessing.multichoice" and hit.instance_id == "anatomy/0"
    assert hit.evidence["target"] == ITEM.options[masked] and "[MASK]" in hit.evidence["masked_item"]


def test_multichoice_threshold_and_question_em() -> None:
    probe = prepare_probes([ITEM], Mode.MULTICHOICE, seed=0).probes[0]
    near = probe_flag(probe, probe.target + " and more words", "m", threshold=0.5)
    assert near.contaminated is (near.score >= 0.5)
    q = prepare_probes([ITEM], Mode.QUESTION).probes[0]
    assert q.target == "stylomastoid" or q.target in ITEM.question
    f = probe_flag(q, q.target.upper() + ".", "m")
    assert (f.contaminated, f.score, f.method) == (True, 1.0, "ts_guessing.question")
    assert probe_flag(q, "nerve", "m").contaminated is False


def test_failed_generation_is_undecided_not_an_answer() -> None:
    probe = prepare_probes([ITEM], Mode.MULTICHOICE).probes[0]
    f = probe_flag(probe, None, "m", error="ModelError: out of memory")
    assert f.contaminated is None and f.score == 0.0 and f.evidence["error"] == "ModelError: out of memory"
    assert "answer" not in f.evidence


def test_score_guess() -> None:
    s = score_guess("C: The jugular foramen.\nD: ...", "the jugular foramen")
    assert (s.answer, s.exact_match, s.rouge_l) == ("The jugular foramen.", 1.0, 1.0)


def test_an_option_that_begins_with_a_label_reproduced_verbatim_is_an_exact_match() -> None:
    """An MMLU option whose own text is "(C) Decreased    Decreased": written back word for word,
    cleaning took its "(C)" away and exact match was 0 (seen in the controlled check)."""
    target = "(C) Decreased \xa0\xa0\xa0 Decreased"
    s = score_guess(" " + target + "\n", target)
    assert (s.answer, s.exact_match, s.rouge_l) == ("Decreased \xa0\xa0\xa0 Decreased", 1.0, 1.0)
    assert score_guess(" Increased Decreased", target).exact_match == 0.0
    assert score_guess(' "Decreased"', '"Decreased" means less').exact_match == 0.0


def test_a_reply_starting_with_a_blank_line_is_scored() -> None:
    """The bug of issue 6: a newline before the answer made it empty; now it is a hit."""
    probe = prepare_probes([ITEM], Mode.MULTICHOICE, seed=0).probes[0]
    f = probe_flag(probe, "\n\nThe answer is:\nB: " + probe.target + "\n\nQuestion: ...", "m")
    assert f.evidence["answer"] == probe.target and f.contaminated is True and f.score == 1.0
