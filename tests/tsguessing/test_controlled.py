"""The controlled TS-Guessing check, run for real: MMLU items drawn, a model fine-tuned on half of
them until verified to have memorised them, every probe asked, seen vs unseen scored.

The floors are the ones the check promises on every draw: exact match >= 0.90 on the seen half,
<= 0.05 on the unseen half, AUC by Rouge-L >= 0.95. The fast tier runs 12 items on one seed; the
slow tier runs ``benchchecker eval ts-guess --quick`` (40 items) on two seeds. On the earlier
check (a 2-layer, width-64 model trained a fixed 150 epochs, nothing verified) seed 0 gave EM 0.30
on the seen half and AUC 0.72.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.flags import read_flags
from benchchecker_plugin.tsguessing import CONTROLLED, ControlledConfig, draw_probes, run_controlled
from tests.helpers import needs_shared_data, require_shared_data

EM_SEEN, EM_UNSEEN, AUC = 0.90, 0.05, 0.95


def _floors(doc: dict) -> None:  # type: ignore[type-arg]
    assert doc["verified"] is True, doc["headline"]
    assert doc["memorised_share"] >= 0.9 and doc["training"]["stopped"] == "memorised"
    assert doc["halves"]["seen"]["exact_match"] >= EM_SEEN, doc["halves"]
    assert doc["halves"]["unseen"]["exact_match"] <= EM_UNSEEN, doc["halves"]
    assert doc["auc"]["rouge_l"] >= AUC, doc["auc"]


@needs_shared_data("mmlu")
def test_a_small_real_run_meets_the_floors(small_controlled) -> None:  # type: ignore[no-untyped-def]
    out, config, result, doc = small_controlled
    _floors(doc)
    assert json.loads((out / "tsguess.json").read_text()) == doc
    assert result.verified and result.n_seen == 6 and len(result.labels) == 12
    rec = doc["training"]
    assert rec["memorised"] == 6 and rec["per_target_reproduced"] == [1.0] * 6
    assert rec["checks"][-1]["memorised_share"] == 1.0 and rec["steps"] <= config.finetune.max_steps
    assert len(rec["seen_instance_ids"]) == 6 and rec["failed_probes"] == 0
    assert doc["setup"]["seed"] == 0 and doc["setup"]["items"] == 12
    flags = read_flags(out / "tsguess_flags.jsonl")
    assert [f.instance_id for f in flags] == [f.instance_id for f in result.flags]
    seen_ids = set(rec["seen_instance_ids"])
    assert {f.instance_id for f in flags if f.contaminated} == seen_ids
    assert result.headline().startswith("EM seen 1.00 vs unseen 0.00, Rouge-L AUC 1.000 (seed 0; "
                                        "fine-tune memorised 100% of the 6 seen targets in ")


@needs_shared_data("mmlu")
def test_a_draw_the_model_fails_to_memorise_is_not_a_detector_result(tmp_path: Path) -> None:
    config = dataclasses.replace(CONTROLLED, items=8).seeded(0)
    config = dataclasses.replace(config, finetune=dataclasses.replace(config.finetune, max_steps=1))
    result, doc = run_controlled(tmp_path, require_shared_data("mmlu"), config)
    assert not result.verified and doc["verified"] is False and doc["auc"] is None
    assert doc["memorised_share"] == 0.0 and doc["training"]["stopped"] == "step cap"
    assert result.headline() == ("fine-tune memorised 0% of the 4 seen targets in 1 steps; "
                                 "not a test of the detector")
    assert doc["auc_withheld"] == ("fine-tune memorised 0% of the 4 seen targets in 1 steps (at "
                                   "least 90% needed); not a test of the detector")


@needs_shared_data("mmlu")
def test_the_draw_is_seeded_short_and_distinct() -> None:
    mmlu = require_shared_data("mmlu")
    a = draw_probes(mmlu, ControlledConfig(items=30, seed=3))
    assert [p.instance_id for p in a] == [p.instance_id for p in draw_probes(mmlu, ControlledConfig(items=30, seed=3))]
    assert len({p.instance_id for p in a}) == 30 and all(len(p.prompt) <= 700 for p in a)
    b = draw_probes(mmlu, ControlledConfig(items=30, seed=4))
    assert len({p.instance_id for p in a} & {p.instance_id for p in b}) < 5
    q = draw_probes(mmlu, ControlledConfig(items=5, seed=3, mode="question"))
    assert {p.mode.value for p in q} == {"question"}


@pytest.mark.slow
@needs_shared_data("mmlu")
@pytest.mark.parametrize("seed", [0, 1])
def test_eval_ts_guess_meets_the_floors(tmp_path: Path, seed: int) -> None:
    """``benchchecker eval ts-guess --quick`` as CI runs it, on two draws."""
    res = CliRunner().invoke(main, ["eval", "ts-guess", "--quick", "--seed", str(seed),
                                    "--data", str(require_shared_data("mmlu")), "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    doc = json.loads((tmp_path / "tsguess.json").read_text())
    _floors(doc)
    assert doc["setup"]["items"] == 40 and doc["setup"]["seed"] == seed
    assert f"40 items, seed {seed}: fine-tune memorised 100% of the 20 seen targets" in res.output


def test_config_is_checked() -> None:
    from benchchecker_plugin.errors import InputError

    with pytest.raises(InputError, match="at least 4 items, got 2"):
        ControlledConfig(items=2)
    with pytest.raises(ValueError, match="'words' is not a valid Mode"):
        ControlledConfig(mode="words")


@needs_shared_data("mmlu")
def test_the_draw_leaves_out_targets_no_answer_can_match() -> None:
    """Seed 4 drew an option "/" (normalised to nothing: exact match and Rouge-L 0 whatever the
    reply), which a model that memorised it still "missed"."""
    from benchchecker_plugin.tsguessing import normalize

    probes = draw_probes(require_shared_data("mmlu"), ControlledConfig(items=100, seed=4))
    assert all(normalize(p.target) for p in probes)
