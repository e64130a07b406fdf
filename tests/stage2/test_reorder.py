"""A fix that only reorders lines (django__django-15851 moves ``args.extend(parameters)`` before
the database name): found present only where the moved line sits between its post-patch
neighbours, not wherever the line exists."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from benchchecker_plugin.instances import BugInstance
from benchchecker_plugin.repos import git
from benchchecker_plugin.stage2 import PresenceConfig, run_stage2

BUGGY = '''def cmd_args(host, port, dbname, parameters):
    args = ["psql"]
    if host:
        args += ["-h", host]
    if port:
        args += ["-p", str(port)]
    if dbname:
        args += [dbname]
    args.extend(parameters)
    return args
'''
FIXED = BUGGY.replace('''    if dbname:
        args += [dbname]
    args.extend(parameters)
''', '''    args.extend(parameters)
    if dbname:
        args += [dbname]
''')
PATCH = '''diff --git a/client.py b/client.py
--- a/client.py
+++ b/client.py
@@ -4,7 +4,7 @@ def cmd_args(host, port, dbname, parameters):
         args += ["-h", host]
     if port:
         args += ["-p", str(port)]
+    args.extend(parameters)
     if dbname:
         args += [dbname]
-    args.extend(parameters)
     return args
'''


def _commit(repo: Path, when: str) -> str:
    stamp = f"{when}T12:00:00+0000"
    git(repo, ["add", "-A"])
    git(repo, ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "commit", "-q",
               "-m", when], env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    return git(repo, ["rev-parse", "HEAD"]).decode().strip()


def test_a_reorder_is_present_only_in_its_new_order(tmp_path: Path) -> None:
    repo = tmp_path / "repos" / "o__db"
    repo.mkdir(parents=True)
    git(repo, ["init", "-q", "-b", "main"])
    (repo / "client.py").write_text(BUGGY)
    base = _commit(repo, "2023-01-01")
    (repo / "client.py").write_text(FIXED)
    _commit(repo, "2023-06-01")
    inst = BugInstance(instance_id="o__db-1", benchmark="t", repo="o/db", base_commit=base, patch=PATCH)
    at = {"before": datetime(2023, 3, 1, tzinfo=UTC), "after": datetime(2023, 9, 1, tzinfo=UTC)}
    flags = {f.model: f for f in run_stage2([inst], repo.parent, at, config=PresenceConfig(similarity="difflib")).flags}
    assert flags["after"].contaminated is True and flags["after"].evidence["category"] == "present"
    # the moved line is in the old snapshot too, in the old place: before, it read "present"
    assert flags["before"].contaminated is False
    assert flags["before"].evidence["category"] == "pre-patch-only"
    (line,) = flags["before"].evidence["blocks"][0]["lines"]
    assert line["kind"] == "pre-patch" and line["patch"] == "args . extend ( parameters )"
