"""The committed republication (``published/swebench-verified/``) against a plain pandas
recomputation from its own flags file and the submissions' resolved lists.

Guards against a published number that the committed flags do not give: every count and rate of
``leaderboard.csv`` (covered instances per tier), the Wilson intervals, the tier-stratified drops
and their 'too few' rule, every pooled figure of ``summary.csv`` (recomputed by Mantel-Haenszel
over submission x tier strata, with distinct-instance counts -- so no aggregate is a mean of
ratios), and the input rules (the untrusted submission not scored, claude-2's snapshot capped).
The page is checked in Chromium at 1400 and 390 px.
"""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from tests.helpers import SHARED_DATA

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT / "published" / "swebench-verified"
DATA = SHARED_DATA
INSTANCES = DATA / "swebench_verified" / "swebench_verified_composite.jsonl"
EXPERIMENTS = DATA / "swebench_experiments"
MIN_CLEAN, MIN_RESOLVED = 20, 10  # the script's defaults, stated in the published README
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
TIERS = ("<15 min fix", "15 min - 1 hour", "1-4 hours", ">4 hours")

pytestmark = [
    pytest.mark.skipif(not (PUBLISHED / "leaderboard.csv").is_file(),
                       reason="published/swebench-verified/ not generated"),
    pytest.mark.skipif(not (INSTANCES.is_file() and EXPERIMENTS.is_dir()),
                       reason="no shared data: set BENCHCHECKER_SHARED_DATA (swebench_verified/, "
                              "swebench_experiments/)"),
]


def _resolved(submission: str) -> set[str]:
    data = json.loads((EXPERIMENTS / submission / "results" / "results.json").read_text())
    return set(data["resolved"])


def _wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    if n == 0:
        return math.nan, math.nan
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def _close(got: float, want: float) -> bool:
    if isinstance(want, float) and math.isnan(want):
        return isinstance(got, float) and math.isnan(got)
    return got == pytest.approx(want, abs=1e-9)


def _mh(strata: list[tuple[int, int, int, int]]) -> float:
    """1 - MH ratio over (a, n1, b, n0) strata (group 1 against group 0)."""
    num = sum(a * n0 / (n1 + n0) for a, n1, b, n0 in strata if n1 and n0)
    den = sum(b * n1 / (n1 + n0) for a, n1, b, n0 in strata if n1 and n0)
    return 1 - num / den if den else math.nan


class Data:
    def __init__(self) -> None:
        self.table = pd.read_csv(PUBLISHED / "leaderboard.csv")
        self.summary = pd.read_csv(PUBLISHED / "summary.csv")
        flags = pd.read_csv(PUBLISHED / "flags.csv", dtype={"contaminated": str}, keep_default_na=False)
        inst = pd.read_json(INSTANCES, lines=True)[["instance_id", "difficulty"]]
        self.tiers = dict(zip(inst["instance_id"], inst["difficulty"]))
        self.covered = set(flags["instance_id"])
        self.flag = {(i, m): v for i, m, v in zip(flags["instance_id"], flags["model"],
                                                  flags["contaminated"])}
        subs = self.table.drop_duplicates("submission")[["submission", "model", "date"]]
        self.models = {s: str(m).split(";") for s, m in zip(subs["submission"], subs["model"])}
        self.dates = dict(zip(subs["submission"], subs["date"].astype(str)))
        self.res = {s: _resolved(s) for s in self.models}

    def verdict(self, sub: str, iid: str) -> str:
        vs = [self.flag.get((iid, m), "") for m in self.models[sub]]
        return "x" if "true" in vs else "c" if all(v == "false" for v in vs) else "u"

    def ids(self, tier: str) -> list[str]:
        return [i for i in self.tiers if i in self.covered and (tier == "all" or self.tiers[i] == tier)]

    def stratum(self, sub: str, tier: str) -> dict[str, int]:
        ids = self.ids(tier)
        res = self.res[sub]
        v = {i: self.verdict(sub, i) for i in ids}
        out = {"N": len(ids), "R": sum(i in res for i in ids)}
        for key in "cxu":
            members = [i for i in ids if v[i] == key]
            out[key.upper()] = len(members)
            out["R" + key.upper()] = sum(i in res for i in members)
        return out


@pytest.fixture(scope="module")
def data() -> Data:
    return Data()


def _drop_rule(row: dict, n_clean: int, n_res_clean: int, value: float) -> float:
    return value if n_clean >= MIN_CLEAN and n_res_clean >= MIN_RESOLVED else math.nan


