"""``benchchecker inspect eval --contamination-detect``: TS-Guessing on the samples of an Inspect
run, through the run's own model.

Samples are built the way inspect_evals builds them (``record_to_sample`` of
``src/inspect_evals/mmlu/mmlu.py`` and ``src/inspect_evals/truthfulqa/truthfulqa.py``,
reconstructed below; inspect_evals is not installed here) from the real rows in the shared data.
The acceptance runs use a tiny GPT-2 that memorised the first half of a few astronomy probes,
served through the project's ``benchchecker/hf/<folder>`` Inspect provider.
"""

from __future__ import annotations

import csv
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import comparable_flags, require_shared_data, tiny_lm

SUBJECT = "astronomy"
ROWS = [0, 1, 2, 3, 6, 8, 10]      # row 0 is dropped by the TS-Guessing filters
N_PROBES = 6                       # the probes of rows 1..10 above; the first 3 are memorised
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "TOKENIZERS_PARALLELISM": "false", "BENCHCHECKER_PROGRESS": "0"}


# ---- inspect_evals' sample shapes (reconstructed from its source) ----------------------------

def mmlu_record_to_sample(record: dict[str, Any]) -> Any:
    """inspect_evals ``mmlu.record_to_sample`` (cais/mmlu ``all`` records; no sample id)."""
    from inspect_ai.dataset import Sample

    return Sample(input=record["question"], choices=record["choices"],
                  target="ABCD"[record["answer"]], metadata={"subject": record["subject"]})


def truthfulqa_record_to_sample(record: dict[str, Any], target: str = "mc1") -> Any:
    """inspect_evals ``truthfulqa`` (``multiple_choice`` records, mc1 or mc2 targets)."""
    from inspect_ai.dataset import Sample

    labels = record[f"{target}_targets"]["labels"]
    return Sample(input=record["question"], choices=record[f"{target}_targets"]["choices"],
                  target=[chr(ord("A") + i) for i, label in enumerate(labels) if label == 1])


def _mmlu_records(subject: str, rows: list[int]) -> list[dict[str, Any]]:
    with open(require_shared_data("mmlu", "test", f"{subject}_test.csv"), newline="", encoding="utf-8") as fh:
        table = list(csv.DictReader(fh))
    return [{"question": table[i]["question"], "choices": [table[i][f"choice{k}"] for k in range(4)],
             "answer": int(table[i]["answer"]), "subject": subject} for i in rows]


def _truthfulqa_records(rows: list[int]) -> list[dict[str, Any]]:
    """The ``multiple_choice`` shape of TruthfulQA.csv rows (mc1: best answer first)."""
    with open(require_shared_data("truthfulqa", "TruthfulQA.csv"), newline="", encoding="utf-8") as fh:
        table = list(csv.DictReader(fh))
    out = []
    for i in rows:
        r = table[i]
        wrong = [a.strip() for a in r["Incorrect Answers"].split(";") if a.strip()]
        right = [a.strip() for a in r["Correct Answers"].split(";") if a.strip()]
        out.append({"question": r["Question"],
                    "mc1_targets": {"choices": [r["Best Answer"].strip(), *wrong],
                                    "labels": [1] + [0] * len(wrong)},
                    "mc2_targets": {"choices": [*right, *wrong],
                                    "labels": [1] * len(right) + [0] * len(wrong)}})
    return out


def _task(samples: list[Any], name: str, dataset: str) -> Any:
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset

    return Task(dataset=MemoryDataset(samples, name=dataset, location=dataset), name=name)


# ---- conversion (no model) ---------------------------------------------------------------------

