"""Issue 37: flags records the decoders let through. A repeated key was accepted (the last won:
a record saying two things); a score of 10^400 raised OverflowError in every command reading it;
1e400 in the evidence read as ``inf``; a lone surrogate passed ``validate`` and crashed ``merge``
and ``show``; ``show`` interpreted rich markup in a model's name (``[/]``: MarkupError). Each is
now one ``Error:`` line naming file, line (and field), on the fast path as on the slow one."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from benchchecker_plugin.cli import main
from benchchecker_plugin.errors import FlagsFormatError
from benchchecker_plugin.flags import ContaminationFlag, read_flags, write_flags
from benchchecker_plugin.flags._strict_json import count_keys, keys_may_repeat

GOOD = ('{"schema_version": 1, "benchmark": "b", "instance_id": "i%d", "model": "m", '
        '"method": "t", "contaminated": true, "score": 1.0, "p_value": null, '
        '"evidence": {"k": "v"}, "created_at": "2026-12-01T00:00:00Z", "tool_version": "0.1"}')


def _file(tmp_path: Path, bad: str, n_good: int = 50) -> Path:
    """``bad`` as line 3 among good records (so the fast path sees a whole chunk)."""
    lines = [GOOD % k for k in range(n_good)]
    lines.insert(2, bad)
    path = tmp_path / "f.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
    return path


def _error(argv: list[str]) -> str:
    res = CliRunner().invoke(main, argv)
    assert res.exit_code == 2, (res.output, res.exception)
    errors = [ln for ln in res.output.splitlines() if ln.startswith("Error:")]
    assert len(errors) == 1 and "Traceback" not in res.output, res.output
    return errors[0]


def _commands(path: Path, tmp_path: Path) -> list[list[str]]:
    return [["flags", "validate", str(path)], ["flags", "show", str(path)],
            ["flags", "merge", str(path), "-o", str(tmp_path / "o.jsonl")],
            ["rescore", "--flags", str(path), "--tiers", str(tmp_path / "tiers.jsonl"),
             "--results", str(tmp_path / "results.json"), "--model", "m"]]


BAD = {
    "repeated key": (GOOD % 999).replace('"model": "m"', '"model": "other", "model": "m"'),
    "repeated key before a blank": (GOOD % 999).replace('"model": "m"', '"model" : "x", "model": "m"'),
    "repeated key in evidence": (GOOD % 999).replace('{"k": "v"}', '{"k": "v", "k": "w"}'),
    "repeated key beside escapes": (GOOD % 999).replace('{"k": "v"}', '{"k": "a\\"b\\\\", "k": 1}'),
    "repeated key hidden by \\u0022": (GOOD % 999).replace('"model": "m"',
                                                          '"model": "m", "model": "m\\u0022:"'),
    "repeated key hidden by \\u003a": (GOOD % 999).replace('"model": "m"',
                                                          '"model": "m", "model": "\\u003a"'),
}


@pytest.mark.parametrize("case", list(BAD))
def test_a_repeated_key_is_refused(tmp_path: Path, case: str) -> None:
    path = _file(tmp_path, BAD[case])
    with pytest.raises(FlagsFormatError, match=r"f.jsonl:3: key '(model|k)' is given twice"):
        read_flags(path)


@pytest.mark.parametrize(("bad", "expect"), [
    ((GOOD % 999).replace('"score": 1.0', '"score": 1' + "0" * 400),
     "f.jsonl:3: field 'score': score is outside the range of a double"),
    ((GOOD % 999).replace('"p_value": null', '"p_value": 1' + "0" * 400),
     "f.jsonl:3: field 'p_value'"),
    ((GOOD % 999).replace('"score": 1.0', '"score": 1e400'),
     "f.jsonl:3: field 'score': score must be finite (1e400 is outside the range of a double)"),
    ((GOOD % 999).replace('{"k": "v"}', '{"k": -1e400}'),
     "f.jsonl:3: field 'evidence.k': must be finite (-1e400 is outside the range of a double)"),
    ((GOOD % 999).replace('"model": "m"', '"model": "m\\ud800"'),
     "f.jsonl:3: field 'model': holds a lone surrogate ('\\ud800')"),
    ((GOOD % 999).replace('{"k": "v"}', '{"\\udfff": "v"}'),
     "f.jsonl:3: field 'evidence.\\udfff': holds a lone surrogate"),
    ((GOOD % 999).replace('{"k": "v"}', '{"k": ["\\ud83d"]}'),
     "f.jsonl:3: field 'evidence.k.0': holds a lone surrogate"),
])
def test_every_command_says_one_line(tmp_path: Path, bad: str, expect: str) -> None:
    path = _file(tmp_path, bad)
    (tmp_path / "tiers.jsonl").write_text(json.dumps({"instance_id": "i1", "difficulty": "easy"}))
    (tmp_path / "results.json").write_text(json.dumps({"resolved_ids": ["i1"]}))
    for argv in _commands(path, tmp_path):
        line = _error(argv)
        assert expect in line, (argv, line)


def test_records_built_in_code_are_checked_too(tmp_path: Path) -> None:
    with pytest.raises(FlagsFormatError, match="field 'score': is outside the range of a double"):
        ContaminationFlag("b", "i", "m", "t", True, 10 ** 400)
    with pytest.raises(FlagsFormatError, match="field 'model': holds a lone surrogate"):
        write_flags(tmp_path / "o.jsonl", [ContaminationFlag("b", "i", "m\udc80", "t", True, 1.0)])
    with pytest.raises(FlagsFormatError, match="field 'evidence.x': must be finite"):
        write_flags(tmp_path / "o.jsonl", [ContaminationFlag("b", "i", "m", "t", True, 1.0,
                                                             evidence={"x": float("nan")})])


def test_big_integers_in_the_evidence_stay_exact(tmp_path: Path) -> None:
    path = _file(tmp_path, (GOOD % 999).replace('{"k": "v"}', '{"k": 1' + "0" * 400 + "}"))
    flags = {f.instance_id: f for f in read_flags(path)}
    assert flags["i999"].evidence["k"] == 10 ** 400


@pytest.mark.parametrize("name", ["[/]", "[bold]x", "[red]y[/red]", "[link=http://e]z"])
def test_show_prints_names_as_text(tmp_path: Path, name: str) -> None:
    path = write_flags(tmp_path / "f.jsonl", [ContaminationFlag("b", "i", name, "t", True, 1.0)])
    res = CliRunner().invoke(main, ["flags", "show", str(path)])
    assert res.exit_code == 0, res.output
    assert name in res.output


_keys = st.text(alphabet=st.sampled_from('ab:"\\ \u00e9'), min_size=1, max_size=4)
_values = st.recursive(st.none() | st.booleans() | st.integers(-5, 5) | _keys,
                       lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(_keys, inner, max_size=3), max_leaves=8)


@settings(max_examples=120, deadline=None)
@given(st.dictionaries(_keys, _values, min_size=1, max_size=4), st.booleans(),
       st.sampled_from([(", ", ": "), (",", ":"), (" ,", " : "), ("\t,", "\t:")]), st.data())
def test_a_dropped_key_is_never_missed(obj: dict, ascii_: bool, seps: tuple[str, str],
                                       data: st.DataObject) -> None:
    """Whatever the separators and escapes, a text whose decoding dropped a key is flagged."""
    text = json.dumps(obj, ensure_ascii=ascii_, separators=seps)
    key = data.draw(st.sampled_from(sorted(obj)))
    dup = json.dumps(key, ensure_ascii=ascii_) + seps[1] + "0" + seps[0]
    doubled = "{" + dup + text[1:]
    decoded = msgspec.json.decode(doubled.encode())
    encoded = msgspec.json.encode([decoded])
    assert keys_may_repeat(doubled.encode() + b"\n", encoded, lambda: count_keys(decoded))
    plain = json.dumps(obj, ensure_ascii=False).encode() + b"\n"
    if b"\\" not in plain:   # what our writer writes, without escapes, takes the fast path
        assert not keys_may_repeat(plain, msgspec.json.encode([obj]), lambda: count_keys(obj))
