"""The page's tables, each read from the rate table or the pooled summary: the top 10 on the
hardest tier, the official board's top 10, the model families, the submission years, the
verdict shares per model, the drops of the submissions scored over a cutoff interval, and the
boards pooled."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ..report import drop_text, pct
from ._facts import BuildFacts
from ._groups import FAMILIES, POOL, board_label, top10_label

#: the tiers the page names (SWE-bench Verified's, else Multi-SWE-bench's) and their short forms
HARD_TIERS = (("1-4 hours", "1-4 h"), ("hard", "hard"))
MEDIUM_TIERS = (("15 min - 1 hour", "15-60 min"), ("medium", "medium"))


def pick_tier(present: Sequence[str], choices: Sequence[tuple[str, str]]) -> tuple[str, str]:
    """The first of ``choices`` (tier, short name) among the ``present`` tiers; the first choice
    when none is (its cells stay empty)."""
    return next(((t, short) for t, short in choices if t in present), choices[0])


def cell(summary: pd.DataFrame, group: str, tier: str) -> pd.Series | None:
    rows = summary[(summary["group"] == group) & (summary["tier"] == tier)]
    return rows.iloc[0] if len(rows) else None


def sub_row(table: pd.DataFrame, sub: str, tier: str) -> pd.Series | None:
    rows = table[(table["submission"] == sub) & (table["tier"] == tier)]
    return rows.iloc[0] if len(rows) else None


def n_text(row: pd.Series | None) -> str:
    if row is None:
        return ""
    return (f"{int(row['n_submissions'])} submissions, {int(row['n_instances'])} instances, "
            f"clean n={int(row['n_clean'])}, resolved clean n={int(row['n_resolved_clean'])}")


def mde_text(row: pd.Series | None) -> str:
    if row is None or "mde" not in row or pd.isna(row["mde"]):
        return ""
    return f"{100 * float(row['mde']):.0f} points"


def years_of(groups: Mapping[str, Sequence[str]]) -> list[str]:
    return [g for g in groups if re.fullmatch(r"\d{4}", str(g))]


def top10_table(table: pd.DataFrame, subs: pd.DataFrame, groups: Mapping[str, Sequence[str]],
                facts: BuildFacts, hard: tuple[str, str]) -> pd.DataFrame:
    """The top 10 scored submissions on the hardest tier: clean n, rates and drop."""
    size = facts.size_label
    meta = subs.set_index("submission")
    tier, short = hard
    rows = []
    for name in groups.get(top10_label(table["submission"].nunique(), size), []):
        r = sub_row(table, name, tier)
        rows.append({"submission": name, "model": meta.loc[name, "models"],
                     f"resolved of {size}": int(meta.loc[name, f"resolved_of_{size}"]),
                     f"{short} clean n": int(r["n_clean"]) if r is not None else "",
                     f"{short} original": pct(r["original_rate"]) if r is not None else "",
                     f"{short} clean": pct(r["clean_rate"]) if r is not None else "",
                     f"{short} drop [95% CI]": drop_text(r) if r is not None else ""})
    return pd.DataFrame(rows)


def board_table(facts: BuildFacts) -> pd.DataFrame:
    """The official board's top 10 and which of them have per-instance results here."""
    top = (facts.board or {}).get("top10", [])
    return pd.DataFrame([{"rank": k + 1, "entry": e["name"], "resolved": f"{e['resolved %']:.1f}%",
                          "date": e["date"], "per-instance results here": "yes" if e["here"] else
                          "no", "scored here": "yes" if e["scored"] else "no"}
                         for k, e in enumerate(top)])


def families_table(table: pd.DataFrame, groups: Mapping[str, Sequence[str]]) -> pd.DataFrame:
    rows = []
    for label in FAMILIES:
        for name in groups.get(label, []):
            r = sub_row(table, name, "all")
            if r is not None:
                rows.append({"family": label.split(" (")[0], "submission": name,
                             "model": r["model"], "clean n": int(r["n_clean"]),
                             "original": pct(r["original_rate"]), "clean": pct(r["clean_rate"]),
                             "drop [95% CI]": drop_text(r), "MDE": mde_text(r)})
    return pd.DataFrame(rows)