def test_inspect_evals_mmlu_samples_become_the_ts_guess_items() -> None:
    """Shuffled, id-less samples are numbered by their row in the real test split."""
    from benchchecker_plugin.tsguessing import load_mmlu
    from harness_adapters.inspect._detect import Reference, TaskIds, plan_task

    rows = {"astronomy": [5, 0, 17], "anatomy": [3, 100]}
    samples = [mmlu_record_to_sample(r) for s, idx in rows.items() for r in _mmlu_records(s, idx)]
    altered = mmlu_record_to_sample({**_mmlu_records("anatomy", [4])[0], "question": "Not MMLU?"})
    samples.append(altered)
    random.Random(0).shuffle(samples)
    index, items = plan_task("mmlu", samples, Reference({"mmlu": require_shared_data("mmlu")}))
    ids = TaskIds("mmlu", index).ids(samples)
    expected = {f"{s}/{i}" for s, idx in rows.items() for i in idx}
    assert set(ids) - {None} == expected and ids[samples.index(altered)] is None
    truth = {i.instance_id: i for i in load_mmlu(require_shared_data("mmlu"), subjects=list(rows))}
    for sample, iid in zip(samples, ids):
        if iid is not None:
            assert items[iid] == truth[iid]
            assert items[iid].question == sample.input and list(items[iid].options) == sample.choices
    # not in the reference: its own id, or (no id) the number Inspect gives it in run order
    assert TaskIds("mmlu", index).with_fallback(samples)[samples.index(altered)] == str(
        samples.index(altered) + 1)


@pytest.mark.parametrize("target", ["mc1", "mc2"])
def test_inspect_evals_truthfulqa_samples_become_the_ts_guess_items(target: str) -> None:
    from benchchecker_plugin.tsguessing import load_truthfulqa
    from harness_adapters.inspect._detect import Reference, TaskIds, benchmark_of_task, plan_task

    rows = [12, 0, 816, 400]
    samples = [truthfulqa_record_to_sample(r, target) for r in _truthfulqa_records(rows)]
    task = _task(samples, "truthfulqa", "truthfulqa/truthful_qa")
    assert benchmark_of_task(task, samples) == "truthfulqa"
    index, items = plan_task("truthfulqa", samples, Reference({"truthfulqa": require_shared_data(
        "truthfulqa", "TruthfulQA.csv")}))
    assert TaskIds("truthfulqa", index).ids(samples) == [str(r) for r in rows]
    truth = load_truthfulqa(require_shared_data("truthfulqa", "TruthfulQA.csv"))
    assert [items[str(r)] for r in rows] == [truth[r] for r in rows]


def test_benchmark_is_recognised_from_the_samples() -> None:
    from inspect_ai.dataset import Sample

    from benchchecker_plugin.inspect_tasks import ts_guessing_mmlu_multichoice
    from harness_adapters.inspect._detect import benchmark_of_task

    samples = [mmlu_record_to_sample(r) for r in _mmlu_records(SUBJECT, [0, 1])]
    assert benchmark_of_task(_task(samples, "mmlu_0_shot", "cais/mmlu"), samples) == "mmlu"
    # the name alone is not enough: MMMLU, MMLU-Pro, other shapes
    for dataset in ("openai/MMMLU", "TIGER-Lab/MMLU-Pro"):
        assert benchmark_of_task(_task(samples, "task", dataset), samples) is None
    three = [Sample(input=s.input, choices=s.choices[:3], target="A", metadata=s.metadata)
             for s in samples]
    assert benchmark_of_task(_task(three, "mmlu_0_shot", "cais/mmlu"), three) is None
    plain = [Sample(input="What is 2+2?", target="4")]
    assert benchmark_of_task(_task(plain, "mmlu_like", "cais/mmlu"), plain) is None
    # the project's TS-Guessing tasks carry the probe
    task = ts_guessing_mmlu_multichoice(data=str(require_shared_data("mmlu")), subjects=SUBJECT)
    assert benchmark_of_task(task, list(task.dataset)) == "mmlu"


