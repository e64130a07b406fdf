"""CSV (full precision, empty for undefined), Markdown, and the one-row-per-submission summary."""

from __future__ import annotations

import math

import pandas as pd

from benchchecker_plugin.report import to_markdown, wide_summary, write_csv
from benchchecker_plugin.scoring import LEADERBOARD_COLUMNS, rate_table


def _table():
    return rate_table({"s1": {"a", "b"}, "s2": set()}, ["a", "b", "c"],
                      {"a": True, "b": False, "c": None},
                      {"a": "<15 min fix", "b": "<15 min fix", "c": ">4 hours"}, n_boot=20)


def test_csv_roundtrip_and_empty_drop(tmp_path):
    table = _table()
    path = write_csv(table, tmp_path / "x.csv")
    header = path.read_text().splitlines()[0]
    assert header == ",".join(LEADERBOARD_COLUMNS)
    back = pd.read_csv(path, keep_default_na=True)
    pd.testing.assert_series_equal(back["original_rate"], table["original_rate"])
    s2_all = path.read_text().splitlines()[1 + 3]  # s2, tier all
    assert s2_all.startswith("s2,,,all,3,") and s2_all.endswith(",,,")  # drop and CI empty
    assert math.isnan(back.loc[3, "relative_drop"])


def test_markdown_and_wide():
    table = _table()
    md = to_markdown(table).splitlines()
    assert md[0].startswith("| submission | model | date | tier |")
    assert len(md) == 2 + len(table)
    assert "| 0.6667 |" in md[2]  # s1 original 2/3
    wide = wide_summary(table)
    assert wide["submission"].tolist() == ["s1", "s2"]
    assert wide.loc[0, "<15 min fix: original"] == 1.0
    assert wide.loc[0, "n undecided"] == 1
