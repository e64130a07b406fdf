"""Acceptance of stage II on labelled histories built from real code, and bad input handling.

The history is built from the installed ``rich`` package's source tree (a pure-Python package,
a dependency of this project): every scenario of ``stage2.synthetic`` three times.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
import rich

from benchchecker_plugin.flags import STAGE2_METHOD
from benchchecker_plugin.instances import BugInstance
from benchchecker_plugin.repos import git
from benchchecker_plugin.scoring import rates_at_threshold, roc_auc_score
from benchchecker_plugin.stage2 import (
    EmbeddingSimilarity,
    LexicalSimilarity,
    PresenceConfig,
    RerankSimilarity,
    run_stage2,
    summary_line,
)
from benchchecker_plugin.stage2._synthetic import SCENARIOS, build_history

CUTOFF = datetime(2024, 1, 1, tzinfo=UTC)


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list]:
    root = tmp_path_factory.mktemp("repos")
    cases = build_history(Path(rich.__file__).parent, root / "synthetic__history", cutoff=CUTOFF,
                          per_scenario=3, seed=0)
    return root, cases


@pytest.fixture(scope="module")
def embedding() -> EmbeddingSimilarity:
    import torch

    torch.set_num_threads(2)
    return EmbeddingSimilarity()


def _metrics(cases, flags) -> tuple[float, float, float]:  # noqa: ANN001
    labels = [c.label for c in cases]
    auc = roc_auc_score(labels, [f.score for f in flags])
    rates = rates_at_threshold(labels, flags=[f.contaminated is True for f in flags])
    return auc, rates.tpr, rates.fpr


@pytest.mark.slow
def test_labelled_history_auc_and_ablations(history, embedding) -> None:  # noqa: ANN001
    root, cases = history
    assert {c.scenario for c in cases} == set(SCENARIOS) and len(cases) == 27
    configs = {
        "full": PresenceConfig(similarity=RerankSimilarity(LexicalSimilarity(), embedding)),
        "no-embeddings": PresenceConfig(similarity="difflib"),
        "no-preprocess": PresenceConfig(preprocess=False, similarity="difflib"),
        "exact": PresenceConfig(preprocess=False, similarity="exact"),
    }
    results = {}
    for name, config in configs.items():
        flags = list(run_stage2([c.instance for c in cases], root, {"m": CUTOFF}, config=config, reuse_counts=False).flags)
        assert all(f.method == STAGE2_METHOD and f.model == "m" and "error" not in f.evidence for f in flags)
        results[name] = (_metrics(cases, flags), flags)
    print({k: tuple(round(x, 3) for x in v[0]) for k, v in results.items()})
    auc, tpr, fpr = results["full"][0]
    assert auc >= 0.95 and fpr <= 0.05 and tpr >= 0.9
    assert results["no-embeddings"][0][0] >= 0.95
    # exact string matching on raw lines misses reformatted and commented fixes
    assert results["exact"][0][0] < auc and results["exact"][0][1] < tpr

    by_scenario: dict[str, list] = {}
    for case, flag in zip(cases, results["full"][1]):
        by_scenario.setdefault(case.scenario, []).append(flag)
    ev = lambda s: [f.evidence for f in by_scenario[s]]  # noqa: E731
    assert all(e["category"] == "file-or-function-gone" for e in ev("deleted"))
    assert all(e["category"] == "pre-patch-only" for e in ev("reverted"))
    assert all(e["blocks"][0]["how"] == "moved" for e in ev("moved"))
    assert all(e["blocks"][0]["how"] == "subtree" for e in ev("function-renamed"))
    assert all("renamed_" in e["blocks"][0]["found_in"] for e in ev("file-renamed"))
    assert all(f.score == 1.0 and f.contaminated for f in by_scenario["reformatted"])
    assert results["full"][1][0].evidence["similarity"] == "difflib+minilm:all-MiniLM-L6-v2-rerank"
    assert results["exact"][1][0].evidence["similarity"] == "exact"


def test_bad_input_fails_per_instance_and_the_run_goes_on(history, tmp_path: Path) -> None:  # noqa: ANN001
    root, cases = history
    good = cases[0].instance
    repo = root / "synthetic__history"
    head = git(repo, ["rev-parse", "HEAD"]).decode().strip()

    def variant(iid: str, **changes) -> BugInstance:  # noqa: ANN003
        fields = {"instance_id": iid, "benchmark": good.benchmark, "repo": good.repo,
                  "base_commit": good.base_commit, "patch": good.patch, **changes}
        return BugInstance(**fields)

    latin = repo / "latin1_module.py"
    latin.write_bytes("NAME = 'caf\xe9'\n".encode("latin-1"))
    git(repo, ["add", "latin1_module.py"])
    git(repo, ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "latin-1 file"],
        env={"GIT_AUTHOR_DATE": "2023-12-30T00:00:00+0000", "GIT_COMMITTER_DATE": "2023-12-30T00:00:00+0000"})
    latin_base = git(repo, ["rev-parse", "HEAD"]).decode().strip()
    try:
        insts = [
            good,
            variant("bad-malformed", patch="--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n-a\n"),
            variant("bad-binary", patch="diff --git a/x.png b/x.png\nBinary files a/x.png and b/x.png differ\n"),
            variant("bad-path", patch="--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n"),
            variant("bad-utf8", base_commit=latin_base,
                    patch="--- a/latin1_module.py\n+++ b/latin1_module.py\n@@ -1 +1 @@\n-NAME = 1\n+NAME = 2\n"),
            variant("bad-commit", base_commit="0" * 40),
            variant("bad-repo", repo="nobody/nothing"),
        ]
        flags = list(run_stage2(insts, root, {"*": CUTOFF}, config=PresenceConfig(similarity="difflib"), reuse_counts=False).flags)
    finally:
        git(repo, ["reset", "-q", "--hard", head])
    assert [f.instance_id for f in flags] == [i.instance_id for i in insts]
    assert flags[0].contaminated is not None and "error" not in flags[0].evidence
    errors = {f.instance_id: f.evidence["error"] for f in flags[1:]}
    assert all(f.contaminated is None and f.score == 0.0 for f in flags[1:])
    assert "malformed diff" in errors["bad-malformed"]
    assert "binary diff for 'x.png'" in errors["bad-binary"]
    assert "leaves the repository (refused)" in errors["bad-path"]
    assert "'latin1_module.py' is not UTF-8 text" in errors["bad-utf8"]
    assert f"commit {'0' * 40!r} not found" in errors["bad-commit"]
    assert "no clone of nobody/nothing" in errors["bad-repo"]
    assert all(f"instance {iid!r}" in msg for iid, msg in errors.items())
    assert summary_line(flags).endswith("6 failed")
    json.dumps([f.to_dict() for f in flags])  # evidence is JSON-serialisable


def test_named_keeps_the_error_and_its_context() -> None:
    """An error raised for an instance keeps its type and attributes; the instance is added as an
    attribute and named once in the message (it was rebuilt from its text before, losing them)."""
    from benchchecker_plugin.errors import FlagsFormatError
    from benchchecker_plugin.instances import BugInstance
    from benchchecker_plugin.stage2._judge import named

    inst = BugInstance("o__r-1", "swe-bench-verified", "o/r", "0" * 40, "")

    def bad() -> None:
        raise FlagsFormatError("not a bool", source="f.jsonl", line=3, field="contaminated")

    with pytest.raises(FlagsFormatError) as err:
        named(inst, bad)
    assert (err.value.source, err.value.line, err.value.field, err.value.instance) == (
        "f.jsonl", 3, "contaminated", "o__r-1")
    assert str(err.value) == "instance 'o__r-1': f.jsonl:3: field 'contaminated': not a bool"
