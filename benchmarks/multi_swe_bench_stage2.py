"""Stage II on Multi-SWE-bench: how its fixes parse in each language, and Java verdicts by tier.

    python benchmarks/multi_swe_bench_stage2.py --data-dir ../shared/data/multi_swe_bench \\
        --repos-dir clones_java/ [--cutoff 2023-10] [--model gpt-4o-2024-05-13] [--flags out.jsonl]

1. **Parse counts** (no repository needed). For every instance of ``<data-dir>/instances/<lang>/``,
   its ``fix_patch`` goes through ``parse_patch`` in fragment mode (each hunk parsed on its own).
   Per language: instances, parsed, failed, the blocks of registered-language files by where
   their scope came from (``tree``: a definition inside the hunk; ``hunk-header``: git's
   ``@@ ... @@`` line; ``none``), the hunks whose post-image parses without a syntax error (the
   others fall back to plain rows for their changed lines), changed files of a code extension
   that got no registered language (should be 0), and seconds.
2. **Java Stage II** on the instances whose repository is cloned under ``--repos-dir``
   (``owner__name``, matched without regard to case: the dataset writes ``fasterxml``, GitHub
   ``FasterXML``), at ``--cutoff``, and the verdicts (present / absent / undecided / failed) by the
   easy / medium / hard tier of ``<data-dir>/annotations/java.xlsx`` (the harder of the two
   annotators' time-to-fix labels; see ``load_multi_swe_bench_tiers``). ``--flags FILE`` reuses
   (or, when missing, writes) the flags file of that run. Reading the workbook needs openpyxl.

``--skip-parse`` / ``--skip-stage2`` leave out one part. The fragment-mode parse of the largest
C++ fixes (a 4,000-row hunk of nlohmann/json's amalgamated header) dominates the run time.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import textwrap
import time
from collections import Counter, defaultdict
from pathlib import Path

from unidiff import PatchSet

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parent.parent / "shared" / "data" / "multi_swe_bench"
LANG_FOLDERS = ("c", "cpp", "go", "java", "js", "rust", "ts")
ANNOTATIONS = {"c": "c", "cpp": "c++", "go": "go", "java": "java", "js": "js", "rust": "rust", "ts": "ts"}
CODE_SUFFIXES = frozenset({".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".go", ".java", ".js",
                           ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".rs", ".py"})
_FILE = re.compile(r"^diff --git a/\S+ b/(\S+)", re.M)


def _clean_hunks(patch: str) -> tuple[int, int]:
    """``(hunks of registered-language files, those whose post-image parses without error)``."""
    from benchchecker_plugin.repos import detect_language
    from benchchecker_plugin.stage2 import get_language, parse_source

    total = clean = 0
    for pfile in PatchSet(patch):
        lang = detect_language(pfile.path)
        if get_language(lang) is None:
            continue
        for hunk in pfile:
            values = [ln.value.rstrip("\r\n") for ln in hunk if ln.line_type in (" ", "+")]
            parsed = parse_source(textwrap.dedent("\n".join(values)), lang)
            total += 1
            clean += not parsed.tree.root_node.has_error
    return total, clean


def parse_counts(data_dir: Path) -> dict[str, Counter]:
    """Per language folder: the counts of part 1 (see the module docstring)."""
    from benchchecker_plugin.errors import BenchcheckerError
    from benchchecker_plugin.instances import load_instances
    from benchchecker_plugin.repos import detect_language
    from benchchecker_plugin.stage2 import get_language, parse_patch

    out: dict[str, Counter] = {}
    for folder in LANG_FOLDERS:
        src = data_dir / "instances" / folder
        if not src.is_dir():
            continue
        counts: Counter = Counter()
        start = time.perf_counter()
        for inst in load_instances(src, "multi-swe-bench"):
            counts["instances"] += 1
            try:
                blocks = parse_patch(inst.patch, instance_id=inst.instance_id)
            except BenchcheckerError as exc:
                counts["failed"] += 1
                print(f"  {folder}: {exc}", file=sys.stderr)
                continue
            counts["parsed"] += 1
            for path in _FILE.findall(inst.patch):
                if Path(path).suffix.lower() in CODE_SUFFIXES and get_language(detect_language(path)) is None:
                    counts["code files without language"] += 1
            for block in blocks:
                if get_language(block.language) is not None:
                    counts[f"scope {block.scope_from}"] += 1
            hunks, clean = _clean_hunks(inst.patch)
            counts["hunks"] += hunks
            counts["clean hunks"] += clean
        counts["seconds"] = round(time.perf_counter() - start)
        out[folder] = counts
    return out


def _table(rows: list[list[object]], header: list[str]) -> str:
    cells = [header] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths)))
             for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def print_parse_counts(counts: dict[str, Counter]) -> None:
    cols = ["instances", "parsed", "failed", "scope tree", "scope hunk-header", "scope none", "hunks",
            "clean hunks", "code files without language", "seconds"]
    print("Multi-SWE-bench fix patches, fragment mode (no repository)")
    print(_table([[lang, *(c.get(k, 0) for k in cols)] for lang, c in counts.items()], ["language", *cols]))


def _with_clone(insts: list, repos_dir: Path) -> tuple[list, list[str]]:
    """Instances whose clone is under ``repos_dir`` (``repo`` rewritten to the folder's casing)."""
    folders = {p.name.lower(): p.name for p in repos_dir.iterdir() if p.is_dir()}
    kept, missing = [], []
    for inst in insts:
        name = folders.get(inst.repo.replace("/", "__").lower())
        if name is None:
            missing.append(inst.instance_id)
            continue
        kept.append(dataclasses.replace(inst, repo=name.replace("__", "/", 1)))
    return kept, missing


def _verdict(flag) -> str:  # noqa: ANN001 (ContaminationFlag)
    if "error" in flag.evidence:
        return "failed"
    return {True: "present", False: "absent"}.get(flag.contaminated, "undecided")


def java_stage2(data_dir: Path, repos_dir: Path, cutoff: str, model: str, flags_file: Path | None) -> None:
    from benchchecker_plugin.flags import read_flags, write_flags
    from benchchecker_plugin.instances import load_instances, load_multi_swe_bench_tiers
    from benchchecker_plugin.stage2 import run_stage2, summary_line

    insts = load_instances(data_dir / "instances" / "java", "multi-swe-bench")
    kept, missing = _with_clone(insts, repos_dir)
    if missing:
        print(f"no clone for {len(missing)} instance(s): {', '.join(missing[:5])}", file=sys.stderr)
    if flags_file is not None and flags_file.is_file():
        flags = [f for f in read_flags(flags_file) if f.instance_id in {i.instance_id for i in kept}]
    else:
        start = time.perf_counter()
        flags = list(run_stage2(kept, repos_dir, {model: cutoff}, reuse_counts=False).flags)
        print(f"stage II: {summary_line(flags)} in {time.perf_counter() - start:.0f} s", file=sys.stderr)
        if flags_file is not None:
            write_flags(flags_file, flags)
    tiers = load_multi_swe_bench_tiers(data_dir / "annotations" / "java.xlsx", [i.instance_id for i in insts])
    table: dict[str, Counter] = defaultdict(Counter)
    for flag in flags:
        tier = tiers.get(flag.instance_id, "unlabelled")
        for key in (tier, "all"):
            table[key][_verdict(flag)] += 1
    verdicts = ["present", "absent", "undecided", "failed"]
    order = [t for t in ("easy", "medium", "hard", "unlabelled", "all") if t in table]
    print(f"\nJava Stage II at cutoff {cutoff} (model {model}), {len(flags)} instances with a clone")
    print(_table([[t, sum(table[t].values()), *(table[t][v] for v in verdicts)] for t in order],
                 ["tier", "instances", *verdicts]))
    failed = [f for f in flags if "error" in f.evidence]
    for f in failed:
        print(f"  failed {f.instance_id}: {f.evidence['error']}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, default=DEFAULT_DATA,
                    help="the multi_swe_bench folder (instances/<lang>/*.jsonl, annotations/*.xlsx)")
    ap.add_argument("--repos-dir", type=Path, default=None, help="full clones, owner__name (any case)")
    ap.add_argument("--cutoff", default="2023-10")
    ap.add_argument("--model", default="gpt-4o-2024-05-13")
    ap.add_argument("--flags", type=Path, default=None, help="flags file of the Java run (read if present)")
    ap.add_argument("--skip-parse", action="store_true")
    ap.add_argument("--skip-stage2", action="store_true")
    args = ap.parse_args(argv)
    if not (args.data_dir / "instances").is_dir():
        ap.error(f"--data-dir {args.data_dir}: no instances/ folder")
    if not args.skip_parse:
        print_parse_counts(parse_counts(args.data_dir))
    if not args.skip_stage2:
        if args.repos_dir is None or not args.repos_dir.is_dir():
            ap.error("--repos-dir: a folder of clones is needed for the Java Stage II run (or --skip-stage2)")
        java_stage2(args.data_dir, args.repos_dir, args.cutoff, args.model, args.flags)
    return 0


if __name__ == "__main__":
    sys.exit(main())
