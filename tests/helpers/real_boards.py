"""The real boards of the shared data as inputs of ``benchchecker republish``: SWE-bench Verified
with the published bundle's verdicts, Multi-SWE-bench's Java experiments with Stage II flags made
here (a fixed pattern, as tests/flows writes Java flags) and the annotation workbook's tiers."""

from __future__ import annotations

import json
from pathlib import Path

from benchchecker_plugin.republish import BUNDLE_FILES, PAGE_FILES

from .boards import write_models
from .shared_data import SHARED_DATA

__all__ = ["JAVA_MODELS", "PUBLISHED", "java_args", "same_files", "verified_args"]

REPO = Path(__file__).resolve().parents[2]
PUBLISHED = REPO / "published" / "swebench-verified"
MSB = SHARED_DATA / "multi_swe_bench"
JAVA = MSB / "java_verified_experiments"
JAVA_MODELS = {"20240825_SWE-agent_gpt-4o-2024-05-13": "gpt-4o-2024-05-13",
               "20240825_SWE-agent_gpt-4o-mini-2024-07-18": "gpt-4o-mini-2024-07-18",
               "20240825_SWE-agent_deepseek-chat-v2": "deepseek-chat-v2",
               "20240825_SWE-agent_deepseek-coder-v2": "deepseek-coder-v2",
               "20240825_SWE-agent_doubao-pro-128k": "doubao-pro-128k"}


def verified_args(out: Path, *extra: str) -> list[str]:
    d = SHARED_DATA
    return ["republish", "--board", f"verified={d / 'swebench_experiments'}",
            "--instances", str(d / "swebench_verified" / "swebench_verified_composite.jsonl"),
            "--model-map", str(d / "model_cutoffs" / "submission_models.csv"),
            "--cutoff-sources", str(d / "model_cutoffs" / "model_cutoffs.csv"),
            "--official", str(d / "swebench_leaderboard" / "leaderboards.json"),
            "--from-bundle", str(PUBLISHED), "--out", str(out), *extra]


def java_inputs(root: Path) -> tuple[Path, Path, Path]:
    """A model map, the cutoffs of the two GPT-4o models, and Stage II flags for the 91 instances
    at both (a fixed pattern, as tests/flows writes Java flags)."""
    from benchchecker_plugin.flags import ContaminationFlag, write_flags

    model_map, cutoffs = write_models(root, JAVA_MODELS, dict.fromkeys(
        ("gpt-4o-2024-05-13", "gpt-4o-mini-2024-07-18"), "2023-10"))
    ids = sorted(json.loads((JAVA / "index.json").read_text()))
    flags = write_flags(root / "flags.jsonl", [
        ContaminationFlag("multi-swe-bench", i, m, "benchchecker.stage2",
                          [True, False, None][(k + j) % 3], 1.0, evidence={"category": "present"})
        for j, m in enumerate(("gpt-4o-2024-05-13", "gpt-4o-mini-2024-07-18")) for k, i in enumerate(ids)])
    return model_map, cutoffs, flags


def java_args(root: Path, out: Path, *extra: str) -> list[str]:
    model_map, cutoffs, flags = java_inputs(root)
    return ["republish", "--board", f"java={JAVA}", "--tiers", str(MSB / "annotations" / "java.xlsx"),
            "--model-map", str(model_map), "--cutoffs", str(cutoffs), "--flags", str(flags),
            "--min-clean", "5", "--min-resolved-clean", "2", "--out", str(out), *extra]


def same_files(a: Path, b: Path) -> list[str]:
    """The bundle and page files that differ between two folders."""
    return [n for n in BUNDLE_FILES + PAGE_FILES if (a / n).exists() != (b / n).exists()
            or ((a / n).exists() and (a / n).read_bytes() != (b / n).read_bytes())]
