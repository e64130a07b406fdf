"""CSV (full precision, empty for undefined), Markdown, and the one-row-per-submission summary."""

from __future__ import annotations

import math

import pandas as pd

from benchchecker_plugin.report import display_drops, to_markdown, wide_summary, write_csv
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


def _few_table():
    """s1 all tier: 4 clean instances (a-d), below min_clean=5; its '<15 min fix' tier too."""
    ids = [f"i{k}" for k in range(10)]
    verdicts = {i: False if k < 4 else None if k < 8 else True for k, i in enumerate(ids)}
    return rate_table({"s1": set(ids[:6])}, ids, verdicts, {i: "<15 min fix" for i in ids},
                      n_boot=20, min_clean=5)


def test_too_few_clean_shows_in_markdown_and_wide_not_in_csv(tmp_path):
    table = _few_table()
    assert table["n_clean"].tolist() == [4, 4]
    md = to_markdown(display_drops(table))
    assert md.count("too few (n=4)") == 2
    wide = wide_summary(table)
    assert wide.loc[0, "drop"] == "too few (n=4)"
    assert wide.loc[0, "<15 min fix: drop"] == "too few (n=4)"
    assert wide.loc[0, "clean"] == 1.0 and wide.loc[0, "clean CI low"] < 1.0  # rate and interval kept
    back = pd.read_csv(write_csv(table, tmp_path / "x.csv"))
    assert back["relative_drop"].isna().all()
    assert back["note"].tolist() == ["too few clean instances (n=4 < 5)"] * 2
    # display leaves the numbers of rows with enough clean instances alone
    enough = rate_table({"s1": {"i0"}}, ["i0", "i1"], {"i0": False, "i1": False}, n_boot=0,
                        min_clean=2)
    pd.testing.assert_frame_equal(display_drops(enough), enough)


def test_rate_columns_display_as_percents() -> None:
    """Issue 13, item 13: the leaderboard page's long table showed fractions beside the summary's
    percents; every rate, interval and drop column is now a percent."""
    import pandas as pd

    from benchchecker_plugin.report.tables import pct, rate_formats

    frame = pd.DataFrame({"submission": ["s"], "n_clean": [3], "original_rate": [0.25],
                          "clean_ci_low": [0.014], "relative_drop": ["too few (n=3)"],
                          "original_rate_500": [float("nan")]})
    formats = rate_formats(frame)
    assert sorted(formats) == ["clean_ci_low", "original_rate", "original_rate_500",
                               "relative_drop"]
    assert [pct(v) for v in (0.25, 0.014, "too few (n=3)", float("nan"))] == [
        "25.0%", "1.4%", "too few (n=3)", ""]


def test_timeline_plot_leaves_out_months_without_a_drop() -> None:
    """Issue 13, item 13: months whose mean drop is undefined were plotted as empty ticks."""
    import re

    import pandas as pd

    from benchchecker_plugin.report.plots import timeline_svg

    frame = pd.DataFrame({"month": ["2024-01", "2024-02", "2024-03"],
                          "mean_relative_drop": [0.1, float("nan"), 0.3]})
    svg = timeline_svg(frame)
    assert "2024-01" in svg and "2024-03" in svg and "2024-02" not in svg
    assert re.search(r"<svg", svg)
