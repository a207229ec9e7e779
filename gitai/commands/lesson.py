"""`gitai lesson "TEXT"`: append a lesson to the shared brain, .orchestration/AGENT.md."""

from __future__ import annotations

import click

from gitai.agents.brain import add_lesson
from gitai.commands.output import emit_json, json_option, layout
from gitai.errors import EXIT_OK


@click.command(epilog="Example: gitai lesson \"Run make gen after editing the schema\" --intent INT-001")
@click.argument("text")
@click.option("--intent", "intent_id", metavar="ID", help="The intent the lesson is about (default: the active one).")
@json_option
def lesson(text: str, intent_id: str | None, as_json: bool) -> int:
    """Append a dated, attributed lesson to .orchestration/AGENT.md (never rewrites earlier ones)."""
    entry = add_lesson(layout(), text, intent_id)
    if as_json:
        emit_json(entry)
    else:
        click.echo(f"lesson added to .orchestration/AGENT.md: {entry['line']}")
    return EXIT_OK