def test_probes_only_for_the_evaluated_samples() -> None:
    from inspect_ai.dataset import Sample

    from harness_adapters.common import ContaminationFilterWarning
    from harness_adapters.inspect._detect import (
        NOT_IN_REFERENCE,
        Reference,
        evaluated_samples,
        probes_for_run,
    )

    samples = [mmlu_record_to_sample(r) for r in _mmlu_records(SUBJECT, ROWS)]
    samples.append(mmlu_record_to_sample({**_mmlu_records(SUBJECT, [4])[0], "question": "?"}))
    for n, s in enumerate(samples):
        s.id = f"s{n}"
    mmlu = _task(samples, "mmlu_0_shot", "cais/mmlu")
    other = _task([Sample(input="2+2?", target="4", id="q")], "arithmetic", "arith")
    names = ["mmlu_0_shot", "arithmetic"]
    selectors = ["mmlu_0_shot:s0", "mmlu_0_shot:s1", "mmlu_0_shot:s2", "s7", "arithmetic:q"]
    evaluated = [evaluated_samples(t, None, selectors, names) for t in (mmlu, other)]
    assert [s.id for s in evaluated[0]] == ["s0", "s1", "s2", "s7"]
    assert [s.id for s in evaluated[1]] == ["q"]
    with pytest.warns(ContaminationFilterWarning, match="'mmlu_0_shot': 1 of 4 evaluated "
                                                        "samples are not in .*mmlu"):
        benchmarks, indexes, probes, dropped, why = probes_for_run(
            [mmlu, other], evaluated, Reference({"mmlu": require_shared_data("mmlu")}))
    assert benchmarks == {"mmlu_0_shot": "mmlu", "arithmetic": None}
    assert why == {"arithmetic": "its samples carry no choices (not a multiple_choice task)"}
    assert [p.instance_id for p in probes] == [f"{SUBJECT}/1", f"{SUBJECT}/2"]
    assert dropped == {"similar_options": 1, NOT_IN_REFERENCE: 1}
    assert len(indexes["mmlu"]) == len(samples)         # the whole dataset is indexed
    fake = _task([mmlu_record_to_sample({**r, "question": r["question"] + "?!"})
                  for r in _mmlu_records(SUBJECT, [1, 2])], "mmlu_paraphrased", "cais/mmlu")
    with pytest.warns(ContaminationFilterWarning, match="have the shape of mmlu but none of"):
        assert probes_for_run([fake], [list(fake.dataset)], Reference(
            {"mmlu": require_shared_data("mmlu")}))[0] == {"mmlu_paraphrased": None}
    limited = [evaluated_samples(mmlu, 3, None, names)]
    assert [p.instance_id for p in probes_for_run([mmlu], limited, Reference(
        {"mmlu": require_shared_data("mmlu")}))[2]] == [f"{SUBJECT}/1", f"{SUBJECT}/2"]


