"""BuildFacts: the published build.json reads and writes back to the byte; an unknown or missing
fact is refused naming it; the defaults of the first bundles (SWE-bench Verified, 500 instances)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchchecker_plugin.errors import DataError
from benchchecker_plugin.republish import BuildFacts

PUBLISHED = Path(__file__).resolve().parents[2] / "published" / "swebench-verified" / "build.json"


@pytest.mark.skipif(not PUBLISHED.is_file(), reason="no bundle published")
def test_the_published_build_facts_write_back_to_the_byte() -> None:
    facts = BuildFacts.read(PUBLISHED)
    assert facts.to_json() == PUBLISHED.read_text(encoding="utf-8")
    assert (facts.display_title, facts.benchmark_name, facts.size, facts.size_label) == (
        "SWE-bench Verified", "swe-bench-verified", 500, "500")


def test_a_fact_missing_or_unknown_is_refused_naming_it(tmp_path: Path) -> None:
    data = json.loads(PUBLISHED.read_text()) if PUBLISHED.is_file() else None
    if data is None:
        pytest.skip("no bundle published")
    with pytest.raises(DataError, match="build.json: missing build facts: seed"):
        BuildFacts.from_dict({k: v for k, v in data.items() if k != "seed"})
    with pytest.raises(DataError, match="build.json: unknown build facts: colour"):
        BuildFacts.from_dict({**data, "colour": "blue"})
    bad = tmp_path / "build.json"
    bad.write_text("[1, 2]")
    with pytest.raises(DataError, match="the build facts are not a JSON object"):
        BuildFacts.read(bad)
    several = BuildFacts.from_dict({**data, "boards": [{"name": "a", "n_instances": 3},
                                                       {"name": "b", "n_instances": 4}]})
    assert several.size_label == "all" and "boards" in json.loads(several.to_json())
    assert "boards" not in json.loads(BuildFacts.from_dict(data).to_json())   # optional: only when held
