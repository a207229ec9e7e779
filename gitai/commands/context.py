"""`gitai context`: what the agent hooks inject at session start."""

from __future__ import annotations

import click

from gitai.agents.context import build_context, render_text
from gitai.commands.output import emit_json, json_option, layout
from gitai.errors import EXIT_OK
from gitai.intents.active import active_intent


@click.command(epilog="Example: gitai context --json")
@click.option("--intent", "intent_id", metavar="ID", help="Show this intent's context instead of the active one's.")
@json_option
def context(intent_id: str | None, as_json: bool) -> int:
    """The active intent's context for an agent (scope, constraints, lessons), or how to select one."""
    lay = layout()
    if intent_id is None:
        active = active_intent(lay)
        intent_id = active.id if active else None
    data = build_context(lay, intent_id)
    if as_json:
        emit_json(data)
    else:
        from gitai.util.text import printable

        click.echo(printable(render_text(data)))
    return EXIT_OK