def test_every_row_equals_the_recomputation(data: Data):
    tiers = [t for t in TIERS if data.ids(t)]
    checked = 0
    for row in data.table.itertuples(index=False):
        sub, tier = row.submission, row.tier
        s = data.stratum(sub, tier)
        want = {"n_instances": s["N"], "n_clean": s["C"], "n_resolved_clean": s["RC"],
                "n_contaminated": s["X"], "n_undecided": s["U"], "original_rate": s["R"] / s["N"],
                "clean_rate": s["RC"] / s["C"] if s["C"] else math.nan,
                "contaminated_rate": s["RX"] / s["X"] if s["X"] else math.nan,
                "undecided_rate": s["RU"] / s["U"] if s["U"] else math.nan}
        for name, k, n in (("original", s["R"], s["N"]), ("clean", s["RC"], s["C"]),
                           ("contaminated", s["RX"], s["X"]), ("undecided", s["RU"], s["U"])):
            want[f"{name}_ci_low"], want[f"{name}_ci_high"] = _wilson(k, n)
        strata = [data.stratum(sub, t) for t in (tiers if tier == "all" else [tier])]
        drop = _mh([(t["RC"], t["C"], t["R"], t["N"]) for t in strata])
        cvc = _mh([(t["RC"], t["C"], t["RX"], t["X"]) for t in strata])
        want["relative_drop"] = _drop_rule({}, s["C"], s["RC"], drop) if s["R"] else math.nan
        want["clean_vs_contaminated"] = _drop_rule({}, s["C"], s["RC"], cvc)
        per_tier = [(t["N"], t["RC"] / t["C"]) for t in strata if t["C"]]
        want["clean_rate_std"] = (sum(n * r for n, r in per_tier) / sum(n for n, _ in per_tier)
                                  if per_tier else math.nan)
        for col, value in want.items():
            assert _close(float(getattr(row, col)), float(value)), (sub, tier, col)
        checked += 1
    assert checked == len(data.table) > 0


def test_every_pooled_figure_equals_the_recomputation(data: Data):
    """summary.csv pools counts within tiers over each group's submissions (MH), counts distinct
    instances, and applies the minimum to them: no figure is a mean of per-submission ratios."""
    tiers = [t for t in TIERS if data.ids(t)]
    subs = list(data.models)
    groups = {"all submissions": subs}
    for year in sorted({d[:4] for d in data.dates.values()}):
        groups[year] = [s for s in subs if data.dates[s][:4] == year]
    ranked = sorted(subs, key=lambda s: -len(data.res[s]))   # stable: ties keep the table's order
    groups[f"top 10 of the {len(subs)} scored submissions (by resolved of 500)"] = ranked[:10]
    # explicit families (issue 34): Claude 4 is Sonnet 4 and Opus 4, Claude 4.5 its own group
    fam = {"Claude 4 (Sonnet 4, Opus 4)": {"claude-4-sonnet-20250514", "claude-4-opus-20250514"},
           "Claude 4.5 (Sonnet 4.5, Opus 4.5)": {"claude-sonnet-4-5-20250929",
                                                 "claude-opus-4-5-20251101"}}
    for label, models in fam.items():
        groups[label] = [s for s in subs if set(data.models[s]) & models]
    assert set(data.summary["group"]) == set(groups)
    for group, members in groups.items():
        for tier in ["all", *tiers]:
            strata = [data.stratum(s, t) for s in members for t in (tiers if tier == "all" else [tier])]
            ids = data.ids(tier)
            clean_ids = {i for s in members for i in ids if data.verdict(s, i) == "c"}
            res_clean = {i for s in members for i in ids if data.verdict(s, i) == "c" and i in data.res[s]}
            row = data.summary[(data.summary["group"] == group) & (data.summary["tier"] == tier)]
            assert len(row) == 1, (group, tier)
            row = row.iloc[0]
            assert row["n_submissions"] == len(members)
            assert (row["n_instances"], row["n_clean"], row["n_resolved_clean"]) == (
                len(ids), len(clean_ids), len(res_clean)), (group, tier)
            tot = {k: sum(t[k] for t in strata) for k in ("N", "R", "C", "RC", "X", "RX", "U", "RU")}
            assert _close(row["original_rate"], tot["R"] / tot["N"])
            assert _close(row["clean_rate"], tot["RC"] / tot["C"] if tot["C"] else math.nan)
            drop = _mh([(t["RC"], t["C"], t["R"], t["N"]) for t in strata])
            ok = len(clean_ids) >= MIN_CLEAN and len(res_clean) >= MIN_RESOLVED
            assert _close(row["relative_drop"], drop if ok else math.nan), (group, tier)
            if not ok:
                assert str(row["note"]).startswith(
                    "no clean instance" if not clean_ids else
                    f"too few (clean n={len(clean_ids)}, resolved n={len(res_clean)})")


def test_no_zero_width_interval_and_each_interval_holds_its_estimate(data: Data):
    for frame in (data.table, data.summary):
        for est, lo, hi in (("relative_drop", "drop_ci_low", "drop_ci_high"),
                            ("clean_vs_contaminated", "cvc_ci_low", "cvc_ci_high")):
            shown = frame.dropna(subset=[lo, hi])
            assert (shown[hi] - shown[lo] > 1e-9).all()
            assert (shown[lo] <= shown[est] + 1e-12).all() and (shown[est] <= shown[hi] + 1e-12).all()
            no_ci = frame[frame[est].notna() & frame[lo].isna()]
            assert no_ci["note"].notna().all()   # a drop without an interval says why


