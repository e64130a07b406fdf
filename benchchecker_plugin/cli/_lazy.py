"""A click group whose subcommands are imported only when used (fast ``--help``, no harness
imported at start-up) and which turns our errors into one line and a non-zero exit code.

The group's own ``--help`` lists each command with the short help given in ``lazy_help``, so
listing imports no command module (a test keeps those strings equal to the commands' own).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from typing import Any

import click

from ..errors import BenchcheckerError, DataError, InputError


class UsageFailure(click.ClickException):
    """A :class:`BenchcheckerError` on its way out of the CLI: one line on stderr, its exit code."""

    def __init__(self, error: BenchcheckerError) -> None:
        # one line, whatever a wrapped library's message holds (pandas, PyYAML, pydantic end lines)
        super().__init__(" ".join(part.strip() for part in str(error).splitlines() if part.strip()))
        # click annotates exit_code as a ClassVar, yet Command.main exits with the instance's e.exit_code
        self.exit_code = error.exit_code  # type: ignore[misc]


class LazyGroup(click.Group):
    """``lazy_commands`` maps a command name to ``"module:attribute"``: a click command, or a
    function without arguments that builds one (called once). ``lazy_help`` maps a command name to
    its short help, shown in the listing without importing the command.

    A command whose module does not exist (looked up with ``find_spec``, which imports only its
    parent packages) is left out of the listing and is unknown to click. A command whose optional
    harness is missing is still listed: its module imports the harness only when the command runs,
    and :func:`benchchecker_plugin.extras.require` then stops it with one line naming the extra.
    Our errors raised while a command loads or runs leave as :class:`UsageFailure`.
    """

    def __init__(self, *args: Any, lazy_commands: dict[str, str] | None = None,
                 lazy_help: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_commands = dict(lazy_commands or {})
        self.lazy_help = dict(lazy_help or {})
        self._loaded: dict[str, click.Command] = {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        names = set(super().list_commands(ctx))
        names.update(n for n in self.lazy_commands if self._available(n))
        return sorted(names)

    def _available(self, name: str) -> bool:
        module = self.lazy_commands[name].split(":")[0]
        return importlib.util.find_spec(module) is not None if _parent_exists(module) else False

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        from ._outputs import guard_outputs

        cmd = super().get_command(ctx, cmd_name)
        if cmd is not None or cmd_name not in self.lazy_commands:
            return guard_outputs(cmd) if cmd is not None else None
        module_name, attr = self.lazy_commands[cmd_name].split(":")
        if not self._available(cmd_name):
            return None
        if cmd_name not in self._loaded:
            found = getattr(importlib.import_module(module_name), attr)
            self._loaded[cmd_name] = guard_outputs(found if isinstance(found, click.Command) else found())
        return self._loaded[cmd_name]

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command listing, as click writes it, with ``lazy_help`` instead of importing."""
        rows: list[tuple[str, str]] = []
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max((len(n) for n in names), default=0)
        for name in names:
            if name in self.lazy_help and name not in self._loaded:
                placeholder = click.Command(name, help=self.lazy_help[name])  # click's own shortening
                rows.append((name, placeholder.get_short_help_str(limit)))
                continue
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(limit)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BenchcheckerError as exc:
            raise UsageFailure(exc) from exc
        except OSError as exc:
            if exc.filename is None:   # not about a path the user gave: a real failure, with its traceback
                raise
            # a path the user gave that the system refuses (under /proc, a link loop, a full
            # disk): one line naming it, as every error of ours
            where = " -> ".join(str(f) for f in (exc.filename, exc.filename2) if f is not None)
            raise UsageFailure(InputError(f"{where}: {exc.strerror or exc}")) from exc
        except RecursionError as exc:
            # a reader that does not name its file: name the paths the command was given
            given = [str(v) for v in _path_params(ctx)]
            where = f" (one of: {', '.join(given)})" if given else ""
            raise UsageFailure(DataError(f"an input is nested too deeply to read{where}")) from exc


def _path_params(ctx: click.Context) -> list[object]:
    """The path-like values of ``ctx``'s parameters and of its parents' (in order given)."""
    out: list[object] = []
    seen: set[str] = set()
    node: click.Context | None = ctx
    while node is not None:
        for value in node.params.values():
            for v in value if isinstance(value, (list, tuple)) else [value]:
                if isinstance(v, os.PathLike) and str(v) not in seen:
                    seen.add(str(v))
                    out.append(v)
        node = node.parent
    return out


def _parent_exists(module: str) -> bool:
    parts = module.split(".")
    for i in range(1, len(parts)):
        if importlib.util.find_spec(".".join(parts[:i])) is None:
            return False
    return True
