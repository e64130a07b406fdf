"""A republication end to end on small boards: the bundle it writes rebuilds byte for byte from
the bundle alone, rows per instance and scored submission, bands and the not scored with their
reasons; several boards pooled over their shared instances, each board and the pool with its MDE;
the rules on the inputs, each refused in one line naming the input."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from benchchecker_plugin.errors import DataError, InputError
from benchchecker_plugin.republish import (
    BUNDLE_FILES,
    PAGE_FILES,
    BoardSource,
    RepublishConfig,
    read_bundle,
    rebuild,
    republish,
)
from tests.helpers.boards import write_board, write_flags_for, write_models

IDS = [f"own__alpha-{k}" for k in range(1, 31)] + [f"own__beta-{k}" for k in range(1, 31)]
SUBS = {"20240110_a": 0.5, "20240620_b": 0.6, "20250105_c": 0.7, "20240301_d": 0.4, "20240302_e": 0.3}
MODELS = {"20240110_a": "m1", "20240620_b": "m2", "20250105_c": "m1;m2", "20240301_d": "secret"}
FAST = {"resamples": 60, "mde_sims": 8, "mde_resamples": 40, "min_clean": 5, "min_resolved_clean": 2}


@pytest.fixture
def board(tmp_path: Path) -> RepublishConfig:
    folder, instances = write_board(tmp_path, IDS, SUBS)
    model_map, cutoffs = write_models(tmp_path, MODELS, {"m1": "2023-06", "m2": "2024-01"})
    flags = write_flags_for(tmp_path / "flags.jsonl", IDS, ["m1", "m2"])
    return RepublishConfig(boards=(BoardSource("verified", folder, instances=instances),),
                           model_map=model_map, cutoffs=cutoffs, flags=flags, **FAST)


def _same_files(a: Path, b: Path) -> None:
    for name in BUNDLE_FILES + PAGE_FILES:
        if (a / name).exists():
            assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_the_bundle_rebuilds_byte_for_byte_from_itself_alone(board: RepublishConfig, tmp_path: Path) -> None:
    out = tmp_path / "bundle"
    bundle = republish(board, out)
    assert {p.name for p in out.iterdir()} >= set(PAGE_FILES) | (set(BUNDLE_FILES) - {"own_fix_recall.csv"})
    copy = tmp_path / "copy"   # only the bundle's files: nothing else is read
    copy.mkdir()
    for name in BUNDLE_FILES:
        if (out / name).exists():
            (copy / name).write_bytes((out / name).read_bytes())
    rebuild(copy, tmp_path / "again")
    _same_files(out, tmp_path / "again")
    assert read_bundle(out).facts == bundle.facts


def test_rows_bands_and_the_not_scored(board: RepublishConfig, tmp_path: Path) -> None:
    bundle = republish(board, tmp_path / "out")
    inst = bundle.instances
    scored = {"20240110_a", "20240620_b", "20250105_c"}
    assert set(bundle.published["submission"]) == scored
    assert len(bundle.published) == 3 * len(IDS)        # every instance of the board, per submission
    assert set(bundle.banded["submission"]) == {"20240301_d"}   # no published cutoff: a band
    band = bundle.facts.bands["20240301_d"]
    assert (band["start"], band["end"]) == ("2023-06-30", "2024-01-31")   # the computed dates inside
    assert bundle.facts.band_floor == "2023-06-19"    # the latest pull-request creation date
    assert dict(zip(bundle.unscored["submission"], bundle.unscored["reason"])) == {
        "20240302_e": "not in the model map"}
    two = inst[inst["submission"] == "20250105_c"].set_index("instance_id")["verdict"]
    one = {m: inst[inst["submission"] == s].set_index("instance_id")["verdict"]
           for s, m in (("20240110_a", "m1"), ("20240620_b", "m2"))}
    for iid in IDS:   # several models: contaminated if any is, clean only if both are
        pair = {one["m1"][iid], one["m2"][iid]}
        want = "contaminated" if "contaminated" in pair else "clean" if pair == {"clean"} else "undecided"
        assert two[iid] == want
    clean = inst[(inst["verdict"] == "clean") & (inst["scored_as"] == "published cutoff")]
    assert clean["clean_kind"].isin({"rewritten-since", "never-found", "not-merged"}).all()
    page = (tmp_path / "out" / "README.md").read_text()
    assert page.startswith("# SWE-bench Verified, republished with BenchChecker Stage II flags")
    assert "## Paper vs ours" in page and "clean = never-found only" in page


def test_several_boards_pool_over_shared_instances(tmp_path: Path) -> None:
    """Board A holds alpha and beta 1-10, board B beta 1-30: the ten shared instances are one
    cluster each; a submission is rated over its own board only; each board and the pool have a
    summary row with its MDE and the page has their table."""
    a_ids = IDS[:30] + IDS[30:40]
    b_ids = IDS[30:]
    a_folder, a_inst = write_board(tmp_path / "a", a_ids, {"20240110_a": 0.5, "20240620_b": 0.6})
    b_folder, b_inst = write_board(tmp_path / "b", b_ids, {"20240201_x": 0.5, "20240701_y": 0.5},
                                   seed=1, layout="evaluation", split="lite")
    model_map, cutoffs = write_models(tmp_path, {"20240110_a": "m1", "20240620_b": "m2",
                                                 "20240201_x": "m1", "20240701_y": "m2"},
                                      {"m1": "2023-06", "m2": "2024-01"})
    flags = write_flags_for(tmp_path / "flags.jsonl", IDS, ["m1", "m2"])
    config = RepublishConfig(boards=(BoardSource("verified", a_folder, instances=a_inst),
                                     BoardSource("lite", b_folder, instances=b_inst)),
                             model_map=model_map, cutoffs=cutoffs, flags=flags, **FAST)
    out = tmp_path / "out"
    bundle = republish(config, out)
    rows = bundle.instances.groupby("submission")["instance_id"].apply(set)
    assert rows["20240110_a"] == set(a_ids) and rows["20240701_y"] == set(b_ids)
    summary = pd.read_csv(out / "summary.csv")
    pool = summary[(summary["group"] == "all boards (pooled)") & (summary["tier"] == "all")].iloc[0]
    assert pool["n_instances"] == len(set(a_ids) | set(b_ids)) == 60
    assert pool["n_submissions"] == 4
    for name, ids in (("verified", a_ids), ("lite", b_ids)):
        row = summary[(summary["group"] == f"board {name}") & (summary["tier"] == "all")].iloc[0]
        assert row["n_instances"] == len(ids)
    assert "mde" in summary.columns
    assert bundle.facts.size_label == "all"      # the boards differ in size (40, 30)
    page = (out / "README.md").read_text()
    assert "## Boards: each and their pool" in page and "## Paper vs ours" not in page
    rebuild(out, tmp_path / "again")
    _same_files(out, tmp_path / "again")


def test_the_inputs_are_refused_in_one_line_naming_them(board: RepublishConfig, tmp_path: Path) -> None:
    import dataclasses

    with pytest.raises(InputError, match="give exactly one source of verdicts"):
        dataclasses.replace(board, from_bundle=tmp_path)
    with pytest.raises(InputError, match="give exactly one source of verdicts"):
        dataclasses.replace(board, flags=None)
    with pytest.raises(InputError, match="boards named twice: verified"):
        dataclasses.replace(board, boards=board.boards * 2)
    with pytest.raises(InputError, match=r"--repos: own/gamma: not a repository of these instances "
                                         r"\(known: own/alpha, own/beta\)"):
        republish(dataclasses.replace(board, repos=("own/gamma",)), tmp_path / "x")
    other = write_flags_for(tmp_path / "other.jsonl", IDS, ["m1"])
    with pytest.raises(InputError, match=r"other.jsonl: no Stage II flags for model\(s\) m2"):
        republish(dataclasses.replace(board, flags=other), tmp_path / "x")
    with pytest.raises(DataError, match="missing from the bundle"):
        rebuild(tmp_path, tmp_path / "y")


def test_a_board_without_difficulty_labels_is_one_tier(tmp_path: Path) -> None:
    """SWE-bench Lite and full label no difficulty: every instance is in the one tier "all", and
    the tables have one row per submission and group (no tier rows, no repeated "all" row)."""
    import json

    folder, instances = write_board(tmp_path, IDS, {"20240110_a": 0.5, "20240620_b": 0.6})
    rows = [json.loads(line) for line in instances.read_text().splitlines()]
    instances.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "difficulty"}) + "\n"
                                 for r in rows))
    model_map, cutoffs = write_models(tmp_path, {"20240110_a": "m1", "20240620_b": "m2"},
                                      {"m1": "2023-06", "m2": "2024-01"})
    flags = write_flags_for(tmp_path / "flags.jsonl", IDS, ["m1", "m2"])
    config = RepublishConfig(boards=(BoardSource("lite", folder, instances=instances),), model_map=model_map,
                             cutoffs=cutoffs, flags=flags, **{**FAST, "mde_sims": 0})
    bundle = republish(config, tmp_path / "out")
    assert set(bundle.instances["tier"]) == {"all"} and bundle.facts.benchmark == "swe-bench"
    table = pd.read_csv(tmp_path / "out" / "leaderboard.csv")
    assert list(table["tier"]) == ["all", "all"] and list(table["submission"]) == ["20240110_a", "20240620_b"]
    assert bundle.facts.display_title == "lite"
