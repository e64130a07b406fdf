"""Write the per-subject YAML files of the ``mmlu_local`` tasks (run from this folder).

The tasks are lm-eval's ``mmlu_<subject>`` (same prompt, choices, target, metric and few-shot
split) reading the MMLU CSV files from a local folder instead of the hub, for offline runs.
``SUBJECTS`` is lm-eval's own list (``lm_eval/tasks/mmlu/_generate_configs.py``).
"""

from pathlib import Path

SUBJECTS = {
    "abstract_algebra": "stem",
    "anatomy": "stem",
    "astronomy": "stem",
    "business_ethics": "other",
    "clinical_knowledge": "other",
    "college_biology": "stem",
    "college_chemistry": "stem",
    "college_computer_science": "stem",
    "college_mathematics": "stem",
    "college_medicine": "other",
    "college_physics": "stem",
    "computer_security": "stem",
    "conceptual_physics": "stem",
    "econometrics": "social_sciences",
    "electrical_engineering": "stem",
    "elementary_mathematics": "stem",
    "formal_logic": "humanities",
    "global_facts": "other",
    "high_school_biology": "stem",
    "high_school_chemistry": "stem",
    "high_school_computer_science": "stem",
    "high_school_european_history": "humanities",
    "high_school_geography": "social_sciences",
    "high_school_government_and_politics": "social_sciences",
    "high_school_macroeconomics": "social_sciences",
    "high_school_mathematics": "stem",
    "high_school_microeconomics": "social_sciences",
    "high_school_physics": "stem",
    "high_school_psychology": "social_sciences",
    "high_school_statistics": "stem",
    "high_school_us_history": "humanities",
    "high_school_world_history": "humanities",
    "human_aging": "other",
    "human_sexuality": "social_sciences",
    "international_law": "humanities",
    "jurisprudence": "humanities",
    "logical_fallacies": "humanities",
    "machine_learning": "stem",
    "management": "other",
    "marketing": "other",
    "medical_genetics": "other",
    "miscellaneous": "other",
    "moral_disputes": "humanities",
    "moral_scenarios": "humanities",
    "nutrition": "other",
    "philosophy": "humanities",
    "prehistory": "humanities",
    "professional_accounting": "other",
    "professional_law": "humanities",
    "professional_medicine": "other",
    "professional_psychology": "social_sciences",
    "public_relations": "social_sciences",
    "security_studies": "social_sciences",
    "sociology": "social_sciences",
    "us_foreign_policy": "social_sciences",
    "virology": "other",
    "world_religions": "humanities",
}


TEMPLATE = """\
include: _default_template_yaml
task: mmlu_local_{subject}
task_alias: {subject}
tag: mmlu_local_tasks
dataset_kwargs:
  subject: {subject}
description: "The following are multiple choice questions (with answers) about {words}.\\n\\n"
"""


def main() -> None:
    here = Path(__file__).resolve().parent
    for subject in SUBJECTS:
        text = TEMPLATE.format(subject=subject, words=subject.replace("_", " "))
        (here / f"mmlu_local_{subject}.yaml").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
