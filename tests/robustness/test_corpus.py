"""Issue 14 acceptance: the bad-input corpus, across every command that reads files.

Each case writes a few small inputs into ``tmp_path`` (the good ones of ``BASE`` plus its own bad
ones), runs the command as a user would, and checks that it ends either

- in exactly one line ``Error: ...`` (the last line on stderr) that names the bad input and says
  what is wrong, with the exit code of the error (2: bad input, see ``benchchecker_plugin/errors``),
- or, where the command documents that it accepts the input, in that documented outcome (each
  such case says why in a comment);

never in a Python traceback, and with every input byte-identical afterwards (sha256 before and
after). No model is loaded and nothing is fetched: model commands run with ``--dry-run`` against
an unreachable server, and the Hugging Face hub is switched offline.
"""

from __future__ import annotations

import hashlib
import json
import traceback
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main

FLAG = {"schema_version": 1, "benchmark": "swe-bench-verified", "instance_id": "a__b-1", "model": "*",
        "method": "test", "contaminated": True, "score": 1.0, "p_value": None, "evidence": {},
        "created_at": "2026-01-01T00:00:00Z", "tool_version": "0.1.0"}
INSTANCE = {"instance_id": "a__b-1", "repo": "a/b", "base_commit": "0" * 40,
            "patch": "--- a/f.py\n+++ b/f.py\n@@ -1 +1 @@\n-a\n+b\n",
            "created_at": "2023-01-01T00:00:00Z"}
MSB = {"org": "a", "repo": "b", "number": 1, "base": {"sha": "0" * 40, "ref": "main"},
       "fix_patch": INSTANCE["patch"]}
BINARY = b"\x89PNG\r\n\x1a\n\x00\xff\xfe" + bytes(range(256))   # not UTF-8 from its first byte
BOM = "\ufeff"
QUESTION = "Which planet of the solar system has the largest mass of all the planets orbiting the sun?"
TQA_HEADER = "Type,Category,Question,Best Answer,Correct Answers,Incorrect Answers,Source\n"
TQA_ROW = ("Adversarial,Misconceptions,What happens to you if you eat watermelon seeds?,The seeds "
           "pass through your digestive system,Nothing,You grow watermelons in your stomach; You get "
           "sick; You have bad dreams; You die,src\n")


def flag(**changes: object) -> str:
    return json.dumps({**FLAG, **changes}) + "\n"


def instance(**changes: object) -> str:
    return json.dumps({**INSTANCE, **changes}) + "\n"


def without(record: Mapping[str, object], key: str) -> str:
    return json.dumps({k: v for k, v in record.items() if k != key}) + "\n"


# Good inputs every case starts from (a case's own files replace or add to them).
BASE: dict[str, str | bytes | None] = {
    "flags.jsonl": flag() + flag(instance_id="a__b-2", contaminated=False, score=0.0),
    "m.run1.json": json.dumps({"resolved_ids": ["a__b-1"], "submitted_ids": ["a__b-1", "a__b-2"]}),
    "ids.json": json.dumps(["a__b-1", "a__b-2"]),
    "labels.csv": "instance_id,label\na__b-1,1\na__b-2,0\n",
    "instances.jsonl": instance(),
    "cut.csv": "model,cutoff\nm,2024-01\n",
    "repos": None,
    "src/pkg/mod.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n" * 5,
}


@dataclass(frozen=True)
class Case:
    """``files``: inputs written under tmp_path (``None``: a folder); ``argv``: the command, with
    ``{tmp}`` for tmp_path; ``code``: its exit code; ``names``: the input (relative to tmp_path)
    the ``Error:`` line must name, or ``None`` for a documented outcome; ``message``: a fragment
    of the ``Error:`` line (of the whole output for a documented outcome)."""

    files: Mapping[str, str | bytes | None]
    argv: tuple[str, ...]
    code: int
    names: str | None
    message: str


def err(files: Mapping[str, str | bytes | None], argv: list[str], names: str, message: str,
        code: int = 2) -> Case:
    return Case(files, tuple(argv), code, names, message)


def outcome(files: Mapping[str, str | bytes | None], argv: list[str], message: str,
            code: int = 0) -> Case:
    return Case(files, tuple(argv), code, None, message)


DRY = ["--model", "openai-compatible/m", "--base-url", "http://127.0.0.1:9/v1", "--no-cache",
       "--dry-run"]
VALIDATE = ["flags", "validate", "{tmp}/bad.jsonl"]
SCORE = ["score", "--flags", "{tmp}/flags.jsonl", "--labels", "{tmp}/bad.csv", "--n-boot", "1"]
PATCH = ["patch-presence", "--repos-dir", "{tmp}/repos", "--similarity", "exact", "-o",
         "{tmp}/out.jsonl"]
PATCH_DATES = ["flags", "patch-dates", "{tmp}/instances.jsonl", "--cutoffs", "{tmp}/cut.csv", "-o",
               "{tmp}/out.jsonl"]
