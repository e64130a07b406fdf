"""The detector check on the republished page: Stage II's recall at each instance's own fix
snapshot, read from the bundle's ``own_fix_recall.csv`` (written by ``own_fix_recall.py``).

At its own fix snapshot (the first default-branch commit whose tree holds the fix; for release
snapshots the first release of the instance's line uploaded after the pull request) every
instance's gold patch should be found present, so the share found needs no labels. Each miss has
its cause: no own fix snapshot, the gold patch not in that snapshot (the merged fix differs from
SWE-bench's gold patch, or the release does not hold it), or the detector itself.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pandas as pd

__all__ = ["RECALL_FILE", "recall_parts"]

RECALL_FILE = "own_fix_recall.csv"
_CAUSES = {"detector": "a miss of the detector (the gold patch un-applies there, Stage II said "
                       "otherwise)",
           "gold patch not in the snapshot": "the gold patch does not un-apply at the own fix "
                                             "snapshot (the merged fix differs from SWE-bench's "
                                             "gold patch, or the release does not hold it)",
           "no own fix snapshot": "no commit names the pull request and no release follows it"}


def recall_parts(folder: Path) -> tuple[str, pd.DataFrame, str] | None:
    """The recall sentence, the table of misses (one row each, with its cause) and the short
    figure for the headline, or ``None`` when the bundle has no recall file."""
    path = folder / RECALL_FILE
    if not path.exists():
        return None
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    n = len(df)
    found = int((df["verdict"] == "present").sum())
    by_source = {s: (int((part["verdict"] == "present").sum()), len(part))
                 for s, part in df.groupby("source")} if n else {}
    misses = df[df["verdict"] != "present"]
    causes = Counter(r.split(":")[0] for r in misses["miss_reason"])
    detector = int(causes.get("detector", 0))
    src_text = "; ".join(f"{s}: {k} of {m}" for s, (k, m) in sorted(by_source.items()))
    sentence = (
        f"At each instance's own fix snapshot Stage II finds the gold patch present for {found} of "
        f"{n} instances ({100 * found / n:.1f}%; {src_text}). This needs no labels: there the fix "
        "is in the repository by construction. Of the "
        f"{len(misses)} misses, {detector} are the detector's own; the others are "
        + "; ".join(f"{v} {_CAUSES.get(k, k)}" for k, v in causes.most_common() if k != "detector")
        + ". Every miss is listed below with its cause."
        if n else "The own fix snapshot check has no instances.")
    table = misses[["instance_id", "source", "snapshot", "snapshot_date", "verdict",
                    "miss_reason"]].rename(columns={"verdict": "Stage II said",
                                                    "miss_reason": "cause"})
    short = (f"As a check of the detector itself, Stage II finds the fix present at the instance's own "
             f"fix snapshot for {found} of {n} instances ({100 * found / n:.1f}%; {detector} misses "
             "are the detector's own)." if n else "")
    return sentence, table.reset_index(drop=True), short
