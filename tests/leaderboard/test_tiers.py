"""Instance lists and tiers from jsonl / csv / parquet / json, and the Multi-SWE-bench scheme."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from benchchecker_plugin.errors import DataError
from benchchecker_plugin.leaderboard import load_instance_ids, load_tiers
from tests.helpers import SHARED_DATA, needs_shared_data

DATA = SHARED_DATA
COMPOSITE = DATA / "swebench_verified" / "swebench_verified_composite.jsonl"


@needs_shared_data("swebench_verified", "swebench_verified_composite.jsonl")
def test_real_verified_tiers_and_ids():
    tiers = load_tiers(COMPOSITE)
    ids = load_instance_ids(COMPOSITE)
    assert len(ids) == 500 and set(ids) == set(tiers)
    assert set(json.loads((DATA / "swebench_experiments" / "verified_instance_ids.json").read_text())) == set(ids)
    counts = pd.Series(list(tiers.values())).value_counts().to_dict()
    assert counts == {"15 min - 1 hour": 261, "<15 min fix": 194, "1-4 hours": 42, ">4 hours": 3}


@pytest.mark.parametrize("suffix", ["csv", "parquet", "jsonl"])
def test_file_types(tmp_path, suffix):
    frame = pd.DataFrame({"instance_id": ["a", "b", "c"],
                          "difficulty": ["<15 min fix", "1-4 hours", ">4 hours"]})
    path = tmp_path / f"t.{suffix}"
    {"csv": lambda: frame.to_csv(path, index=False), "parquet": lambda: frame.to_parquet(path),
     "jsonl": lambda: frame.to_json(path, orient="records", lines=True)}[suffix]()
    assert load_tiers(path) == dict(zip(frame.instance_id, frame.difficulty))
    assert load_tiers(path, scheme="multi-swe-bench") == {"a": "easy", "b": "hard", "c": "hard"}
    assert load_instance_ids(path) == ["a", "b", "c"]


def test_json_id_list_and_pinned_errors(tmp_path):
    (tmp_path / "ids.json").write_text('["a", "b"]')
    assert load_instance_ids(tmp_path / "ids.json") == ["a", "b"]
    (tmp_path / "dup.json").write_text('["a", "b", "a"]')
    with pytest.raises(DataError, match=r"dup\.json: duplicate instance ids: a"):
        load_instance_ids(tmp_path / "dup.json")
    pd.DataFrame({"instance_id": ["a"], "level": ["x"]}).to_csv(tmp_path / "t.csv", index=False)
    with pytest.raises(DataError, match=r"t\.csv: no 'difficulty' column \(has instance_id, level\)"):
        load_tiers(tmp_path / "t.csv")
    with pytest.raises(DataError, match=r"unknown Multi-SWE-bench difficulty labels: x"):
        load_tiers(tmp_path / "t.csv", field="level", scheme="multi-swe-bench")
    with pytest.raises(DataError, match=r"nope\.jsonl: no such file"):
        load_tiers(tmp_path / "nope.jsonl")
