"""The `gitai` command: a thin click shell over the library (one module per subcommand in
gitai/commands, listed in gitai/commands/registry.py and imported only when it runs). Every
command has --json.

Exit codes: 0 ok, 1 a check found a problem, 2 bad input or usage (`gitai: error: ...`), 3 internal
error (one line; the traceback goes to `<git common dir>/gitai/errors.log`), 130 interrupted.
"""

from __future__ import annotations

import importlib
import sys

import click

from gitai import __version__
from gitai.commands.registry import COMMANDS
from gitai.errors import COMMAND, EXIT_OK, GitaiError, error_handler
from gitai.git.version import require_git
from gitai.layout import find_layout


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
    3 internal error, 130 interrupted), through the one error handler."""
    command = " ".join(sys.argv[1:] if argv is None else argv)
    handled = error_handler(COMMAND, f"gitai {command}", locate=_state_dir)
    with handled:
        try:
            require_git()
            code = cli.main(args=argv, prog_name="gitai", standalone_mode=False)
        except click.exceptions.NoArgsIsHelpError as exc:
            click.echo(exc.ctx.get_help() if exc.ctx else str(exc))
            code = EXIT_OK
        except click.ClickException as exc:  # an unknown option, a missing argument, a bad value: bad input
            raise GitaiError(exc.format_message()) from exc
        except click.exceptions.Exit as exc:
            code = exc.exit_code
        except click.Abort as exc:  # Ctrl-C at a prompt
            raise KeyboardInterrupt from exc
        sys.exit(code if isinstance(code, int) else EXIT_OK)
    sys.exit(handled.code)


def _state_dir() -> str | None:
    """Where an internal error's traceback goes: the repository's shared state, when there is one."""
    return find_layout().shared_state_dir
