"""Multiple-choice tasks defined the way their harnesses define them, over local JSON files shaped
like ARC, HellaSwag, Winogrande and MMLU-Pro (the TS-Guessing generic path's tests, issue 30).

``write_lm_eval_tasks(folder)`` writes the JSON files and lm-eval task YAMLs (with lm-eval's own
features: Jinja ``doc_to_choice`` lists, ``!function`` ``process_docs`` and doc functions, integer
and text targets) into ``folder``, an ``--include_path``. ``inspect_task(name, records)`` is an
Inspect task whose samples carry ``choices`` (``multiple_choice()`` + ``choice()``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["ARC", "HELLASWAG", "MMLU_PRO", "WINOGRANDE", "arc_records", "inspect_task",
           "write_jsonl", "write_lm_eval_tasks", "write_mc_task"]


def _arc(i: int, question: str, options: Sequence[str], key: str) -> dict[str, Any]:
    return {"id": f"Mercury_{7000 + i}", "question": question,
            "choices": {"text": list(options), "label": ["A", "B", "C", "D"][:len(options)]},
            "answerKey": key}


ARC = [
    _arc(0, "Which organ pumps blood through the human body?",
         ["the lungs", "the heart", "the stomach", "the kidneys"], "B"),
    _arc(1, "What causes the seasons on Earth?",
         ["the tilt of its axis", "its distance from the Moon", "ocean currents",
          "volcanic eruptions"], "A"),
    _arc(2, "Which tool would a student use to measure the mass of a rock?",
         ["a graduated cylinder", "a thermometer", "a balance", "a meter stick"], "C"),
    _arc(3, "Plants make their own food through which process?",
         ["respiration", "digestion", "evaporation", "photosynthesis"], "D"),
    _arc(4, "Which form of energy does a stretched rubber band store?",
         ["elastic potential energy", "sound", "light", "chemical bonds in food"], "A"),
    _arc(5, "A student sees frost on grass in the morning. What happened to the water vapor?",
         ["it melted into rain", "it deposited as ice crystals", "it boiled away",
          "it mixed with soil minerals"], "B"),
]

HELLASWAG = [
    {"ind": 4, "activity_label": "Washing dishes", "ctx_a": "A man fills a sink with soapy water.",
     "ctx_b": "he", "endings": ["scrubs each plate with a sponge and rinses it.",
                                "jumps onto a bicycle and rides down the hill.",
                                "plays a violin solo for the gathered crowd [title].",
                                "paints the ceiling a bright shade of green."], "label": "0"},
    {"ind": 9, "activity_label": "Tying shoes", "ctx_a": "A child sits on the steps with untied laces.",
     "ctx_b": "she", "endings": ["throws the laces into the swimming pool.",
                                 "reads a long novel about ancient sailors.",
                                 "crosses the laces, loops them and pulls a neat bow.",
                                 "bakes a loaf of bread in the oven."], "label": "2"},
    {"ind": 12, "activity_label": "Raking leaves", "ctx_a": "A woman walks across a yard full of leaves.",
     "ctx_b": "she", "endings": ["starts the car and drives to the airport.",
                                 "gathers the leaves into a large pile with a rake.",
                                 "opens an umbrella while swimming laps indoors, then keeps going "
                                 "for a very long time past the shallow end, counting every tile "
                                 "on the wall and waving to each lifeguard she sees there.",
                                 "sings into a microphone on a stage."], "label": "1"},
]

WINOGRANDE = [
    {"sentence": "The trophy doesn't fit into the brown suitcase because the _ is too large.",
     "option1": "trophy", "option2": "suitcase", "answer": "1"},
    {"sentence": "Sarah lent Samantha her notes because _ had missed the lecture.",
     "option1": "Sarah", "option2": "Samantha", "answer": "2"},
]

MMLU_PRO = [
    {"question_id": 70, "question": "Which gas makes up most of the air we breathe?",
     "options": ["nitrogen", "oxygen", "carbon dioxide", "argon", "water vapor", "helium",
                 "hydrogen", "neon", "ozone", "methane"], "answer": "A", "answer_index": 0,
     "category": "chemistry"},
    {"question_id": 71, "question": "Which planet is known as the red planet?",
     "options": ["Venus", "Jupiter", "Mars", "Saturn", "Mercury", "Neptune", "Uranus", "Pluto",
                 "the Moon", "Ceres"], "answer": "C", "answer_index": 2, "category": "physics"},
]

HELLASWAG_UTILS = '''\
import re


def preprocess(text):
    text = text.strip().replace(" [title]", ". ")
    text = re.sub("\\\\[.*?\\\\]", "", text)
    return text.replace("  ", " ")


def process_docs(dataset):
    def _process_doc(doc):
        ctx = doc["ctx_a"] + " " + doc["ctx_b"].capitalize()
        return {"query": preprocess(doc["activity_label"] + ": " + ctx),
                "choices": [preprocess(e) for e in doc["endings"]], "gold": int(doc["label"])}
    return dataset.map(_process_doc)
'''

WINOGRANDE_UTILS = '''\
def doc_to_text(doc):
    answer_to_num = {"1": 0, "2": 1}
    return answer_to_num[doc["answer"]]


def doc_to_target(doc):
    idx = doc["sentence"].index("_") + 1
    return doc["sentence"][idx:].strip()


def doc_to_choice(doc):
    idx = doc["sentence"].index("_")
    options = [doc["option1"], doc["option2"]]
    return [doc["sentence"][:idx] + opt for opt in options]
'''


def write_jsonl(path: Path, records: Sequence[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _task(folder: Path, name: str, data: Path, body: str) -> None:
    (folder / f"{name}.yaml").write_text(
        f"task: {name}\ndataset_path: json\ndataset_kwargs:\n  data_files:\n    test: {data}\n"
        f"test_split: test\noutput_type: multiple_choice\nmetric_list:\n  - metric: acc\n{body}",
        encoding="utf-8")


def write_lm_eval_tasks(folder: Path, arc: Sequence[dict[str, Any]] = ARC) -> Path:
    """The test tasks in ``folder`` (an ``--include_path``), their data beside them:

    - ``arc_local``: lm-eval's ARC definition (Jinja ``doc_to_choice`` list ``choices.text``, an
      integer target rendered by Jinja);
    - ``arc_local_letters``: the same items scored by letter (label choices, a text target);
    - ``hellaswag_local``: lm-eval's HellaSwag definition (``!function utils.process_docs``);
    - ``winogrande_local``: lm-eval's Winogrande definition (``!function`` doc functions, one
      context per option);
    - ``mmlu_pro_local``: ten options per question;
    - ``arc_group``: a group of the two ARC tasks."""
    folder.mkdir(parents=True, exist_ok=True)
    arc_file = write_jsonl(folder / "arc.jsonl", arc)
    _task(folder, "arc_local", arc_file,
          'doc_to_text: "Question: {{question}}\\nAnswer:"\n'
          'doc_to_target: "{{choices.label.index(answerKey)}}"\n'
          'doc_to_choice: "{{choices.text}}"\n')
    _task(folder, "arc_local_letters", arc_file,
          'doc_to_text: "{{question}}\\nA. {{choices.text[0]}}\\nB. {{choices.text[1]}}\\n'
          'C. {{choices.text[2]}}\\nD. {{choices.text[3]}}\\nAnswer:"\n'
          'doc_to_target: "{{answerKey}}"\n'
          'doc_to_choice: "{{choices.label}}"\n')
    (folder / "arc_group.yaml").write_text(
        "group: arc_group\ntask:\n  - arc_local\n  - arc_local_letters\n", encoding="utf-8")
    sub = folder / "hellaswag"
    sub.mkdir(exist_ok=True)
    (sub / "utils.py").write_text(HELLASWAG_UTILS, encoding="utf-8")
    _task(sub, "hellaswag_local", write_jsonl(sub / "hellaswag.jsonl", HELLASWAG),
          "process_docs: !function utils.process_docs\n"
          'doc_to_text: "{{query}}"\ndoc_to_target: "{{gold}}"\ndoc_to_choice: "choices"\n')
    sub = folder / "winogrande"
    sub.mkdir(exist_ok=True)
    (sub / "utils.py").write_text(WINOGRANDE_UTILS, encoding="utf-8")
    _task(sub, "winogrande_local", write_jsonl(sub / "winogrande.jsonl", WINOGRANDE),
          "doc_to_text: !function utils.doc_to_text\ndoc_to_target: !function utils.doc_to_target\n"
          "doc_to_choice: !function utils.doc_to_choice\nshould_decontaminate: false\n")
    _task(folder, "mmlu_pro_local", write_jsonl(folder / "mmlu_pro.jsonl", MMLU_PRO),
          'doc_to_text: "Question: {{question}}\\nAnswer:"\ndoc_to_target: answer_index\n'
          'doc_to_choice: "{{options}}"\n')
    return folder


def arc_records(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """MMLU-like rows (``question``, ``choices``, ``answer`` index) in ARC's shape."""
    return [_arc(i, r["question"], r["choices"], "ABCD"[int(r["answer"])]) for i, r in enumerate(rows)]


def inspect_task(name: str, records: Sequence[dict[str, Any]]) -> Any:
    """An Inspect task over ARC-shaped ``records``: sample id = the record's row (0-based, as
    lm-eval's doc id), ``choices`` its options, ``target`` the answer letter."""
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.scorer import choice
    from inspect_ai.solver import multiple_choice

    samples = [Sample(input=r["question"], choices=list(r["choices"]["text"]),
                      target=r["answerKey"], id=i) for i, r in enumerate(records)]
    return Task(dataset=MemoryDataset(samples, name=name), solver=multiple_choice(),
                scorer=choice(), name=name)


def write_mc_task(folder: Path, task: str, csv_path: Path) -> Path:
    """An lm-eval multiple_choice task YAML over an MMLU-shaped local CSV (``mmlu_csv``)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{task}.yaml"
    path.write_text(f"""\
task: {task}
dataset_path: csv
dataset_kwargs:
  data_files:
    test: {csv_path}
test_split: test
output_type: multiple_choice
doc_to_text: "{{{{question}}}}\\nAnswer:"
doc_to_choice: "{{{{[choice0, choice1, choice2, choice3]}}}}"
doc_to_target: answer
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
""")
    return path
