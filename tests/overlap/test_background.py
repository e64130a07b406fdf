"""The background corpus: sources interleaved, bounded, absent ones named, each format read."""

from __future__ import annotations

import gzip
from pathlib import Path

from benchchecker_plugin.overlap._background import (
    DOC_CHARS,
    SOURCES,
    BackgroundStats,
    default_roots,
    iter_background,
)


def _roots(tmp_path: Path) -> dict[str, Path | None]:
    lib = tmp_path / "lib"
    (lib / "site-packages").mkdir(parents=True)
    (lib / "a.py").write_text("x = 1\n" * 5000)                        # cut into two documents
    (lib / "site-packages" / "skip.py").write_text("not the standard library\n")
    docs = tmp_path / "Documentation"
    docs.mkdir()
    with gzip.open(docs / "intro.rst.gz", "wt") as fh:
        fh.write("Kernel docs.\n\nSecond paragraph.\n")
    wordnet = tmp_path / "wordnet"
    wordnet.mkdir()
    (wordnet / "data.noun").write_text("  1 licence header line\n"
                                       "00001740 03 n 01 entity 0 000 | that which is perceived  \n")
    return {"stdlib": lib, "python-doc": None, "linux-doc": docs, "gcide": None, "wordnet": wordnet}


def test_sources_interleaved_and_missing_ones_named(tmp_path: Path) -> None:
    stats = BackgroundStats()
    docs = list(iter_background(1e9, stats, roots=_roots(tmp_path)))
    assert [(d.source, d.doc_id) for d in docs] == [
        ("stdlib", "a.py#0"), ("linux-doc", "intro.rst.gz#0"), ("wordnet", "data.noun#0"),
        ("stdlib", "a.py#1")]
    assert all(len(d.text) <= DOC_CHARS for d in docs)
    assert docs[1].text.startswith("Kernel docs.") and docs[2].text == "that which is perceived"
    assert stats.missing == ["python-doc", "gcide"]
    assert stats.to_dict()["total_chars"] == sum(len(d.text) for d in docs) == 29999 + 32 + 23   # the cut drops its line break


def test_stream_stops_at_the_budget(tmp_path: Path) -> None:
    docs = list(iter_background(100, roots=_roots(tmp_path)))
    assert len(docs) == 1


def test_the_standard_library_is_always_there() -> None:
    roots = default_roots()
    assert set(roots) == set(SOURCES) and roots["stdlib"] is not None
    assert next(iter_background(1000, roots=roots)).source == "stdlib"
