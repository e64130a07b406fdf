"""``benchchecker eval membership`` and ``eval ts-guess``: the CI-sized controlled evaluations,
end to end (``eval ts-guess`` meeting its floors: tests/tsguessing/test_controlled.py)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.flags import read_flags
from tests.helpers import needs_shared_data, require_shared_data

METHODS = {"stage1", "stage1_graded", "loss", "zlib", "min_k", "min_k_pp"}


def test_help_teaches():
    res = CliRunner().invoke(main, ["eval", "membership", "--help"])
    assert res.exit_code == 0
    for word in ("--out", "--quick", "membership.json", "Example"):
        assert word in res.output


@pytest.mark.slow
@pytest.mark.model
def test_quick_membership_eval(tmp_path):
    res = CliRunner().invoke(main, ["eval", "membership", "--quick", "--out", str(tmp_path)],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    doc = json.loads((tmp_path / "membership.json").read_text())
    assert [r["regime"] for r in doc["runs"]] == ["strong", "weak"]
    for run in doc["runs"]:
        assert set(run["methods"]) == METHODS
        for m in run["methods"].values():
            assert {"auc", "tpr", "fpr", "tpr_at_5fpr"} <= set(m)
    setup = doc["setup"]
    assert not set(setup["members"]) & set(setup["nonmembers"])
    rec = setup["training"]
    assert rec["config"]["seed"] == 0 and rec["config"]["steps"] == 400
    assert rec["loss_final"] < rec["loss_at_weak"]
    strong = doc["runs"][0]["methods"]
    # Trained-on text must be visibly easier for the strong model: a broken pipeline (labels
    # swapped, members not the training set, scores mis-oriented) fails this.
    assert strong["loss"]["auc"] >= 0.9
    assert strong["stage1"]["hit_rate_members"] > strong["stage1"]["hit_rate_nonmembers"]
    flags = read_flags(tmp_path / "membership_flags.jsonl")
    methods = {f.method for f in flags}
    assert "benchchecker.stage1" in methods and "benchchecker.baseline.min_k_pp" in methods
    n_repos = len(setup["members"]) + len(setup["nonmembers"])
    assert sum(f.method == "benchchecker.stage1" for f in flags) == 2 * n_repos
    assert sum(f.method == "benchchecker.stage1_graded" for f in flags) == 2 * n_repos
    # the graded score sees the partial memorisation of the weak checkpoint, which the exact test
    # cannot (no exact hit yet: AUC 0.5), and keeps the strong regime separated
    weak = doc["runs"][1]["methods"]
    assert weak["stage1"]["auc"] == 0.5 and weak["stage1"]["hit_rate_members"] == 0
    assert weak["stage1_graded"]["auc"] >= 0.8, weak["stage1_graded"]
    assert strong["stage1_graded"]["auc"] == 1.0 and strong["stage1_graded"]["fpr"] == 0
    assert "weak: stage1 AUC 0.500, stage1_graded AUC " in res.output


def test_ts_guess_help_teaches() -> None:
    res = CliRunner().invoke(main, ["eval", "ts-guess", "--help"])
    assert res.exit_code == 0
    for word in ("--data", "--seed", "--items", "--mode", "--out", "--quick", "tsguess.json",
                 "memorised", "not a test of", "Example"):
        assert word in res.output, word


@needs_shared_data("mmlu")
def test_ts_guess_on_a_model_that_did_not_memorise_exits_1_without_an_auc(tmp_path) -> None:
    res = CliRunner().invoke(main, ["eval", "ts-guess", "--items", "8", "--max-steps", "1",
                                    "--data", f"mmlu={require_shared_data('mmlu')}",
                                    "--out", str(tmp_path)])
    assert res.exit_code == 1, res.output
    assert res.output.splitlines()[-1] == ("Error: fine-tune memorised 0% of the 4 seen targets in 1 "
                                           "steps (at least 90% needed); not a test of the detector")
    assert "AUC" not in res.output
    doc = json.loads((tmp_path / "tsguess.json").read_text())
    assert doc["verified"] is False and doc["auc"] is None and doc["memorised_share"] == 0.0
    assert len(read_flags(tmp_path / "tsguess_flags.jsonl")) == 8


def test_ts_guess_offline_without_data_names_the_option(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    res = CliRunner().invoke(main, ["eval", "ts-guess", "--out", str(tmp_path)])
    assert res.exit_code == 2, res.output
    assert res.output.startswith("Error: cais/mmlu (split test): cannot load from the Hugging Face hub")
    assert res.output.rstrip().endswith("offline, pass --data PATH")
