"""Collecting the tests stays cheap: no test module (nor conftest) imports torch, transformers,
lm-eval, Inspect or Ray at import time (issue 26). Tests that need them import them in the test
body or a fixture, and library modules reach them lazily."""

from __future__ import annotations


def test_collection_imported_no_heavy_module(heavy_at_collection: list[str]) -> None:
    assert heavy_at_collection == [], (
        f"collecting the tests imported {heavy_at_collection}: move the import into the test or a "
        f"fixture (`python -X importtime -m pytest --collect-only -q -s` shows who imports it)")
