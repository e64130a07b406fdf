"""One item, one probe, in every harness: ``ts-guess``, lm-eval and Inspect hide the same option of
the same MMLU question, whatever each calls it, and a harness run after ``ts-guess`` finds the
answers ``ts-guess`` cached (real MMLU rows from the shared data).

Before, the option was drawn from the instance id (``1`` in an lm-eval task, ``q002`` in an
Inspect dataset of the same questions), and the cache was keyed by the harness's own name of the
model (``lm-eval/hf?{"pretrained": ...}``), so a run after ``ts-guess`` found 0 of its answers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchchecker_plugin.tsguessing import load_mmlu, prepare_probes
from tests.helpers import require_shared_data
from tests.helpers.mc_tasks import arc_records, write_lm_eval_tasks

REPO = Path(__file__).resolve().parents[2]
SUBJECT = "astronomy"
N = 8


@pytest.fixture(scope="module")
def mmlu() -> Path:
    return require_shared_data("mmlu")


def _hidden(probes) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """``{question: the option its probe hides}``."""
    return {p.masked_item.split("\n", 1)[0]: p.target for p in probes}


@pytest.mark.slow
def test_each_harness_hides_the_same_option_of_each_question(mmlu: Path, tmp_path: Path) -> None:
    """ts-guess (ids ``astronomy/<row>``), lm-eval's shipped ``mmlu_local_astronomy`` (the same
    ids), an lm-eval task of the user's over the same rows (doc ids ``0, 1, ...``) and an Inspect
    dataset of theirs (sample ids ``q001, q002, ...``)."""
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset, Sample
    from lm_eval.tasks import TaskManager

    from harness_adapters.inspect._detect import Reference
    from harness_adapters.inspect._detect import probes_for_run as inspect_probes
    from harness_adapters.lm_eval._detect import probes_for_run as lm_eval_probes

    items = load_mmlu(mmlu, subjects=[SUBJECT])[:N]
    want = _hidden(prepare_probes(items, "multichoice").probes)
    assert len(want) >= 4

    rows = [{"question": i.question, "choices": list(i.options), "answer": i.answer} for i in items]
    folder = write_lm_eval_tasks(tmp_path / "tasks", arc_records(rows))
    manager = TaskManager(include_path=[str(folder), str(REPO / "tasks" / "lm_eval")],
                          include_defaults=False, metadata={"data": str(mmlu)})
    names = ["arc_local", f"mmlu_local_{SUBJECT}"]
    tasks = dict(manager.load(names)["tasks"])
    docs = {n: list(t.eval_docs)[:N] for n, t in tasks.items()}
    _, probes, _, _ = lm_eval_probes(tasks, docs, {n: range(len(d)) for n, d in docs.items()})
    by_task = {name: [p for p in probes if p.benchmark == b]
               for name, b in (("arc_local", "arc_local"), (f"mmlu_local_{SUBJECT}", "mmlu"))}
    assert [p.instance_id for p in by_task["arc_local"]][:2] != [
        p.instance_id for p in by_task[f"mmlu_local_{SUBJECT}"]][:2]   # named differently ...
    assert _hidden(by_task["arc_local"]) == want                        # ... probed the same
    assert _hidden(by_task[f"mmlu_local_{SUBJECT}"]) == want

    samples = [Sample(input=i.question, choices=list(i.options), target="ABCD"[i.answer],
                      id=f"q{k + 1:03d}") for k, i in enumerate(items)]
    mine = Task(dataset=MemoryDataset(samples, name="my questions"), name="my_questions")
    _, _, probes, _, _ = inspect_probes([mine], [samples], Reference({}))
    assert {p.instance_id for p in probes} <= {s.id for s in samples}
    assert _hidden(probes) == want


def _ts_guess_then(cli, tiny: Path, mmlu: Path, cache: Path, tmp_path: Path) -> int:  # type: ignore[no-untyped-def]
    made = cli("ts-guess", "--benchmark", "mmlu", "--data", mmlu, "--subject", SUBJECT,
               "--limit", 4, "--model", f"hf/{tiny}", "--cache-dir", cache,
               "-o", tmp_path / "tsg.jsonl")
    assert made.exit_code == 0, made.output
    return len((tmp_path / "tsg.jsonl").read_text().splitlines())


@pytest.mark.slow
@pytest.mark.model
def test_a_harness_after_ts_guess_finds_its_answers_cached(cli, mmlu: Path, tmp_path: Path) -> None:
    """``ts-guess --model hf/DIR``, then ``lm-eval run --model hf --model_args pretrained=DIR``
    and ``inspect eval --model benchchecker/hf/DIR`` over the same items: their dry runs find
    every probe in the cache."""
    from tests.helpers import tiny_lm

    tiny = tiny_lm.build_tiny_lm(tmp_path / "tiny",
                                 [i.question + " " + " ".join(i.options)
                                  for i in load_mmlu(mmlu, subjects=[SUBJECT])[:N]])
    cache = tmp_path / "cache"
    n = _ts_guess_then(cli, tiny, mmlu, cache, tmp_path)
    assert n == 4

    lm_eval = cli("lm-eval", "run", "--model", "hf", "--model_args", f"pretrained={tiny}",
                  "--include_path", REPO / "tasks" / "lm_eval", "--tasks", f"mmlu_local_{SUBJECT}",
                  "--metadata", json.dumps({"data": str(mmlu)}), "--limit", N, "--device", "cpu",
                  "--output_path", tmp_path / "out", "--contamination-detect",
                  "--contamination-cache-dir", cache, "--dry-run")
    assert lm_eval.exit_code == 0, lm_eval.output
    assert f"dry run: detection would add 0 model calls ({n} more already cached) for {n} probes" \
        in lm_eval.stderr

    inspect = cli("inspect", "eval", "benchchecker_plugin/mmlu_local", "-T", f"data={mmlu}",
                  "-T", f"subjects={SUBJECT}", "--model", f"benchchecker/hf/{tiny}", "--limit", N,
                  "--log-dir", tmp_path / "logs", "--contamination-detect",
                  "--contamination-data", f"mmlu={mmlu}", "--contamination-cache-dir", cache,
                  "--dry-run")
    assert inspect.exit_code == 0, inspect.output
    assert f"would add 0 model calls ({n} more already cached) for {n} probes" in inspect.stderr


@pytest.fixture
def cli():  # type: ignore[no-untyped-def]
    """``benchchecker ARGS`` in-process (stderr kept apart)."""
    from click.testing import CliRunner

    from benchchecker_plugin.cli import main

    def invoke(*args: object):  # type: ignore[no-untyped-def]
        return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    return invoke
