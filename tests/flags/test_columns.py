"""Flags read as columns: the same records, the same errors and the same verdicts as the object
path (``read_flags`` and ``verdicts_for``), the slow obviously-correct reference."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from benchchecker_plugin.errors import DataError, FlagsFormatError, InputError
from benchchecker_plugin.flags import (
    ABSENT,
    ANY_MODEL,
    ContaminationFlag,
    Verdict,
    merge_flags,
    read_flag_columns,
    read_flags,
    tally_flags,
    verdicts_for,
    write_flags,
)

CODE = {Verdict.CLEAN: 0, Verdict.CONTAMINATED: 1, Verdict.UNDECIDED: 2}


def _random_flags(seed: int) -> list[ContaminationFlag]:
    """Two benchmarks, three models and ``"*"``, two methods, every verdict, not every instance
    flagged by every (model, method)."""
    rng = random.Random(seed)
    out = []
    for bench in ("b1", "b2"):
        for i in range(40):
            for model in ("m0", "m1", "m2", ANY_MODEL):
                for method in ("x.one", "x.two"):
                    if rng.random() < 0.45:
                        out.append(ContaminationFlag(
                            benchmark=bench, instance_id=f"i-{i}", model=model, method=method,
                            contaminated=rng.choice([True, False, None]), score=rng.random(),
                            evidence={"k": rng.randint(0, 3)}, created_at="2026-01-01T00:00:00Z"))
    rng.shuffle(out)
    return out


def _reference(flags: list[ContaminationFlag], bench: str, model: str, ids: tuple[str, ...]
               ) -> np.ndarray:
    got = verdicts_for(flags, benchmark=bench, model=model)
    return np.array([CODE[got[i]] if i in got else ABSENT for i in ids], np.int8)


@pytest.mark.parametrize("seed", range(4))
def test_verdict_codes_equal_verdicts_for(tmp_path: Path, seed: int) -> None:
    path = write_flags(tmp_path / "f.jsonl", _random_flags(seed))
    flags = read_flags(path)
    cols = read_flag_columns(path)
    assert len(cols) == len(flags)
    for bench in ("b1", "b2"):
        mine = cols.select(bench)
        for model in ("m0", "m1", "m2", ANY_MODEL, "not-in-the-file"):
            assert np.array_equal(mine.verdict_codes(model),
                                  _reference(flags, bench, model, mine.instance_ids)), (bench, model)


def test_merged_records_and_the_mix_error_are_those_of_verdicts_for(tmp_path: Path) -> None:
    flags = _random_flags(7)
    merged = [f for f in merge_flags(flags) if f.benchmark == "b1"]
    path = write_flags(tmp_path / "m.jsonl", merged)
    cols = read_flag_columns(path).select("b1")
    for model in ("m0", "m1", ANY_MODEL, "other"):
        assert np.array_equal(cols.verdict_codes(model),
                              _reference(merged, "b1", model, cols.instance_ids)), model
    assert tally_flags(cols) == tally_flags(merged)
    mixed = merged + [f.with_(method="x.three") for f in flags if f.benchmark == "b1"][:3]
    path = write_flags(tmp_path / "mixed.jsonl", mixed)
    cols = read_flag_columns(path).select("b1")
    model = mixed[-1].model if mixed[-1].model != ANY_MODEL else "m0"
    with pytest.raises(InputError) as want:
        verdicts_for(mixed, benchmark="b1", model=model)
    with pytest.raises(InputError) as got:
        cols.verdict_codes(model)
    assert str(got.value) == str(want.value)


def test_the_columns_are_the_records_and_a_changed_file_is_said(tmp_path: Path) -> None:
    flags = _random_flags(3)
    path = write_flags(tmp_path / "f.jsonl", flags)
    cols = read_flag_columns(path)
    b2 = cols.select("b2")
    assert list(b2) == [f for f in read_flags(path) if f.benchmark == "b2"]
    assert b2[0] == next(f for f in flags if f.benchmark == "b2") and len(b2[:3]) == 3
    assert tally_flags(b2) == tally_flags([f for f in flags if f.benchmark == "b2"])
    assert cols.held("benchmark") == ["b1", "b2"] and b2.held("model") == ["*", "m0", "m1", "m2"]
    assert len(cols.select("b3")) == 0
    unread = cols.select("b1")   # its records not read yet
    write_flags(path, [f.with_(contaminated=not f.contaminated) for f in flags])
    with pytest.raises(DataError, match="has changed since it was read"):
        list(unread)


def test_a_folder_and_the_errors_are_those_of_read_flags(tmp_path: Path) -> None:
    flags = _random_flags(5)
    folder = tmp_path / "d"
    folder.mkdir()
    write_flags(folder / "a.jsonl", flags[:100])
    write_flags(folder / "b.jsonl", flags[100:])
    cols = read_flag_columns(folder)
    assert list(cols) == read_flags(folder)
    write_flags(folder / "c.jsonl", [flags[150].with_(score=0.5)])   # a key read twice
    for bad in (folder, tmp_path / "nothing.jsonl"):
        with pytest.raises(FlagsFormatError) as want:
            read_flags(bad)
        with pytest.raises(FlagsFormatError) as got:
            read_flag_columns(bad)
        assert str(got.value) == str(want.value)
    line = json.loads((folder / "a.jsonl").read_text().splitlines()[3])
    line["p_value"] = 2.0
    lines = (folder / "a.jsonl").read_text().splitlines()
    (tmp_path / "bad.jsonl").write_text("\n".join(lines[:3] + [json.dumps(line)] + lines[4:]) + "\n")
    with pytest.raises(FlagsFormatError) as want:
        read_flags(tmp_path / "bad.jsonl")
    with pytest.raises(FlagsFormatError) as got:
        read_flag_columns(tmp_path / "bad.jsonl")
    assert str(got.value) == str(want.value) and ":4:" in str(got.value)


@pytest.mark.parametrize("dup_first", [True, False])
def test_a_repeat_and_a_bad_record_are_met_in_read_flags_order(tmp_path: Path, dup_first: bool,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """read_flags checks each chunk, then its keys: the columns reader finds repeats at the end,
    but says the same error as read_flags whichever comes first in the file."""
    import benchchecker_plugin.flags._io as io

    monkeypatch.setattr(io, "_CHUNK", 1500)   # a few records a chunk
    lines = write_flags(tmp_path / "f.jsonl", _random_flags(9)[:60]).read_text().splitlines()
    dup, bad = (5, 40) if dup_first else (40, 5)
    lines[dup] = lines[0]
    lines[bad] = lines[bad].replace('"schema_version": 1', '"schema_version": 7')
    (tmp_path / "f.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(FlagsFormatError) as want:
        read_flags(tmp_path / "f.jsonl")
    with pytest.raises(FlagsFormatError) as got:
        read_flag_columns(tmp_path / "f.jsonl")
    assert str(got.value) == str(want.value)
    assert ("duplicate record" in str(got.value)) == dup_first
