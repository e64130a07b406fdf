"""Issue 39 item 6 (the lm-eval grouped table), run as a user runs it: the installed
``benchchecker lm-eval run ... --contamination-filter FLAGS`` on two of the shipped local MMLU
tasks (``tasks/lm_eval``, real rows read from the shared data through ``--metadata``) with the
default model's export, offline.

Before: a drop that could not be estimated showed "-" with no "too few" note (in the printed
table and in the JSON beside the results), there was no row across the subtasks, and the
``undec.`` column counted unflagged items (93, while the log said 0 undecided, 93 unflagged).
Expected: "too few (n=K clean)" in both places, one row pooled over the benchmark's subtasks, and
``undec.`` counting only flags that could not decide, unflagged items in their own column.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers import SHARED_DATA, require_shared_data

REPO = Path(__file__).resolve().parents[2]
SUBJECTS = ("astronomy", "anatomy")
TASKS = [f"mmlu_local_{s}" for s in SUBJECTS]
LIMIT = 5   # lm-eval's --limit, per subtask
# per subject, by row: clean, contaminated, clean, undecided, (row 4: no flag at all)
VERDICTS = {0: False, 1: True, 2: False, 3: None}
OFFLINE = {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "BENCHCHECKER_PROGRESS": "0"}
HEAD = "|task|filter|metric|tier|n|clean|contam.|undec.|unflagged|full|clean|contam.|rel. drop|drop 95% CI|"


def _flags(path: Path) -> Path:
    from benchchecker_plugin.flags import ANY_MODEL, ContaminationFlag, write_flags

    return write_flags(path, [
        ContaminationFlag(benchmark="mmlu", instance_id=f"{s}/{row}", model=ANY_MODEL,
                          method="ts_guessing.multichoice", contaminated=c,
                          score=0.0 if c is None else float(c))
        for s in SUBJECTS for row, c in VERDICTS.items()])


def _table(stdout: str) -> dict[str, list[str]]:
    """The printed grouped table's ``all`` rows, ``{task: cells}`` (cells in HEAD's order)."""
    lines = stdout.splitlines()
    start = lines.index(HEAD)
    rows = {}
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = line.split("|")[1:-1]
        if cells[3] == "all":
            rows[cells[0]] = cells
    return rows


@pytest.mark.slow
@pytest.mark.model
def test_filter_table_says_too_few_pools_the_subtasks_and_keeps_unflagged_apart(
        smollm2_folder: Path, tmp_path: Path) -> None:
    require_shared_data("mmlu", "test")
    flags = _flags(tmp_path / "flags.jsonl")
    proc = subprocess.run(
        ["benchchecker", "lm-eval", "run", "--model", "hf", "--model_args",
         f"pretrained={smollm2_folder}", "--device", "cpu",
         "--include_path", str(REPO / "tasks" / "lm_eval"), "--tasks", ",".join(TASKS),
         "--metadata", json.dumps({"data": str(SHARED_DATA / "mmlu")}), "--limit", str(LIMIT),
         "--output_path", "out", "--contamination-filter", str(flags)],
        cwd=tmp_path, capture_output=True, text=True, timeout=1200, env=dict(os.environ, **OFFLINE))
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    # the log's counts: 2 undecided (a flag that could not decide) and 2 unflagged (no flag)
    assert ("mmlu / model '*': 10 instances: 4 clean, 2 contaminated, 2 undecided, 2 unflagged; "
            "mode both: evaluating 10") in proc.stderr

    table = _table(proc.stdout)
    pooled = "pooled (2 tasks)"
    assert sorted(table) == sorted([*TASKS, pooled]), proc.stdout
    for task in TASKS:   # n, clean, contam., undec., unflagged; the drop cell says why it is blank
        assert table[task][4:9] == ["5", "2", "1", "1", "1"], table[task]
        assert table[task][12] == "too few (n=2 clean)", table[task]
    assert table[pooled][4:9] == ["10", "4", "2", "2", "2"], table[pooled]
    assert table[pooled][12] == "too few (n=4 clean)", table[pooled]
    n, right = [int(table[t][4]) for t in TASKS], [float(table[t][9]) for t in TASKS]
    assert float(table[pooled][9]) == pytest.approx(sum(a * b for a, b in zip(n, right)) / 10, abs=1e-4)

    [results] = sorted((tmp_path / "out").rglob("results_*.json"))
    [ours] = sorted(results.parent.glob("benchchecker_2*.json"))   # the JSON beside lm-eval's results
    rows = {s["task"]: s for s in json.loads(ours.read_text())["scores"] if s["tier"] == "all"}
    assert sorted(rows) == sorted([*TASKS, pooled])
    for task in TASKS:
        row = rows[task]
        assert (row["n_instances"], row["n_clean"], row["n_contaminated"], row["n_undecided"],
                row["n_unflagged"], row["n_tasks"]) == (5, 2, 1, 1, 1, 1)
        assert row["note"] == "too few (n=2 clean)" and row["relative_drop"] is None
    row = rows[pooled]
    assert (row["n_instances"], row["n_clean"], row["n_contaminated"], row["n_undecided"],
            row["n_unflagged"], row["n_tasks"]) == (10, 4, 2, 2, 2, 2)
    assert row["note"] == "too few (n=4 clean)" and row["relative_drop"] is None
    # lm-eval's own results file counts each subtask, not the pooled row
    assert json.loads(results.read_text())["benchchecker"]["subset_sizes"] == dict.fromkeys(TASKS, 5)
