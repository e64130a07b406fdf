"""One rule for naming local data (benchchecker_plugin.local_data): NAME=PATH everywhere, PATH
alone where one benchmark is read; a wrong spelling is one line in the harness's own syntax."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.local_data import local_data, local_path, split_named

LM_EVAL = "--metadata '{{\"data\": \"{}\"}}'"


def test_named_and_bare_values() -> None:
    assert local_data(["mmlu=a/b"], ["mmlu", "truthfulqa"], "--data {}") == {"mmlu": "a/b"}
    assert local_data(["a/b"], ["mmlu"], "--data {}") == {"mmlu": "a/b"}
    assert local_data(["mmlu=a", "truthfulqa=t.csv"], ["mmlu", "truthfulqa"], "--data {}") == {
        "mmlu": "a", "truthfulqa": "t.csv"}
    assert split_named("../x=1/y") == (None, "../x=1/y")        # '=' inside a path is a path


def test_an_existing_path_holding_an_equals_sign_is_a_path(tmp_path: Path) -> None:
    folder = tmp_path / "mmlu=v2"
    folder.mkdir()
    assert local_data([str(folder)], ["mmlu"], "--data {}") == {"mmlu": str(folder)}


@pytest.mark.parametrize(("values", "benchmarks", "spelling", "line"), [
    (["a/b"], ["mmlu", "truthfulqa"], "--data {}",
     "--data a/b: this run reads mmlu, truthfulqa: name the benchmark, --data mmlu=PATH"),
    (["truthfulqa=t.csv"], ["mmlu"], "--data {}",
     "--data truthfulqa=t.csv: this run reads mmlu, not truthfulqa: --data mmlu=PATH"),
    (["truthfulqa=t.csv"], ["mmlu"], "-T data={}",
     "-T data=truthfulqa=t.csv: this run reads mmlu, not truthfulqa: -T data=mmlu=PATH"),
    (["gsm8k=x"], ["mmlu", "truthfulqa"], LM_EVAL,
     "--metadata '{\"data\": \"gsm8k=x\"}': this run reads mmlu, truthfulqa, not gsm8k: "
     "--metadata '{\"data\": \"mmlu=PATH\"}'"),
    (["mmlu="], ["mmlu"], "--data {}", "--data mmlu=: no path after '=': --data mmlu=PATH"),
    (["mmlu=a", "mmlu=b"], ["mmlu"], "--data {}", "--data mmlu=b: mmlu is given twice (a and b)"),
])
def test_a_wrong_spelling_is_one_line_naming_the_right_one(values: list[str], benchmarks: list[str],
                                                            spelling: str, line: str) -> None:
    with pytest.raises(InputError) as err:
        local_data(values, benchmarks, spelling)
    assert str(err.value) == line


def test_local_path_must_exist(tmp_path: Path) -> None:
    assert local_path(f"mmlu={tmp_path}", "mmlu") == tmp_path
    assert local_path(None, "mmlu") is None
    with pytest.raises(InputError, match=r"^--data mmlu=nope: nope does not exist$"):
        local_path("mmlu=nope", "mmlu")
