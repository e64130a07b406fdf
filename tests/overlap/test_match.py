"""The scan on hand-made documents: items found as real corpora store them (options between
question and answer, escaped JSON, markup, wrapped and edited copies), evidence that quotes the raw
text, near-duplicates and shared passages kept apart, too-short items undecided."""

from __future__ import annotations

import html
import json
import warnings

import pytest

from benchchecker_plugin.overlap import DEFAULT_METRICS, mc_query
from benchchecker_plugin.overlap._partial import SNIPPET
from benchchecker_plugin.overlap._result import item_results
from benchchecker_plugin.overlap._scan import scan_texts
from benchchecker_plugin.overlap._table import build_table

Q = "Which planet in the Solar System has the shortest orbital period around the Sun’s centre?"
OPTS = ["Venus", "Mercury (the innermost planet)", "Mars", "Neptune, the ice giant"]
PASSAGE = ("This question refers to the following information. The mill towns of the valley grew "
           "around the river, and their owners built housing for the workers who came from the farms.")
FILLER = ("The standard library offers modules for text processing, binary data services, data types "
          "and numeric and mathematical modules; the documentation describes each of them. ") * 6


def _items() -> list:
    return [
        mc_query("mmlu", "planet", Q, OPTS, 1),
        mc_query("mmlu", "capital-fr", "What is the capital city of the French Republic today?",
                ["Paris", "Lyon", "Nice", "Lille"], 0),
        mc_query("mmlu", "capital-de", "What is the capital city of the German Republic today?",
                ["Berlin", "Bonn", "Munich", "Hamburg"], 0),
        mc_query("mmlu", "p1", f"{PASSAGE}\nWhich best describes the housing of the workers?",
                ["company owned", "rented", "none", "free"], 0),
        mc_query("mmlu", "p2", f"{PASSAGE}\nWhere did most of the workers come from originally?",
                ["the farms", "cities", "the sea", "abroad"], 0),
        mc_query("mmlu", "short", "−4 + (−3) =", ["−7", "−1", "1", "7"], 0),
    ]