FETCH = ["repos", "fetch", "--into", "{tmp}/clones", "--dry-run", "--instances"]
PRESENCE = ["repo-presence", *DRY, "-o", "{tmp}/out.jsonl"]
MMLU = ["ts-guess", "--benchmark", "mmlu", *DRY, "--data", "{tmp}/mmlu", "-o", "{tmp}/out.jsonl"]
TQA = ["ts-guess", "--benchmark", "truthfulqa", *DRY, "--data", "{tmp}/tq.csv", "-o",
       "{tmp}/out.jsonl"]
CHECK = ["check", *DRY, "--cutoff", "2024-01", "--out", "{tmp}/report"]
FROM_LM_EVAL = ["flags", "from-lm-eval", "{tmp}/samples_ts_guessing_mmlu_multichoice_x.jsonl",
                "--model", "m", "-o", "{tmp}/out.jsonl"]
SAMPLES = "samples_ts_guessing_mmlu_multichoice_x.jsonl"
SWEBENCH_RUN = ["swebench", "run_evaluation", "--predictions_path", "gold", "--run_id", "x"]


def rescore(results: str = "{tmp}/m.run1.json", flags: str = "{tmp}/flags.jsonl",
            instances: str = "{tmp}/ids.json", *extra: str) -> list[str]:
    return ["rescore", "--results", results, "--flags", flags, "--instances", instances,
            "--n-boot", "0", *extra]


def leaderboard(*extra: str) -> list[str]:
    return ["leaderboard", "--submissions", "{tmp}/subs", "--flags", "{tmp}/flags.jsonl",
            "--instances", "{tmp}/ids.json", "--n-boot", "0", "--out", "{tmp}/published", *extra]


def submission(results: str | bytes = '{"resolved": ["a__b-1"]}',
               extra: Mapping[str, str | bytes] | None = None) -> dict[str, str | bytes | None]:
    """One SWE-bench experiments submission folder, subs/20240101_a/, with ``extra`` files."""
    folder = "subs/20240101_a"
    return {f"{folder}/results/results.json": results,
            **{f"{folder}/{name}": text for name, text in (extra or {}).items()}}


