"""Text cells made safe for the tables we publish: CSV a spreadsheet opens, Markdown a renderer
turns into HTML.

Names in these tables (submissions, models, folders, reasons) come from files the user did not
necessarily write. A CSV cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
is a formula to Excel, LibreOffice and Google Sheets (OWASP's CSV-injection rule): such a text
cell is written with a leading ``'``, which spreadsheets show as text. The escape is reversible
(:func:`csv_unescape`, used by :func:`~benchchecker_plugin.report.read_csv`): a cell that already
starts with ``'`` before such a character gets one more ``'``, so every text reads back as it was
written. Numeric columns are never escaped (``-0.05`` is a number, not a formula).

Prose in Markdown (a heading, a paragraph, a list item) that interpolates such a value passes it
through :func:`markdown_text`: the same neutralising, but readable where nothing could become
markup (an underscore inside a word, a ``-`` that starts no list).

A Markdown cell has its line breaks turned into spaces (a newline ends a table row), its pipes and
emphasis/code characters backslash-escaped, ``<``, ``>`` and ``&`` written as entities (renderers
pass raw HTML through: ``<script>`` would run) and link brackets escaped where they would form a
link or an image.
"""

from __future__ import annotations

import re

import pandas as pd

CSV_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def _needs_quote(text: str) -> bool:
    i = 0
    while i < len(text) and text[i] == "'":
        i += 1
    return i < len(text) and text[i] in CSV_TRIGGERS


def csv_escape(text: str) -> str:
    """``text`` as a CSV cell no spreadsheet evaluates: ``'`` prepended where it starts (after any
    ``'``) with ``=``, ``+``, ``-``, ``@``, tab or carriage return."""
    return "'" + text if _needs_quote(text) else text


def csv_unescape(text: str) -> str:
    """The inverse of :func:`csv_escape` (``csv_unescape(csv_escape(s)) == s`` for every ``s``)."""
    return text[1:] if text.startswith("'") and _needs_quote(text[1:]) else text


def _text_columns(frame: pd.DataFrame) -> list[str]:
    return [c for c in frame.columns if frame[c].dtype.kind in "OSUT" or
            isinstance(frame[c].dtype, pd.StringDtype)]


def _map_text(frame: pd.DataFrame, fn: object) -> pd.DataFrame:
    cols = _text_columns(frame)
    if not cols:
        return frame
    out = frame.copy()
    for c in cols:
        out[c] = [fn(v) if isinstance(v, str) else v for v in out[c]]  # type: ignore[operator]
    return out


def csv_escape_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells (and column names) are :func:`csv_escape`-d; numbers,
    empty cells and the frame itself unchanged."""
    out = _map_text(frame, csv_escape)
    if any(_needs_quote(str(c)) for c in out.columns):
        out = out.rename(columns={c: csv_escape(str(c)) for c in out.columns})
    return out


def csv_unescape_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame as it was before :func:`csv_escape_frame` (text cells and column names)."""
    out = _map_text(frame, csv_unescape)
    return out.rename(columns={c: csv_unescape(c) for c in out.columns if isinstance(c, str)})


_LINE_BREAKS = re.compile(r"\r\n|[\r\n\u2028\u2029\x0b\x0c\x85]")
_MD_SPECIAL = re.compile(r"([\\`*_|~])")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def markdown_cell(text: str) -> str:
    """``text`` as one GitHub-flavoured Markdown table cell that renders as that text: no line
    break, no raw HTML, no link, image, emphasis or code span of its own."""
    text = _LINE_BREAKS.sub(" ", text)
    text = "".join(_ENTITIES.get(ch, ch) for ch in text)
    text = _MD_SPECIAL.sub(r"\\\1", text)
    if "](" in text or "][" in text or "[" in text and "]:" in text:
        text = text.replace("[", "\\[").replace("]", "\\]")
    return text


_INLINE_SPECIAL = re.compile(r"([\\`*~|\[\]])")
_UNDERSCORES = re.compile(r"_+")
#: a ``#`` that could start a heading or close one: at the start, or after a space before a space
_HEADING_HASH = re.compile(r"(?:^|(?<=\s))#(?=#*(?:\s|$))")
#: the start of a list item, block quote, thematic break or setext underline
_BLOCK_START = re.compile(r"^(?:([-+=])(?=[-+=\s]|$)|(\d{1,9})([.)])(?=\s|$))")


def _free_underscores(m: re.Match[str]) -> str:
    """A run of underscores escaped unless it lies between two letters or digits (there it can
    neither open nor close emphasis: ``snake_case``, ``django__django-11099``)."""
    text, start, end = m.string, m.start(), m.end()
    inside = start > 0 and end < len(text) and text[start - 1].isalnum() and text[end].isalnum()
    return m.group() if inside else "\\_" * (end - start)


def markdown_text(text: str) -> str:
    """``text`` as Markdown prose (CommonMark and GitHub's) that renders as that text: no raw
    HTML (``<``, ``>``, ``&`` as entities), no link, image, emphasis, code span or strikethrough
    (their characters backslash-escaped; an underscore inside a word, which starts nothing, is
    left), one line (line breaks and runs of blanks as one space, none at either end), and no
    block of its own where it starts a line or a list item (a leading ``#``, ``-``, ``+``, ``=``
    or ``1.`` escaped). Bare URLs stay text to CommonMark; GitHub's renderer links them."""
    text = " ".join(_LINE_BREAKS.sub(" ", text).split())
    text = "".join(_ENTITIES.get(ch, ch) for ch in text)
    text = _INLINE_SPECIAL.sub(r"\\\1", text)
    text = _UNDERSCORES.sub(_free_underscores, text)
    text = _HEADING_HASH.sub(r"\\#", text)
    m = _BLOCK_START.match(text)
    if m and m.group(1):
        text = "\\" + text
    elif m:
        text = f"{m.group(2)}\\{text[len(m.group(2)):]}"
    return text
