"""``run_membership`` on a tiny configuration: phase timings, torch threads, seed-reproducibility."""

from __future__ import annotations

import json

import pytest

from benchchecker_plugin.membership import EvalConfig, TrainConfig, run_membership

pytestmark = pytest.mark.model

TINY = EvalConfig(n_repos=2, repo_bytes=2500, n_queries=6, n_samples=1,
                  train=TrainConfig(vocab_size=300, n_layer=1, n_embd=32, n_head=2, n_ctx=64,
                                    batch_size=4, steps=30, weak_step=5, lr=5e-3, warmup=2))


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict, int]:
    import torch

    old = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        a = run_membership(tmp_path_factory.mktemp("a"), config=TINY)
        threads_after = torch.get_num_threads()
        b = run_membership(tmp_path_factory.mktemp("b"), config=TINY)
    finally:
        torch.set_num_threads(old)
    return a, b, threads_after


def test_same_seed_same_results(two_runs):
    """Guards seed-reproducibility: training, mining and probing give the same numbers twice."""
    a, b, _ = two_runs
    assert json.dumps(a["runs"][0]["methods"]) == json.dumps(b["runs"][0]["methods"])
    assert json.dumps(a["runs"][1]["methods"]) == json.dumps(b["runs"][1]["methods"])
    assert a["setup"]["training"]["loss_final"] == b["setup"]["training"]["loss_final"]
    assert a["setup"]["queries_per_repo"] == b["setup"]["queries_per_repo"]


def test_timings_cover_every_phase(two_runs):
    a, _, _ = two_runs
    t = a["timings"]
    phases = ["corpus", "tokenizer", "tokenize", "training", "mining", "write"]
    for regime in ("strong", "weak"):
        phases += [f"stage1_{regime}", f"baselines_{regime}", f"scoring_{regime}"]
    for p in phases:
        assert isinstance(t[p], float) and t[p] >= 0, p
    repos = a["setup"]["members"] + a["setup"]["nonmembers"]
    assert sorted(t["mining_per_repo"]) == sorted(repos)
    assert sum(t[p] for p in phases) <= t["total"] + 0.5  # phases do not overlap
    assert t["total"] == a["total_seconds"] and t["threads"] == 1
    assert a["setup"]["config"]["threads"] == 1 and a["setup"]["config"]["n_repos"] == 2


def test_threads_restored_after_the_run(two_runs):
    _, _, threads_after = two_runs
    assert threads_after == 2


def test_bad_threads():
    with pytest.raises(ValueError, match="threads"):
        EvalConfig(threads=0)
