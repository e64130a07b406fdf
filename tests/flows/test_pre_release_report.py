"""Issue 39 item 3 (the pre-release report), run as a model team runs it: the README's
``benchchecker check`` block through the installed command, offline, on the real MMLU and
TruthfulQA files with the default model, its ``--limit 20`` made per benchmark
(``--limit mmlu=8,truthfulqa=4``) and both TS-Guessing modes (``--ts-modes multichoice,question``)
so that it runs in a few minutes.

Before: ``--limit N`` took the first N items alphabetically (MMLU: one subject) and served every
benchmark; the two TS-Guessing modes each drew their own items (167 merged verdicts for 100
TruthfulQA items); "dropped" counted the whole benchmark; no rate or interval; only ``index.html``
(no summary to paste) whose per-item table showed ids, not questions. Expected: a stratified sample
per benchmark, one merged verdict per item, exact rates with what they rule out in ``summary.md``
and ``summary.json`` beside the page, the question in the table.

The expected values are read from the data files and computed with scipy here, not taken from
the package.
"""

from __future__ import annotations

import csv
import html
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from benchchecker_plugin.report import markdown_text
from tests.helpers import SHARED_DATA, require_shared_data
from tests.helpers.docs import docs_text

pytestmark = [pytest.mark.slow, pytest.mark.model]

REPO = Path(__file__).resolve().parents[2]
OFFLINE = {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "BENCHCHECKER_PROGRESS": "0"}
LIMITS = {"mmlu": 8, "truthfulqa": 4}
MODES = ("multichoice", "question")


def _readme_check_command() -> str:
    """The README's pre-release block, one line, its ``--limit 20`` per benchmark, both modes."""
    text = docs_text()
    block = text.split("# The pre-release check", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    command = re.sub(r"\\\n\s*", "", block).strip()
    assert command.startswith("benchchecker check ") and " --limit 20 " in command, command
    limit = ",".join(f"{b}={n}" for b, n in LIMITS.items())
    return (command.replace(" --limit 20 ", f" --limit {limit} --ts-modes {','.join(MODES)} ")
            .replace("../shared/data", str(SHARED_DATA)))


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    require_shared_data("mmlu", "test")
    require_shared_data("truthfulqa")
    require_shared_data("swebench_verified")
    cwd = tmp_path_factory.mktemp("check")
    proc = subprocess.run(["bash", "-c", _readme_check_command()], cwd=cwd, capture_output=True,
                          text=True, timeout=1800, env=dict(os.environ, **OFFLINE))
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    out = cwd / "report"

    def flags(path: Path) -> list[dict[str, Any]]:
        return [json.loads(ln) for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]

    return {"dir": out, "stdout": proc.stdout, "stderr": proc.stderr,
            "merged": flags(out / "flags.jsonl"),
            "modes": {m: flags(out / "flags" / f"ts_guessing_{m}.jsonl") for m in MODES},
            "summary": json.loads((out / "summary.json").read_text(encoding="utf-8"))}


def _ids(flags: list[dict[str, Any]], benchmark: str) -> list[str]:
    return [f["instance_id"] for f in flags if f["benchmark"] == benchmark]


def _mmlu_questions(instance_id: str) -> str:
    subject, row = instance_id.split("/")
    with (SHARED_DATA / "mmlu" / "test" / f"{subject}_test.csv").open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))[int(row)]["question"]


def _truthfulqa_rows() -> list[dict[str, str]]:
    with (SHARED_DATA / "truthfulqa" / "TruthfulQA.csv").open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_summary_md_and_json_are_written_beside_the_page(report: dict[str, Any]) -> None:
    out = report["dir"]
    assert {p.name for p in out.iterdir()} >= {"index.html", "summary.md", "summary.json",
                                               "flags.jsonl", "flags"}
    md = (out / "summary.md").read_text(encoding="utf-8")
    assert md.startswith("# Contamination check: hf/smollm2-135m")
    for row in report["summary"]["methods"]:       # every rate line is there to paste
        assert f"| {row['benchmark']} | {row['method']} |" in md
        assert markdown_text(row["statement"]) in md   # escaped as Markdown: "\\[" for "["
    assert "summary.md, summary.json beside it" in report["stdout"]


