"""``benchchecker lm-eval run --contamination-detect``: TS-Guessing on the run's own MMLU documents
through the run's own lm-eval model, on the shipped offline ``mmlu_local`` task and real MMLU rows.

The tiny GPT-2 has memorised the TS-Guessing probes of two astronomy questions (docs 1 and 2) and
not those of docs 3 and 6; docs 0, 4, 5 and 7 are dropped by the TS-Guessing filters (similar
options), so they are evaluated but unflagged.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from benchchecker_plugin.flags import read_flags
from benchchecker_plugin.tsguessing import load_mmlu, load_truthfulqa, prepare_probes
from harness_adapters.lm_eval._detect import benchmark_of_task, item_of, probes_for_run
from tests.helpers import comparable_flags, require_shared_data, tiny_lm

REPO = Path(__file__).resolve().parents[3]
TASKS = REPO / "tasks" / "lm_eval"
SUBJECT = "astronomy"
LIMIT = 8
SEEN = (f"{SUBJECT}/1", f"{SUBJECT}/2")
UNSEEN = (f"{SUBJECT}/3", f"{SUBJECT}/6")
DROPPED = tuple(f"{SUBJECT}/{i}" for i in (0, 4, 5, 7))


@pytest.fixture(scope="module")
def mmlu() -> Path:
    return require_shared_data("mmlu")


@pytest.fixture(scope="module")
def contaminated_lm(tmp_path_factory: pytest.TempPathFactory, mmlu: Path) -> Path:
    """A tiny GPT-2 trained on the multichoice probes of ``SEEN`` (what ``ts-guess`` would ask)."""
    probes = prepare_probes(load_mmlu(mmlu, subjects=[SUBJECT]), "multichoice").probes
    assert [p.instance_id for p in probes[:4]] == [*SEEN, *UNSEEN]
    vocab = [p.prompt + " " + p.target for p in probes]
    memorise = [p.prompt + " " + p.target + "\n" for p in probes if p.instance_id in SEEN]
    return tiny_lm.build_tiny_lm(tmp_path_factory.mktemp("seen_lm"), vocab, memorise,
                                           steps=150)


@pytest.fixture(scope="module")
def plain_task(tmp_path_factory: pytest.TempPathFactory, mmlu: Path) -> Path:
    """A task folder holding one lm-eval task that is not multiple-choice (a CSV of arithmetic
    facts, generated answers)."""
    folder = tmp_path_factory.mktemp("plain_task")
    rows = folder / "rows.csv"
    with open(rows, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["text", "label"])
        writer.writerows([["two plus two", "0"], ["three plus one", "0"]])
    (folder / "arith_facts.yaml").write_text(f"""\
task: arith_facts
dataset_path: csv
dataset_kwargs:
  data_files:
    test: {rows}
test_split: test
output_type: generate_until
doc_to_text: "{{{{text}}}} is"
doc_to_target: " four"
generation_kwargs:
  until: ["\\n"]
  max_gen_toks: 4
metric_list:
  - metric: exact_match
