"""Each overlap rule's name and wording, in one place: ``--help``, the reports and the README
table quote these (tests/overlap check the README's table and the metric registry against them).
Light on purpose: the command line reads it without loading numba."""

from __future__ import annotations

DEFAULT_RULE = "parts"

#: rule -> what ``contaminated`` means under it
RULE_TEXT = {
    "parts": "benchchecker: the item's question found in a document (aligned, >= 0.9 of its tokens; "
             ">= 0.75 with its gold answer or its options within 400 tokens, in any layout), its own "
             "question (after a shared passage) included; a question shared by several items needs "
             "its answer; items under 4 informative words are undecided",
    "any_ngram": "GPT-3: contaminated when any 13-gram of the item is in 1-10 corpus documents",
    "coverage": "PaLM: contaminated when >= 70% of the item's 8-grams are in the corpus",
    "token_level": "Llama 2: contaminated (dirty) when >= 80% of the item's tokens are in matched "
                   "spans of > 10 tokens (skip budget 4), clean below 20%, else undecided",
    "longest": "ConTAM: contaminated when the longest matched run covers >= 50% of the item",
    "retrieval": "Deng et al.: a 13-word chunk of the item's top-k BM25 passages at >= 0.8 Rouge-L "
                 "(--engine index)",
}

RULES = tuple(sorted(RULE_TEXT))


def rules_help() -> str:
    """The rules as ``--help`` lists them (default first)."""
    order = [DEFAULT_RULE, *(r for r in RULES if r != DEFAULT_RULE)]
    return "; ".join(f"{r} ({RULE_TEXT[r]})" for r in order)
