"""The user documentation as one text: README.md, then every page under docs/ in name order (the
flow tests run the commands the documentation shows, wherever they now live)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def doc_pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def docs_text() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in doc_pages())