def test_each_benchmark_gets_its_own_limit(report: dict[str, Any]) -> None:
    for benchmark, n in LIMITS.items():
        total = "14042" if benchmark == "mmlu" else "817"
        for mode in MODES:
            assert f"-> {benchmark}: TS-Guessing ({mode}) on {n} of {total} items" in report["stderr"]
        assert len(_ids(report["merged"], benchmark)) == n
        [merged] = [m for m in report["summary"]["merged"] if m["benchmark"] == benchmark]
        assert merged["items"] == n
    rows = report["summary"]["methods"]
    assert sorted((r["benchmark"], r["method"]) for r in rows) == sorted(
        (b, f"ts_guessing.{m}") for b in LIMITS for m in MODES)
    for row in rows:
        # the filters' drops are counted among the sampled items, not over the whole benchmark
        assert row["sampled"] == LIMITS[row["benchmark"]]
        assert row["probed"] + row["dropped"] == row["sampled"], row


def test_the_sample_is_stratified_not_the_first_items(report: dict[str, Any]) -> None:
    subjects = {i.split("/")[0] for i in _ids(report["merged"], "mmlu")}
    assert len(subjects) >= 4, subjects          # the first 8 alphabetically: abstract_algebra only
    rows = _truthfulqa_rows()
    categories = {rows[int(i)]["Category"] for i in _ids(report["merged"], "truthfulqa")}
    assert len(categories) >= 2, categories      # the first 4 rows are all Misconceptions


def test_rates_come_with_an_exact_interval_and_what_they_rule_out(report: dict[str, Any]) -> None:
    from scipy import stats

    for row in report["summary"]["methods"]:
        rate, k, n = row["rate"], row["flagged"], row["answered"]
        assert n > 0 and (rate["k"], rate["n"], rate["level"]) == (k, n, 0.95), row
        # Clopper-Pearson, two-sided 95%, and the one-sided 95% upper bound
        low = 0.0 if k == 0 else stats.beta.ppf(0.025, k, n - k + 1)
        high = 1.0 if k == n else stats.beta.ppf(0.975, k + 1, n - k)
        at_most = 1.0 if k == n else stats.beta.ppf(0.95, k + 1, n - k)
        assert rate["low"] == pytest.approx(low, abs=1e-5)
        assert rate["high"] == pytest.approx(high, abs=1e-5)
        assert rate["at_most"] == pytest.approx(at_most, abs=1e-5)
        assert 0 < rate["at_most"] < 1, row
        assert row["statement"].startswith(f"{k} of {n} flagged: ") and row["statement"].endswith(" at 95%")
        if k == 0:
            assert rate["at_most"] == pytest.approx(1 - 0.05 ** (1 / n), abs=1e-5)
            assert f"at most {100 * rate['at_most']:.1f}%" in row["statement"], row
        assert f"{row['benchmark']} {row['method']}: {row['statement']}" in report["stdout"]


def test_both_modes_probe_the_same_items_one_merged_verdict_each(report: dict[str, Any]) -> None:
    for benchmark, n in LIMITS.items():
        merged = _ids(report["merged"], benchmark)
        assert len(merged) == len(set(merged)) == n, merged
        probed = {m: set(_ids(report["modes"][m], benchmark)) for m in MODES}
        for mode, ids in probed.items():
            assert ids and ids <= set(merged), (mode, ids, merged)
        assert set.union(*probed.values()) == set(merged)
    assert all(f["method"] == "merged" for f in report["merged"])


def test_the_per_item_table_shows_each_question(report: dict[str, Any]) -> None:
    page = (report["dir"] / "index.html").read_text(encoding="utf-8")
    table = page.split('id="instances"', 1)[1].split("</table>", 1)[0]
    header = table.split("</thead>", 1)[0]
    assert ">question</th>" in header
    rows = table.split("<tr>")[1:]
    tqa = _truthfulqa_rows()
    items = [("mmlu", i, _mmlu_questions(i)) for i in _ids(report["merged"], "mmlu")] + [
        ("truthfulqa", i, tqa[int(i)]["Question"]) for i in _ids(report["merged"], "truthfulqa")]
    for benchmark, iid, question in items:
        [row] = [r for r in rows if f'data-v="{benchmark}"' in r and f'data-v="{html.escape(iid)}"' in r]
        cells = [html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        assert " ".join(question.split())[:60] in cells[2], (iid, question, cells)
