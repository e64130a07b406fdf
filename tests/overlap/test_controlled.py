"""The controlled overlap evaluation on a hand-made benchmark: its counts, its flags (against the
per-item results they come from) and its JSON."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.overlap import OverlapItem, mc_query
from benchchecker_plugin.overlap._controlled import (
    BASELINE,
    EVAL_METRICS,
    OverlapEvalConfig,
    assign_forms,
    flag_items,
    run_overlap_eval,
)
from benchchecker_plugin.overlap._planting import Form
from benchchecker_plugin.overlap._result import item_results
from benchchecker_plugin.overlap._scan import scan_texts
from benchchecker_plugin.overlap._table import build_table
from benchchecker_plugin.tsguessing import BenchmarkItem
from tests.helpers import SHARED_DATA, needs_shared_data

N_PER = 2 * (len(Form) + 1)   # items per benchmark: 2 planted per form


def _pairs() -> list[tuple[BenchmarkItem, OverlapItem]]:
    """MMLU-like items of 15 + 3 words and TruthfulQA-like questions of 9 words (shorter than 13),
    made of invented words: no background holds them."""
    rng = np.random.default_rng(0)
    vocab = [f"zq{k}x" for k in range(400)]

    def words(n: int) -> str:
        return " ".join(rng.choice(vocab, n, replace=False))

    out = []
    for k in range(N_PER):
        options = tuple(words(3) for _ in range(4))
        item = BenchmarkItem("mmlu", f"s/{k}", words(15), options, 1)
        out.append((item, mc_query("mmlu", item.instance_id, item.question, options, 1)))
    for k in range(N_PER):
        item = BenchmarkItem("truthfulqa", str(k), words(9), (words(4), words(4), words(4)), 0)
        out.append((item, mc_query("truthfulqa", item.instance_id, item.question, item.options, 0)))
    return out


@pytest.fixture
def roots(tmp_path: Path) -> dict[str, Path | None]:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "csv.py").write_text(Path(csv.__file__).read_text(encoding="utf-8"), encoding="utf-8")
    return {"stdlib": lib, "python-doc": None, "linux-doc": None, "gcide": None, "wordnet": None}


def test_forms_are_drawn_per_benchmark_capped_and_seeded() -> None:
    names = ["mmlu"] * N_PER + ["truthfulqa"] * N_PER
    config = OverlapEvalConfig(items_per_form=5, seed=4)
    got = assign_forms(names, config)
    assert got == assign_forms(names, config) != assign_forms(names, OverlapEvalConfig(5, seed=5))
    for bench in ("mmlu", "truthfulqa"):
        forms = [f for i, f in got.items() if names[i] == bench]
        assert sorted(forms) == sorted([f for f in Form for _ in range(2)])   # N_PER // (forms + 1)


def test_flags_are_the_item_results_verdicts() -> None:
    pairs = _pairs()
    table = build_table([q for _, q in pairs], (8, 13))
    half = pairs[0][1].text.split()[:9]                  # 9 tokens of item 0: 8-grams, no 13-gram
    partial = scan_texts(table, [pairs[1][1].text, " ".join(half), pairs[N_PER][1].text])
    reference = {m.name: np.array([r.measures[m.name].contaminated is True
                                   for r in item_results(table, partial, EVAL_METRICS)]) for m in EVAL_METRICS}
    fast = flag_items(table, partial, EVAL_METRICS)
    for name in reference:
        assert np.array_equal(fast[name], reference[name]), name
    assert fast["any_ngram"].nonzero()[0].tolist() == [1, N_PER]
    assert fast["any_8gram"].nonzero()[0].tolist() == [0, 1, N_PER]
    assert fast["parts"].nonzero()[0].tolist() == [1, N_PER]    # half a question is not the item


def test_run_counts_and_json(tmp_path: Path, roots: dict[str, Path | None]) -> None:
    config = OverlapEvalConfig(items_per_form=2, background_bytes=1e6, seed=1)
    doc = run_overlap_eval(tmp_path / "o", tmp_path, config, roots=roots, pairs=_pairs())
    assert json.loads((tmp_path / "o" / "overlap_eval.json").read_text()) == json.loads(json.dumps(doc))
    assert set(doc) == {"results", "default_rule", "best_rule", "goals", "masking", "clean_examples",
                        "setup", "timing"}
    res = doc["results"]
    assert list(res) == [f.value for f in Form] + ["verbatim_short", "clean"]
    names = [m.name for m in EVAL_METRICS] + [BASELINE]
    for group in res.values():
        assert list(group["metrics"]) == names
        for cell in group["metrics"].values():
            assert set(cell) == {"flagged", "n", "rate", "ci", "by_benchmark"}
            assert cell["ci"][0] <= cell["rate"] <= cell["ci"][1]
    verbatim = res["verbatim"]["metrics"]
    for name in ("parts", "any_ngram", "any_8gram", "coverage", "longest"):
        assert (verbatim[name]["flagged"], verbatim[name]["n"]) == (4, 4)
    for form in Form:   # the default rule finds every form of these distinctive items
        assert res[form.value]["metrics"]["parts"]["flagged"] == 4, form
    # the 9-word TruthfulQA questions: no 13-gram for the baseline, no span > 10 for Llama 2
    for name in (BASELINE, "token_level"):
        assert {b: c["flagged"] for b, c in verbatim[name]["by_benchmark"].items()} == \
            {"mmlu": 2, "truthfulqa": 0}
    assert res["verbatim_short"]["metrics"]["any_ngram"]["n"] == 2
    assert res["verbatim_short"]["metrics"][BASELINE]["flagged"] == 0
    clean = res["clean"]
    assert clean["metrics"]["any_ngram"]["n"] == 2 * N_PER - 2 * 2 * len(Form)
    assert all(c["flagged"] == 0 for c in clean["metrics"].values())
    assert all(c["flagged"] == 0 for c in clean["background_only"].values())
    assert doc["setup"]["background"]["missing"] == ["python-doc", "linux-doc", "gcide", "wordnet"]
    assert doc["setup"]["planted"] == {"mmlu": {f.value: 2 for f in Form},
                                       "truthfulqa": {f.value: 2 for f in Form}}
    assert [g["reached"] for g in doc["goals"]] == [True, True] and doc["masking"]["masked_windows"] == 0


@pytest.mark.slow
@needs_shared_data("mmlu")
@needs_shared_data("truthfulqa", "TruthfulQA.csv")
def test_eval_overlap_quick_end_to_end(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["eval", "overlap", "--out", str(tmp_path), "--quick",
                                    "--data-dir", str(SHARED_DATA)])
    assert res.exit_code == 0, res.output
    doc = json.loads((tmp_path / "overlap_eval.json").read_text())
    assert doc["setup"]["items"] == {"mmlu": 14042, "truthfulqa": 817}
    assert doc["setup"]["background"]["chars"]["stdlib"] > 0
    verbatim = doc["results"]["verbatim"]["metrics"]
    assert verbatim["parts"]["rate"] >= 0.95 and verbatim[BASELINE]["rate"] < 1.0
    assert doc["results"]["verbatim_short"]["metrics"][BASELINE]["flagged"] == 0
    assert doc["goals"][1]["reached"]                     # clean flagged <= 1%
    assert "clean (FPR)" in res.output and "default rule: parts" in res.output


@pytest.mark.slow
@needs_shared_data("mmlu")
@needs_shared_data("truthfulqa", "TruthfulQA.csv")
def test_demo_step(tmp_path: Path) -> None:
    from benchchecker_plugin.demo import DemoContext, run_step
    from benchchecker_plugin.demo._steps import overlap_step

    result = run_step(overlap_step, DemoContext(tmp_path, SHARED_DATA, True), "overlap", "t")
    assert result.status == "ok", result.note
    assert result.headline["clean flagged, parts"] <= 0.01
    assert result.table is not None and "clean (false positives)" in set(result.table["form"])
    assert (tmp_path / "overlap" / "overlap_eval.json").is_file()
