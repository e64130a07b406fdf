"""Issue 14, item 13: malformed inputs that gave tracebacks now end in one line naming the input
and exit 2, and leave the input unchanged."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from tests.helpers import require_shared_data


def _deep(n: int) -> str:
    return "[" * n + "]" * n


CASES = {
    "flags line 200k deep": ("flags.jsonl", _deep(200_000) + "\n",
                             ["flags", "validate", "{path}"], "nested too deeply"),
    "instances .json of strings": ("instances.json", json.dumps(["a", "b"]),
                                   ["patch-presence", "--instances", "{path}", "--repos-dir",
                                    "{tmp}", "--cutoff", "2024-01-01", "-o", "{tmp}/o.jsonl"],
                                   "an instance is a JSON object, got str"),
    "instances .jsonl 200k deep": ("instances.jsonl", _deep(200_000) + "\n",
                                   ["patch-presence", "--instances", "{path}", "--repos-dir",
                                    "{tmp}", "--cutoff", "2024-01-01", "-o", "{tmp}/o.jsonl"],
                                   "nested too deeply"),
    "instances .jsonl line is a number": ("instances.jsonl", "42\n",
                                          ["patch-presence", "--instances", "{path}",
                                           "--repos-dir", "{tmp}", "--cutoff", "2024-01-01",
                                           "-o", "{tmp}/o.jsonl"],
                                          "an instance is a JSON object, got int"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_malformed_input_is_one_line(case: str, tmp_path: Path) -> None:
    name, text, argv, message = CASES[case]
    path = tmp_path / name
    path.write_text(text)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    res = CliRunner().invoke(main, [a.format(path=path, tmp=tmp_path) for a in argv])
    assert res.exit_code == 2, res.output
    [line] = [ln for ln in res.stderr.splitlines() if ln.startswith("Error:")]
    assert str(path) in line and message in line
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_an_empty_model_folder_is_not_a_model(tmp_path: Path) -> None:
    data = require_shared_data("mmlu")
    (tmp_path / "empty").mkdir()
    res = CliRunner().invoke(main, ["ts-guess", "--benchmark", "mmlu", "--data", str(data),
                                    "--limit", "1", "--model", f"hf/{tmp_path / 'empty'}",
                                    "--no-cache", "-o", str(tmp_path / "f.jsonl")])
    assert res.exit_code == 2, res.output
    assert "is not a model folder (no config.json)" in res.stderr
