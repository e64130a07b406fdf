"""The bundle: the inputs of every figure of a republication, written to a folder and read back
alone.

``instances.csv`` (one row per instance and scored submission: tier, resolved, verdict, the band
verdicts of a submission without a published cutoff, why-clean kind, snapshot id ``git:<commit>``
or ``release:<version>``; the other columns follow from the rest of the bundle), ``flags.csv``
(one merged verdict per instance and model), ``cutoffs.csv``, ``unscored.csv``, ``snapshots.csv``,
``own_fix_recall.csv`` (when Stage II read each instance at its own fix snapshot), ``build.json``
(:class:`~.facts.BuildFacts`), ``CHANGELOG.md`` and ``LICENSE-DATA.md`` (kept by hand; a first
version is written for a new folder).
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..atomic import write_text_atomic
from ..errors import DataError
from ..report import write_csv
from ._facts import BuildFacts

#: the bundle's files (the inputs of the rebuild), in the order they are listed
BUNDLE_FILES = ("instances.csv", "flags.csv", "cutoffs.csv", "unscored.csv", "snapshots.csv",
                "build.json", "CHANGELOG.md", "LICENSE-DATA.md", "own_fix_recall.csv")
#: the files the rebuild writes from the bundle alone
PAGE_FILES = ("leaderboard.csv", "summary.csv", "sensitivity.csv", "leaderboard.md", "index.html",
              "README.md")
RECALL_FILE = "own_fix_recall.csv"
INSTANCE_COLUMNS = ("instance_id", "repo", "tier", "submission", "models", "date", "scored_as",
                    "resolved", "verdict", "verdict_band_start", "verdict_band_end", "clean_kind",
                    "snapshot_source", "snapshot")
#: written to instances.csv (the others follow from build.json and snapshots.csv)
WRITTEN_COLUMNS = ("instance_id", "submission", "tier", "resolved", "verdict",
                   "verdict_band_start", "verdict_band_end", "clean_kind", "snapshot")
FLAG_COLUMNS = ("instance_id", "model", "contaminated", "score", "category")
SNAPSHOT_COLUMNS = ("repo", "model", "snapshot at", "source", "commit", "version", "sha256", "uploaded")
PUBLISHED, BAND = "published cutoff", "band"


@dataclass(frozen=True)
class Bundle:
    """A republication's inputs: ``instances`` (:data:`INSTANCE_COLUMNS`), ``flags``
    (:data:`FLAG_COLUMNS`), ``cutoffs``, ``unscored``, ``snapshots``, the build ``facts``, and
    the own fix recall table (``None`` without one)."""

    instances: pd.DataFrame
    flags: pd.DataFrame
    cutoffs: pd.DataFrame
    unscored: pd.DataFrame
    snapshots: pd.DataFrame
    facts: BuildFacts
    recall: pd.DataFrame | None = None

    @property
    def published(self) -> pd.DataFrame:
        """The rows of the submissions scored at a published cutoff."""
        return self.instances[self.instances["scored_as"] == PUBLISHED]

    @property
    def banded(self) -> pd.DataFrame:
        """The rows of the submissions scored over a plausible cutoff interval."""
        return self.instances[self.instances["scored_as"] == BAND]

    @property
    def submissions(self) -> pd.DataFrame:
        return pd.DataFrame(list(self.facts.submissions))


def repo_of(instance_id: str) -> str:
    """``owner/name`` of an instance id in the SWE-bench form ``owner__name-1234`` (SWE-bench,
    Multi-SWE-bench); an id of another form is a :class:`DataError` naming it."""
    owner, sep, rest = instance_id.partition("__")
    if not sep or "-" not in rest:
        raise DataError(f"instance id {instance_id!r} is not owner__name-NUMBER")
    return f"{owner}/{rest.rsplit('-', 1)[0]}"


def submission_verdict(per_model: Sequence[str]) -> str:
    """Contaminated if any model's verdict is, clean if every model's is, else undecided."""
    if "contaminated" in per_model:
        return "contaminated"
    return "clean" if per_model and all(v == "clean" for v in per_model) else "undecided"


def _read_csv(path: Path, **kwargs: Any) -> pd.DataFrame:
    if not path.is_file():
        raise DataError(f"{path}: missing from the bundle (a bundle holds {', '.join(BUNDLE_FILES)})")
    return pd.read_csv(path, keep_default_na=False, **kwargs)


def read_instances(path: Path, facts: BuildFacts, snapshots: pd.DataFrame) -> pd.DataFrame:
    """instances.csv with the columns that follow from the rest of the bundle: repository (from
    the id), models and date (build.json), how it is scored, the snapshot source (snapshots.csv)."""
    inst = _read_csv(path, dtype=str)
    inst["resolved"] = inst["resolved"].astype(int)
    meta = pd.DataFrame(list(facts.submissions)).set_index("submission")
    inst["repo"] = inst["instance_id"].map(repo_of)
    inst["models"] = inst["submission"].map(meta["models"])
    inst["date"] = inst["submission"].map(meta["date"])
    inst["scored_as"] = [BAND if s in facts.bands else PUBLISHED for s in inst["submission"]]
    source = snapshots.drop_duplicates("repo").set_index("repo")["source"]
    inst["snapshot_source"] = inst["repo"].map(source).fillna("git")
    return inst[list(INSTANCE_COLUMNS)]


def read_bundle(folder: str | Path) -> Bundle:
    """The bundle in ``folder`` (nothing else is read)."""
    folder = Path(folder)
    if not (folder / "build.json").is_file():
        raise DataError(f"{folder / 'build.json'}: missing from the bundle (a bundle holds "
                        f"{', '.join(BUNDLE_FILES)})")
    facts = BuildFacts.read(folder / "build.json")
    snapshots = _read_csv(folder / "snapshots.csv", dtype=str)
    recall = folder / RECALL_FILE
    return Bundle(instances=read_instances(folder / "instances.csv", facts, snapshots),
                  flags=_read_csv(folder / "flags.csv", dtype={"contaminated": str}),
                  cutoffs=_read_csv(folder / "cutoffs.csv", dtype=str),
                  unscored=_read_csv(folder / "unscored.csv"),
                  snapshots=snapshots, facts=facts,
                  recall=_read_csv(recall, dtype=str) if recall.is_file() else None)


def write_bundle(bundle: Bundle, out: Path, texts: Mapping[str, str] | None = None) -> list[Path]:
    """The bundle's data files into ``out``; ``texts``: ``{CHANGELOG.md: ..., LICENSE-DATA.md:
    ...}`` written only where the folder has none (they are kept by hand)."""
    out.mkdir(parents=True, exist_ok=True)
    frames = {"instances.csv": bundle.instances[list(WRITTEN_COLUMNS)], "flags.csv": bundle.flags,
              "cutoffs.csv": bundle.cutoffs, "unscored.csv": bundle.unscored,
              "snapshots.csv": bundle.snapshots}
    if bundle.recall is not None:
        frames[RECALL_FILE] = bundle.recall
    paths = [write_csv(frame, out / name) for name, frame in frames.items()]
    paths.append(write_text_atomic(out / "build.json", bundle.facts.to_json()))
    for name, text in (texts or {}).items():
        if not (out / name).exists():
            paths.append(write_text_atomic(out / name, text))
    return paths


def copy_bundle(folder: Path, out: Path) -> None:
    """The bundle's files of ``folder`` copied into ``out`` (a rebuild elsewhere)."""
    if folder.resolve() == out.resolve():
        return
    out.mkdir(parents=True, exist_ok=True)
    for name in BUNDLE_FILES:
        if (folder / name).exists():
            shutil.copyfile(folder / name, out / name)
