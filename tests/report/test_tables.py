"""CSV (full precision, empty for undefined), Markdown, and the one-row-per-submission summary."""

from __future__ import annotations

import math

import pandas as pd

from benchchecker_plugin.report import display_drops, to_markdown, wide_summary, write_csv
from benchchecker_plugin.scoring import LEADERBOARD_COLUMNS, rate_table


def _table():
    return rate_table({"s1": {"a", "b"}, "s2": set()}, ["a", "b", "c"],
                      {"a": True, "b": False, "c": None},
                      {"a": "<15 min fix", "b": "<15 min fix", "c": ">4 hours"}, n_boot=20,
                      min_clean=0, min_resolved_clean=0)


def test_csv_roundtrip_and_empty_drop(tmp_path):
    table = _table()
    path = write_csv(table, tmp_path / "x.csv")
    header = path.read_text().splitlines()[0]
    assert header == ",".join(LEADERBOARD_COLUMNS)
    back = pd.read_csv(path, keep_default_na=True)
    pd.testing.assert_series_equal(back["original_rate"], table["original_rate"])
    s2_all = path.read_text().splitlines()[1 + 3]  # s2, tier all
    assert s2_all.startswith("s2,,,all,3,") and s2_all.endswith(",,,,,,,no drop: nothing resolved (original rate 0)")  # drops empty
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
    assert md.count("too few (clean n=4, resolved n=4)") == 4   # drop cell and note, 2 rows
    wide = wide_summary(table)
    assert wide.loc[0, "drop"] == "too few (clean n=4, resolved n=4)"
    assert wide.loc[0, "<15 min fix: drop"] == "too few (clean n=4, resolved n=4)"
    assert wide.loc[0, "clean"] == 1.0 and wide.loc[0, "clean CI low"] < 1.0  # rate and interval kept
    back = pd.read_csv(write_csv(table, tmp_path / "x.csv"))
    assert back["relative_drop"].isna().all()
    assert back["note"].tolist() == ["too few (clean n=4, resolved n=4)"] * 2
    # display leaves the numbers of rows with enough clean instances alone
    enough = rate_table({"s1": {"i0"}}, ["i0", "i1"], {"i0": False, "i1": False}, n_boot=0,
                        min_clean=2, min_resolved_clean=0)
    pd.testing.assert_frame_equal(display_drops(enough), enough)


def test_rate_columns_display_as_percents() -> None:
    """Issue 13, item 13: the leaderboard page's long table showed fractions beside the summary's
    percents; every rate, interval and drop column is now a percent."""
    import pandas as pd

    from benchchecker_plugin.report._tables import pct, rate_formats

    frame = pd.DataFrame({"submission": ["s"], "n_clean": [3], "original_rate": [0.25],
                          "clean_ci_low": [0.014], "relative_drop": ["too few (n=3)"],
                          "original_rate_500": [float("nan")]})
    formats = rate_formats(frame)
    assert sorted(formats) == ["clean_ci_low", "original_rate", "original_rate_500",
                               "relative_drop"]
    assert [pct(v) for v in (0.25, 0.014, "too few (n=3)", float("nan"))] == [
        "25.0%", "1.4%", "too few (n=3)", ""]


def test_drop_text_never_prints_a_zero_width_interval() -> None:
    from benchchecker_plugin.report import drop_text

    nan = float("nan")
    assert drop_text({"relative_drop": 0.1234, "drop_ci_low": -0.04, "drop_ci_high": 0.281,
                      "note": None}) == "12.3% [-4.0%, 28.1%]"
    assert drop_text({"relative_drop": 0.0, "drop_ci_low": nan, "drop_ci_high": nan,
                      "note": "no drop interval: every resample gives 0.000 (the outcomes cannot "
                              "vary, e.g. every clean instance resolved)"}) == (
        "0.0% (every resample gives 0.000 (the outcomes cannot vary, e.g. every clean instance "
        "resolved))")
    assert drop_text({"relative_drop": nan, "drop_ci_low": nan, "drop_ci_high": nan,
                      "note": "too few (clean n=4, resolved n=2)"}) == "too few (clean n=4, resolved n=2)"


def test_plots_say_so_instead_of_an_empty_frame() -> None:
    """Issue 29: every tier 'too few' drew empty plot frames; the page now says so in words."""
    from benchchecker_plugin.report import drop_by_tier_svg, drop_over_time_svg
    from benchchecker_plugin.scoring import pooled_summary

    table = _few_table()
    summary = pooled_summary({"s1": {"i0"}}, [f"i{k}" for k in range(10)],
                             {"i0": False}, None, groups={"g": ["s1"]}, n_boot=0)
    assert drop_by_tier_svg(summary, "g") is None
    assert drop_over_time_svg(table, summary) is None


def test_time_plot_has_a_real_time_axis_and_marks_clipped_outliers() -> None:
    from benchchecker_plugin.report import drop_over_time_svg

    nan = float("nan")
    table = pd.DataFrame({"submission": ["a", "b", "c"], "tier": "all",
                          "date": ["2023-10-10", "2024-06-01", "2025-07-20"],
                          "relative_drop": [0.2, -4.3, 0.1], "drop_ci_low": [0.0, nan, -0.1],
                          "drop_ci_high": [0.4, nan, 0.3]})
    svg = drop_over_time_svg(table)
    assert svg is not None and "clipped" in svg
    # a date axis (matplotlib's date formatter) rather than one category per month
    assert "2024-01" in svg and "2025-01" in svg