def test_flags_env_takes_several_paths(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from harness_adapters.inspect._hook import ENV_FLAGS, flag_paths_from_env, options_from_env

    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    monkeypatch.setenv(ENV_FLAGS, os.pathsep.join([str(a), str(b), ""]))
    assert flag_paths_from_env() == [a, b]
    options = options_from_env()
    assert options.flags == a and options.enabled
    monkeypatch.setenv(ENV_FLAGS, str(a))
    assert flag_paths_from_env() == [a] and options_from_env().flags == a
    monkeypatch.delenv(ENV_FLAGS)
    assert not options_from_env().enabled


def test_data_option_is_checked() -> None:
    from benchchecker_plugin.errors import InputError
    from harness_adapters.inspect._detect import parse_data_option

    assert parse_data_option([f"mmlu={require_shared_data('mmlu')}"]) == {"mmlu": require_shared_data("mmlu")}
    for bad, message in (("mmlu", "expected BENCHMARK=PATH"), ("gsm8k=/x", "expected BENCHMARK"),
                         ("mmlu=/no/such/folder", "does not exist")):
        with pytest.raises(InputError, match=message):
            parse_data_option([bad])


# ---- real runs ------------------------------------------------------------------------------

TASK_FILE = '''
import csv, random
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer
from inspect_ai.solver import TaskState, generate


def record_to_sample(record):   # inspect_evals' mmlu shape
    return Sample(input=record["question"], choices=record["choices"],
                  target="ABCD"[record["answer"]], metadata={"subject": record["subject"]})


@scorer(metrics=[accuracy()])
def even_length():
    """Correct when the answer has an even number of characters (varies per sample)."""
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=CORRECT if len(state.output.completion) % 2 == 0 else INCORRECT)
    return score


@task
def mmlu_0_shot(ids: bool = False):
    """Real astronomy rows, shuffled like inspect_evals; ids: name samples by their row (as
    `benchchecker rescore` needs: it reads an Inspect log's sample ids)."""
    with open(CSV, newline="", encoding="utf-8") as fh:
        table = list(csv.DictReader(fh))
    samples = []
    for i in ROWS:
        r = table[i]
        sample = record_to_sample({"question": r["question"], "answer": int(r["answer"]),
                                   "choices": [r[f"choice{k}"] for k in range(4)],
                                   "subject": "SUBJECT"})
        sample.id = f"SUBJECT/{i}" if ids else None
        samples.append(sample)
    random.Random(42).shuffle(samples)
    return Task(dataset=MemoryDataset(samples, name="cais/mmlu", location="cais/mmlu",
                                      shuffled=True), solver=generate(), scorer=even_length())


@task
def arithmetic():
    return Task(dataset=MemoryDataset([Sample(input="2+2=", target="4", id="a"),
                                       Sample(input="3+3=", target="6", id="b")], name="arith"),
                solver=generate(), scorer=even_length())
'''


def _invoke(*args: Any) -> Any:
    from click.testing import CliRunner

    from benchchecker_plugin.cli import main

    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def offline() -> Any:
    with pytest.MonkeyPatch.context() as mp:
        for key, value in OFFLINE.items():
            mp.setenv(key, value)
        yield


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory, offline: None) -> dict[str, Path]:
    """The memorising model, the task file and a response cache folder."""
    from benchchecker_plugin.tsguessing import load_mmlu, prepare_probes

    mmlu = require_shared_data("mmlu")
    probes = prepare_probes(load_mmlu(mmlu, subjects=[SUBJECT]), "multichoice").probes[:N_PROBES]
    assert [p.instance_id for p in probes] == [f"{SUBJECT}/{r}" for r in ROWS[1:]]
    root = tmp_path_factory.mktemp("inspect_detect")
    model = tiny_lm.build_tiny_lm(root / "lm", [p.prompt + " " + p.target for p in probes],
                                    [p.prompt + " " + p.target + "\n"
                                     for p in probes[: N_PROBES // 2]], steps=150)
    task = root / "mmlu_tasks.py"
    task.write_text(TASK_FILE.replace("CSV", repr(str(mmlu / "test" / f"{SUBJECT}_test.csv")))
                    .replace("ROWS", repr(ROWS)).replace("SUBJECT", SUBJECT))
    return {"root": root, "model": model, "task": task, "mmlu": mmlu, "cache": root / "cache"}


def _args(setup: dict[str, Path], logs: Path, *tasks: str, ids: bool = True) -> list[Any]:
    return ["inspect", "eval", *[f"{setup['task']}@{t}" for t in tasks or ["mmlu_0_shot"]],
            *(["-T", "ids=true"] if ids else []), "--model", f"benchchecker/hf/{setup['model']}",
            "--max-tokens", "4", "--log-dir", logs, "--display", "none",
            "--contamination-detect", "--contamination-data", f"mmlu={setup['mmlu']}",
            "--contamination-cache-dir", setup["cache"]]


@pytest.fixture(scope="module")
def first(setup: dict[str, Path]) -> dict[str, Any]:
    """A dry run on an empty cache, then the detecting run."""
    logs = setup["root"] / "logs"
    dry = _invoke(*_args(setup, logs), "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert not logs.exists()
    result = _invoke(*_args(setup, logs))
    assert result.exit_code == 0, result.output
    [log] = sorted(logs.glob("*.eval"))
    [flags] = sorted(logs.glob("benchchecker_flags_*.jsonl"))
    return {"dry": dry, "result": result, "log": log, "flags": flags, "logs": logs}


@pytest.mark.slow
@pytest.mark.model
def test_detected_flags_equal_ts_guess(setup: dict[str, Path], first: dict[str, Any]) -> None:
    out = setup["root"] / "ts_guess.jsonl"
    res = _invoke("ts-guess", "--benchmark", "mmlu", "--data", setup["mmlu"], "--subject",
                  SUBJECT, "--model", f"hf/{setup['model']}", "--limit", N_PROBES, "--batch-size", 1,
                  "--cache-dir", setup["root"] / "ts_guess_cache", "-o", out)
    assert res.exit_code == 0, res.output
    detected, reference = comparable_flags(first["flags"]), comparable_flags(out)
    assert sorted(detected) == sorted(reference) == sorted(f"{SUBJECT}/{r}" for r in ROWS[1:])
    assert detected == reference
    # one model name across harnesses (issue 13, item 8): benchchecker/hf/X is hf/X
    assert {d["model"] for d in detected.values()} == {f"hf/{setup['model']}"}


@pytest.mark.slow
@pytest.mark.model
def test_memorised_items_are_contaminated_and_scored_apart(setup: dict[str, Path],
                                                           first: dict[str, Any]) -> None:
    from inspect_ai.log import read_eval_log

    flags = comparable_flags(first["flags"])
    memorised = {f"{SUBJECT}/{r}" for r in ROWS[1:4]}
    for iid, flag in flags.items():
        if iid in memorised:
            assert flag["contaminated"] is True and flag["evidence"]["exact_match"] >= 0.9
        else:
            assert flag["contaminated"] is False
    log = read_eval_log(str(first["log"]))
    groups = {s.id: s.metadata["benchchecker"]["group"] for s in log.samples}
    assert groups == {**{i: "contaminated" for i in memorised}, f"{SUBJECT}/0": "unflagged",
                      **{f"{SUBJECT}/{r}": "clean" for r in ROWS[4:]}}
    ours = log.results.metadata["benchchecker"]
    assert ours["counts"] == {"clean": 3, "contaminated": 3, "undecided": 0, "unflagged": 1}
    assert ours["detection"]["model_calls"] == N_PROBES and ours["detection"]["cached"] == 0
    assert ours["detection"]["dropped"] == {"similar_options": 1}
    assert Path(ours["detection"]["flags_file"]) == first["flags"].resolve()
    [row] = ours["scores"]
    correct = {s.id: s.scores["even_length"].value == "C" for s in log.samples}
    mean = lambda ids: sum(correct[i] for i in ids) / len(ids)  # noqa: E731
    assert row["clean"] == pytest.approx(mean([f"{SUBJECT}/{r}" for r in ROWS[4:]]))
    assert row["contaminated"] == pytest.approx(mean(sorted(memorised)))
    # the grouped numbers are `benchchecker rescore` on the log and the emitted flags
    instances = setup["root"] / "ids.json"
    instances.write_text(json.dumps(sorted(correct)))
    res = _invoke("rescore", "--results", first["log"], "--flags", first["flags"], "--instances",
                  instances, "--benchmark", "mmlu", "--json")
    assert res.exit_code == 0, res.output
    [want] = json.loads(res.stdout)["rows"]
    assert (row["full"], row["clean"], row["contaminated"], row["relative_drop"],
            row["drop_ci_low"], row["drop_ci_high"]) == (
        want["original_rate"], want["clean_rate"], want["contaminated_rate"],
        want["relative_drop"], want["drop_ci_low"], want["drop_ci_high"])
    stderr = first["result"].stderr.strip().splitlines()
    assert stderr[-1].startswith("benchchecker: detection ")
    assert f"({N_PROBES} model calls, 0 cached) + evaluation " in stderr[-1]
    assert f"flags detected in this run written to {first['flags']}" in first["result"].stderr


@pytest.mark.slow
@pytest.mark.model
def test_dry_run_counts_calls_and_runs_nothing(setup: dict[str, Path],
                                               first: dict[str, Any]) -> None:
    assert (f"dry run: detection would add {N_PROBES} model calls (0 more already cached) for "
            f"{N_PROBES} probes on 1 task(s)") in first["dry"].stderr
    logs = setup["root"] / "logs_dry"
    again = _invoke(*_args(setup, logs, "mmlu_0_shot", "arithmetic"), "--dry-run", "--limit", 4)
    assert again.exit_code == 0, again.output
    assert "no detector for this task: arithmetic" in again.stderr
    order = list(ROWS)
    random.Random(42).shuffle(order)     # the task's shuffle: --limit 4 takes these rows
    n = sum(r != 0 for r in order[:4])
    assert (f"would add 0 model calls ({n} more already cached) for {n} probes on 1 task(s); "
            "no detector for: arithmetic; nothing was run") in again.stderr
    assert not logs.exists()


@pytest.mark.slow
@pytest.mark.model
def test_second_run_is_cached_and_merges_the_filter_flags(setup: dict[str, Path],
                                                          first: dict[str, Any],
                                                          make_flags: Any) -> None:
    """Id-less samples (inspect_evals' shape) are numbered by content; the --contamination-filter
    flags (another method) reach the hook beside the detected ones; a task without a detector
    runs without flags."""
    from inspect_ai.log import read_eval_log

    extra = make_flags(setup["root"] / "extra.jsonl", "mmlu", {f"{SUBJECT}/6": True})
    logs = setup["root"] / "logs_second"
    result = _invoke(*_args(setup, logs, "mmlu_0_shot", "arithmetic", ids=False),
                     "--contamination-filter", extra)
    assert result.exit_code == 0, result.output
    assert f"detection: {N_PROBES} probes (0 model calls, {N_PROBES} cached, 0 failed)" in \
        result.stderr
    assert "no detector for this task: arithmetic" in result.stderr
    logs_by_task = {read_eval_log(str(p)).eval.task: read_eval_log(str(p))
                    for p in logs.glob("*.eval")}
    assert "benchchecker" not in (logs_by_task["arithmetic"].results.metadata or {})
    log = logs_by_task["mmlu_0_shot"]
    marks = {s.metadata["benchchecker"]["instance_id"]: s.metadata["benchchecker"]["group"]
             for s in log.samples}
    assert sorted(str(s.id) for s in log.samples) == [str(n) for n in range(1, len(ROWS) + 1)]
    assert marks == {f"{SUBJECT}/0": "unflagged", f"{SUBJECT}/1": "contaminated",
                     f"{SUBJECT}/2": "contaminated", f"{SUBJECT}/3": "contaminated",
                     f"{SUBJECT}/6": "contaminated", f"{SUBJECT}/8": "clean",
                     f"{SUBJECT}/10": "clean"}
    ours = log.results.metadata["benchchecker"]
    assert ours["flags_files"][0] == str(extra.resolve()) and len(ours["flags_files"]) == 2
    assert ours["detection"]["model_calls"] == 0 and ours["detection"]["cached"] == N_PROBES
    assert comparable_flags(Path(ours["detection"]["flags_file"])) == comparable_flags(first["flags"])


def test_detection_needs_a_detector_and_its_options(cli: Any, error_line: Any,
                                                    tmp_path: Path) -> None:
    task = tmp_path / "tasks.py"
    task.write_text(TASK_FILE.replace("CSV", "''").replace("ROWS", "[]"))
    base = ["inspect", "eval", f"{task}@arithmetic", "--model", "mockllm/model", "--log-dir",
            tmp_path / "logs"]
    result = cli(*base, "--contamination-detect", "--contamination-no-cache")
    assert "no detector for this task: arithmetic" in result.stderr
    assert "no task of this run has a detector (arithmetic)" in error_line(result)
    assert result.exit_code == 2
    assert "--dry-run need(s) --contamination-detect" in error_line(cli(*base, "--dry-run"))
    assert "--contamination-data needs --contamination-detect" in error_line(
        cli(*base, "--contamination-data", f"mmlu={tmp_path}"))
    assert not (tmp_path / "logs").exists()
