"""Small boards for the republication's tests: submissions in the experiments layout, an instances
file with tiers and pull-request dates, a model map, cutoffs, and Stage II flags (seeded), so a
whole republication runs in a second or two."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

__all__ = ["TIERS", "write_board", "write_flags_for", "write_models"]

TIERS = ("<15 min fix", "15 min - 1 hour", "1-4 hours")
CATEGORY = {True: "present", False: "pre-patch-only", None: "file-or-function-gone"}
KINDS = ("rewritten-since", "never-found", "not-merged")


def write_board(root: Path, ids: Sequence[str], subs: dict[str, float], *, seed: int = 0,
                layout: str = "flat", split: str = "verified") -> tuple[Path, Path]:
    """Submissions ``{name: resolve rate}`` over ``ids`` under ``root`` (``flat``, or the
    experiments repository's ``evaluation/<split>``), and an instances jsonl (tier and PR date by
    the id's number, so two boards sharing an id agree). Returns (submissions folder, instances)."""
    rng = random.Random(seed)
    folder = root / "experiments"
    where = folder / "evaluation" / split if layout == "evaluation" else folder
    for name, rate in subs.items():
        (where / name / "results").mkdir(parents=True)
        resolved = [i for i in ids if rng.random() < rate]
        (where / name / "results" / "results.json").write_text(json.dumps({"resolved": resolved}))
    instances = root / "instances.jsonl"
    with open(instances, "w", encoding="utf-8") as fh:
        for iid in ids:
            n = int(iid.rsplit("-", 1)[1])
            owner, name = iid.split("__")[0], iid.split("__")[1].rsplit("-", 1)[0]
            fh.write(json.dumps({
                "instance_id": iid, "repo": f"{owner}/{name}", "base_commit": f"{n:040x}",
                "patch": f"--- a/f.py\n+++ b/f.py\n@@ -1 +1 @@\n-x = {n}\n+x = {n + 1}\n", "problem_statement": "p", "difficulty": TIERS[n % 3],
                "created_at": f"2023-0{1 + n % 6}-1{n % 10}T00:00:00Z"}) + "\n")
    return folder, instances


def write_models(root: Path, models: dict[str, str], cutoffs: dict[str, str]) -> tuple[Path, Path]:
    """A model map (``{submission: model}``) and a cutoffs CSV (``{model: cutoff}``)."""
    model_map = root / "map.csv"
    model_map.write_text("submission,model\n" + "".join(f"{s},{m}\n" for s, m in models.items()))
    table = root / "cutoffs.csv"
    table.write_text("model,cutoff\n" + "".join(f"{m},{c}\n" for m, c in cutoffs.items()))
    return model_map, table


def write_flags_for(path: Path, ids: Sequence[str], models: Sequence[str], *, seed: int = 0) -> Path:
    """Stage II flags for every (instance, model): seeded verdicts, a category and, for a clean
    verdict, a why-clean kind, each read from a git snapshot."""
    from benchchecker_plugin.flags import ContaminationFlag, write_flags

    rng = random.Random(seed)
    flags = []
    for iid in ids:
        for m in models:
            c = rng.random()
            verdict = True if c < 0.4 else False if c < 0.9 else None
            evidence = {"category": CATEGORY[verdict], "snapshot_source": {"kind": "git"},
                        "snapshot": {"source": "git", "commit": f"{rng.getrandbits(160):040x}"}}
            if verdict is False:
                evidence["clean_kind"] = KINDS[int(c * 100) % 3]
            flags.append(ContaminationFlag("swe-bench-verified", iid, m, "benchchecker.stage2", verdict,
                                           round(c, 3), evidence=evidence))
    return write_flags(path, flags)
