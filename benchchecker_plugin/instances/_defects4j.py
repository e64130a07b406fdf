"""Defects4J instances: ``<Project>/active-bugs.csv`` + ``patches/<id>.src.patch``.

Defects4J stores its patches *reversed* (from the fixed to the buggy revision); the loader turns
them around so that ``patch`` goes from ``base_commit`` (buggy) to the fix, like SWE-bench.
"""

from __future__ import annotations

import csv
import os
import re
from pathlib import Path

from ..errors import DataError, InputError
from ._bug import BugInstance

#: Defects4J project -> upstream GitHub repository.
PROJECT_REPOS = {
    "Chart": "jfree/jfreechart", "Cli": "apache/commons-cli", "Closure": "google/closure-compiler",
    "Codec": "apache/commons-codec", "Collections": "apache/commons-collections",
    "Compress": "apache/commons-compress", "Csv": "apache/commons-csv", "Gson": "google/gson",
    "JacksonCore": "FasterXML/jackson-core", "JacksonDatabind": "FasterXML/jackson-databind",
    "JacksonXml": "FasterXML/jackson-dataformat-xml", "Jsoup": "jhy/jsoup",
    "JxPath": "apache/commons-jxpath", "Lang": "apache/commons-lang", "Math": "apache/commons-math",
    "Mockito": "mockito/mockito", "Time": "JodaOrg/joda-time",
}

_COLUMNS = ("bug.id", "revision.id.buggy")   # what an instance needs from active-bugs.csv
_INDEX = re.compile(r"^index ([0-9a-f]+)\.\.([0-9a-f]+)(.*)$")
_HUNK = re.compile(r"^@@ -(\d+(?:,\d+)?) \+(\d+(?:,\d+)?) @@(.*)$")


def _count(spec: str) -> int:
    return int(spec.split(",")[1]) if "," in spec else 1


def reverse_diff(text: str) -> str:
    """The unified diff that undoes ``text`` (old and new sides swapped, hunk by hunk)."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    old_left = new_left = 0
    i = 0
    while i < len(lines):
        line = lines[i]
        body = line.rstrip("\r\n")
        end = line[len(body):]
        if old_left > 0 or new_left > 0:
            tag = body[:1]
            if tag == "-":
                out.append("+" + body[1:] + end)
                old_left -= 1
            elif tag == "+":
                out.append("-" + body[1:] + end)
                new_left -= 1
            elif tag == "\\":
                out.append(line)
            else:
                out.append(line)
                old_left -= 1
                new_left -= 1
        elif body.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            nxt = lines[i + 1].rstrip("\r\n")
            out.append("--- " + nxt[4:] + end)
            out.append("+++ " + body[4:] + end)
            i += 1
        elif m := _HUNK.match(body):
            out.append(f"@@ -{m.group(2)} +{m.group(1)} @@{m.group(3)}{end}")
            old_left, new_left = _count(m.group(1)), _count(m.group(2))
        elif body.startswith("deleted file mode ") or body.startswith("new file mode "):
            word, mode = ("new", body[18:]) if body.startswith("deleted") else ("deleted", body[14:])
            out.append(f"{word} file mode {mode}{end}")
        elif m := _INDEX.match(body):
            out.append(f"index {m.group(2)}..{m.group(1)}{m.group(3)}{end}")
        elif body.startswith("diff --git "):
            parts = body.split(" ")
            out.append(" ".join(parts[:2] + parts[2:][::-1]) + end if len(parts) == 4 else line)
        else:
            out.append(line)
        i += 1
    # a "\ No newline" marker belongs to the line before it and stays in place
    return "".join(out)


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="surrogateescape") if path.is_file() else ""


def load_defects4j(root: str | os.PathLike[str]) -> list[BugInstance]:
    """Every active bug under ``root`` (a folder of ``<Project>/`` folders, or one project).

    ``instance_id`` is ``<Project>-<id>``; ``base_commit`` the buggy revision; ``patch`` the
    source fix (reversed to buggy->fixed); ``fail_to_pass`` the trigger tests.
    """
    base = Path(root)
    if (base / "active-bugs.csv").is_file():
        projects = [base]
    elif base.is_dir():
        projects = sorted(p for p in base.iterdir() if (p / "active-bugs.csv").is_file())
    else:
        projects = []
    if not projects:
        raise InputError(f"{root}: not a Defects4J folder (no <Project>/active-bugs.csv)")
    out: list[BugInstance] = []
    for proj in projects:
        table = proj / "active-bugs.csv"
        try:
            with open(table, newline="", encoding="utf-8") as fh:
                reader = csv.DictReader(fh)
                rows, header = list(reader), reader.fieldnames or []
        except UnicodeDecodeError as exc:
            raise DataError(f"{table}: not UTF-8 text ({exc.reason})") from None
        lacking = [c for c in _COLUMNS if c not in header]
        if lacking:
            raise DataError(f"{table}: no column(s) {', '.join(lacking)} (has "
                            f"{', '.join(header) or 'no header'})")
        for row in rows:
            bid = row.get("bug.id", "")
            iid = f"{proj.name}-{bid}"
            src = proj / "patches" / f"{bid}.src.patch"
            if not src.is_file():
                raise DataError(f"{src}: instance {iid!r} has no source patch")
            triggers = tuple(t.strip().lstrip("- ").strip() for t in _read(proj / "trigger_tests" / bid)
                             .splitlines() if t.startswith("--- "))
            out.append(BugInstance(
                instance_id=iid, benchmark="defects4j", repo=PROJECT_REPOS.get(proj.name, proj.name),
                base_commit=row["revision.id.buggy"], patch=reverse_diff(_read(src)),
                test_patch=reverse_diff(_read(proj / "patches" / f"{bid}.test.patch")),
                fail_to_pass=triggers, language="java", fixed_commit=row.get("revision.id.fixed"),
                extra={"report_id": row.get("report.id", ""), "report_url": row.get("report.url", "")}))
    return out
