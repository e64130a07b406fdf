"""Every hub failure names the option that runs the command offline (issue 29, item 5: ``check``
ended ``Error: princeton-nlp/SWE-bench_Verified: cannot load...`` naming no option, and the lm-eval
tasks said "pass a local folder of the CSVs instead" without naming ``--metadata``).

The hub is made unreachable by replacing ``datasets.load_dataset`` (a library, not our code) with
one that raises what ``datasets`` raises offline."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.errors import HubUnavailableError

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    import datasets

    def unreachable(name: str, *args: object, **kwargs: object) -> None:
        raise ConnectionError(f"Couldn't reach '{name}' on the Hub (LocalEntryNotFoundError)")

    monkeypatch.setattr(datasets, "load_dataset", unreachable)


def _error(args: list[str]) -> str:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    [line] = [ln for ln in result.stderr.splitlines() if ln.startswith("Error:")]
    return line


@pytest.mark.slow   # check imports every detector (~10 s here)
@pytest.mark.parametrize(("benchmark", "option"), [
    ("swe-bench-verified", "--data swe-bench-verified=FILE (a local instances .jsonl)"),
    ("mmlu", "--data mmlu=PATH"), ("truthfulqa", "--data truthfulqa=PATH")])
def test_check_names_its_data_option(benchmark: str, option: str, tmp_path: Path) -> None:
    line = _error(["check", "--cutoff", "2024-06", "--benchmarks", benchmark, "--dry-run",
                   "-o", str(tmp_path / "report")])
    assert "cannot load from the Hugging Face hub (Couldn't reach" in line
    assert line.endswith(f"; offline, pass {option}")


def test_ts_guess_names_data(tmp_path: Path) -> None:
    line = _error(["ts-guess", "--benchmark", "mmlu", "--dry-run"])
    assert line == ("Error: cais/mmlu (split test): cannot load from the Hugging Face hub "
                    "(Couldn't reach 'cais/mmlu' on the Hub (LocalEntryNotFoundError)); offline, "
                    "pass --data PATH")


def _module(path: Path, name: str):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_lm_eval_tasks_name_metadata() -> None:
    tsg = _module(REPO / "tasks" / "lm_eval" / "ts_guessing" / "utils.py", "tsg_utils_offline")
    with pytest.raises(HubUnavailableError) as err:
        tsg._dataset("truthfulqa", "multichoice")
    assert str(err.value).endswith("""; offline, pass --metadata '{"data": "PATH"}' (or "truthfulqa_data")""")


def test_inspect_tasks_name_task_data() -> None:
    from benchchecker_plugin.inspect_tasks import mmlu_local, ts_guessing_task

    for build in (lambda: ts_guessing_task("mmlu", "multichoice"), lambda: mmlu_local()):
        with pytest.raises(HubUnavailableError) as err:
            build()
        assert str(err.value).endswith("; offline, pass -T data=PATH")
