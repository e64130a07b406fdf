"""The self-contained HTML page: escaping, no external resources, and in headless Chromium:
it renders, has one row per submission, and sorting by a column works."""

from __future__ import annotations

import re
import shutil

import numpy as np
import pandas as pd
import pytest

from benchchecker_plugin.report import HtmlPage, write_leaderboard_report
from benchchecker_plugin.scoring import pooled_summary, rate_table

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _inputs(n_sub=7, seed=0):
    rng = np.random.default_rng(seed)
    ids = [f"i{k}" for k in range(60)]
    tiers = {i: ["<15 min fix", "15 min - 1 hour", "1-4 hours"][k % 3] for k, i in enumerate(ids)}
    resolved = {f"sub-{s}": {i for i in ids if rng.random() < 0.1 * (s + 1)} for s in range(n_sub)}
    verdicts = {i: bool(k % 2) for k, i in enumerate(ids)}
    dates = {s: f"2024-{k % 12 + 1:02d}-01" for k, s in enumerate(resolved)}
    return ids, tiers, resolved, verdicts, dates


def _table(n_sub=7, seed=0):
    ids, tiers, resolved, verdicts, dates = _inputs(n_sub, seed)
    return rate_table(resolved, ids, verdicts, tiers, dates=dates, n_boot=50)


def _summary(n_sub=7, seed=0):
    ids, tiers, resolved, verdicts, _ = _inputs(n_sub, seed)
    return pooled_summary(resolved, ids, verdicts, tiers, groups={"all submissions": list(resolved),
                                                                  "2024": list(resolved)},
                          n_boot=50, min_clean=5, min_resolved_clean=2)


def test_page_escapes_and_is_self_contained(tmp_path):
    page = HtmlPage("A <b> title")
    page.paragraph("x < y & z").table(pd.DataFrame({"name": ["<script>"], "v": [0.5]}))
    text = page.render()
    assert "A &lt;b&gt; title" in text and "x &lt; y &amp; z" in text and "&lt;script&gt;" in text
    paths = write_leaderboard_report(_table(), tmp_path, summary=_summary())
    html = paths["html"].read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert html.count("<svg") == 2
    assert paths["csv"].stat().st_mode & 0o044  # published files are readable by others


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Chromium not installed (apt-get install -y chromium)")
def test_page_in_headless_chromium(tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="playwright (pip) drives the system Chromium")
    table = _table(n_sub=7)
    paths = write_leaderboard_report(table, tmp_path, summary=_summary())
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--no-first-run"])
        try:
            page = browser.new_page()
            requests: list[str] = []
            page.on("request", lambda r: requests.append(r.url))
            page.goto(paths["html"].as_uri())
            assert page.title() == "Leaderboard re-scored without contaminated instances"
            rows = page.locator("#submissions tbody tr")
            assert rows.count() == 7
            assert page.locator("svg").count() == 2
            headers = page.locator("#submissions thead th").all_inner_texts()
            col = headers.index("original")

            def column():
                return [float(t.rstrip("%")) for t in
                        page.locator(f"#submissions tbody tr td:nth-child({col + 1})").all_inner_texts()]

            page.locator("#submissions thead th").nth(col).click()
            asc = column()
            assert asc == sorted(asc) and len(set(asc)) > 1
            page.locator("#submissions thead th").nth(col).click()
            desc = column()
            assert desc == sorted(desc, reverse=True)
            page.locator("#submissions thead th").nth(0).click()
            names = page.locator("#submissions tbody tr td:nth-child(1)").all_inner_texts()
            assert names == sorted(names)
            assert all(u.startswith("file:") for u in requests)
            page.screenshot(path=str(tmp_path / "page.png"), full_page=True)
        finally:
            browser.close()


