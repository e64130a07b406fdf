"""The check's report on real MMLU / TruthfulQA slices with a scripted model (issue 39 item 3):
one verdict per item with both modes, "dropped" among the sampled items, summary.md/json with
exact rates, questions in the per-item table, Stage I's weakness kept as undecided."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from click.testing import CliRunner

from benchchecker_plugin.check import STAGE1_INCONCLUSIVE, CheckConfig, parse_limits, run_check
from benchchecker_plugin.check._pipeline import _stage1_inconclusive
from benchchecker_plugin.cli import main
from benchchecker_plugin.flags import ContaminationFlag, Verdict
from tests.helpers import SHARED_DATA, ScriptedModel, needs_shared_data

TQA = SHARED_DATA / "truthfulqa" / "TruthfulQA.csv"


@needs_shared_data("mmlu")
@needs_shared_data("truthfulqa")
def test_check_samples_every_subject_and_gives_one_verdict_per_item() -> None:
    model = ScriptedModel(lambda prompt, params: "no idea")
    config = CheckConfig(benchmarks=("mmlu", "truthfulqa"), cutoff="2024-06",
                         data={"mmlu": str(SHARED_DATA / "mmlu"), "truthfulqa": str(TQA)},
                         limits=parse_limits("mmlu=114,truthfulqa=20"),
                         ts_modes=("multichoice", "question"))
    result = run_check(model, config, model_name="scripted")
    mmlu = [f for f in result.merged if f.benchmark == "mmlu"]
    subjects = Counter(i.split("/")[0] for b, i in result.questions if b == "mmlu")
    assert len(subjects) == 57 and set(subjects.values()) == {2}     # not the first 4 subjects
    assert len({f.instance_id.split("/")[0] for f in mmlu}) > 50      # probed (some dropped)
    tqa = [f for f in result.merged if f.benchmark == "truthfulqa"]
    assert len(tqa) == len({f.instance_id for f in tqa}) <= 20        # one verdict per item
    assert result.sampled == {"mmlu": 114, "truthfulqa": 20}
    for key, summary in result.ts_summaries.items():                   # dropped: of the sample only
        assert summary["probes"] + summary["dropped"] == summary["sampled"], key
    assert all(result.questions[(f.benchmark, f.instance_id)] for f in result.merged)


@needs_shared_data("mmlu")
def test_check_writes_summary_md_and_json_with_exact_rates(tmp_path: Path, monkeypatch) -> None:
    from benchchecker_plugin.cli._options import ModelOptions

    # the model is not under test: a scripted one answers instead of loading weights
    monkeypatch.setattr(ModelOptions, "build", lambda self, **kw: ScriptedModel(lambda p, params: "x"))
    out = tmp_path / "report"
    res = CliRunner().invoke(main, [
        "check", "--cutoff", "2024-06", "--benchmarks", "mmlu",
        "--data", f"mmlu={SHARED_DATA / 'mmlu'}", "--limit", "mmlu=20",
        "--cache-dir", str(tmp_path / "cache"), "-o", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads((out / "summary.json").read_text())
    (row,) = data["methods"]
    assert row["sampled"] == 20 and row["probed"] + row["dropped"] == 20
    n, k = row["answered"], row["flagged"]
    assert row["rate"]["k"] == k and row["rate"]["n"] == n
    assert row["statement"].startswith(f"{k} of {n} flagged: ")
    md = (out / "summary.md").read_text()
    assert "| mmlu | ts_guessing.multichoice |" in md and row["statement"] in md
    html = (out / "index.html").read_text()
    assert "<th>question</th>" in html or ">question<" in html
    assert f"mmlu ts_guessing.multichoice: {row['statement']}" in res.output


def test_stage1_not_detected_does_not_clear_stage2_present() -> None:
    def flag(iid: str, method: str, value: bool | None) -> ContaminationFlag:
        return ContaminationFlag("swe-bench-verified", iid, "m", method, value, 0.5)

    merged = [flag("a", "benchchecker", False), flag("b", "benchchecker", False),
              flag("c", "benchchecker", True)]
    stage2 = [flag("a", "benchchecker.stage2", True), flag("b", "benchchecker.stage2", False),
              flag("c", "benchchecker.stage2", True)]
    out = _stage1_inconclusive(merged, stage2)
    assert [f.verdict for f in out] == [Verdict.UNDECIDED, Verdict.CLEAN, Verdict.CONTAMINATED]
    assert out[0].evidence["note"] == STAGE1_INCONCLUSIVE


def test_summary_md_carries_no_markup_of_the_values(tmp_path: Path) -> None:
    """Every value interpolated into summary.md (model name, notes, table cells, the overlap
    section) is escaped: rendered by a CommonMark renderer, only the template's own elements appear."""
    from benchchecker_plugin.check import CheckResult, write_check_summary
    from benchchecker_plugin.check._pipeline import OVERLAP_METHOD
    from benchchecker_plugin.overlap import OverlapAudit
    from tests.helpers.markdown import render

    evil = "<img src=x onerror=alert(1)> [x](javascript:alert(1)) *b* `c`"
    flags = [ContaminationFlag("mmlu", "astronomy/1", evil, "ts_guessing.multichoice", True, 1.0),
             ContaminationFlag("mmlu", "astronomy/1", evil, OVERLAP_METHOD, False, 0.0)]
    audit = OverlapAudit((), "coverage", (str(tmp_path),), 1, 3, 100, 0.1,
                         {f"{tmp_path}/<b>x</b>.jsonl": "failed"}, {"mmlu": {"items": 1}})
    result = CheckResult(model=evil, config=CheckConfig(benchmarks=("mmlu",), cutoff="2024-06"),
                         stage_flags={"ts": flags[:1], "overlap": flags[1:]}, merged=flags[:1],
                         repos=[], notes=[f"# {evil}", "1. <script>alert(1)</script>"], ts_summaries={},
                         overlap=audit)
    md = write_check_summary(result, tmp_path)["markdown"].read_text()
    out = render(md)
    assert {t for t, _ in out.tags} == {"h1", "h2", "p", "table", "thead", "tbody", "tr", "th", "td",
                                        "ul", "li"}
    assert all(attrs == () for _, attrs in out.tags)
    assert out.text[0] == f"Contamination check: {evil}"
    assert f"# {evil}" in out.text and "1. <script>alert(1)</script>" in out.text
