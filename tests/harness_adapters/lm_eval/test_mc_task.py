"""TS-Guessing for any lm-eval ``multiple_choice`` task, read through the task's own definition
(issue 30): tasks written here with lm-eval's own YAML features (a Jinja ``doc_to_choice`` list,
``!function`` ``process_docs`` and doc functions, integer and text targets) over local JSON
files shaped like ARC, HellaSwag, Winogrande and MMLU-Pro, loaded by lm-eval's ``TaskManager``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchchecker_plugin.tsguessing import prepare_probes
from harness_adapters.lm_eval._detect import probes_for_run
from harness_adapters.lm_eval._mc_task import read_mc_task, shared_context
from tests.helpers import require_shared_data
from tests.helpers.mc_tasks import ARC, HELLASWAG, MMLU_PRO, write_lm_eval_tasks

REPO = Path(__file__).resolve().parents[3]
NAMES = ["arc_group", "hellaswag_local", "winogrande_local", "mmlu_pro_local"]


def _load(folder: Path, names: list[str], metadata: dict | None = None):  # type: ignore[no-untyped-def]
    from lm_eval.tasks import TaskManager

    manager = TaskManager(include_path=str(folder), include_defaults=False, metadata=metadata)
    tasks = dict(manager.load(names)["tasks"])
    docs = {n: list(t.eval_docs) for n, t in tasks.items()}
    return tasks, docs, {n: list(range(len(d))) for n, d in docs.items()}


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    return _load(write_lm_eval_tasks(tmp_path_factory.mktemp("mc_tasks")), NAMES)


def test_group_and_tasks_are_probed_each_under_its_own_name(loaded) -> None:  # type: ignore[no-untyped-def]
    tasks, docs, indices = loaded
    benchmarks, probes, dropped, why = probes_for_run(tasks, docs, indices)
    # the group is probed task by task; each task is its own benchmark
    assert benchmarks == {"arc_local": "arc_local", "arc_local_letters": "arc_local_letters",
                          "hellaswag_local": "hellaswag_local", "winogrande_local": None,
                          "mmlu_pro_local": "mmlu_pro_local"}
    assert why == {"winogrande_local": "no option can be hidden in any of its items "
                                       "(option_in_question 2)"}
    by_task: dict[str, list[str]] = {}
    for p in probes:
        by_task.setdefault(p.benchmark, []).append(p.instance_id)
    assert by_task == {"arc_local": [str(i) for i in range(len(ARC))],
                       "arc_local_letters": [str(i) for i in range(len(ARC))],
                       "hellaswag_local": ["0", "1"], "mmlu_pro_local": ["0", "1"]}
    assert dropped == {"long_option": 1}   # the third HellaSwag item hides its 38-word ending
    arc = next(p for p in probes if p.benchmark == "arc_local")
    assert arc.prompt.startswith("This question is from the arc_local benchmark.\n")
    assert "Question: Which organ pumps blood through the human body?\nA: the lungs\n" in arc.prompt
    assert arc.target in ARC[0]["choices"]["text"] and arc.target != "the heart"


def test_integer_and_text_targets_give_the_same_items(loaded) -> None:  # type: ignore[no-untyped-def]
    """``arc_local`` (text choices, Jinja integer target) and ``arc_local_letters`` (letters as
    choices, the answer letter as a text target, the options in the prompt) are one item set."""
    tasks, docs, indices = loaded
    plain = read_mc_task("arc_local", tasks["arc_local"], docs["arc_local"], indices["arc_local"])
    letters = read_mc_task("arc_local_letters", tasks["arc_local_letters"],
                           docs["arc_local_letters"], indices["arc_local_letters"])
    assert plain.why is None and letters.why is None
    key = [(i.instance_id, i.question, i.options, i.answer) for i in plain.items]
    assert key == [(i.instance_id, i.question, i.options, i.answer) for i in letters.items]
    assert [i.options[i.answer] for i in plain.items] == [
        r["choices"]["text"]["ABCD".index(r["answerKey"])] for r in ARC]


def test_process_docs_and_doc_functions_are_applied(loaded) -> None:  # type: ignore[no-untyped-def]
    tasks, docs, indices = loaded
    hs = read_mc_task("hellaswag_local", tasks["hellaswag_local"], docs["hellaswag_local"],
                      indices["hellaswag_local"])
    first = hs.items[0]
    assert first.question == "Washing dishes: A man fills a sink with soapy water. He"
    assert first.options[2] == "plays a violin solo for the gathered crowd. ."   # preprocess()
    assert [i.answer for i in hs.items] == [int(r["label"]) for r in HELLASWAG]
    wg = read_mc_task("winogrande_local", tasks["winogrande_local"], docs["winogrande_local"],
                      indices["winogrande_local"])
    assert [(i.question, i.options, i.answer) for i in wg.items] == [
        ("The trophy doesn't fit into the brown suitcase because the _ is too large.",
         ("trophy", "suitcase"), 0),
        ("Sarah lent Samantha her notes because _ had missed the lecture.",
         ("Sarah", "Samantha"), 1)]
    pro = read_mc_task("mmlu_pro_local", tasks["mmlu_pro_local"], docs["mmlu_pro_local"],
                       indices["mmlu_pro_local"])
    assert [len(i.options) for i in pro.items] == [10, 10]
    assert [i.options[i.answer] for i in pro.items] == [r["options"][r["answer_index"]]
                                                        for r in MMLU_PRO]


def test_shared_context_cuts_at_a_word() -> None:
    assert shared_context(["Sarah lent Sarah", "Sarah lent Sam"]) == ("Sarah lent ", ["Sarah", "Sam"])
    assert shared_context(["a b", "c d"]) == ("", ["a b", "c d"])


BAD = {
    "bad_not_mc": ("output_type: generate_until\ndoc_to_text: \"{{question}}\"\n"
                   "doc_to_target: \"{{answerKey}}\"\n",
                   "output_type generate_until, not multiple_choice"),
    "bad_one_choice": ("doc_to_text: \"{{question}}\"\ndoc_to_choice: \"{{[choices.text[0]]}}\"\n"
                       "doc_to_target: 0\n",
                       "doc 0: 1 choice(s); a multiple-choice probe needs at least 2"),
    "bad_not_a_list": ("doc_to_text: \"{{question}}\"\ndoc_to_choice: answerKey\ndoc_to_target: 0\n",
                       "doc 0: the choices are a str, not a list"),
    # lm-eval itself checks doc 0's target when it builds the task: a later doc is out of range
    "bad_target": ("doc_to_text: \"{{question}}\"\ndoc_to_choice: \"{{choices.text}}\"\n"
                   "doc_to_target: \"{{7 if id == 'Mercury_7003' else "
                   "choices.label.index(answerKey)}}\"\n",
                   "doc 3: target index 7 outside its 4 choices"),
}


def write_bad_tasks(folder: Path) -> Path:
    """One task per bad input in ``BAD``, over the ARC-shaped file."""
    data = folder / "bad.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ARC), encoding="utf-8")
    for name, (body, _) in BAD.items():
        kind = "" if "output_type" in body else "output_type: multiple_choice\n"
        (folder / f"{name}.yaml").write_text(
            f"task: {name}\ndataset_path: json\ndataset_kwargs:\n  data_files:\n    test: {data}\n"
            f"test_split: test\n{kind}{body}metric_list:\n  - metric: acc\n", encoding="utf-8")
    return folder


def test_bad_inputs_are_one_line_each(tmp_path: Path) -> None:
    tasks, docs, indices = _load(write_bad_tasks(tmp_path), list(BAD))
    benchmarks, probes, _, why = probes_for_run(tasks, docs, indices)
    assert benchmarks == dict.fromkeys(BAD) and probes == []
    assert why == {name: line for name, (_, line) in BAD.items()}


@pytest.mark.slow
def test_detect_dry_run_names_every_task_without_a_detector(cli, tmp_path: Path) -> None:
    """Through ``benchchecker lm-eval run --contamination-detect --dry-run``: the generic tasks are
    counted, each bad one is one line, nothing is run (the model is never loaded)."""
    include = write_bad_tasks(write_lm_eval_tasks(tmp_path / "tasks"))
    result = cli("lm-eval", "run", "--model", "hf", "--model_args", "pretrained=never-loaded",
                 "--include_path", include, "--tasks", ",".join(["arc_group", *BAD]),
                 "--output_path", tmp_path / "out", "--contamination-detect", "--dry-run",
                 "--contamination-no-cache")
    assert result.exit_code == 0, result.output
    for name, (_, line) in BAD.items():
        assert f"no detector for this task: {name} ({line}); it runs unfiltered" in result.stderr
    assert (f"dry run: detection would add {2 * len(ARC)} model calls (0 more already cached) for "
            f"{2 * len(ARC)} probes on 2 task(s); no detector for: {', '.join(BAD)}; nothing was "
            "run") in result.stderr
    assert not (tmp_path / "out").exists()


def _mmlu_local_equal(subjects: list[str]) -> int:
    mmlu = require_shared_data("mmlu")
    names = [f"mmlu_local_{s}" for s in subjects]
    tasks, docs, indices = _load(REPO / "tasks" / "lm_eval", names, {"data": str(mmlu)})
    n = 0
    for name in names:
        _, today, _, _ = probes_for_run({name: tasks[name]}, {name: docs[name]}, {name: indices[name]})
        generic = read_mc_task(name, tasks[name], docs[name], indices[name])
        assert generic.benchmark == "mmlu" and generic.why is None
        # same items, masks, prompts, targets and details as today's MMLU detector
        assert prepare_probes(generic.items, "multichoice").probes == tuple(today)
        n += len(today)
    return n


def test_generic_path_on_mmlu_local_equals_the_mmlu_detector() -> None:
    """Astronomy has questions with surrounding spaces and options that look like labels in
    college physics ("2", "4", "6", "10"): the generic reading recovers the items exactly."""
    assert _mmlu_local_equal(["astronomy", "college_physics"]) == 98 + 24


@pytest.mark.slow
def test_generic_path_on_every_mmlu_local_task_equals_the_mmlu_detector() -> None:
    """All 57 subjects, 14,042 documents (~1 min)."""
    from lm_eval.tasks import TaskManager

    subjects = sorted(n[len("mmlu_local_"):] for n in TaskManager(
        include_path=str(REPO / "tasks" / "lm_eval"), include_defaults=False).all_subtasks
        if n.startswith("mmlu_local_"))
    assert len(subjects) == 57
    assert _mmlu_local_equal(subjects) > 8000


def _arc_task(folder: Path, name: str, records: list[dict], body: str = "") -> None:
    data = folder / f"{name}.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (folder / f"{name}.yaml").write_text(
        f"task: {name}\ndataset_path: json\ndataset_kwargs:\n  data_files:\n    test: {data}\n"
        "test_split: test\noutput_type: multiple_choice\nmetric_list:\n  - metric: acc\n"
        + (body or 'doc_to_text: "{{question}}"\ndoc_to_target: "{{choices.label.index(answerKey)}}"\n'
                   'doc_to_choice: "{{choices.text}}"\n'), encoding="utf-8")


def test_one_instance_id_on_two_documents_is_an_error_naming_both(tmp_path: Path) -> None:
    from benchchecker_plugin.errors import DataError

    records = [dict(r, instance_id="dup" if i in (1, 4) else f"q{i}") for i, r in enumerate(ARC)]
    _arc_task(tmp_path, "arc_dup", records)
    tasks, docs, indices = _load(tmp_path, ["arc_dup"])
    with pytest.raises(DataError) as err:
        probes_for_run(tasks, docs, indices)
    assert str(err.value) == ("task arc_dup: instance id 'dup' is on doc 1 and doc 4 (lm-eval's doc ids, "
                              "0-based); each document needs its own id (the data file's instance_id "
                              "field)")
    # the same document twice (a run's repeats) is one instance, not a duplicate
    benchmarks, probes, _, _ = probes_for_run(tasks, docs, {"arc_dup": [0, 0, 2]})
    assert [p.instance_id for p in probes] == ["q0", "q2"]


DRY = ["--model", "openai-compatible/m", "--base-url", "http://127.0.0.1:9/v1", "--no-cache", "--dry-run"]


def test_ts_guess_ends_in_one_line_naming_why_no_task_can_be_probed(tmp_path: Path) -> None:
    """A ``!function`` outside the task's folder (lm-eval looks beside the YAML, then among
    importable modules), options of a megabyte shown by the prompt (past the template budget), and
    a repeated instance id: each ends in one line naming the task and why, exit 2."""
    from click.testing import CliRunner

    from benchchecker_plugin.cli import main

    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "utils.py").write_text("def doc_to_text(doc):\n    return doc['question']\n")
    tasks = tmp_path / "tasks"
    (tasks / "fn").mkdir(parents=True)
    _arc_task(tasks / "fn", "arc_fn_outside", ARC,
              'doc_to_text: !function ../../outside/utils.doc_to_text\n'
              'doc_to_target: "{{choices.label.index(answerKey)}}"\ndoc_to_choice: "{{choices.text}}"\n')
    big = [dict(r, choices={"text": [t + " word" * 70_000 for t in r["choices"]["text"]],
                            "label": r["choices"]["label"]}) for r in ARC[:2]]
    _arc_task(tasks, "arc_huge", big,
              'doc_to_text: "{{question}} {{choices.text | join(\' \')}}"\n'
              'doc_to_target: "{{choices.label.index(answerKey)}}"\ndoc_to_choice: "{{choices.text}}"\n')
    _arc_task(tasks, "arc_dup", [dict(r, instance_id="x") for r in ARC[:2]])
    want = {
        # lm-eval's own words, which depend on how it came to fail (ImportError or ValueError)
        "arc_fn_outside": "Error: --task arc_fn_outside: no probe to ask: arc_fn_outside: lm-eval cannot load "
                          "it (",
        "arc_huge": "Error: --task arc_huge: no probe to ask: arc_huge: lm-eval cannot load it "
                    "(TemplateBudgetError: the template writes more than 1048576 characters; refused)",
        "arc_dup": "Error: task arc_dup: instance id 'x' is on doc 0 and doc 1 (lm-eval's doc ids, "
                   "0-based); each document needs its own id (the data file's instance_id field)",
    }
    for name, line in want.items():
        res = CliRunner().invoke(main, ["ts-guess", "--task", name, "--include_path", str(tasks), *DRY])
        assert res.exit_code == 2, res.output
        last = res.output.splitlines()[-1]
        assert "Traceback" not in res.output and (last == line or line.endswith("(") and last.startswith(line)
                                                  and "\n" not in last), res.output
