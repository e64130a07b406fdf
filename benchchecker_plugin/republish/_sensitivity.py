"""The sensitivity of the pooled drops: the same data read other ways, one sentence each on what
changes (undecided counted clean or contaminated, clean of one why-clean kind only, git-read or
sdist-read projects apart, each repository left out in turn, the submissions without a published
cutoff added at each end of their interval)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from ..report import drop_text, pct
from ._facts import BuildFacts
from ._groups import ALL, POOL, board_label, score
from ._tables import cell, years_of

# why-clean kinds (stage2.CleanKind values) and what each says of the fix
CLEAN_KINDS = {"rewritten-since": "found present at an earlier snapshot after its merge and is "
                                  "absent at the cutoff (rewritten since)",
               "never-found": "never found present at any snapshot after its merge",
               "not-merged": "not yet merged at the cutoff"}


def sensitivity_groups(groups: Mapping[str, Sequence[str]], facts: BuildFacts) -> dict[str, list[str]]:
    """The groups the table reads: every submission, the two latest years, and with several
    boards each board and their pool."""
    names = [ALL, *years_of(groups)[-2:]]
    if facts.boards and len(facts.boards) > 1:
        names += [board_label(str(b["name"])) for b in facts.boards] + [POOL]
    return {g: list(groups[g]) for g in names if g in groups}


class _Reader:
    """The cells of one reading: each group's pooled drop over all tiers, with its clean n."""

    def __init__(self, want: Mapping[str, Sequence[str]], facts: BuildFacts) -> None:
        self.want, self.facts = want, facts

    def cells(self, frame: pd.DataFrame, covered: set[str] | None = None,
              extra: Mapping[str, Sequence[str]] | None = None) -> dict[str, str]:
        _, summ = score(frame, "verdict", dict(extra or self.want), self.facts, covered=covered)
        out = {}
        for g in (extra or self.want):
            r = cell(summ, g, "all")
            out[g] = f"{drop_text(r)} (clean n={int(r['n_clean'])})" if r is not None else ""
        return out


def _kind_rows(pub: pd.DataFrame, read: _Reader) -> list[dict[str, str]]:
    rows = []
    is_clean = pub["verdict"] == "clean"
    for kind, meaning in CLEAN_KINDS.items():
        n_kind = int((is_clean & (pub["clean_kind"] == kind)).sum())
        if n_kind and n_kind < int(is_clean.sum()):
            alt = pub.assign(verdict=pub["verdict"].where(~is_clean | (pub["clean_kind"] == kind),
                                                          "undecided"))
            rows.append({"reading": f"clean = {kind} only ({n_kind} of {int(is_clean.sum())} clean "
                                    "pairs)",
                         "what changes": f"only the clean instances whose fix was {meaning} count "
                                         "as clean; the other clean ones are set aside (undecided)",
                         **read.cells(alt)})
    return rows


def _source_rows(pub: pd.DataFrame, read: _Reader) -> list[dict[str, str]]:
    rows = []
    ids_by = {k: set(pub.loc[pub["snapshot_source"] == k, "instance_id"]) for k in ("git", "release")}
    for k, label in (("git", "git-read projects only"), ("release", "sdist-read projects only")):
        repos = sorted(set(pub.loc[pub["snapshot_source"] == k, "repo"]))
        if ids_by[k]:
            rows.append({"reading": f"{label} (split post hoc)",
                         "what changes": f"only the {len(repos)} projects read from "
                                         f"{'git history' if k == 'git' else 'release sdists'} "
                                         f"({', '.join(r.split('/')[1] for r in repos)}); chosen "
                                         "after looking at the data: a lead, not a finding",
                         **read.cells(pub, covered=ids_by[k])})
    return rows


def _leave_one_out(pub: pd.DataFrame, read: _Reader) -> dict[str, str]:
    loo: dict[str, list[tuple[float, str]]] = {g: [] for g in read.want}
    for repo in sorted(set(pub["repo"])):
        keep = set(pub.loc[pub["repo"] != repo, "instance_id"])
        _, summ = score(pub, "verdict", read.want, read.facts, covered=keep)
        for g in read.want:
            r = cell(summ, g, "all")
            if r is not None and pd.notna(r["relative_drop"]):
                loo[g].append((float(r["relative_drop"]), repo.split("/")[1]))
    return {"reading": "leave one repository out (range)",
            "what changes": "each of the repositories left out in turn: the lowest and highest "
                            "pooled drop, and which repository's absence gives it",
            **{g: (f"{pct(min(v)[0])} (without {min(v)[1]}) .. {pct(max(v)[0])} "
                   f"(without {max(v)[1]})" if v else "") for g, v in loo.items()}}


def _band_rows(pub: pd.DataFrame, band: pd.DataFrame, read: _Reader) -> list[dict[str, str]]:
    names = list(dict.fromkeys(band["submission"]))
    year = {n: str(band.loc[band["submission"] == n, "date"].iloc[0])[:4] for n in names}
    rows = []
    for end, word in (("verdict_band_start", "start"), ("verdict_band_end", "end")):
        both = pd.concat([pub, band.assign(verdict=band[end], scored_as="published cutoff")])
        merged = {g: list(read.want[g]) + [n for n in names if g in (ALL, POOL) or year[n] == g]
                  for g in read.want}
        rows.append({"reading": f"with the {len(names)} submissions without a published cutoff, "
                                f"at their interval's {word}",
                     "what changes": "the submissions without a published cutoff (or with the "
                                     f"model undisclosed) join their groups, scored at the "
                                     f"{word} of their plausible interval",
                     **read.cells(both, extra=merged)})
    return rows


def sensitivity_table(pub: pd.DataFrame, band: pd.DataFrame, groups: Mapping[str, Sequence[str]],
                      facts: BuildFacts) -> pd.DataFrame:
    """The pooled drops (over all tiers) under other readings of the same data, each with the
    sentence saying what changed."""
    read = _Reader(sensitivity_groups(groups, facts), facts)
    rows = [{"reading": "as published", "what changes": "the verdicts as published", **read.cells(pub)}]
    for word in ("clean", "contaminated"):
        alt = pub.assign(verdict=pub["verdict"].replace({"undecided": word}))
        rows.append({"reading": f"undecided as {word}",
                     "what changes": f"every undecided instance is counted {word}"
                     + ("" if word == "clean" else " (the drop compares clean with all instances, "
                        "so it cannot move; only clean vs contaminated would)"), **read.cells(alt)})
    rows += _kind_rows(pub, read) + _source_rows(pub, read) + [_leave_one_out(pub, read)]
    if len(band):
        rows += _band_rows(pub, band, read)
    return pd.DataFrame(rows)
