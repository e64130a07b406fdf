"""``check --limit``: the sample is drawn from the items some TS-Guessing mode can probe, so every
sampled item gets a verdict. With the strata in a random turn order, ``--limit truthfulqa=4``
drew an item both modes' filters drop: it took a place in the sample and gave no merged verdict."""

from __future__ import annotations

from pathlib import Path

from benchchecker_plugin.check import CheckConfig, parse_limits, run_check
from benchchecker_plugin.check._pipeline import probeable
from benchchecker_plugin.tsguessing import load_mmlu, load_truthfulqa, prepare_probes
from tests.helpers import SHARED_DATA, ScriptedModel, needs_shared_data

TRUTHFULQA = SHARED_DATA / "truthfulqa" / "TruthfulQA.csv"


@needs_shared_data("mmlu")
def test_probeable_items_are_those_some_mode_makes_a_probe_of_in_order() -> None:
    items = load_mmlu(SHARED_DATA / "mmlu", subjects=["abstract_algebra", "astronomy"])
    for modes in (("multichoice",), ("question",), ("multichoice", "question")):
        probed = {p.instance_id for m in modes for p in prepare_probes(items, m, seed=3).probes}
        assert probeable(items, modes, seed=3) == [i for i in items if i.instance_id in probed]
    # the case this is for: abstract algebra's numeric options are dropped in multichoice
    assert len(probeable(items, ("multichoice",), seed=3)) < len(items)


@needs_shared_data("truthfulqa")
def test_every_sampled_item_gets_a_merged_verdict_under_any_seed(tmp_path: Path) -> None:
    """TruthfulQA's filters drop most items in multichoice (similar or too few options); over
    eight seeds each limited sample is 4 items, each with one merged verdict, and the note says
    what the sample was drawn from."""
    n_items = len(load_truthfulqa(TRUTHFULQA))
    model = ScriptedModel(lambda prompt, params: "x")
    for seed in range(8):
        config = CheckConfig(benchmarks=("truthfulqa",), cutoff="2024-06", seed=seed,
                             limits=parse_limits("truthfulqa=4"), ts_modes=("multichoice", "question"),
                             data={"truthfulqa": str(TRUTHFULQA)})
        result = run_check(model, config, model_name="scripted")
        assert result.sampled == {"truthfulqa": 4}
        assert len({f.instance_id for f in result.merged}) == 4, seed
        [note] = [n for n in result.notes if "--limit sample" in n]
        assert note.startswith("truthfulqa: the --limit sample is drawn from the ") and f"of {n_items} items" in note
