"""``benchchecker lm-eval run --contamination-detect overlap --contamination-corpus PATH``: the real
lm-eval run on a local task (6 real MMLU rows) with a tiny local model; one row is planted in the
corpus, so its doc is the contaminated group and the others clean."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchchecker_plugin.flags import read_flags
from tests.helpers.mc_tasks import write_mc_task

TASK = "abstract_algebra"


@pytest.mark.slow
@pytest.mark.model
def test_overlap_detection_writes_flags_and_groups_the_run(cli, tiny_lm: Path, mmlu_csv: Path,
                                                           mmlu_rows, tmp_path: Path) -> None:
    folder = tmp_path / "tasks"
    write_mc_task(folder, TASK, mmlu_csv)
    row = mmlu_rows[2]
    gold = row[f"choice{int(row['answer'])}"]   # the slice's CSV: question, choice0..3, answer
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "leak", "text": f"{row['question']}\n{gold}"}) + "\n",
                      encoding="utf-8")
    result = cli("lm-eval", "run", "--model", "hf", "--model_args", f"pretrained={tiny_lm}",
                 "--device", "cpu", "--include_path", folder, "--tasks", TASK,
                 "--output_path", tmp_path / "out", "--log_samples",
                 "--contamination-detect", "overlap", "--contamination-corpus", corpus)
    assert result.exit_code == 0, result.output
    assert "detection: corpus overlap (parts) of 6 items in 1 documents" in result.stderr
    [flags_file] = sorted((tmp_path / "out").rglob("benchchecker_flags_*.jsonl"))
    flags = read_flags(flags_file)
    assert {f.method for f in flags} == {"benchchecker.overlap"} and len(flags) == 6
    # not MMLU by its dataset (a local CSV): the task read through its definition, ids = doc ids
    assert [(f.benchmark, f.instance_id) for f in flags if f.contaminated] == [(TASK, "2")]
    [ours] = sorted((tmp_path / "out").rglob("benchchecker_2*.json"))
    report = json.loads(ours.read_text())
    assert report["detection"]["method"] == "overlap"
    assert report["groups"][0]["counts"]["contaminated"] == 1
    assert report["groups"][0]["counts"]["clean"] == 5