def pooled_row(a: pd.Series, m: pd.Series | None, medium: str) -> dict[str, Any]:
    """One pooled group's row: counts, rates, drop with its MDE, clean vs contaminated, and the
    middle tier's drop."""
    return {"submissions": int(a["n_submissions"]), "clean n": int(a["n_clean"]),
            "resolved clean n": int(a["n_resolved_clean"]), "original": pct(a["original_rate"]),
            "clean": pct(a["clean_rate"]), "clean (tier-std.)": pct(a["clean_rate_std"]),
            "undecided rate": pct(a["undecided_rate"]), "drop [95% CI]": drop_text(a),
            "MDE": mde_text(a),
            "clean vs contaminated [95% CI]": drop_text(a, "clean_vs_contaminated", "cvc_ci_low",
                                                        "cvc_ci_high"),
            f"{medium}: clean n": int(m["n_clean"]) if m is not None else "",
            f"{medium}: drop [95% CI]": drop_text(m) if m is not None else "",
            f"{medium}: MDE": mde_text(m)}


def years_table(summary: pd.DataFrame, groups: Mapping[str, Sequence[str]],
                medium: tuple[str, str]) -> pd.DataFrame:
    rows = []
    for group in years_of(groups):
        a = cell(summary, group, "all")
        if a is not None:
            rows.append({"year": group, **pooled_row(a, cell(summary, group, medium[0]), medium[1])})
    return pd.DataFrame(rows)


def boards_table(summary: pd.DataFrame, facts: BuildFacts, medium: tuple[str, str]) -> pd.DataFrame:
    """Each board and their pool (several boards in one run): instances, shared, the drop and its
    MDE."""
    rows = []
    for b in facts.boards or ():
        label = board_label(str(b["name"]))
        a = cell(summary, label, "all")
        if a is not None:
            rows.append({"board": str(b["name"]), "instances": int(b["n_instances"]),
                         **pooled_row(a, cell(summary, label, medium[0]), medium[1])})
    a = cell(summary, POOL, "all")
    if a is not None:
        rows.append({"board": POOL, "instances": int(a["n_instances"]),
                     **pooled_row(a, cell(summary, POOL, medium[0]), medium[1])})
    return pd.DataFrame(rows)


def shares_table(compact: pd.DataFrame, cutoff_df: pd.DataFrame) -> pd.DataFrame:
    """Per model: covered instances and the share of each verdict."""
    snap = dict(zip(cutoff_df["model"], cutoff_df["snapshot at"]))
    rows = []
    for model, part in compact.groupby("model", sort=False):
        n = len(part)
        c = int((part["contaminated"] == "true").sum())
        k = int((part["contaminated"] == "false").sum())
        rows.append({"model": model, "snapshot at": snap.get(str(model), ""), "covered": n,
                     "contaminated share": pct(c / n) if n else "",
                     "clean share": pct(k / n) if n else "",
                     "undecided share": pct((n - c - k) / n) if n else ""})
    if not rows:
        return pd.DataFrame(columns=["model", "snapshot at", "covered", "contaminated share",
                                     "clean share", "undecided share"])
    return pd.DataFrame(rows).sort_values(["snapshot at", "model"]).reset_index(drop=True)


def band_table(bands: Mapping[str, Any], facts: BuildFacts) -> pd.DataFrame:
    """The drop of each submission without a published cutoff at both ends of its interval."""
    if not bands:
        return pd.DataFrame()
    (t0, s0), (t1, s1) = bands["verdict_band_start"], bands["verdict_band_end"]
    rows = []
    for name, b in facts.bands.items():
        r0, r1 = sub_row(t0, name, "all"), sub_row(t1, name, "all")
        if r0 is None or r1 is None:
            continue
        rows.append({"submission": name, "model": b["models"], "band": f"{b['start']} .. {b['end']}",
                     "clean n (start / end)": f"{int(r0['n_clean'])} / {int(r1['n_clean'])}",
                     "drop at start [95% CI]": drop_text(r0), "drop at end [95% CI]": drop_text(r1)})
    g0, g1 = cell(s0, "without a published cutoff", "all"), cell(s1, "without a published cutoff", "all")
    rows.append({"submission": "pooled (these submissions)", "model": "", "band": "",
                 "clean n (start / end)": f"{int(g0['n_clean'])} / {int(g1['n_clean'])}"
                 if g0 is not None and g1 is not None else "",
                 "drop at start [95% CI]": drop_text(g0) if g0 is not None else "",
                 "drop at end [95% CI]": drop_text(g1) if g1 is not None else ""})
    return pd.DataFrame(rows)
