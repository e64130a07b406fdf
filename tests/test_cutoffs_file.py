"""Reading model cutoffs from a file: the model_cutoffs CSV, a JSON object, the leaderboard's
model map with a model_cutoffs column, and bad files refused with one line naming the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchchecker_plugin.cutoffs_file import read_cutoffs, read_model_cutoffs
from benchchecker_plugin.errors import DataError
from tests.helpers import SHARED_DATA, needs_shared_data

DATA = SHARED_DATA


def test_model_cutoffs_csv(tmp_path: Path) -> None:
    f = tmp_path / "m.csv"
    f.write_text("model,vendor,cutoff,quote\n"
                 'claude-2,Anthropic,2023,"Early 2023, says the card"\n'
                 "gpt-4o,OpenAI,2023-10,\n"
                 "qwen,Alibaba,,\n"
                 "gpt-4o,OpenAI,2023-10,listed twice with the same cutoff\n"
                 "o3,OpenAI,2024-06-01,\n")
    table = read_cutoffs(f)
    assert list(table.cutoffs) == ["claude-2", "gpt-4o", "o3"]  # file order
    assert [p.text for p in table.cutoffs.values()] == ["2023", "2023-10", "2024-06-01"]
    assert table.cutoffs["claude-2"].last_moment.isoformat() == "2023-12-31T23:59:59+00:00"
    assert table.unknown == ("qwen",) and table.skipped == ("qwen",) and table.path == str(f)
    assert read_model_cutoffs(f) == dict(table.cutoffs)


def test_json_object(tmp_path: Path) -> None:
    f = tmp_path / "c.json"
    f.write_text(json.dumps({"a": "2021-09", "b": None, "c": "unknown", "d": "2024-04-30"}))
    table = read_cutoffs(f)
    assert {m: p.text for m, p in table.cutoffs.items()} == {"a": "2021-09", "d": "2024-04-30"}
    assert table.unknown == ("b", "c") == table.skipped


def test_submission_model_map(tmp_path: Path) -> None:
    f = tmp_path / "submission_models.csv"
    f.write_text("submission,name,models,model_cutoffs,notes\n"
                 "s1,One,claude-2,claude-2=2023,\n"
                 "s2,Two,UNDISCLOSED,,no model\n"
                 "s3,Three,qwen;llama,qwen=unknown;llama=2023-12,partial\n"
                 "s4,Four,claude-2;gpt-4o,claude-2=2023;gpt-4o=2023-10,\n"
                 "s5,Five,qwen,qwen=unknown,\n")
    table = read_cutoffs(f)
    assert {m: p.text for m, p in table.cutoffs.items()} == {"claude-2": "2023", "llama": "2023-12",
                                                            "gpt-4o": "2023-10"}
    assert table.skipped == ("s2", "s5") and table.unknown == ("qwen",)


@pytest.mark.parametrize("name, text, message", [
    ("a.json", '{"m": "2023-10",', "a.json: not valid JSON"),
    ("b.json", '["m", "2023"]', "b.json: a JSON cutoffs file must be an object {model: cutoff}, not a list"),
    ("c.json", '{"m": 2023}', "c.json: key 'm': cutoff 2023 of model 'm' is not a string"),
    ("d.csv", "model,cutoff\nm,last spring\n",
     "d.csv: row 2: model 'm': cutoff 'last spring' is not YYYY, YYYY-MM, YYYY-MM-DD or an ISO "
     "datetime (YYYY-MM-DDTHH:MM[:SS][Z|+HH:MM])"),
    ("e.csv", "model,cutoff\nm,2023\nm,2024\n", "e.csv: model 'm' has two cutoffs, 2023 (row 2) and 2024 (row 3)"),
    ("f.csv", "name,date\nm,2023\n", "f.csv: a cutoffs CSV needs 'model' and 'cutoff' columns, or 'submission' "
                                     "and 'model_cutoffs' (found: date, name)"),
    ("g.csv", "submission,models\ns,m\n", "g.csv: a model map gives cutoffs only with a 'model_cutoffs' column"),
    ("h.csv", "submission,model_cutoffs\ns,m:2023\n", "h.csv: row 2 (submission 's'): 'm:2023' is not model=cutoff"),
    ("i.csv", "model,cutoff\n,2023\n", "i.csv: row 2 has no model"),
    ("j.csv", "  \n", "j.csv: the cutoffs file is empty"),
])
def test_bad_files_are_one_line_errors_naming_the_file(tmp_path: Path, name: str, text: str, message: str) -> None:
    f = tmp_path / name
    f.write_text(text)
    with pytest.raises(DataError) as err:
        read_cutoffs(f)
    assert str(err.value).startswith(str(f)) and message in str(err.value) and "\n" not in str(err.value)


def test_missing_and_binary_files(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"nope\.csv: cannot read the cutoffs file \(No such file"):
        read_cutoffs(tmp_path / "nope.csv")
    f = tmp_path / "bin.csv"
    f.write_bytes(b"model,cutoff\n\xff\xfe,2023\n")
    with pytest.raises(DataError, match=r"bin\.csv: the cutoffs file is not UTF-8 text"):
        read_cutoffs(f)


@needs_shared_data("model_cutoffs")
def test_the_published_tables_agree() -> None:
    """The model table and the leaderboard's model map give the same cutoff to every shared model."""
    models = read_cutoffs(DATA / "model_cutoffs" / "model_cutoffs.csv")
    subs = read_cutoffs(DATA / "model_cutoffs" / "submission_models.csv")
    assert len(models.cutoffs) > 20 and subs.cutoffs and set(subs.cutoffs) <= set(models.cutoffs)
    assert all(subs.cutoffs[m] == models.cutoffs[m] for m in subs.cutoffs)
    assert set(subs.unknown) <= set(models.unknown)


def test_iso_datetimes_are_read_as_cutoff_reads_them(tmp_path: Path) -> None:
    """Issue 29: --cutoffs refused the ISO datetimes --cutoff accepts; a datetime is that moment."""
    from benchchecker_plugin.cutoff import parse_cutoff

    path = tmp_path / "c.json"
    path.write_text(json.dumps({"a": "2024-04-30T12:00:00Z", "b": "2024-04-30 12:00",
                                "c": "2024-04-30T14:00:00+02:00", "d": "2024-04"}))
    got = read_model_cutoffs(path)
    for model in "abc":
        assert got[model].last_moment == parse_cutoff("2024-04-30T12:00:00Z")
    assert got["d"].last_moment == parse_cutoff("2024-04")
