"""``check_outputs_outside_inputs``: an output may not be, or lie inside, an input (by real path),
one line naming both; ``benchchecker check`` refuses ``-o`` inside its ``--corpus`` before any work."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.cli._outputs import check_outputs_outside_inputs
from benchchecker_plugin.errors import InputError


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "a.jsonl").write_text(json.dumps({"id": "d", "text": "a document"}) + "\n")
    (tmp_path / "link").symlink_to(root)
    return root


def _refused(outputs: list[tuple[str, object]], inputs: list[tuple[str, object]]) -> str:
    with pytest.raises(InputError) as err:
        check_outputs_outside_inputs(outputs, inputs)  # type: ignore[arg-type]
    return str(err.value)


def test_an_output_inside_an_input_folder_is_refused_by_real_path(corpus: Path, tmp_path: Path) -> None:
    inside = ("lies inside the input --corpus {src}; writing there would change it (a later run would "
              "read the output as input), choose a path outside it")
    for out in (corpus / "out.jsonl", corpus / "report", tmp_path / "link" / "out.jsonl",
                corpus / "sub" / ".." / "deep" / "x.jsonl"):
        assert _refused([("-o", out)], [("--corpus", corpus)]) == f"-o {out}: " + inside.format(src=corpus)
    out = tmp_path / "link" / "a.jsonl"   # a shard, through a link: the same file
    assert _refused([("-o", out)], [("--corpus", corpus / "a.jsonl")]) == (
        f"-o {out}: is the input --corpus {corpus / 'a.jsonl'}; writing there would destroy it, choose "
        "another path")
    assert _refused([("--state", corpus)], [("--corpus", f"hf:{corpus}#train")]).startswith(
        f"--state {corpus}: is the input --corpus {corpus};")
    assert _refused([("-o", tmp_path / "idx" / "benchchecker-index.json")],
                    [("--data", tmp_path / "none"), ("--index", tmp_path)]).startswith(
        f"-o {tmp_path / 'idx' / 'benchchecker-index.json'}: lies inside the input --index {tmp_path};")


def test_outputs_beside_inputs_pass(corpus: Path, tmp_path: Path) -> None:
    (tmp_path / "corpus-2").mkdir()   # a name that starts like the input's is not inside it
    check_outputs_outside_inputs(
        [("-o", tmp_path / "corpus-2" / "flags.jsonl"), ("--state", tmp_path / "state"),
         ("--index", tmp_path / "corpusx"), ("-o", None)],
        [("--corpus", corpus), ("--corpus", "hf:some/dataset"), ("--data", None),
         ("--corpus", corpus / "a.jsonl")])
    check_outputs_outside_inputs([("-o", tmp_path / "out")], [("--corpus", tmp_path / "out" / "corpus")])


def _sha(root: Path) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


DRY = ["--model", "openai-compatible/m", "--base-url", "http://127.0.0.1:9/v1", "--no-cache", "--dry-run"]


@pytest.mark.parametrize("where", ["corpus/report", "link/report", "corpus"])
def test_check_refuses_a_report_folder_inside_its_corpus(where: str, corpus: Path, tmp_path: Path) -> None:
    before = _sha(tmp_path)
    out = tmp_path / where
    res = CliRunner().invoke(main, ["check", *DRY, "--cutoff", "2024-01", "--benchmarks", "truthfulqa",
                                    "--corpus", str(corpus), "-o", str(out)])
    assert res.exit_code == 2, res.output
    errors = [ln for ln in res.output.splitlines() if ln.startswith("Error:")]
    assert len(errors) == 1 and "Traceback" not in res.output, res.output
    assert errors[0].startswith(f"Error: -o {out}: ") and f"the input{'' if where == 'corpus' else ' --corpus'} {corpus}" in errors[0]
    assert _sha(tmp_path) == before and not (corpus / "report").exists()


@pytest.mark.timeout(60)
def test_check_refuses_a_corpus_shard_it_cannot_read_before_the_run(corpus: Path, tmp_path: Path) -> None:
    os.mkfifo(corpus / "pipe.jsonl")
    res = CliRunner().invoke(main, ["check", *DRY, "--cutoff", "2024-01", "--benchmarks", "truthfulqa",
                                    "--corpus", str(corpus), "-o", str(tmp_path / "out")])
    assert res.exit_code == 2, res.output
    assert res.output.splitlines()[-1] == (f"Error: --corpus: {corpus / 'pipe.jsonl'}: is a FIFO (named "
                                           "pipe), not a regular file; refused, not opened; nothing was run")