def test_inputs_screened_as_stated(data: Data):
    unscored = pd.read_csv(PUBLISHED / "unscored.csv", keep_default_na=False)
    assert not set(unscored["submission"]) & set(data.table["submission"])
    assert (unscored["reason"].str.len() > 0).all()
    broken = "20250720_mini-v0.0.0-claude-3-7-sonnet-20250219"
    assert broken in set(unscored["submission"]) and broken not in data.models
    assert "official leaderboard" in unscored.set_index("submission").loc[broken, "reason"]
    for sub, rate in zip(unscored["submission"], unscored["original_rate_500"]):
        assert rate == pytest.approx(len(_resolved(sub)) / 500, abs=1e-12)
    cutoffs = pd.read_csv(PUBLISHED / "cutoffs.csv", keep_default_na=False).set_index("model")
    # claude-2's source says "Early 2023": an interval inside 2023, not the year (issue 34)
    assert cutoffs.loc["claude-2", "snapshot at"] == "2023-04-30"
    assert cutoffs.loc["claude-2", "interval read"] == "2023-01-01..2023-04-30"
    assert "2023-01..2023-04 (quote column)" in cutoffs.loc["claude-2", "note"]
    assert cutoffs.loc["SWE-Llama-7b", "kind"] == "derived: a lower bound"
    readme = (PUBLISHED / "README.md").read_text()
    assert "20241028_agentless-1.5_gpt4o: partial resolved list" in (PUBLISHED / "leaderboard.md").read_text()
    # the year table names how many submissions and distinct instances each figure rests on
    year_table = readme.split("### By submission year (pooled within tiers)")[1].split("###")[0]
    assert "| year | submissions | clean n | resolved clean n |" in year_table
    assert "mean" not in year_table.lower()


def test_flags_file_is_compact_and_published_folder_small():
    flags = pd.read_csv(PUBLISHED / "flags.csv", dtype=str, keep_default_na=False)
    assert list(flags.columns) == ["instance_id", "model", "contaminated", "score", "category"]
    assert set(flags["contaminated"]) <= {"true", "false", ""}
    assert not flags.duplicated(["instance_id", "model"]).any()
    # instances.csv (one row per instance and submission, ~3 MB) is most of it
    assert sum(p.stat().st_size for p in PUBLISHED.iterdir()) < 8 * 2**20


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Chromium not installed (apt-get install -y chromium)")
@pytest.mark.parametrize("width", [1400, 390])
def test_published_page_in_chromium(tmp_path: Path, width: int):
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="playwright (pip) drives the system Chromium")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--no-first-run"])
        try:
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.goto((PUBLISHED / "index.html").as_uri())
            # the headline paragraph comes first, on the first screen, with the power figure
            lead = page.locator("p.lead")
            assert page.evaluate("document.querySelector('h1').nextElementSibling.className") == "lead"
            assert lead.bounding_box()["y"] < 400
            assert "minimum detectable drop" in lead.inner_text()
            assert page.locator("h2").first.inner_text() == "Submissions"
            # no scroll box inside the page's scroll: table wrappers never scroll vertically
            assert page.evaluate("[...document.querySelectorAll('.scroll')].every(e => "
                                 "getComputedStyle(e).maxHeight === 'none' && "
                                 "e.scrollHeight <= e.clientHeight + 1)")
            # the drop column is on screen without sideways scrolling, in the main and pooled tables
            for tid in ("submissions", "pooled"):
                th = page.locator(f"#{tid} thead th", has_text="drop [95% CI]").first
                box_th = th.bounding_box()
                assert box_th is not None and box_th["x"] + box_th["width"] <= width, (tid, box_th)
            # every percentage cell is one (no raw fraction beside percents), in the folded table too
            raw = page.evaluate("[...document.querySelectorAll('#long td')].map(td => td.textContent)"
                                ".filter(t => /^-?0\\.\\d{3,}$/.test(t))")
            assert raw == []
            headers = [h for h in page.locator("#submissions thead th").all_inner_texts()]
            if width >= 1400:
                assert headers[:4] == ["submission", "model", "cutoff", "original"]
            assert "drop [95% CI]" in headers and "clean n" in headers
            box = page.evaluate("(() => { const t = document.querySelector('#submissions');"
                                " return [t.scrollWidth, t.parentElement.clientWidth,"
                                " document.documentElement.scrollWidth]; })()")
            assert box[2] <= width
            if width >= 1400:
                assert box[0] <= box[1]
            cells = page.locator("#submissions tbody td:nth-child(7)").all_text_contents()
            assert not [c for c in cells if re.search(r"\[(-?[\d.]+)%, \1%\]", c)]
            assert not page.locator("#long").is_visible()
            page.screenshot(path=str(tmp_path / f"published-{width}.png"), full_page=True)
        finally:
            browser.close()
