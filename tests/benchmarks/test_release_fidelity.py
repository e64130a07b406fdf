"""benchmarks/release_fidelity.py on a synthetic project with a clone and release snapshots: the
lag shows as a disagreement with its cause, and the lag correction removes it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from benchchecker_plugin.repos import SimpleIndex, fetch_releases, git
from tests.helpers.git_history import BUGGY, FIXED, PATCH, commit_all
from tests.helpers.local_index import LocalIndex

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "release_fidelity.py"


def _module():  # noqa: ANN202
    spec = importlib.util.spec_from_file_location("release_fidelity", SCRIPT)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def project(tmp_path: Path) -> dict[str, Path]:
    clone = tmp_path / "clones" / "o__calc"
    clone.mkdir(parents=True)
    git(clone, ["init", "-q"])
    (clone / "calc.py").write_text(BUGGY)
    base = commit_all(clone, "2022-01-01")
    (clone / "calc.py").write_text(FIXED)
    stamp = "2022-11-01T00:00:00+0000"
    git(clone, ["add", "-A"])
    git(clone, ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "Fix add_one (#7)"],
        env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    idx = LocalIndex(tmp_path / "index")
    idx.add("calc", "1.0", "2022-01-10T10:00:00Z", {"calc.py": BUGGY})
    idx.add("calc", "2.0", "2023-02-10T10:00:00Z", {"calc.py": FIXED})
    fetch_releases("calc", "o/calc", tmp_path / "releases", index=SimpleIndex(idx.file_url))
    insts = tmp_path / "insts.jsonl"
    insts.write_text(json.dumps({"instance_id": "o__calc-7", "repo": "o/calc", "base_commit": base,
                                 "patch": PATCH, "created_at": "2022-10-20T00:00:00Z"}) + "\n")
    cutoffs = tmp_path / "cutoffs.json"
    cutoffs.write_text(json.dumps({"a": "2022-06", "b": "2022-12", "c": "2023-06"}))
    return {"clones": tmp_path / "clones", "releases": tmp_path / "releases", "insts": insts,
            "cutoffs": cutoffs, "out": tmp_path / "out.json"}


@pytest.mark.parametrize(("margin", "agree_b", "causes_b"), [(None, 0, {"lag": 1}), ("60", 1, {})])
def test_fidelity_table_and_causes(project: dict[str, Path], margin: str | None, agree_b: int,
                                   causes_b: dict[str, int]) -> None:
    argv = ["--instances", str(project["insts"]), "--cutoffs", str(project["cutoffs"]),
            "--repos-dir", str(project["clones"]), "--releases-dir", str(project["releases"]),
            "--similarity", "difflib", "--json", str(project["out"]), "--out", str(project["out"].with_suffix(".md"))]
    saved = project["out"].parent / "flags"
    assert _module().main(argv + ["--save-flags", str(saved)] + (["--lag-margin", margin] if margin else [])) == 0
    assert len((saved / "releases.jsonl").read_text().splitlines()) == 3
    got = json.loads(project["out"].read_text())["cutoffs"]
    assert list(got) == ["2022-06", "2022-12", "2023-06"]
    assert got["2022-06"]["table"] == {"A>A": 1} and got["2023-06"]["table"] == {"P>P": 1}
    assert (got["2022-12"]["agree"], got["2022-12"]["causes"]) == (agree_b, causes_b)
    md = project["out"].with_suffix(".md").read_text()
    assert "| 2022-12 | 1 |" in md
    if margin is None:
        assert "- o__calc-7: git P, release A: lag" in md
    else:  # the same run read without the correction shows the lag
        before = json.loads(project["out"].read_text())["cutoffs_uncorrected"]["2022-12"]
        assert (before["agree"], before["causes"]) == (0, {"lag": 1})
