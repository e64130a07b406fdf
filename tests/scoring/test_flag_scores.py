"""``score_flags``: flags grouped by (benchmark, model, method) and joined with labels."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchchecker_plugin.errors import DataError
from benchchecker_plugin.flags import ContaminationFlag
from benchchecker_plugin.scoring import read_labels, score_flags


def _flag(iid: str, model: str, verdict: bool | None, score: float, method: str = "m") -> ContaminationFlag:
    return ContaminationFlag("b", iid, model, method, verdict, score)


def test_groups_join_model_labels_then_star_labels() -> None:
    flags = [_flag("i1", "A", True, 0.9), _flag("i2", "A", False, 0.1), _flag("i3", "A", None, 0.5),
             _flag("i1", "B", True, 0.8), _flag("i9", "B", True, 0.7)]
    labels = {("i1", "*"): True, ("i2", "*"): False, ("i3", "A"): True, ("i3", "*"): False}
    rows = score_flags(flags, labels, n_boot=50)
    assert [(r["model"], r["n"], r["n_unlabeled"], r["n_undecided"]) for r in rows] == [
        ("A", 3, 0, 1), ("B", 1, 1, 0)]
    a = rows[0]
    assert (a["n_positive"], a["n_negative"]) == (2, 1)   # i3's own label (A) wins over the '*' one
    assert a["tpr"] == 0.5 and a["fpr"] == 0.0             # the undecided i3 counts as not flagged


def test_read_labels_refuses_a_duplicate(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_text("instance_id,label\ni1,1\ni1,0\n")
    with pytest.raises(DataError, match=r"labels.csv: duplicate label for instance i1 \(model \*\)"):
        read_labels(path)