""")
    return folder


def _load_local_task(mmlu: Path, name: str):  # type: ignore[no-untyped-def]
    from lm_eval.tasks import TaskManager

    manager = TaskManager(include_path=str(TASKS), include_defaults=False,
                          metadata={"data": str(mmlu)})
    return manager.load([name])["tasks"][name]


def test_shipped_local_task_gives_the_items_ts_guess_reads(mmlu: Path) -> None:
    """``mmlu_local_<subject>`` docs are recognised as MMLU by their dataset and fields, and each
    becomes exactly the item ``benchchecker ts-guess --data`` loads (same id, text, options)."""
    task = _load_local_task(mmlu, f"mmlu_local_{SUBJECT}")
    docs = list(task.eval_docs)
    assert benchmark_of_task(task, docs) == "mmlu"
    want = load_mmlu(mmlu, subjects=[SUBJECT])
    got = [item_of("mmlu", i, d, task_name=f"mmlu_local_{SUBJECT}", task=task)
           for i, d in enumerate(docs)]
    assert got == want and len(got) == 152
    assert task.config.doc_to_text.startswith("{{question.strip()}}\nA. {{choices[0]}}")
    fewshot = list(task.fewshot_docs())
    assert len(fewshot) == 5 and fewshot[0]["subject"] == SUBJECT


def _task(path: str | None, metadata: dict | None = None, dataset_name: str | None = None):
    return SimpleNamespace(config=SimpleNamespace(dataset_path=path, dataset_name=dataset_name,
                                                  metadata=metadata or {}))


def test_recognised_by_dataset_not_by_name(mmlu: Path) -> None:
    row = load_mmlu(mmlu, subjects=["anatomy"])[0]
    doc = {"question": row.question, "choices": list(row.options), "answer": row.answer}
    # lm-eval's mmlu_anatomy: cais/mmlu, subject from the config's dataset_name
    assert benchmark_of_task(_task("cais/mmlu", dataset_name="anatomy"), [doc]) == "mmlu"
    item = item_of("mmlu", 7, doc, task_name="mmlu_anatomy",
                   task=_task("cais/mmlu", dataset_name="anatomy"))
    assert item.instance_id == "anatomy/7" and item.options == row.options
    # MMLU-Pro has MMLU-like questions but other instances: no detector, whatever the task name
    assert benchmark_of_task(_task("TIGER-Lab/MMLU-Pro"), [doc]) is None
    # a dataset named MMLU whose docs lack MMLU's fields is not guessed at
    assert benchmark_of_task(_task("cais/mmlu"), [{"question": "q", "choices": ["a", "b"],
                                                   "answer": 0}]) is None
    assert benchmark_of_task(_task(None, {"benchmark": "mmlu"}), [doc]) == "mmlu"
    assert benchmark_of_task(_task("cais/mmlu"), []) is None


def test_truthfulqa_documents_of_both_configs() -> None:
    csv_path = require_shared_data("truthfulqa", "TruthfulQA.csv")
    ref = load_truthfulqa(csv_path)[5]
    gen = {"type": ref.metadata["type"], "category": ref.metadata["category"],
           "question": ref.question, "best_answer": ref.options[0],
           "correct_answers": [ref.options[0]], "incorrect_answers": list(ref.options[1:]),
           "source": ref.metadata["source"]}
    assert benchmark_of_task(_task("truthfulqa/truthful_qa", dataset_name="generation"),
                             [gen]) == "truthfulqa"
    assert item_of("truthfulqa", 5, gen, task_name="truthfulqa_gen") == ref
    mc = {"question": ref.question,
          "mc1_targets": {"choices": ["wrong 1", "right", "wrong 2"], "labels": [0, 1, 0]},
          "mc2_targets": {"choices": ["right"], "labels": [1]}}
    assert benchmark_of_task(_task("truthfulqa/truthful_qa", dataset_name="multiple_choice"),
                             [mc]) == "truthfulqa"
    item = item_of("truthfulqa", 5, mc, task_name="truthfulqa_mc1")
    assert item.options[item.answer] == "right" and item.instance_id == "5"
    assert item.metadata["question_sha1"] == ref.metadata["question_sha1"]


def test_probes_cover_exactly_the_evaluated_documents(mmlu: Path) -> None:
    task = _load_local_task(mmlu, f"mmlu_local_{SUBJECT}")
    docs = {f"mmlu_local_{SUBJECT}": list(task.eval_docs), "other": [{"text": "x"}]}
    tasks = {f"mmlu_local_{SUBJECT}": task, "other": _task("csv")}
    benchmarks, probes, dropped, why = probes_for_run(
        tasks, docs, {f"mmlu_local_{SUBJECT}": list(range(LIMIT)), "other": [0]})
    assert benchmarks == {f"mmlu_local_{SUBJECT}": "mmlu", "other": None}
    assert why == {"other": "output_type None, not multiple_choice"}
    assert [p.instance_id for p in probes] == [*SEEN, *UNSEEN]
    assert dropped == {"similar_options": len(DROPPED)}
    want = prepare_probes(load_mmlu(mmlu, subjects=[SUBJECT])[:LIMIT], "multichoice").probes
    assert tuple(probes) == want


# ------------------------------------------------------------------------ real runs

def _run_args(model: Path, mmlu: Path, out: Path, *tasks: str, include: Path = TASKS) -> list:
    return ["lm-eval", "run", "--model", "hf", "--model_args", f"pretrained={model}",
            "--device", "cpu", "--batch_size", "1", "--include_path", include,
            "--tasks", ",".join(tasks), "--metadata", json.dumps({"data": str(mmlu)}),
            "--limit", str(LIMIT), "--output_path", out, "--log_samples"]


def _only(folder: Path, pattern: str) -> Path:
    [path] = sorted(folder.rglob(pattern))
    return path


def _ts_guess(cli, model_spec: str, mmlu: Path, out: Path, n: int) -> dict:  # type: ignore[no-untyped-def]
    """``ts-guess`` flags, under the model name it writes by default (no --model-name)."""
    result = cli("ts-guess", "--benchmark", "mmlu", "--mode", "multichoice", "--model", model_spec,
                 "--data", mmlu, "--subject", SUBJECT, "--limit", n, "--batch-size", "1",
                 "--cache-dir", out.parent / "tsg_cache", "-o", out)
    assert result.exit_code == 0, result.output
    return comparable_flags(read_flags(out))


@pytest.mark.slow
@pytest.mark.model
def test_detect_run_flags_equal_ts_guess_and_scores_equal_rescore(
        cli, contaminated_lm: Path, mmlu: Path, plain_task: Path, tmp_path: Path) -> None:
    include = tmp_path / "include"   # the shipped tasks and a task with no detector
    shutil.copytree(TASKS, include, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(plain_task, include / "plain")
    out, cache = tmp_path / "out", tmp_path / "cache"
    args = _run_args(contaminated_lm, mmlu, out, f"mmlu_local_{SUBJECT}", "arith_facts",
                     include=include)
    result = cli(*args, "--contamination-detect", "--contamination-cache-dir", cache)
    assert result.exit_code == 0, result.output
    assert ("no detector for this task: arith_facts (output_type generate_until, not "
            "multiple_choice); it runs unfiltered") in result.stderr
    assert "detection: 4 probes (4 model calls, 0 cached, 0 failed), 2 flagged contaminated" \
        in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("benchchecker: detection ") and "+ evaluation " in last

    flags_file = _only(out, "benchchecker_flags_*.jsonl")
    results = _only(out, "results_*.json")
    assert flags_file.parent == results.parent
    assert flags_file.name == results.name.replace("results_", "benchchecker_flags_") + "l"
    flags = read_flags(flags_file)
    name = f"hf/{contaminated_lm}"   # the canonical name ts-guess --model hf/<folder> writes
    assert {f.model for f in flags} == {name}
    assert {f.instance_id for f in flags} == {*SEEN, *UNSEEN}
    # the same answers, scores and verdicts as `benchchecker ts-guess` on the same items and model
    assert comparable_flags(flags) == _ts_guess(cli, f"hf/{contaminated_lm}", mmlu,
                                                tmp_path / "tsg.jsonl", 4)
    by_id = {f.instance_id: f for f in flags}
    assert all(by_id[i].contaminated and by_id[i].evidence["exact_match"] >= 0.9 for i in SEEN)
    assert not any(by_id[i].contaminated for i in UNSEEN)

    report = json.loads(_only(out, "benchchecker_2*.json").read_text())
    assert report["detection"]["flags_file"] == str(flags_file)
    assert report["detection"]["no_detector"] == ["arith_facts"]
    assert report["timings"]["evaluation_s"] > 0 and report["timings"]["detection_s"] > 0
    [row] = [s for s in report["scores"] if s["tier"] == "all"]
    assert (row["task"], row["n_instances"], row["n_clean"], row["n_contaminated"],
            row["n_undecided"] + row["n_unflagged"]) == (f"mmlu_local_{SUBJECT}", LIMIT, 2, 2, len(DROPPED))
    samples = _only(out, f"samples_mmlu_local_{SUBJECT}_*.jsonl")
    lines = [json.loads(x) for x in samples.read_text().splitlines()]
    acc = {f"{SUBJECT}/{line['doc_id']}": line["acc"] for line in lines}
    assert row["clean"] == pytest.approx(sum(acc[i] for i in UNSEEN) / 2)
    assert {line["benchchecker"]["group"] for line in lines
            if line["benchchecker"]["instance_id"] in SEEN} == {"contaminated"}
    # the plain task ran, unfiltered and unannotated
    plain = [json.loads(x) for x in _only(out, "samples_arith_facts_*.jsonl").read_text().splitlines()]
    assert len(plain) == 2 and not any("benchchecker" in line for line in plain)
    ids = tmp_path / "ids.json"
    ids.write_text(json.dumps(sorted(acc)))
    again = cli("rescore", "--results", samples, "--flags", flags_file, "--instances", ids,
                "--benchmark", "mmlu", "--model", name, "--json")
    assert again.exit_code == 0, again.output
    [want] = json.loads(again.stdout)["rows"]
    assert (row["full"], row["clean"], row["contaminated"], row["relative_drop"],
            row["drop_ci_low"], row["drop_ci_high"]) == (
        want["original_rate"], want["clean_rate"], want["contaminated_rate"],
        want["relative_drop"], want["drop_ci_low"], want["drop_ci_high"])

    # a dry run says what detection adds (nothing: all cached) and runs nothing
    before = sorted(out.rglob("*"))
    dry = cli(*args, "--contamination-detect", "--contamination-cache-dir", cache, "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert "dry run: detection would add 0 model calls (4 more already cached) for 4 probes " \
           "on 1 task(s); no detector for: arith_facts; nothing was run" in dry.stderr
    assert sorted(out.rglob("*")) == before
    fresh = cli(*args, "--contamination-detect", "--contamination-cache-dir", tmp_path / "c2",
                "--dry-run")
    assert "would add 4 model calls (0 more already cached)" in fresh.stderr


@pytest.mark.slow
@pytest.mark.model
def test_detect_with_clean_mode_runs_only_clean_docs(cli, contaminated_lm: Path, mmlu: Path,
                                                     make_flags, tmp_path: Path) -> None:
    """Detection and flags made elsewhere together: astronomy/3 is flagged contaminated by the
    other file (merged: any method saying contaminated wins), so only astronomy/6 is clean."""
    other = make_flags(tmp_path / "other.jsonl", "mmlu", {f"{SUBJECT}/3": True})
    out = tmp_path / "out"
    result = cli(*_run_args(contaminated_lm, mmlu, out, f"mmlu_local_{SUBJECT}"),
                 "--contamination-detect", "--contamination-filter", other,
                 "--contamination-mode", "clean", "--contamination-cache-dir", tmp_path / "cache")
    assert result.exit_code == 0, result.output
    lines = [json.loads(x) for x in _only(out, "samples_*.jsonl").read_text().splitlines()]
    assert [line["doc_id"] for line in lines] == [6]
    assert lines[0]["benchchecker"]["group"] == "clean"


def test_detect_options_need_detect(cli, error_line, mmlu: Path, tmp_path: Path) -> None:
    result = cli(*_run_args(Path("unused"), mmlu, tmp_path / "out", f"mmlu_local_{SUBJECT}"),
                 "--dry-run")
    assert error_line(result) == "Error: --dry-run need(s) --contamination-detect"
    result = cli(*_run_args(Path("unused"), mmlu, tmp_path / "out", f"mmlu_local_{SUBJECT}"),
                 "--contamination-mode", "clean")
    assert error_line(result) == ("Error: --contamination-mode and --contamination-model need "
                                  "--contamination-filter FLAGS or --contamination-detect")


@pytest.mark.slow
@pytest.mark.model
def test_plain_lm_eval_runs_the_shipped_local_task(contaminated_lm: Path, mmlu: Path,
                                                   tmp_path: Path) -> None:
    """lm-eval's own entry point runs ``mmlu_local_<subject>`` offline from the local CSVs."""
    env = dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    cmd = [sys.executable, "-m", "lm_eval", "run", "--include_path", str(TASKS), "--tasks",
           f"mmlu_local_{SUBJECT}", "--model", "hf", "--model_args", f"pretrained={contaminated_lm}",
           "--device", "cpu", "--metadata", json.dumps({"data": str(mmlu)}), "--limit", "3",
           "--output_path", str(tmp_path / "out")]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "|astronomy|" in proc.stdout and "acc" in proc.stdout


