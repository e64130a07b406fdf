"""The detector check on the page: Stage II's recall at each instance's own fix snapshot, read
from the bundle's ``own_fix_recall.csv`` (:mod:`._own_fix_recall` makes it).

At its own fix snapshot (the first default-branch commit whose tree holds the fix; for release
snapshots the first release of the instance's line uploaded after the pull request) every
instance's gold patch should be found present, so the share found needs no labels. Each miss has
its cause: no own fix snapshot, the gold patch not in that snapshot (the merged fix differs from
the benchmark's gold patch, or the release does not hold it), or the detector itself.
"""

from __future__ import annotations

from collections import Counter

import pandas as pd

_CAUSES = {"detector": "a miss of the detector (the gold patch un-applies there, Stage II said "
                       "otherwise)",
           "gold patch not in the snapshot": "the gold patch does not un-apply at the own fix "
                                             "snapshot (the merged fix differs from SWE-bench's "
                                             "gold patch, or the release does not hold it)",
           "no own fix snapshot": "no commit names the pull request and no release follows it"}


def recall_parts(df: pd.DataFrame | None) -> tuple[str, pd.DataFrame, str] | None:
    """The recall sentence, the table of misses (one row each, with its cause) and the short
    figure for the headline, or ``None`` when the bundle has no recall table."""
    if df is None:
        return None
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


# found present before the fix landed, investigated by hand (git log -S on the fixed line, the
# flag's evidence)
_SMALL_EDIT = ("a small edit of a long line ({what} gains an item): the older line scores {score} "
               "against the fixed one, above the 0.7 line-similarity threshold, and is not closer to the "
               "gold patch's removed line (a limit of line similarity)")
EARLY_WHY = {
    "astropy__astropy-14995": "a regression fix: the line it restores (`elif operand.mask is None:`) "
                              "was in ndarithmetic.py from 2014 (7340bc22e1) until feeb716b74 "
                              "(2022-12-13) replaced it; a snapshot before that holds the fixed code",
    "django__django-15277": "a stand-in base misplaced: in the release used as the base the patch "
                            "applied at an offset inside BinaryField.__init__, which already holds "
                            "the two fixed lines (the fix is to CharField.__init__)",
    "django__django-16642": "a look-alike at the threshold: the older `encoding_map = {'bzip2': ...}` "
                            "scores 0.70 against the added `\"br\": \"application/x-brotli\"` entry "
                            "(lexical similarity of short dictionary lines)",
    "django__django-16082": _SMALL_EDIT.format(what="the `_connector_combinations` list literal",
                                               score="1.00"),
    "matplotlib__matplotlib-23412": _SMALL_EDIT.format(what="the `_setattr_cm(...)` call in Patch.draw",
                                                       score="0.90"),
    "scikit-learn__scikit-learn-25232": _SMALL_EDIT.format(what="IterativeImputer's signature and "
                                                                "constraints", score="0.95-0.99"),
    "sympy__sympy-22914": _SMALL_EDIT.format(what="the `_known_functions` dictionary", score="0.77"),
    "django__django-15851": "a pure reorder (`args.extend(parameters)` moved before the database "
                            "name): read present everywhere by an earlier engine; the reorder rule "
                            "(stage2/_reorder.py) reads the old order as pre-patch only",
}


def present_before_fix(own: pd.DataFrame | None, flags: pd.DataFrame, cut: pd.DataFrame
                       ) -> tuple[str, pd.DataFrame] | None:
    """The instances read contaminated at a cutoff before their own fix snapshot (the fix had not
    landed yet), with the cutoffs and, where investigated, why; ``None`` without the recall
    table. ``flags`` and ``cut``: the bundle's flags.csv and cutoffs.csv."""
    if own is None:
        return None
    landed = {i: d[:10] for i, d in zip(own["instance_id"], own["snapshot_date"]) if d}
    at = dict(zip(cut["model"], cut["snapshot at"]))
    early: dict[str, set[str]] = {}
    for iid, model, c in zip(flags["instance_id"], flags["model"], flags["contaminated"]):
        when = at.get(model, "")
        if c == "true" and iid in landed and when and when < landed[iid]:
            early.setdefault(iid, set()).add(when)
    table = pd.DataFrame([{"instance_id": iid, "fix landed": landed[iid], "earliest cutoff": min(cuts),
                           "cutoffs": len(cuts), "why": EARLY_WHY.get(iid, "not investigated")}
                          for iid, cuts in early.items()],
                         columns=["instance_id", "fix landed", "earliest cutoff", "cutoffs", "why"])
    table = table.sort_values("instance_id").reset_index(drop=True)
    text = (f"{len(table)} instance(s) read contaminated at a cutoff before their own fix snapshot, "
            "when the fix had not landed yet: the fixed lines were in the snapshot already (a "
            "regression fix restoring older code) or the detector erred. Each is listed with the "
            "number of cutoffs concerned and, where investigated, why. Such a reading is kept as "
            "published (the fixed code was there to be seen) and counts for nothing in what clean "
            "rests on." if len(table) else
            "No instance is read contaminated at a cutoff before its own fix snapshot.")
    return text, table