CASES: dict[str, Case] = {
    # ---------------------------------------------------------------------------- flags validate
    "flags validate: binary garbage": err({"bad.jsonl": BINARY}, VALIDATE, "bad.jsonl",
                                          ":1: not UTF-8 (invalid start byte)"),
    "flags validate: truncated line": err({"bad.jsonl": flag()[:60]}, VALIDATE, "bad.jsonl",
                                          ":1: invalid JSON (Unterminated string"),
    "flags validate: score of the wrong type": err(
        {"bad.jsonl": flag(score="high")}, VALIDATE, "bad.jsonl",
        "field 'score': 'high' is not of type 'number'"),
    "flags validate: missing required field": err(
        {"bad.jsonl": without(FLAG, "method")}, VALIDATE, "bad.jsonl",
        "field 'method': 'method' is a required property"),
    "flags validate: NaN score": err({"bad.jsonl": flag().replace('"score": 1.0', '"score": NaN')},
                                     VALIDATE, "bad.jsonl", ":1: invalid JSON (NaN is not allowed)"),
    "flags validate: Infinity score": err(
        {"bad.jsonl": flag().replace('"score": 1.0', '"score": -Infinity')}, VALIDATE, "bad.jsonl",
        ":1: invalid JSON (-Infinity is not allowed)"),
    "flags validate: score overflowing to inf": err(
        {"bad.jsonl": flag().replace('"score": 1.0', '"score": 1e999')}, VALIDATE, "bad.jsonl",
        "field 'score': score must be finite"),
    "flags validate: byte-order mark": err({"bad.jsonl": BOM + flag()}, VALIDATE, "bad.jsonl",
                                           ":1: invalid JSON"),
    "flags validate: unknown schema version": err({"bad.jsonl": flag(schema_version=2)}, VALIDATE,
                                                  "bad.jsonl", "schema_version 2 is not supported"),
    "flags validate: bad date": err({"bad.jsonl": flag(created_at="yesterday")}, VALIDATE, "bad.jsonl",
                                    "field 'created_at': 'yesterday' does not match"),
    "flags validate: p-value above 1": err({"bad.jsonl": flag(p_value=2)}, VALIDATE, "bad.jsonl",
                                           "field 'p_value': 2 is greater than the maximum of 1"),
    "flags validate: verdict of the wrong type": err(
        {"bad.jsonl": flag(contaminated="yes")}, VALIDATE, "bad.jsonl",
        "field 'contaminated': 'yes' is not of type 'boolean', 'null'"),
    "flags validate: a line that is a list": err({"bad.jsonl": "[1, 2]\n"}, VALIDATE, "bad.jsonl",
                                                 ":1: expected a JSON object, got list"),
    "flags validate: unknown field": err({"bad.jsonl": flag(extra=1)}, VALIDATE, "bad.jsonl",
                                         "Additional properties are not allowed ('extra' was unexpected)"),
    "flags validate: duplicate ids": err({"bad.jsonl": flag() + flag()}, VALIDATE, "bad.jsonl",
                                         "duplicate record for benchmark=swe-bench-verified "
                                         "instance_id=a__b-1 model=* method=test"),
    "flags validate: missing file": err({}, VALIDATE, "bad.jsonl", "no such flags file or folder"),
    "flags validate: folder without flags": err({"bad.jsonl": None}, VALIDATE, "bad.jsonl",
                                                "folder holds no *.jsonl flags file"),
    # documented: a flags file is JSON Lines; an empty one holds zero records and says so
    "flags validate: empty file": outcome({"bad.jsonl": ""}, VALIDATE, "bad.jsonl: 0 valid records"),
    # documented: no line-length limit; a 5 MB evidence string is one valid record
    "flags validate: huge line": outcome({"bad.jsonl": flag(evidence={"log": "x" * 5_000_000})},
                                         VALIDATE, "bad.jsonl: 1 valid record"),
    # ------------------------------------------------------------------------ flags show / merge
    "flags show: non-UTF-8 second line": err({"bad.jsonl": flag().encode() + b"\xff\xfe\n"},
                                             ["flags", "show", "{tmp}/bad.jsonl"], "bad.jsonl",
                                             ":2: not UTF-8 (invalid start byte)"),
    "flags merge: NaN in the second input": err(
        {"bad.jsonl": flag().replace('"score": 1.0', '"score": NaN')},
        ["flags", "merge", "{tmp}/flags.jsonl", "{tmp}/bad.jsonl", "-o", "{tmp}/out.jsonl"],
        "bad.jsonl", ":1: invalid JSON (NaN is not allowed)"),
    "flags merge: already-merged input": err(
        {"merged.jsonl": flag(method="merged")},
        ["flags", "merge", "{tmp}/flags.jsonl", "{tmp}/merged.jsonl", "-o", "{tmp}/out.jsonl"],
        "merged.jsonl", "cannot merge already-merged flags (instance a__b-1)"),
    # documented (merge_flags): the same (benchmark, instance, model, method) twice -> the newest
    # created_at wins; here the later, clean record
    "flags merge: duplicate records": outcome(
        {"bad.jsonl": flag() + flag(contaminated=False, created_at="2026-02-01T00:00:00Z")},
        ["flags", "merge", "{tmp}/bad.jsonl", "-o", "{tmp}/out.jsonl"],
        "2 records from 1 file(s) -> 1 merged verdicts (0 contaminated, 1 clean, 0 undecided)"),
    # ------------------------------------------------------------------------- flags patch-dates
    "patch-dates: cutoffs with the wrong CSV header": err(
        {"cut.csv": "name,date\nm,2024-01\n"}, PATCH_DATES, "cut.csv",
        "a cutoffs CSV needs 'model' and 'cutoff' columns"),
    "patch-dates: no model with a known cutoff": err(
        {"cut.csv": "model,cutoff\nm,unknown\n"}, PATCH_DATES, "cut.csv", "no model has a known cutoff"),
    "patch-dates: instance with a bad date": err(
        {"instances.jsonl": instance(created_at="yesterday")}, PATCH_DATES, "instances.jsonl",
        ":1: instance 'a__b-1': created_at 'yesterday' is not an ISO date"),
    "patch-dates: instance date of the wrong type": err(
        {"instances.jsonl": instance(created_at=20230101)}, PATCH_DATES, "instances.jsonl",
        ":1: instance 'a__b-1': created_at 20230101 is not an ISO date"),
    "patch-dates: missing instance id": err(
        {"instances.jsonl": without(INSTANCE, "instance_id")}, PATCH_DATES, "instances.jsonl",
        ":1: instance '?' lacks field(s) instance_id"),
    "patch-dates: empty instances file": err({"instances.jsonl": ""}, PATCH_DATES, "instances.jsonl",
                                             "no instances"),
    "patch-dates: --dates file of garbage": err(
        {"dates.jsonl": "garbage\n"}, [*PATCH_DATES, "--dates", "{tmp}/dates.jsonl"], "dates.jsonl",
        ":1: not valid JSON (Expecting value)"),
    # ------------------------------------------------------------------------------------ score
    "score: labels with the wrong CSV header": err(
        {"bad.csv": "id,truth\na__b-1,1\n"}, SCORE, "bad.csv",
        "labels need 'instance_id' and 'label' columns (has id, truth)"),
    "score: unknown label value": err({"bad.csv": "instance_id,label\na__b-1,maybe\n"}, SCORE, "bad.csv",
                                      "row 1: label 'maybe' is not one of 1/0, true/false"),
    "score: empty labels file": err({"bad.csv": ""}, SCORE, "bad.csv",
                                    "cannot read as csv (No columns to parse from file)"),
    "score: duplicate labels": err({"bad.csv": "instance_id,label\na__b-1,1\na__b-1,0\n"}, SCORE,
                                   "bad.csv", "duplicate label for instance a__b-1"),
    "score: non-UTF-8 labels": err({"bad.csv": b"instance_id,label\na__b-\xe9,1\n"}, SCORE, "bad.csv",
                                   "cannot read as csv ('utf-8' codec can't decode byte 0xe9"),
    # pandas' tokenizer message ends in a newline: still one line
    "score: binary labels": err({"bad.csv": BINARY}, SCORE, "bad.csv", "cannot read as csv ("),
    "score: labels path is a folder": err({"bad.csv": None}, SCORE, "bad.csv", "a folder, not a table file"),
    "score: labels of an unknown file type": err(
        {"bad.txt": "instance_id,label\n"}, [*SCORE[:4], "{tmp}/bad.txt"], "bad.txt",
        "unsupported file type (use one of .jsonl, .json, .csv, .parquet)"),
    "score: labels .parquet of garbage": err(
        {"bad.parquet": b"PAR1 garbage"}, [*SCORE[:4], "{tmp}/bad.parquet"], "bad.parquet",
        "cannot read as parquet"),
    "score: no label matches a flag": err({"bad.csv": "instance_id,label\nzzz,1\n"}, SCORE, "bad.csv",
                                          "no label matches any flag in"),
    # documented (pandas reads CSV as UTF-8 with an optional BOM): the header is instance_id
    "score: labels with a byte-order mark": outcome(
        {"bad.csv": BOM + "instance_id,label\na__b-1,1\na__b-2,0\n"}, SCORE, "auc"),
    # ---------------------------------------------------------------------------------- rescore
    "rescore: empty results file": err({"m.run1.json": ""}, rescore(), "m.run1.json",
                                       "malformed JSON (Expecting value at line 1)"),
    "rescore: binary results file": err({"m.run1.json": BINARY}, rescore(), "m.run1.json",
                                        "not UTF-8 (invalid start byte)"),
    "rescore: results that are a list": err({"m.run1.json": "[1, 2]"}, rescore(), "m.run1.json",
                                            "unrecognised results file"),
    "rescore: resolved ids of the wrong type": err(
        {"m.run1.json": json.dumps({"resolved_ids": "a__b-1"})}, rescore(), "m.run1.json",
        "field 'resolved_ids' must be a list of instance id strings"),
    # (with --instances naming a subset, ids outside it are simply not in it: tests/flows/test_issue39_subset.py)
    "rescore: resolved id outside the benchmark's tiers": err(
        {"m.run1.json": json.dumps({"resolved_ids": ["zzz"]}),
         "tiers.csv": "instance_id,difficulty\na__b-1,<15 min fix\na__b-2,<15 min fix\n"},
        rescore("{tmp}/m.run1.json", "{tmp}/flags.jsonl", "{tmp}/ids.json", "--tiers", "{tmp}/tiers.csv"),
        "m.run1.json", "1 resolved instance ids are not in the benchmark's instance list: zzz"),
    "rescore: duplicate instance ids": err({"ids.json": json.dumps(["a__b-1", "a__b-1"])}, rescore(),
                                           "ids.json", "duplicate instance ids: a__b-1"),
    "rescore: empty instance list": err({"ids.json": "[]"}, rescore(), "ids.json", "no instances"),
    "rescore: unknown tier label": err(
        {"tiers.csv": "instance_id,difficulty\na__b-1,trivial\na__b-2,<15 min fix\n"},
        rescore("{tmp}/m.run1.json", "{tmp}/flags.jsonl", "{tmp}/ids.json", "--tiers",
                "{tmp}/tiers.csv"), "tiers.csv", "unknown SWE-bench Verified difficulty label(s) 'trivial'"),
    "rescore: missing tiers file": err(
        {}, rescore("{tmp}/m.run1.json", "{tmp}/flags.jsonl", "{tmp}/ids.json", "--tiers",
                    "{tmp}/nope.csv"), "nope.csv", "no such file"),
    "rescore: missing results path": err({}, rescore("{tmp}/nope.json"), "nope.json", "does not exist"),
    "rescore: lm-eval samples of garbage": err(
        {"samples_x.jsonl": "garbage\n"}, rescore("{tmp}/samples_x.jsonl"), "samples_x.jsonl",
        ":1: malformed JSON"),
    # documented (leaderboard/_swebench.py): a malformed per-instance report.json is an error of
    # that instance, counted unresolved and noted, never resolved
    "rescore: malformed report.json in the instance logs": outcome(
        {"logs/a__b-1/report.json": "{", "logs/a__b-2/report.json": '{"a__b-2": {"resolved": true}}'},
        rescore("{tmp}/logs"), "1 instances failed to evaluate and count as unresolved"),
    # ------------------------------------------------------------------------------ leaderboard
    "leaderboard: truncated results.json": err(
        submission('{"resolved": ['), leaderboard(), "subs/20240101_a/results/results.json",
        "malformed JSON (Expecting value at line 1)"),
    "leaderboard: malformed metadata.yaml": err(
        submission(extra={"metadata.yaml": "info: [unclosed\n"}), leaderboard(),
        "subs/20240101_a/metadata.yaml",
        "malformed YAML (expected ',' or ']', but got '<stream end>' at line 2, column 1)"),
    "leaderboard: non-UTF-8 metadata.yaml": err(
        submission(extra={"metadata.yaml": BINARY}), leaderboard(), "subs/20240101_a/metadata.yaml",
        "not UTF-8 text (invalid start byte at byte 0)"),
    "leaderboard: malformed leaderboard_entry.json": err(
        submission(extra={"leaderboard_entry.json": "{"}), leaderboard(),
        "subs/20240101_a/leaderboard_entry.json", "malformed JSON"),
    "leaderboard: model map with the wrong header": err(
        {**submission(), "map.csv": "name,who\n20240101_a,m\n"},
        leaderboard("--model-map", "{tmp}/map.csv"), "map.csv",
        "a model map needs 'submission' and 'model' (or 'models') columns"),
    "leaderboard: model map naming a submission twice": err(
        {**submission(), "map.csv": "submission,model\n20240101_a,m\n20240101_a,n\n"},
        leaderboard("--model-map", "{tmp}/map.csv"), "map.csv", "duplicate submissions: 20240101_a"),
    "leaderboard: empty submissions folder": err({"subs": None}, leaderboard(), "subs",
                                                 "no results found"),
    # ------------------------------------------------------------------------- swebench rescore
    "swebench rescore: duplicate resolved ids": err(
        {"m.run1.json": json.dumps({"resolved_ids": ["a__b-1", "a__b-1"]})},
        ["swebench", "rescore", "{tmp}/m.run1.json", "--flags", "{tmp}/flags.jsonl", "--instances",
         "{tmp}/ids.json", "--n-boot", "0"], "m.run1.json",
        "field 'resolved_ids' lists duplicate instance ids: a__b-1"),
    "swebench rescore: final_report.json of the wrong type": err(
        {"final_report.json": '{"resolved_ids": 3}'},
        ["swebench", "rescore", "{tmp}/final_report.json", "--flags", "{tmp}/flags.jsonl",
         "--instances", "{tmp}/ids.json", "--n-boot", "0"], "final_report.json",
        "field 'resolved_ids' must be a list of instance id strings"),
    # --------------------------------------------------------------------------- patch-presence
    "patch-presence: binary instances": err(
        {"bad.jsonl": BINARY}, [*PATCH, "--cutoff", "2024-01-01", "--instances", "{tmp}/bad.jsonl"],
        "bad.jsonl", "not UTF-8 text (invalid start byte at byte 0)"),
    "patch-presence: empty instances file": err(
        {"bad.jsonl": ""}, [*PATCH, "--cutoff", "2024-01-01", "--instances", "{tmp}/bad.jsonl"],
        "bad.jsonl", "no instances (the file holds no record)"),
    "patch-presence: instances with a byte-order mark": err(
        {"bad.jsonl": BOM + instance()},
        [*PATCH, "--cutoff", "2024-01-01", "--instances", "{tmp}/bad.jsonl"], "bad.jsonl",
        ":1: not valid JSON (Unexpected UTF-8 BOM"),
    "patch-presence: instance without a patch": err(
        {"bad.jsonl": without(INSTANCE, "patch")},
        [*PATCH, "--cutoff", "2024-01-01", "--instances", "{tmp}/bad.jsonl"], "bad.jsonl",
        ":1: instance 'a__b-1' lacks field(s) patch"),
    "patch-presence: FAIL_TO_PASS not a list": err(
        {"bad.jsonl": instance(FAIL_TO_PASS="[oops")},
        [*PATCH, "--cutoff", "2024-01-01", "--instances", "{tmp}/bad.jsonl"], "bad.jsonl",
        "field 'FAIL_TO_PASS' is neither a list nor a JSON list"),
    "patch-presence: .json instances that are an object": err(
        {"bad.json": '{"a": 1}'}, [*PATCH, "--cutoff", "2024-01-01", "--instances", "{tmp}/bad.json"],
        "bad.json", "expected a JSON list of instances"),
    "patch-presence: missing instances file": err(
        {}, [*PATCH, "--cutoff", "2024-01-01", "--instances", "{tmp}/nope.jsonl"], "nope.jsonl",
        "instances file not found"),
    "patch-presence: cutoff that is not a period": err(
        {"cut.csv": "model,cutoff\nm,last spring\n"},
        [*PATCH, "--instances", "{tmp}/instances.jsonl", "--cutoffs", "{tmp}/cut.csv"], "cut.csv",
        "row 2: model 'm': cutoff 'last spring' is not YYYY, YYYY-MM, YYYY-MM-DD or an ISO "
        "datetime (YYYY-MM-DDTHH:MM[:SS][Z|+HH:MM])"),
    "patch-presence: one model with two cutoffs": err(
        {"cut.csv": "model,cutoff\nm,2024-01\nm,2023-01\n"},
        [*PATCH, "--instances", "{tmp}/instances.jsonl", "--cutoffs", "{tmp}/cut.csv"], "cut.csv",
        "model 'm' has two cutoffs, 2024-01 (row 2) and 2023-01 (row 3)"),
    "patch-presence: non-UTF-8 cutoffs": err(
        {"cut.csv": b"model,cutoff\n\xe9,2024-01\n"},
        [*PATCH, "--instances", "{tmp}/instances.jsonl", "--cutoffs", "{tmp}/cut.csv"], "cut.csv",
        "the cutoffs file is not UTF-8 text"),
    "patch-presence: JSON cutoff that is a number": err(
        {"cut.json": '{"m": 2024}'},
        [*PATCH, "--instances", "{tmp}/instances.jsonl", "--cutoffs", "{tmp}/cut.json"], "cut.json",
        "cutoff 2024 of model 'm' is not a string"),
    "patch-presence: Defects4J table with the wrong header": err(
        {"d4j/Lang/active-bugs.csv": "id,buggy,fixed\n1,abc,def\n"},
        [*PATCH, "--cutoff", "2024-01-01", "--instances", "{tmp}/d4j"], "d4j/Lang/active-bugs.csv",
        "no column(s) bug.id, revision.id.buggy (has id, buggy, fixed)"),
    "patch-presence: empty Defects4J table": err(
        {"d4j/Lang/active-bugs.csv": ""},
        [*PATCH, "--cutoff", "2024-01-01", "--instances", "{tmp}/d4j"], "d4j/Lang/active-bugs.csv",
        "(has no header)"),
    "patch-presence: non-UTF-8 Defects4J table": err(
        {"d4j/Lang/active-bugs.csv": BINARY},
        [*PATCH, "--cutoff", "2024-01-01", "--instances", "{tmp}/d4j"], "d4j/Lang/active-bugs.csv",
        "not UTF-8 text"),
    "patch-presence: BugsInPy bug without a buggy commit": err(
        {"bip/projects/p/bugs/1/bug.info": 'fixed_commit_id="abc"\n',
         "bip/projects/p/bugs/1/bug_patch.txt": INSTANCE["patch"]},
        [*PATCH, "--cutoff", "2024-01-01", "--instances", "{tmp}/bip"],
        "bip/projects/p/bugs/1/bug.info", "instance 'p-1' has no buggy_commit_id"),
    "patch-presence: Multi-SWE-bench repository escaping": err(
        {"msb.jsonl": json.dumps({**MSB, "org": ".."}) + "\n"},
        [*PATCH, "--cutoff", "2024-01-01", "--format", "multi-swe-bench", "--instances",
         "{tmp}/msb.jsonl"], "msb.jsonl", ":1: instance '..__b-1': repository '../b' is not 'owner/name'"),
    "patch-presence: empty Multi-SWE-bench file": err(
        {"msb.jsonl": ""}, [*PATCH, "--cutoff", "2024-01-01", "--format", "multi-swe-bench",
                            "--instances", "{tmp}/msb.jsonl"], "msb.jsonl", "no multi-swe-bench instances"),
    # ------------------------------------------------------------------------------ repos fetch
    "repos fetch: repository escaping the clones folder": err(
        {"bad.jsonl": instance(repo="../x")}, [*FETCH, "{tmp}/bad.jsonl"], "bad.jsonl",
        ":1: instance 'a__b-1': repository '../x' is not 'owner/name'"),
    "repos fetch: truncated .json instances": err(
        {"bad.json": '[{"instance_id": '}, [*FETCH, "{tmp}/bad.json"], "bad.json",
        "not valid JSON (Expecting value, line 1)"),
    "repos fetch: empty instances file": err({"bad.jsonl": ""}, [*FETCH, "{tmp}/bad.jsonl"], "bad.jsonl",
                                             "no instances"),
    # ------------------------------------------------------------- repo-presence, calibrate, baselines
    "repo-presence: calibration file of garbage": err(
        {"calib.json": "garbage"}, [*PRESENCE, "--repo", "{tmp}/src", "--p0", "{tmp}/calib.json"],
        "calib.json", "not a calibration file (needs a numeric 'p0')"),
    "repo-presence: calibration p0 out of range": err(
        {"calib.json": '{"p0": 1.5}'}, [*PRESENCE, "--repo", "{tmp}/src", "--p0", "{tmp}/calib.json"],
        "calib.json", "'p0' must lie in (0, 1), got 1.5"),
    "repo-presence: binary instances": err(
        {"bad.jsonl": BINARY}, [*PRESENCE, "--repo", "{tmp}/src", "--instances", "{tmp}/bad.jsonl",
                                "--repo-name", "a/b"], "bad.jsonl", "not UTF-8 text"),
    "repo-presence: repository without source": err(
        {"empty": None}, [*PRESENCE, "--repo", "{tmp}/empty"], "empty", "no python source files"),
    "repo-presence calibrate: repository without source": err(
        {"empty": None}, ["repo-presence", "calibrate", *DRY, "--repo", "{tmp}/empty", "-o",
                          "{tmp}/calib.json"], "empty", "no python source files"),
    "baselines: repository without source": err(
        {"empty": None}, ["baselines", *DRY, "--repo", "{tmp}/empty", "-o", "{tmp}/b.jsonl"], "empty",
        "no python source files"),
    # --------------------------------------------------------------------------------- ts-guess
    "ts-guess: MMLU row with three fields": err(
        {"mmlu/astronomy_test.csv": "just,three,fields\n"}, MMLU, "mmlu/astronomy_test.csv",
        "row 0 has 3 fields, expected 6 (question, four choices, answer)"),
    "ts-guess: non-UTF-8 MMLU file": err(
        {"mmlu/astronomy_test.csv": f"{QUESTION},a,b,c,d,A\n".encode() + b"\xe9t\xe9,a,b,c,d,A\n"},
        MMLU, "mmlu/astronomy_test.csv", "not UTF-8 text (invalid continuation byte)"),
    "ts-guess: MMLU answer out of range": err(
        {"mmlu/astronomy_test.csv": f"{QUESTION},Jupiter,Saturn,Earth,Mars,Z\n"}, MMLU,
        "mmlu/astronomy_test.csv", "field 'answer' is 'Z', expected 0-3 or A-D"),
    "ts-guess: MMLU folder without files": err({"mmlu": None}, MMLU, "mmlu", "no *_test.csv files"),
    # documented (utf-8-sig): a byte-order mark is no part of the first question
    "ts-guess: MMLU file with a byte-order mark": outcome(
        {"mmlu/astronomy_test.csv": f"{BOM}{QUESTION},Jupiter,Saturn,Earth,Mars,A\n"}, MMLU,
        "mmlu multichoice: 1 probes"),
    "ts-guess: TruthfulQA with the wrong header": err(
        {"tq.csv": "a,b\n1,2\n"}, TQA, "tq.csv",
        "missing column(s) Type, Category, Question, Best Answer, Incorrect Answers"),
    "ts-guess: TruthfulQA row cut short": err(
        {"tq.csv": TQA_HEADER + "Adversarial,Misconceptions\n"}, TQA, "tq.csv",
        "line 2: missing field(s) Question, Best Answer, Incorrect Answers"),
    "ts-guess: binary TruthfulQA": err({"tq.csv": BINARY}, TQA, "tq.csv", "not UTF-8 text"),
    # documented (utf-8-sig): with a byte-order mark the header still starts with "Type"
    "ts-guess: TruthfulQA with a byte-order mark": outcome(
        {"tq.csv": BOM + TQA_HEADER + TQA_ROW}, TQA, "truthfulqa multichoice: 1 probes"),
    # ------------------------------------------------------------------------------------ check
    "check: --data for an unknown benchmark": err(
        {}, [*CHECK, "--benchmarks", "mmlu", "--data", "nope={tmp}/ids.json"], "ids.json",
        "--data nope=", ),
    "check: instances of garbage": err(
        {"bad.jsonl": "garbage\n"},
        [*CHECK, "--benchmarks", "swe-bench-verified", "--repos-dir", "{tmp}/repos", "--data",
         "swe-bench-verified={tmp}/bad.jsonl"], "bad.jsonl", ":1: not valid JSON (Expecting value)"),
    "check: MMLU row with one field": err(
        {"mmlu/astronomy_test.csv": "x\n"}, [*CHECK, "--benchmarks", "mmlu", "--data", "mmlu={tmp}/mmlu"],
        "mmlu/astronomy_test.csv", "row 0 has 1 fields, expected 6"),
    # ------------------------------------------------------------------------------------ cache
    "cache stats: a cache file that is no database": err(
        {"cache/responses.sqlite3": b"garbage" * 100}, ["cache", "stats", "--cache-dir", "{tmp}/cache"],
        "cache/responses.sqlite3", "not a usable SQLite database (file is not a database)"),
    "cache clear: a cache file that is no database": err(
        {"cache/responses.sqlite3": b"garbage" * 100},
        ["cache", "clear", "--cache-dir", "{tmp}/cache", "--yes"], "cache/responses.sqlite3",
        "not a usable SQLite database"),
    # ----------------------------------------------------------------- flags from-lm-eval / inspect
    "flags from-lm-eval: non-UTF-8 samples": err({SAMPLES: BINARY}, FROM_LM_EVAL, SAMPLES,
                                                 ":1: not UTF-8 (invalid start byte)"),
    "flags from-lm-eval: empty samples file": err({SAMPLES: ""}, FROM_LM_EVAL, SAMPLES,
                                                  "no samples (an empty file)"),
    "flags from-lm-eval: not a TS-Guessing sample": err(
        {SAMPLES: '{"doc_id": 0}\n'}, FROM_LM_EVAL, SAMPLES, ":1: not a TS-Guessing sample (missing 'doc')"),
    "flags from-inspect: JSON that is no log": err(
        {"log.json": "{"}, ["flags", "from-inspect", "{tmp}/log.json", "-o", "{tmp}/out.jsonl"],
        "log.json", "cannot read Inspect log"),
    # ----------------------------------------------------------------- harness wrappers' inputs
    "swebench run_evaluation: filter of garbage": err(
        {"bad.jsonl": "garbage\n"},
        [*SWEBENCH_RUN, "--dataset_name", "{tmp}/instances.jsonl", "--contamination-filter",
         "{tmp}/bad.jsonl"], "bad.jsonl", ":1: invalid JSON"),
    "swebench run_evaluation: binary dataset": err(
        {"bad.jsonl": BINARY},
        [*SWEBENCH_RUN, "--dataset_name", "{tmp}/bad.jsonl", "--contamination-filter",
         "{tmp}/flags.jsonl"], "bad.jsonl", "cannot load split 'test' (UnicodeDecodeError"),
    "swebench run_evaluation: cutoffs with the wrong header": err(
        {"cut.csv": "a,b\n"},
        [*SWEBENCH_RUN, "--dataset_name", "{tmp}/instances.jsonl", "--contamination-detect",
         "--repos-dir", "{tmp}/repos", "--cutoffs", "{tmp}/cut.csv", "--dry-run"], "cut.csv",
        "a cutoffs CSV needs 'model' and 'cutoff' columns"),
    "inspect eval: filter of garbage": err(
        {"bad.jsonl": "garbage\n"}, ["inspect", "eval", "task.py", "--contamination-filter",
                                     "{tmp}/bad.jsonl"], "bad.jsonl", ":1: invalid JSON"),
    # ------------------------------------------------------------------------------ demo, models
    # documented (demo --help): a step that fails is reported failed, naming why, and the run fails
    "demo: garbage benchmark file": outcome(
        {"data/swebench_verified/swebench_verified_composite.jsonl": "garbage\n"},
        ["demo", "--only", "leaderboard", "--data-dir", "{tmp}/data", "-o", "{tmp}/demo"],
        "swebench_verified_composite.jsonl:1: not valid JSON (Expecting value)", code=1),
    # documented (demo --help): without the data the steps are skipped, and say so
    "demo: --data-dir without the data": outcome(
        {"data": None}, ["demo", "--only", "leaderboard", "--data-dir", "{tmp}/data", "-o",
                         "{tmp}/demo"], "skipped in 0 s: no data folder"),
    # documented (models path --help): a local model folder is printed as it is
    "models path: empty folder": outcome({"model": None}, ["models", "path", "hf/{tmp}/model"], "model"),
}


