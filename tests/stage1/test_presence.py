"""Stage I end to end with two stand-in models: one that has memorised the repository (continues
any prompt with the text that follows it in the files) and one that has not."""

import importlib.util
import math
from pathlib import Path

import pytest

from benchchecker_plugin.flags import STAGE1_METHOD
from benchchecker_plugin.stage1 import (
    MiningConfig,
    SourceFile,
    build_queries,
    presence_flags,
    read_sources,
    repo_presence,
)
from tests.helpers import ScriptedModel


def memoriser(files, seen=True) -> ScriptedModel:  # noqa: ANN001
    """Continues a prompt with the 60 characters that follow it in ``files`` when ``seen``, else
    (or when no file holds it) with a name no file has."""
    texts = [f.text for f in files] if seen else []

    def continuation(prompt: str, params: object) -> str:
        for t in texts:
            i = t.find(prompt)
            if i >= 0:
                return t[i + len(prompt):i + len(prompt) + 60]
        return "xyz_unknown"

    return ScriptedModel(continuation, spec="memoriser")


@pytest.fixture(scope="module")
def click_files():
    root = Path(importlib.util.find_spec("click").submodule_search_locations[0])
    return read_sources(root)[:6]


def test_memorised_repository_is_detected_and_unseen_is_not(click_files):
    queries = build_queries(click_files, n_queries=30)
    assert len(queries) == 30
    seen = repo_presence(memoriser(click_files), click_files, queries=queries, n_samples=2,
                         name="click")
    assert seen.test.hits == 30 and seen.test.contaminated is True
    assert seen.score == pytest.approx(-math.log10(0.08 ** 30))
    unseen = repo_presence(memoriser(click_files, seen=False), click_files, queries=queries,
                           n_samples=2, name="click")
    assert unseen.test.hits == 0 and unseen.test.contaminated is False and unseen.score == 0.0
    (flag,) = presence_flags(seen)
    assert (flag.benchmark, flag.instance_id, flag.method) == ("repo", "click", STAGE1_METHOD)
    assert flag.contaminated is True and flag.p_value == pytest.approx(0.08 ** 30)
    assert flag.evidence["hits"] == 30 and flag.evidence["queries"] == 30
    flags = presence_flags(unseen, instances=[("swe-bench-verified", "a-1"), ("swe-bench-verified", "a-2")])
    assert [f.instance_id for f in flags] == ["a-1", "a-2"] and all(f.contaminated is False for f in flags)


def test_queries_are_deterministic_and_filtered(click_files):
    a = build_queries(click_files, n_queries=20, seed=3)
    assert a == build_queries(click_files, n_queries=20, seed=3)
    assert a != build_queries(click_files, n_queries=20, seed=4)
    for q in a:
        text = next(f.text for f in click_files if f.path == q.path)
        assert text[q.offset:q.offset + len(q.target)] == q.target
        assert text[:q.offset].rstrip().endswith(q.query)


def test_small_mining_config_finds_more_in_small_trees(click_files):
    small = [SourceFile(f.path, f.text[:3000]) for f in click_files[:2]]
    assert len(build_queries(small, n_queries=500, mining=MiningConfig.small())) > \
        len(build_queries(small, n_queries=500))


def test_plain_folder_input_and_errors(tmp_path):
    from benchchecker_plugin.errors import InputError

    with pytest.raises(InputError, match="is not a folder"):
        read_sources(tmp_path / "missing")
    with pytest.raises(InputError, match="--language 'cobol'"):
        read_sources(tmp_path, language="cobol")
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.txt").write_text("no")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "c.py").write_text("y = 2\n")
    assert [f.path for f in read_sources(tmp_path)] == ["a.py"]


def test_git_repository_is_read_at_the_cutoff(tmp_path):
    import subprocess

    def git(*args, date="2020-01-01T00:00:00Z"):
        env = {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_NAME": "t",
               "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
               "PATH": "/usr/bin:/bin"}
        subprocess.run(["git", *args], cwd=tmp_path, env=env, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    (tmp_path / "old.py").write_text("x = 1\n")
    git("add", "old.py")
    git("commit", "-q", "-m", "one", date="2020-01-01T00:00:00Z")
    (tmp_path / "new.py").write_text("y = 2\n")
    git("add", "new.py")
    git("commit", "-q", "-m", "two", date="2022-01-01T00:00:00Z")
    assert [f.path for f in read_sources(tmp_path, cutoff="2021-01-01")] == ["old.py"]
    assert [f.path for f in read_sources(tmp_path, cutoff="2023-01-01")] == ["new.py", "old.py"]
    assert [f.path for f in read_sources(tmp_path)] == ["new.py", "old.py"]
