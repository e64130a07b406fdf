"""Git histories built in a test: a dated commit of everything in the work tree, a history of
dated commits of given files, and the small ``calc.py`` fix (buggy, fixed, refactored-fix, its
gold patch) the Stage II tests share."""

from __future__ import annotations

from pathlib import Path

from benchchecker_plugin.repos import git

__all__ = ["BUGGY", "FIXED", "PATCH", "REFACTORED", "calc_repo", "commit_all", "history"]

BUGGY = "def add_one(x):\n    return int(x) + 1\n\n\ndef other():\n    return 3\n"
FIXED = "def add_one(x):\n    if x is None:\n        return 0\n    return int(x) + 1\n\n\ndef other():\n    return 3\n"
# the fix rewritten: one added line matches, the other does not
REFACTORED = "def add_one(x):\n    if x is None:\n        return int(0)\n    return int(x) + 1\n\n\ndef other():\n    return 3\n"
PATCH = """--- a/calc.py
+++ b/calc.py
@@ -1,4 +1,6 @@
 def add_one(x):
+    if x is None:
+        return 0
     return int(x) + 1
 
 
"""


def commit_all(repo: Path, when: str, message: str | None = None, at: str = "00:00:00") -> str:
    """Commit the whole work tree of ``repo`` dated ``when`` (YYYY-MM-DD) at ``at`` (UTC), with
    ``message`` (default: the date); its sha."""
    stamp = f"{when}T{at}+0000"
    git(repo, ["add", "-A"])
    git(repo, ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "commit",
               "-q", "-m", message or when], env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    return git(repo, ["rev-parse", "HEAD"]).decode().strip()


def history(repo: Path, commits: list[tuple[str, dict[str, str]]]) -> str:
    """A git repository at ``repo``: one commit per ``(date, {path: text})``, each writing those
    files over the previous ones; the first commit's sha (the base)."""
    repo.mkdir(parents=True)
    git(repo, ["init", "-q", "-b", "main"])
    shas = []
    for when, files in commits:
        for name, text in files.items():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            (repo / name).write_text(text)
        shas.append(commit_all(repo, when))
    return shas[0]


CALC_TEST_PATCH = """--- /dev/null
+++ b/test_calc.py
@@ -0,0 +1,8 @@
+import calc
+
+
+def test_none():
+    assert calc.add_one(None) == 0
+
+def test_int():
+    assert calc.add_one(1) == 2
"""
CALC_TEST = "python -m pytest -rA -p no:cacheprovider test_calc.py"


def calc_repo(tmp_path: Path, later: str) -> tuple[Path, str]:
    """``repos/o__calc``: the buggy calc.py, its fix, then ``later``; the folder and the base sha."""
    repo = tmp_path / "repos" / "o__calc"
    base = history(repo, [("2023-01-01", {"calc.py": BUGGY}), ("2023-02-01", {"calc.py": FIXED}),
                          ("2023-03-01", {"calc.py": later})])
    return repo, base
