"""The `gitai` command: a thin click shell over the library (one module per subcommand in
gitai/commands). Every command has --json.

Exit codes: 0 ok, 1 a check found a problem, 2 bad input or usage (`gitai: error: ...`), 3 internal
error (one line; the traceback goes to `<git common dir>/gitai/errors.log`), 130 interrupted.
"""

from __future__ import annotations

import os
import sys

import click

from gitai import __version__
from gitai.commands.agents import agents
from gitai.commands.approve import approve, block, done
from gitai.commands.backfill import backfill
from gitai.commands.blame_intent import blame_intent_cmd
from gitai.commands.carry import carry_cmd
from gitai.commands.check import check
from gitai.commands.ci import ci_cmd
from gitai.commands.classify import classify_cmd
from gitai.commands.context import context
from gitai.commands.coverage import coverage
from gitai.commands.export import export_cmd
from gitai.commands.gc import gc_cmd
from gitai.commands.help import help_cmd
from gitai.commands.hook import hook
from gitai.commands.hooks import hooks
from gitai.commands.init import init
from gitai.commands.intent import intent
from gitai.commands.intents import intents
from gitai.commands.lesson import lesson
from gitai.commands.log import log_cmd
from gitai.commands.map import map_cmd
from gitai.commands.owners import owners
from gitai.commands.report import report_cmd
from gitai.commands.sandbox import exec_cmd, run_cmd
from gitai.commands.select import clear, select
from gitai.commands.show import show
from gitai.commands.stats import stats_cmd
from gitai.commands.status import status
from gitai.commands.sync import sync
from gitai.commands.trace import trace
from gitai.errors import (
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    GitaiError,
)
from gitai.layout import find_layout
from gitai.util.crash import log_traceback
from gitai.util.text import one_line


@click.group(context_settings={"help_option_names": ["-h", "--help"]}, epilog="Example: gitai help select")
@click.version_option(__version__, prog_name="gitai")
def cli() -> None:
    """Tie every change in a git repository to the intent it serves."""


for _command in (init, hooks, intents, select, clear, status, check, show, log_cmd, backfill, trace, sync, classify_cmd,
                 map_cmd, blame_intent_cmd, carry_cmd, ci_cmd, gc_cmd, help_cmd, agents, hook, owners, coverage,
                 intent, context, lesson, approve, done, block, stats_cmd, export_cmd, report_cmd, exec_cmd, run_cmd):
    cli.add_command(_command)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: one-line errors, stable exit codes (0 ok, 1 problem, 2 bad input,
    3 internal error, 130 interrupted)."""
    try:
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
