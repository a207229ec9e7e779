"""`gitai help [COMMAND...]`: the help of gitai or of one of its commands, as `git help` does;
with --json, the same as data, so an agent can discover commands and options."""

from __future__ import annotations

from typing import Any

import click

from gitai.commands.output import emit_json, json_option
from gitai.errors import EXIT_OK, GitaiError


@click.command("help", epilog="Example: gitai help hooks install")
@click.argument("command", nargs=-1)
@json_option
@click.pass_context
def help_cmd(ctx: click.Context, command: tuple[str, ...], as_json: bool) -> int:
    """Show the help of gitai, or of COMMAND (a subcommand such as `trace verify`)."""
    root = ctx.find_root()
    target: click.Command = root.command
    context = root
    for name in command:
        found = target.get_command(context, name) if isinstance(target, click.Group) else None
        if found is None:
            raise GitaiError(f"no such command: gitai {' '.join(command)} (see 'gitai help')")
        target = found
        context = click.Context(target, info_name=name, parent=context)
    if as_json:
        emit_json(_describe(target, context, " ".join(command)))
    else:
        click.echo(target.get_help(context))
    return EXIT_OK


def _describe(command: click.Command, context: click.Context, name: str) -> dict[str, Any]:
    options = [
        {"names": list(param.opts + param.secondary_opts), "help": getattr(param, "help", None) or "",
         "is_flag": bool(getattr(param, "is_flag", False))}
        for param in command.params if isinstance(param, click.Option)
    ]
    arguments = [param.human_readable_name for param in command.params if isinstance(param, click.Argument)]
    subcommands = command.list_commands(context) if isinstance(command, click.Group) else []
    return {"command": f"gitai {name}".strip(), "usage": " ".join(command.collect_usage_pieces(context)),
            "summary": command.get_short_help_str(limit=200), "arguments": arguments, "options": options,
            "subcommands": subcommands, "example": (command.epilog or "").removeprefix("Example: ")}
