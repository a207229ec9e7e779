"""The `gitai` command: a thin click shell over the library (one module per subcommand in
gitai/commands, listed in gitai/commands/registry.py and imported only when it runs). Every
command has --json.

Exit codes: 0 ok, 1 a check found a problem, 2 bad input or usage (`gitai: error: ...`), 3 internal
error (one line; the traceback goes to `<git common dir>/gitai/errors.log`), 130 interrupted.
"""

from __future__ import annotations

import importlib
import os
import sys

import click

from gitai import __version__
from gitai.commands.registry import COMMANDS
from gitai.errors import (
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    GitaiError,
)
from gitai.git.version import require_git
from gitai.layout import find_layout
from gitai.util.crash import log_traceback
from gitai.util.text import one_line


class LazyGroup(click.Group):
    """The subcommands of the registry, each imported when it is asked for (pip's `commands_dict`):
    `gitai status` loads the status command alone, `gitai --help` none."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, attribute, _ = COMMANDS[cmd_name]
        command: click.Command = getattr(importlib.import_module(f"gitai.commands.{module}"), attribute)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from the registry's summaries, shortened as click shortens a command's help."""
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [(name, click.Command(name, help=summary).get_short_help_str(limit))
                for name, (_, _, summary) in sorted(COMMANDS.items())]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def subcommands(group: click.Group) -> dict[str, click.Command]:
    """A group's commands by name, the registry's loaded."""
    ctx = click.Context(group)
    found = {name: group.get_command(ctx, name) for name in group.list_commands(ctx)}
    return {name: command for name, command in found.items() if command is not None}


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]},
             epilog="Example: gitai help select")
@click.version_option(__version__, prog_name="gitai")
def cli() -> None:
    """Tie every change in a git repository to the intent it serves."""


def main(argv: list[str] | None = None) -> None:
    """Console entry point: one-line errors, stable exit codes (0 ok, 1 problem, 2 bad input,
    3 internal error, 130 interrupted)."""
    try:
        require_git()
        code = cli.main(args=argv, prog_name="gitai", standalone_mode=False)
    except GitaiError as exc:
        click.echo(f"gitai: error: {one_line(str(exc))}", err=True)
        code = exc.exit_code
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.ctx.get_help() if exc.ctx else str(exc))
        code = EXIT_OK
    except click.UsageError as exc:
        click.echo(f"gitai: error: {one_line(exc.format_message())}", err=True)
        code = EXIT_USAGE
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except (click.Abort, KeyboardInterrupt):
        click.echo("gitai: error: interrupted", err=True)
        code = EXIT_INTERRUPTED
    except BrokenPipeError:
        code = EXIT_OK
    except OSError as exc:  # the environment, not gitai: a read-only or full disk, a directory where a file goes
        click.echo(f"gitai: error: {one_line(os_error_message(exc))}", err=True)
        code = EXIT_USAGE
    except Exception as exc:  # noqa: BLE001 - a bug: one line and exit 3, never a traceback an agent reads as a verdict
        code = _internal_error(exc, argv)
    sys.exit(code if isinstance(code, int) else EXIT_OK)


def os_error_message(exc: OSError) -> str:
    """`cannot use PATH: REASON`, the path relative to the current directory when inside it."""
    reason = exc.strerror or exc.__class__.__name__
    if exc.filename is None:
        return f"{reason}"
    name = os.fsdecode(exc.filename)
    relative = os.path.relpath(name)
    shown = relative if not relative.startswith("..") else name
    return f"cannot use {shown}: {reason}"


def _internal_error(exc: Exception, argv: list[str] | None) -> int:
    state_dir = None
    try:
        state_dir = find_layout().shared_state_dir
    except Exception:  # noqa: BLE001 - outside a repository there is nowhere to log
        pass
    command = " ".join(sys.argv[1:] if argv is None else argv)
    logged = log_traceback(state_dir, f"gitai {command}")
    where = f" (traceback in {logged})" if logged else ""
    click.echo(f"gitai: error: internal error: {one_line(f'{exc.__class__.__name__}: {exc}')}{where}", err=True)
    return EXIT_INTERNAL
