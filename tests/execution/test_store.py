"""A state folder: keys digest inputs, files are whole or absent, an unreadable file is computed
again with a warning, a full folder is one line naming the option."""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.execution import StateStore, digest, file_identity, read_json, write_json


def test_digest_is_stable_and_tells_inputs_apart() -> None:
    assert digest("a", [1, 2], {"y": 1, "x": 2}) == digest("a", [1, 2], {"x": 2, "y": 1})
    assert digest("a", [1, 2]) != digest("a", [2, 1])
    assert len(digest("a")) == 64
    # the overlap state's key before the store existed: kept folders stay valid
    import hashlib

    spec = ["overlap-state/2", "s.jsonl", 10, 5, "ab", "text", "id", "fp"]
    assert digest(*spec) == hashlib.sha256(json.dumps(spec).encode("utf-8")).hexdigest()


def test_file_identity_sees_an_edit_that_keeps_size_and_time(tmp_path: Path) -> None:
    f = tmp_path / "a.jsonl"
    f.write_text("x" * 100)
    before = file_identity(f)
    st = f.stat()
    f.write_text("y" + "x" * 99)
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = file_identity(f)
    assert before is not None and after is not None and before[:2] == after[:2] and before != after
    os.mkfifo(tmp_path / "fifo")
    assert file_identity(tmp_path / "fifo") is None          # never opened (it would block)
    assert file_identity(tmp_path / "missing") is None


def test_saved_and_loaded_under_its_key_atomically(tmp_path: Path) -> None:
    store = StateStore(tmp_path / "state")
    key = digest("unit", 1)
    assert store.load(key, lambda p: read_json(p, key), what="unit 1") is None
    store.save(key, lambda p: write_json(p, key, {"value": [1, 2]}), what="unit 1")
    assert store.load(key, lambda p: read_json(p, key), what="unit 1")["value"] == [1, 2]
    assert [p.name for p in (tmp_path / "state").iterdir()] == [f"{key[:40]}.json"]   # no temporary left
    other = digest("unit", 2)
    os.replace(store.path(key), store.path(other))            # a file under another unit's name
    with pytest.warns(RuntimeWarning, match="holds another unit's state"):
        assert store.load(other, lambda p: read_json(p, other), what="unit 2") is None


def test_an_unreadable_file_is_computed_again_with_a_warning(tmp_path: Path) -> None:
    store = StateStore(tmp_path)
    key = digest("k")
    store.path(key).write_text("{not json")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert store.load(key, lambda p: read_json(p, key), what="the flags of o/x") is None
    (w,) = caught
    assert str(w.message).startswith(f"{store.path(key)}: unreadable state of the flags of o/x (")
    assert str(w.message).endswith("); computing it again")


def test_a_folder_that_cannot_be_written_is_one_line_naming_the_option(tmp_path: Path) -> None:
    blocker = tmp_path / "state"
    blocker.write_text("a file where the folder should be")
    store = StateStore(blocker, option="--state")
    with pytest.raises(InputError, match=r"^--state .*state: cannot keep unit 1 \(.*\); the units kept "
                                         r"before are whole$"):
        store.save(digest(1), lambda p: write_json(p, "k", {}), what="unit 1")
