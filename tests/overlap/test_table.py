"""The benchmark table: streams and parts, own questions after a shared prefix, shared questions,
informative tokens, seeds and template masks."""

from __future__ import annotations

import numpy as np
import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.overlap import OverlapItem, mc_query, tokens
from benchchecker_plugin.overlap._table import MIN_INFO, PASSAGE_MIN, build_table

PASSAGE = ("This question refers to the following information. The mill towns of the valley grew "
           "around the river, and their owners built housing for the workers who came from the farms.")


def _items() -> list[OverlapItem]:
    return [
        mc_query("b", "p1", f"{PASSAGE}\nWhich best describes the housing?", ["owned", "rented", "none", "free"], 0),
        mc_query("b", "p2", f"{PASSAGE}\nWhere did the workers come from?", ["farms", "cities", "sea", "abroad"], 0),
        mc_query("b", "dup1", "Which of these is a prime number?", ["4", "6", "7", "9"], 2),
        mc_query("b", "dup2", "Which of these is a prime number?", ["8", "11", "12", "15"], 1),
        mc_query("b", "short", "−4 + (−3) =", ["−7", "−1", "1", "7"], 0),
        OverlapItem("t", "q", "What happens if you crack your knuckles a lot?", "question",
                    "What happens if you crack your knuckles a lot?", "Nothing in particular",
                    ("Nothing in particular", "You get arthritis")),
    ]


def test_streams_parts_and_own_questions() -> None:
    items = _items()
    t = build_table(items)
    q1 = tokens(items[0].stem)
    assert t.q_end[0] == len(q1) and t.g_lo[0] == len(q1) and t.g_hi[0] == len(q1) + 1
    # the shared passage is owned by neither: each owns what follows the longest shared prefix
    own = t.q_own[0]
    assert own >= PASSAGE_MIN and q1[own:] == ["which", "best", "describes", "the", "housing"]
    assert t.q_own[1] == own and t.q_own[2] == t.q_own[3] == 0
    assert list(t.q_shared) == [False, False, True, True, False, False]
    # TruthfulQA-style: the query is the question alone; the answer is a part looked for nearby
    assert t.q_end[5] == t.n_tokens[5] and t.g_lo[5] == -1 and t.gold_part[5] >= 0
    assert tokens(items[5].answer or "") == ["nothing", "in", "particular"]
    # parts: every option, the gold among them
    assert t.opt_hi[0] - t.opt_lo[0] == 4 and t.gold_part[2] == t.opt_lo[2] + 2


def test_too_short_items_are_undecidable() -> None:
    t = build_table(_items())
    assert t.info_q[4] == 0 and t.info_g[4] == 0 and not t.decidable()[4]
    assert t.decidable()[[0, 1, 2, 3, 5]].all() and MIN_INFO == 4


def test_seeds_postings_and_template_masks() -> None:
    items = [OverlapItem("b", str(i), f"for which of these two scenarios does the main character act {i}x")
             for i in range(12)]
    t = build_table(items, (8,), template_items=10)
    assert t.n_masked[0] > 0
    starts, masked = t.windows(8, 0)
    assert masked[0] and not masked[-1]   # the shared prefix is a template, the tail is not
    # every position of a 4-gram in more than SEED_MAX items would be no seed: here all are seeds
    lo, hi = int(t.soff[0]), int(t.soff[1])
    assert (t.seed_of[lo:hi - 3] >= 0).all() and (t.seed_of[hi - 3:hi] == -1).all()
    assert not t.single[lo] and t.single[hi - 4]   # the prefix is in 12 items, the tail in one
    assert np.array_equal(np.sort(t.post[t.post_off[t.seed_of[lo]]:t.post_off[t.seed_of[lo] + 1]]),
                          t.soff[:-1])


def test_bad_tables_are_one_line() -> None:
    with pytest.raises(InputError, match="no item to look for"):
        build_table([])
    with pytest.raises(InputError, match="template_items must be >= 2, got 1"):
        build_table(_items(), template_items=1)
