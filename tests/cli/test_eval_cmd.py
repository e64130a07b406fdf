"""``benchchecker eval membership``: the CI-sized controlled evaluation, end to end."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.flags import read_flags

METHODS = {"stage1", "loss", "zlib", "min_k", "min_k_pp"}


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