def _scan(docs: list[str]):  # noqa: ANN202
    table = build_table(_items())
    partial = scan_texts(table, docs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        results = item_results(table, partial, DEFAULT_METRICS)
    return {r.instance_id: r for r in results}, partial


def _parts(result) -> tuple[object, object]:  # noqa: ANN001
    m = result.measures["parts"]
    return m.contaminated, m.values.get("kind")


LAYOUTS = {
    "csv": f'"{Q}",{OPTS[0]},"{OPTS[1]}",{OPTS[2]},"{OPTS[3]}",1\n',
    "json_escaped": json.dumps({"question": Q, "choices": OPTS, "answer": 1}),
    "json_twice": json.dumps(json.dumps({"answer": 1, "choices": OPTS, "question": Q})),
    "html": f"<p>{html.escape(Q)}</p><ol>" + "".join(f"<li>{html.escape(o)}</li>" for o in OPTS) + "</ol>",
    "quiz": f"Q7. {Q}\n(a) {OPTS[0]}\n(b) {OPTS[1]}\n(c) {OPTS[2]}\n(d) {OPTS[3]}\nAnswer: (b)",
    "mojibake": f"{Q}\n{OPTS[1]}".encode().decode("cp1252", errors="replace"),
    "wrapped": "Which planet in the Solar Sys-\ntem has the shortest orbital period around the\n"
               "Sun’s centre? Mercury (the innermost\nplanet)",
    "edited": Q.replace("shortest", "briefest").replace(" the Solar System", " Solar System")
              + " Answer: Mercury (the innermost planet)",
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_found_as_stored(layout: str) -> None:
    raw = f"{FILLER}\n\n{LAYOUTS[layout]}\n\n{FILLER}"
    results, partial = _scan([raw])
    flagged, kind = _parts(results["planet"])
    assert flagged is True and kind in ("question+answer", "question+options"), layout
    for loc in partial.evidence[0]:
        assert loc.text == raw[loc.start:loc.end]          # the raw text, as stored
    question = partial.evidence[0][0]
    assert question.part == "question" and "shortest orbital" in question.text or layout == "edited"
    assert not any(_parts(results[i])[0] for i in ("capital-fr", "capital-de", "p1", "p2"))


def test_question_alone_and_short_items() -> None:
    results, _ = _scan([f"{FILLER} {Q} {FILLER}", "−4 + (−3) = −7 and Section 4.3.7"])
    assert _parts(results["planet"]) == (True, "question")
    assert results["short"].measures["parts"].contaminated is None          # too short: undecided
    assert "too short" in results["short"].measures["parts"].values["note"]


def test_a_near_duplicate_is_not_evidence_for_its_sibling() -> None:
    page = "What is the capital city of the French Republic today? Paris, of course."
    results, _ = _scan([page])
    assert _parts(results["capital-fr"]) == (True, "question+answer")
    assert _parts(results["capital-de"])[0] is not True


def test_a_shared_passage_alone_is_evidence_for_none() -> None:
    results, _ = _scan([f"{FILLER}\n{PASSAGE}\n{FILLER}"])
    assert _parts(results["p1"])[0] is not True and _parts(results["p2"])[0] is not True
    both = f"{PASSAGE}\nWhere did most of the workers come from originally?\n(a) the farms (b) cities"
    results, _ = _scan([both])
    assert _parts(results["p2"])[0] is True and _parts(results["p1"])[0] is not True


def test_evidence_quotes_non_ascii_escaped_and_markup_documents() -> None:
    docs = ["Ünïcödé préface — " + FILLER + LAYOUTS["json_escaped"],
            json.dumps({"text": "« " + Q + " » " + OPTS[1]}, ensure_ascii=True),
            "<div>" + html.escape("«" + Q) + "</div><b>" + OPTS[1] + "</b>",
            "naïve " + LAYOUTS["wrapped"]]
    for raw in docs:
        _, partial = _scan([raw])
        locs = [*partial.evidence[0], *(loc for _, loc in partial.quotes[0])]
        assert locs and all(loc.text == raw[loc.start:loc.end] for loc in locs), raw[:40]


def test_quotes_are_capped_per_item_and_the_cut_is_said() -> None:
    long_q = " ".join(f"word{i}" for i in range(400))
    table = build_table([mc_query("b", "long", long_q, ["yes", "no"], 0)])
    partial = scan_texts(table, [long_q] * 7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        (r,) = item_results(table, partial, DEFAULT_METRICS)
    # the question as found (document 0) and the other longest matches: five places, seven seen
    assert sorted({m["doc"] for m in r.matches}) == ["0", "1", "2", "3", "4"] and r.quotes_cut
    assert all(m.get("cut") and m["end"] - m["start"] == SNIPPET for m in r.matches)


def test_a_document_with_more_candidates_than_the_buffer_finds_every_item() -> None:
    """The whole benchmark in one document (a dump): the candidate buffer is settled whenever it
    fills, so no item is lost (before, items past the buffer's end were called clean)."""
    import numpy as np

    from benchchecker_plugin.overlap._found import Found
    from benchchecker_plugin.overlap._verify import N_COLS

    rng = np.random.default_rng(0)
    vocab = [f"w{k}" for k in range(3000)]
    items = [mc_query("b", str(k), " ".join(rng.choice(vocab, 12)), [" ".join(rng.choice(vocab, 3))
                                                                    for _ in range(4)], 0)
             for k in range(300)]
    dump = "\n".join(f'"{i.question}",{",".join(i.options)},0' for i in items)
    table = build_table(items)
    found = Found(table)
    found.cand = np.zeros((40, N_COLS), np.int64)     # far fewer rows than the dump's candidates
    found.sim = np.zeros(40)
    found.batch("dump", ["0"], [dump])
    assert (found.partial(("dump",)).kind == 3).all()