def test_report_names_its_flags_and_explains_the_csv(tmp_path):
    from benchchecker_plugin.flags import ContaminationFlag, merge_flags
    from benchchecker_plugin.report import describe_flags

    flags = [ContaminationFlag(benchmark="b", instance_id=f"i{k}", model=m,
                               method="benchchecker.patch_date", contaminated=True, score=1.0)
             for k in range(3) for m in ("m1", "m2")]
    flags += [ContaminationFlag(benchmark="b", instance_id="i0", model="*",
                                method="benchchecker.stage2", contaminated=None, score=0.0)]
    line = describe_flags(flags)
    assert line == ("Flags: benchchecker.patch_date (6 records, 2 models), benchchecker.stage2 "
                    "(1 records, any model); combined per instance and model with policy any")
    merged = merge_flags(flags, "all")
    assert describe_flags(merged) == (
        f"Flags: merged ({len(merged)} records, 2 models; policy all of "
        "benchchecker.patch_date, benchchecker.stage2)")
    paths = write_leaderboard_report(_table(), tmp_path, flags_line=line)
    assert set(paths) == {"csv", "md", "html", "readme"}
    paths = write_leaderboard_report(_table(), tmp_path, flags_line=line, summary=_summary())
    assert set(paths) == {"csv", "summary", "md", "html", "readme"}
    for kind in ("md", "html", "readme"):
        assert line in paths[kind].read_text(), kind
    readme = paths["readme"].read_text()
    assert "`note`" in readme and "Wilson" in readme and "leaderboard.csv" in readme
    assert "Wilson score interval" in paths["html"].read_text()


def _launch(sync_api):
    p = sync_api.sync_playwright().start()
    browser = p.chromium.launch(executable_path=CHROMIUM, args=[
        "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"])
    return p, browser


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Chromium not installed (apt-get install -y chromium)")
@pytest.mark.parametrize("width", [1400, 390])
def test_main_table_reads_at_desktop_and_phone_widths(tmp_path, width):
    """Issue 25: at 1400 px every column of the main table is visible (no scrollbar); at 390 px
    the page itself does not scroll sideways (the table scrolls in its box, first column kept)
    and the long table is folded. Screenshots are kept in the test's folder."""
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="playwright (pip) drives the system Chromium")
    table = _table(n_sub=7)
    cutoffs = {s: "2023-10" for s in table["submission"]}
    paths = write_leaderboard_report(table, tmp_path, summary=_summary(), cutoffs=cutoffs)
    p, browser = _launch(sync_api)
    try:
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.goto(paths["html"].as_uri())
        headers = page.locator("#submissions thead th").all_inner_texts()
        assert headers == ["submission", "model", "cutoff", "original", "clean",
                           "clean (tier-std.)", "drop [95% CI]", "clean n", "undecided rate"]
        box = page.evaluate("(() => { const t = document.querySelector('#submissions');"
                            " return [t.scrollWidth, t.parentElement.clientWidth,"
                            " document.documentElement.scrollWidth]; })()")
        assert box[2] <= width                 # the page never scrolls sideways
        if width >= 1400:
            assert box[0] <= box[1]            # every column visible
        assert not page.locator("#long").is_visible()     # the long table is folded
        assert page.locator("h2").first.inner_text() == "Submissions"
        page.screenshot(path=str(tmp_path / f"page-{width}.png"), full_page=True)
    finally:
        browser.close()
        p.stop()


def test_leaderboard_markdown_carries_no_markup_of_names(tmp_path):
    """Names in the notes and the flags line (a submission folder, a flags file's methods) are
    escaped in leaderboard.md and README.md: rendered, no element but the template's appears, and
    the HTML page shows the names as they are (escaped once, not twice)."""
    from tests.helpers.markdown import render

    evil = "20240101_<img src=x onerror=alert(1)> [x](javascript:alert(1))"
    paths = write_leaderboard_report(_table(), tmp_path, notes=[f"Not scored: {evil}: no results.",
                                                                "# 1. *not* a heading"],
                                     flags_line=f"Flags: `{evil}` (1 records, any model)")
    for kind in ("md", "readme"):
        out = render(paths[kind].read_text())
        assert {t for t, _ in out.tags} <= {"h1", "h2", "p", "ul", "li", "table", "thead", "tbody", "tr",
                                            "th", "td", "code"}, kind
        assert all(t in ("th", "td") and [a for a, _ in attrs] == ["style"] for t, attrs in out.tags
                   if attrs), kind   # the tables' own column alignment
        assert f"Not scored: {evil}: no results." in out.text and "# 1. *not* a heading" in out.text
    assert [t for t, _ in render(paths["md"].read_text()).tags].count("code") == 0
    html = paths["html"].read_text()
    assert "Not scored: 20240101_&lt;img src=x onerror=alert(1)&gt;" in html and "\\[" not in html