@pytest.mark.slow
@pytest.mark.model
def test_default_model_detect_equals_ts_guess(cli, mmlu: Path, tmp_path: Path) -> None:
    """The shipped default model (SmolLM2-135M-Instruct), through lm-eval's hf backend and
    through ``benchchecker ts-guess --model hf/smollm2-135m``: the same answers and flags."""
    path = cli("models", "path", "hf/smollm2-135m")
    if path.exit_code != 0:
        pytest.skip(f"default model not installed: {path.output}")
    folder = Path(path.stdout.strip())
    out = tmp_path / "out"
    args = _run_args(folder, mmlu, out, f"mmlu_local_{SUBJECT}")
    args[args.index("--limit") + 1] = "4"
    result = cli(*args, "--contamination-detect", "--contamination-no-cache")
    assert result.exit_code == 0, result.output
    flags = read_flags(_only(out, "benchchecker_flags_*.jsonl"))
    assert [f.instance_id for f in flags] == list(SEEN) + [UNSEEN[0]]
    # one model name in both harnesses (issue 13, item 8): no --contamination-model needed
    assert {f.model for f in flags} == {"hf/smollm2-135m"}
    assert comparable_flags(flags) == _ts_guess(cli, "hf/smollm2-135m", mmlu, tmp_path / "tsg.jsonl", 3)
