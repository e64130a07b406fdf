"""The wrappers' contamination options are declared once (``FILTER_OPTIONS``, ``DETECT_OPTIONS``)
and read the same through click (Inspect) and argparse (lm-eval, SWE-bench)."""

from __future__ import annotations

import argparse

import click
import pytest
from click.testing import CliRunner

from benchchecker_plugin.errors import InputError
from harness_adapters.common import (
    FILTER_OPTIONS,
    FilterMode,
    FilterOptions,
    add_argparse_options,
    click_options,
    pop_filter_options,
)
from harness_adapters.detection import DETECT_OPTIONS, DetectOptions, click_detect_options, pop_detect_options

ALL = FILTER_OPTIONS + DETECT_OPTIONS


def _via_click(argv: list[str]) -> tuple[FilterOptions, DetectOptions]:
    got: list[tuple[FilterOptions, DetectOptions]] = []

    def callback(**params: object) -> None:
        detect = pop_detect_options(params)
        got.append((pop_filter_options(params, detect=detect.enabled), detect))
        assert params == {}, params                     # nothing of ours is left for the harness

    params: list[click.Parameter] = [*click_options(), *click_detect_options()]
    command = click.Command("x", params=params, callback=callback)
    result = CliRunner().invoke(command, argv, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return got[0]


def _via_argparse(argv: list[str]) -> tuple[FilterOptions, DetectOptions]:
    parser = argparse.ArgumentParser()
    add_argparse_options(parser.add_argument_group("ours"), options=ALL)
    values = vars(parser.parse_args(argv))
    detect = pop_detect_options(values)
    options = pop_filter_options(values, detect=detect.enabled)
    assert values == {}, values
    return options, detect


@pytest.mark.parametrize("argv", [
    [],
    ["--contamination-filter", "{flags}"],
    ["--contamination-filter", "{flags}", "--contamination-mode", "clean",
     "--contamination-model", "org/m"],
    ["--contamination-detect", "--dry-run", "--contamination-no-cache"],
    ["--contamination-detect", "--contamination-cache-dir", "{dir}", "--contamination-mode",
     "contaminated"],
    ["--contamination-detect", "overlap", "--contamination-corpus", "{flags}",
     "--contamination-corpus", "{dir}", "--dry-run"],
    ["--contamination-detect", "ts-guess"],
])
def test_click_and_argparse_read_the_same_values(argv: list[str], tmp_path) -> None:  # noqa: ANN001
    flags = tmp_path / "flags.jsonl"
    flags.write_text("")
    argv = [a.format(flags=flags, dir=tmp_path / "cache") for a in argv]
    assert _via_click(argv) == _via_argparse(argv)


def test_defaults_and_choices_come_from_the_one_declaration() -> None:
    options, detect = _via_argparse([])
    assert options == FilterOptions(None) and options.mode is FilterMode.BOTH
    assert detect == DetectOptions()
    parser = argparse.ArgumentParser(prog="p")
    add_argparse_options(parser, FILTER_OPTIONS)
    text = parser.format_help()
    for o in FILTER_OPTIONS:
        assert o.name in text
    assert "{both,clean,contaminated}" in text and "<flags>" in text and "<name>" in text
    assert " ".join(FILTER_OPTIONS[0].help.split()[:4]) in " ".join(text.split())
    with pytest.raises(SystemExit):
        parser.parse_args(["--contamination-mode", "dirty"])


def test_click_checks_the_flags_path_and_the_choices(tmp_path) -> None:  # noqa: ANN001
    params: list[click.Parameter] = [*click_options()]
    command = click.Command("x", params=params, callback=lambda **_: None)
    missing = CliRunner().invoke(command, ["--contamination-filter", str(tmp_path / "none")])
    assert missing.exit_code == 2 and "does not exist" in missing.output
    bad = CliRunner().invoke(command, ["--contamination-mode", "dirty"])
    assert bad.exit_code == 2 and "'dirty' is not one of 'both', 'clean', 'contaminated'" in bad.output


def test_mode_without_flags_is_an_error_either_way() -> None:
    for read in (_via_click, _via_argparse):
        with pytest.raises(InputError, match="need --contamination-filter FLAGS or "
                                             "--contamination-detect"):
            read(["--contamination-mode", "clean"])


def test_swebench_lists_the_same_option_help() -> None:
    from harness_adapters.swebench._cli import OPTION_HELP

    rows = dict(OPTION_HELP)
    assert [rows[o.usage] for o in FILTER_OPTIONS] == [o.help for o in FILTER_OPTIONS]
    assert "--contamination-mode MODE" in rows
