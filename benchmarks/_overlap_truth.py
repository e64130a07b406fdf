"""Ground truth of the real-file bed, by each file's own parser: which MMLU test items and
TruthfulQA questions a file truly holds.

A file's strings are extracted with its format's parser (JSON whole or per line, CSV cells, Python
string constants, a notebook's cell sources and outputs, YAML; a file of no structured format read
as JSON where it parses as such, else as raw text). Whitespace is collapsed; matching is exact and
case-sensitive. An MMLU item is *present* when its question lies inside one extracted string and
its gold answer occurs among the file's strings; *question only* when the question does and the
answer does not. A TruthfulQA item is present when its question lies inside one string.
"""

from __future__ import annotations

import ast
import csv
import io
import json
import re
from pathlib import Path
from typing import Any

WS = re.compile(r"\s+")


def _norm(s: str) -> str:
    return WS.sub(" ", s).strip()


def _walk(o: Any, out: list[str]) -> None:
    if isinstance(o, str):
        out.append(o)
    elif isinstance(o, dict):
        for k, v in o.items():
            if isinstance(k, str):
                out.append(k)
            _walk(v, out)
    elif isinstance(o, list | tuple):
        for v in o:
            _walk(v, out)
    elif isinstance(o, int | float | bool):
        out.append(str(o))


def _jsonl(text: str) -> list[str]:
    out: list[str] = []
    good = 0
    for line in text.splitlines():
        if line.strip():
            try:
                _walk(json.loads(line), out)
                good += 1
            except ValueError:
                out.append(line)
    if not good:
        raise ValueError("no JSON line")
    return out


def _joined(x: Any) -> str:
    return "".join(x) if isinstance(x, list) else x if isinstance(x, str) else ""


def _notebook(text: str) -> list[str]:
    out = []
    for cell in json.loads(text).get("cells", []):
        out.append(_joined(cell.get("source", "")))
        for o in cell.get("outputs", []) or []:
            if "text" in o:
                out.append(_joined(o["text"]))
            for mime in ("text/plain", "text/markdown", "text/html"):
                if mime in (o.get("data") or {}):
                    out.append(_joined(o["data"][mime]))
    return out


def _sniff(text: str) -> list[str]:
    out: list[str] = []
    try:
        value = json.loads(text)
        if isinstance(value, dict | list):
            _walk(value, out)
            return out
    except ValueError:
        pass
    lines = [line for line in text.splitlines() if line.strip()]
    parsed = 0
    for line in lines:
        try:
            parsed += isinstance(json.loads(line), dict | list)
        except ValueError:
            pass
    return _jsonl(text) if len(lines) >= 2 and parsed >= 0.9 * len(lines) else [text]


def strings(path: Path) -> list[str]:
    """The strings of ``path`` by its format's parser (the raw text when it does not parse)."""
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    ext = path.suffix.lower().lstrip(".")
    out: list[str] = []
    try:
        if ext == "json":
            _walk(json.loads(text), out)
        elif ext == "jsonl":
            out = _jsonl(text)
        elif ext == "csv":
            csv.field_size_limit(1 << 30)
            out = [cell for row in csv.reader(io.StringIO(text, newline="")) for cell in row]
        elif ext == "py":
            out = [n.value for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Constant)
                   and isinstance(n.value, str)]
        elif ext == "ipynb":
            out = _notebook(text)
        elif ext in ("yaml", "yml"):
            import yaml

            _walk(yaml.safe_load(text), out)
        else:
            out = _sniff(text)
    except (ValueError, SyntaxError, RecursionError) as exc:   # a file its parser refuses: raw
        del exc
        out = [text]
    except Exception as exc:   # yaml's own errors (a custom tag): the raw text
        if type(exc).__module__.split(".")[0] != "yaml":
            raise
        out = [text]
    return out


def truth(files: list[Path], data: Path) -> dict[str, set[str]]:
    """``{"mmlu": present, "mmlu_question_only": ..., "truthfulqa": present}`` over ``files``."""
    mmlu = []
    for p in sorted((data / "mmlu" / "test").glob("*_test.csv")):
        subject = p.name[: -len("_test.csv")]
        for i, row in enumerate(list(csv.reader(p.open(encoding="utf-8")))[1:]):
            mmlu.append((f"{subject}/{i}", _norm(row[0]), _norm(row[1 + int(row[5])])))
    tqa = [(str(i), _norm(row[2])) for i, row in
           enumerate(list(csv.reader((data / "truthfulqa" / "TruthfulQA.csv").open(encoding="utf-8")))[1:])]
    out: dict[str, set[str]] = {"mmlu": set(), "mmlu_question_only": set(), "truthfulqa": set()}
    for path in files:
        joined = "\x00".join(_norm(s) for s in strings(path) if s and s.strip())
        for iid, q, answer in mmlu:
            if q and q in joined:
                out["mmlu" if answer in joined else "mmlu_question_only"].add(iid)
        out["truthfulqa"] |= {iid for iid, q in tqa if q and q in joined}
    out["mmlu_question_only"] -= out["mmlu"]
    return out
