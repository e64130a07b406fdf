"""``overlap --executor ray`` on a real local Ray cluster (2 CPUs): flags equal the local run's.

The corpus has several shards with the same items in several (the best evidence must come from
the earliest shard whatever order the cluster finishes them in), a clean shard and one that fails
partway (recorded, exit 2, as locally). A Ray run kept in --state resumes in this process with the
same flags.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from benchchecker_plugin.cli import main
from tests.overlap.test_partial import _items
from tests.overlap.test_resume import _cli, _comparable, _items_file, corpus


def test_ray_scan_equals_local_and_resumes_locally(cluster, tmp_path: Path) -> None:  # noqa: ANN001
    items = _items()
    files = corpus(tmp_path / "c", items)
    data = _items_file(items, tmp_path / "items.jsonl")
    runs = {}
    for name, extra in (("local", []), ("ray", ["--executor", "ray"])):
        out = tmp_path / f"{name}.jsonl"
        r = CliRunner().invoke(main, [*_cli(data, files, out, tmp_path / f"state_{name}"), *extra])
        assert r.exit_code == 2 and "s4.jsonl: line 4: not JSON" in r.output, r.output
        runs[name] = _comparable(out)
    assert runs["ray"] == runs["local"]
    assert sum(bool(f["contaminated"]) for f in runs["local"]) > 100
    assert len(list((tmp_path / "state_ray").glob("*.npz"))) == 4   # the failed shard is not kept

    out = tmp_path / "resumed.jsonl"
    r = CliRunner().invoke(main, _cli(data, files, out, tmp_path / "state_ray"))
    assert r.exit_code == 2 and "of which 4 shard(s)" in r.output, r.output
    assert _comparable(out) == runs["local"]
