"""``benchchecker overlap --task NAME --include_path DIR``: a local lm-eval multiple-choice task's
documents as overlap queries, with the ids ``ts-guess --task`` writes, and its option errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from benchchecker_plugin.cli import main
from tests.helpers.mc_tasks import ARC, write_lm_eval_tasks


def _invoke(*args: object) -> Result:
    return CliRunner().invoke(main, ["overlap", *[str(a) for a in args]])


@pytest.mark.parametrize(("args", "line"), [
    ((), "Error: give one of --benchmark or --task"),
    (("--benchmark", "mmlu", "--task", "x"), "Error: give one of --benchmark or --task"),
    (("--benchmark", "mmlu", "--include_path", "x"), "Error: --include_path and --metadata need --task"),
    (("--task", "x", "--data", "{data}"), "Error: --data {data}: --task reads its data the lm-eval way: "
                                           "--metadata '{\"data\": \"{data}\"}'"),
    (("--task", "x", "--metadata", "{no"), "Error: --metadata '{no': not JSON (Expecting property "
                                           "name enclosed in double quotes: line 1 column 2 (char 1))"),
])
def test_task_option_errors(args: tuple, line: str, tmp_path: Path) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"text": "x"}\n', encoding="utf-8")
    args = tuple(a.format(data=corpus) if a == "{data}" else a for a in args)
    res = _invoke(*args, "--corpus", corpus, "-o", tmp_path / "x.jsonl")
    assert res.exit_code == 2, res.output
    assert res.stderr.strip().splitlines()[-1] == line.replace("{data}", str(corpus))


@pytest.mark.slow   # lm-eval import and task loading (~10 s)
def test_task_items_are_found_with_ts_guess_ids(tmp_path: Path) -> None:
    from harness_adapters.lm_eval._detect import probes_for_tasks

    tasks = write_lm_eval_tasks(tmp_path / "tasks")
    planted = ARC[3]
    gold = planted["choices"]["text"]["ABCD".index(planted["answerKey"])]
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "quiz", "text": f"Science quiz. {planted['question']} "
                                                         f"{gold}. Next page."}) + "\n"
                      + json.dumps({"id": "other", "text": "Nothing about biology here at all."})
                      + "\n", encoding="utf-8")
    out = tmp_path / "flags.jsonl"
    res = _invoke("--task", "arc_local,winogrande_local", "--include_path", tasks, "--corpus", corpus,
                  "-o", out)
    assert res.exit_code == 0, res.output
    flags = [json.loads(line) for line in out.read_text().splitlines()]
    # every document once, benchmark = the task, ids = what ts-guess --task writes for them
    _, probes, _, _ = probes_for_tasks(["arc_local", "winogrande_local"], str(tasks))
    probed = {(p.benchmark, p.instance_id) for p in probes}
    got = {(f["benchmark"], f["instance_id"]) for f in flags}
    assert probed <= got and len(flags) == len(ARC) + 2
    assert {b for b, _ in got} == {"arc_local", "winogrande_local"}
    hit = [f["instance_id"] for f in flags if f["contaminated"]]
    assert hit == ["3"]
    assert {f["contaminated"] for f in flags if f["instance_id"] != "3"} == {False}


@pytest.mark.slow   # lm-eval import and task loading (~10 s)
def test_a_task_that_cannot_load_offline_is_ts_guess_s_line(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    tasks = tmp_path / "tasks"   # the outputs lie outside the --include_path folder (else refused)
    tasks.mkdir()
    (tasks / "hub_arc.yaml").write_text(
        "task: hub_arc\ndataset_path: allenai/never_cached_arc_copy\ndataset_name: ARC-Easy\n"
        "test_split: test\noutput_type: multiple_choice\ndoc_to_text: '{{question}}'\n"
        "doc_to_choice: '{{choices.text}}'\ndoc_to_target: 0\nmetric_list:\n  - metric: acc\n",
        encoding="utf-8")
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"text": "x"}\n', encoding="utf-8")
    res = _invoke("--task", "hub_arc", "--include_path", tasks, "--corpus", corpus,
                  "-o", tmp_path / "f.jsonl")
    assert res.exit_code == 2, res.output
    reason = res.stderr.split("no items for this task: hub_arc (", 1)[1].splitlines()[0][:-1]
    assert reason.startswith("lm-eval cannot load it (")
    assert res.stderr.strip().splitlines()[-1] == f"Error: --task hub_arc: {reason}"
    ts = CliRunner().invoke(main, ["ts-guess", "--task", "hub_arc", "--include_path", str(tasks),
                                   "--model", "hf/never-loaded", "--dry-run"])
    assert f"no detector for this task: hub_arc ({reason})" in ts.stderr
