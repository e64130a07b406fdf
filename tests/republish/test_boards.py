"""A board's inputs: the experiments repository's evaluation/<split> or a flat folder, the
instance list from index.json (Multi-SWE-bench's experiments) or the instances file, one tier
without difficulty labels, and boards pooled over their shared instances."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchchecker_plugin.errors import DataError, InputError
from benchchecker_plugin.republish import BoardSource
from benchchecker_plugin.republish._boards import pooled, read_board, submissions_folder
from tests.helpers.boards import write_board

IDS = [f"own__alpha-{k}" for k in range(1, 7)]


def test_the_split_named_like_the_board_or_the_only_one(tmp_path: Path) -> None:
    folder, _ = write_board(tmp_path, IDS, {"20240101_a": 0.5}, layout="evaluation", split="lite")
    assert submissions_folder(folder, "lite") == folder / "evaluation" / "lite"
    assert submissions_folder(folder, "anything") == folder / "evaluation" / "lite"   # its only split
    (folder / "evaluation" / "verified").mkdir()
    assert submissions_folder(folder, "Verified") == folder / "evaluation" / "verified"
    with pytest.raises(InputError, match="--board test=.*: evaluation/ holds the splits lite, verified"):
        submissions_folder(folder, "test")
    with pytest.raises(InputError, match="--board x=.*nowhere: no such folder"):
        submissions_folder(tmp_path / "nowhere", "x")


def test_an_index_json_is_the_instance_list_and_gives_the_dates(tmp_path: Path) -> None:
    folder, instances = write_board(tmp_path, IDS, {"20240101_a": 0.5})
    listed = {i: {"repository": "own/alpha", "time": f"2022-0{k + 1}-01"} for k, i in enumerate(IDS[:4])}
    (folder / "index.json").write_text(json.dumps(listed))
    board = read_board(BoardSource("java", folder, instances=instances))
    assert board.ids == tuple(sorted(IDS[:4])) and set(board.records) == set(IDS[:4])
    assert board.dates[IDS[3]] == "2022-04-01" and board.benchmark == "swe-bench"
    assert set(board.tiers.values()) <= {"<15 min fix", "15 min - 1 hour", "1-4 hours"}
    bare = read_board(BoardSource("java", folder))   # no instances file: one tier, no records
    assert set(bare.tiers.values()) == {"all"} and not bare.records
    (folder / "index.json").unlink()
    with pytest.raises(InputError, match=r"board java: give its instances \(--instances java=FILE\)"):
        read_board(BoardSource("java", folder))


def test_boards_pool_their_instances_and_must_agree_on_tiers(tmp_path: Path) -> None:
    a = read_board(BoardSource("verified", *write_board(tmp_path / "a", IDS[:4], {"20240101_a": 0.5})[:1],
                               instances=write_board(tmp_path / "a2", IDS[:4], {"20240101_z": 0.5})[1]))
    b = read_board(BoardSource("lite", *write_board(tmp_path / "b", IDS[2:], {"20240101_b": 0.5})[:1],
                               instances=write_board(tmp_path / "b2", IDS[2:], {"20240101_y": 0.5})[1]))
    ids, tiers, records = pooled([a, b])
    assert ids == IDS and set(records) == set(IDS)
    b.tiers[IDS[2]] = "something else"
    with pytest.raises(DataError, match=f"instance {IDS[2]}: tier .* on one board, 'something else' on "
                                        "board lite: give the boards one tiers file"):
        pooled([a, b])
