"""The graded Stage I score inside the membership evaluation, with stand-in models: a model that
has half-memorised the member repositories (it writes their code back with every third character
wrong, so never a target exactly) is invisible to the exact-hit test and plain to the graded one."""

from __future__ import annotations

import pytest

from benchchecker_plugin.membership import build_corpus, score_repos
from benchchecker_plugin.stage1 import MiningConfig, build_queries
from tests.helpers import ScriptedModel


@pytest.fixture(scope="module")
def corpus_and_queries():  # type: ignore[no-untyped-def]
    corpus = build_corpus(4, 3000, seed=0)
    queries = {r.name: build_queries(list(r.files), n_queries=8, seed=0, mining=MiningConfig.small())
               for r in corpus.members + corpus.nonmembers}
    return corpus, queries


def _half_memoriser(members) -> ScriptedModel:  # type: ignore[no-untyped-def]
    texts = [f.text for r in members for f in r.files]

    def answer(prompt: str, params: object) -> str:
        for t in texts:
            i = t.find(prompt)
            if i >= 0:
                true = t[i + len(prompt):i + len(prompt) + 48]
                return "".join("#" if k % 3 == 2 and not c.isspace() else c for k, c in enumerate(true))
        return "\n    value = compute(item, None)\n    return value"

    return ScriptedModel(answer, spec="half-memoriser")


def test_partial_memorisation_is_graded_not_missed(corpus_and_queries) -> None:  # type: ignore[no-untyped-def]
    corpus, queries = corpus_and_queries
    run, flags = score_repos(_half_memoriser(corpus.members), corpus.members, corpus.nonmembers,
                             queries=queries, n_samples=1, regime="weak")
    exact, graded = run["methods"]["stage1"], run["methods"]["stage1_graded"]
    assert exact["hit_rate_members"] == 0 and exact["auc"] == 0.5
    assert graded["auc"] == 1.0 and graded["tpr"] == 1.0 and graded["fpr"] == 0.0
    assert graded["similarity_members"] > 0.5 > graded["similarity_nonmembers"]
    graded_flags = [f for f in flags if f.method == "benchchecker.stage1_graded"]
    assert sorted(f.instance_id for f in graded_flags) == sorted(
        r.name for r in corpus.members + corpus.nonmembers)
    assert "stage1_graded_seconds" in run["timing"]


def test_a_model_that_saw_nothing_flags_nothing(corpus_and_queries) -> None:  # type: ignore[no-untyped-def]
    corpus, queries = corpus_and_queries
    run, _ = score_repos(_half_memoriser([]), corpus.members, corpus.nonmembers, queries=queries,
                         n_samples=1, regime="weak")
    graded = run["methods"]["stage1_graded"]
    assert graded["tpr"] == 0.0 and graded["fpr"] == 0.0
