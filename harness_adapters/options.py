"""An option a harness wrapper adds to the harness's own command line, declared once
(:class:`OptionSpec`: name, help, default, choices) and rendered for click (Inspect's ``eval``)
and for argparse (lm-eval's ``run`` parser, the SWE-bench wrapper's reader of ``run_evaluation``
arguments). The declarations themselves live with their concept:
:data:`harness_adapters.common.FILTER_OPTIONS`, :data:`harness_adapters.detection.DETECT_OPTIONS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import click

__all__ = ["OptionSpec", "add_argparse_options"]


@dataclass(frozen=True)
class OptionSpec:
    """One option a wrapper adds to a harness's command line, declared once and rendered for click
    (:meth:`click_option`, Inspect) and for argparse (:meth:`add_to`, lm-eval and SWE-bench)."""

    name: str
    help: str
    metavar: str | None = None
    """What the value is called in help (click: as is; argparse: lm-eval's ``<flags>`` style);
    options with ``choices`` show the choices instead."""
    default: Any = None
    choices: tuple[str, ...] | None = None
    is_flag: bool = False
    click_type: Any = None
    """The click type of the value (e.g. a ``click.Path`` that must exist); argparse keeps text."""
    dest: str = ""
    """The parameter / namespace name; default: from the name (``--contamination-filter`` ->
    ``contamination_filter``)."""
    flag_value: str | None = None
    """With ``choices``: the value may be left out, and then is this (``--contamination-detect``
    alone is ``ts-guess``)."""
    multiple: bool = False
    """Repeatable: the values as a tuple (click) / list (argparse)."""

    @property
    def key(self) -> str:
        return self.dest or self.name.lstrip("-").replace("-", "_")

    @property
    def usage(self) -> str:
        """The option as a help list shows it: ``--contamination-filter FLAGS``."""
        return f"{self.name} {self.metavar}" if self.metavar else self.name

    def click_option(self) -> click.Option:
        if self.is_flag:
            return click.Option([self.name, self.key], is_flag=True, default=bool(self.default),
                                help=self.help)
        if self.choices and self.flag_value is not None:
            return click.Option([self.name, self.key], is_flag=False, flag_value=self.flag_value,
                                default=self.default, type=click.Choice(list(self.choices)),
                                help=self.help)
        if self.choices:
            return click.Option([self.name, self.key], default=self.default,
                                type=click.Choice(list(self.choices)), help=self.help)
        return click.Option([self.name, self.key], default=self.default, type=self.click_type,
                            metavar=self.metavar, help=self.help, multiple=self.multiple)

    def add_to(self, parser: Any, *, with_help: bool = True, underscores: bool = False) -> None:
        """Add the option to an argparse parser or argument group (``with_help=False``: for a
        parser that only reads values; ``underscores``: spelt as the harness spells its own,
        ``--contamination_filter``, with the hyphenated name kept as an alias)."""
        names = [self.name]
        if underscores and "-" in self.name.lstrip("-"):
            names = ["--" + self.name.lstrip("-").replace("-", "_"), self.name]
        extra: dict[str, Any] = {"help": self.help.replace("%", "%%")} if with_help else {}
        if self.is_flag:
            parser.add_argument(*names, dest=self.key, action="store_true", **extra)
            return
        if self.flag_value is not None:
            extra.update(nargs="?", const=self.flag_value)
        if self.multiple:
            extra["action"] = "append"
        if self.choices:
            extra["choices"] = list(self.choices)
        elif self.metavar and with_help:
            extra["metavar"] = f"<{self.metavar.lower()}>"
        parser.add_argument(*names, dest=self.key, default=self.default, **extra)


def add_argparse_options(parser: Any, options: Sequence[OptionSpec], *,
                         with_help: bool = True, underscores: bool = False) -> None:
    """``options`` on an argparse parser or argument group (``underscores``: lm-eval's
    ``--log_samples`` spelling first, the hyphens as aliases)."""
    for option in options:
        option.add_to(parser, with_help=with_help, underscores=underscores)