def _write(root: Path, files: Mapping[str, str | bytes | None]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if content is None:
            path.mkdir(exist_ok=True)
        else:
            path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))


def _hashes(root: Path) -> dict[Path, str]:
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in root.rglob("*") if p.is_file()}


def test_the_corpus_spans_the_commands() -> None:
    """Issue 14: at least 60 bad inputs in tests/robustness/ (this file holds most of them)."""
    commands = {" ".join(a for a in c.argv[:2] if not a.startswith(("-", "{"))) for c in CASES.values()}
    assert len(CASES) >= 60 and len(commands) >= 20, sorted(commands)


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case = CASES[name]
    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.setenv(var, "1")   # nothing is fetched, whatever a case asks for
    monkeypatch.setenv("BENCHCHECKER_CACHE_DIR", str(tmp_path / "cache-home"))
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, {**BASE, **case.files})
    before = _hashes(tmp_path)

    res = CliRunner().invoke(main, [a.format(tmp=tmp_path) for a in case.argv])

    output = res.stdout + res.stderr
    crashed = res.exception is not None and not isinstance(res.exception, SystemExit)
    assert not crashed, "".join(traceback.format_exception(res.exception))
    assert "Traceback" not in output
    assert res.exit_code == case.code, output
    errors = [ln for ln in res.stderr.splitlines() if ln.startswith("Error:")]
    if case.names is None:   # a documented outcome
        assert case.message in output, output
        assert len(errors) == (0 if case.code == 0 else 1), output
    else:
        assert len(errors) == 1, res.stderr
        line = errors[0]
        assert res.stderr.rstrip().splitlines()[-1] == line, res.stderr   # one line, the last
        assert str(tmp_path / case.names) in line, line
        assert case.message in line, line
    assert {p: h for p, h in _hashes(tmp_path).items() if p in before} == before
