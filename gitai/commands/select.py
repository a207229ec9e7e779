"""`gitai select` and `gitai clear`: the handshake that declares what this worktree works on."""

from __future__ import annotations

import os

import click

from gitai.commands.output import emit_json, json_option, layout
from gitai.errors import EXIT_OK
from gitai.intents.selection import clear_intent, intent_context, intent_context_xml, select_intent


@click.command(epilog="Example: gitai select INT-001")
@click.argument("intent_id")
@json_option
def select(intent_id: str, as_json: bool) -> int:
    """Make INTENT_ID the active intent of this worktree; print its <intent_context>."""
    lay = layout()
    chosen = select_intent(lay, intent_id)
    if chosen.status_changed and not chosen.status_written:
        click.echo(
            f"gitai: warning: could not rewrite {intent_id}'s status in the catalogue safely "
            "(flow-style YAML?); the change to IN_PROGRESS is recorded in .orchestration/events.jsonl",
            err=True,
        )
    if os.environ.get("GITAI_INTENT", "").strip() not in ("", intent_id):
        click.echo("gitai: warning: GITAI_INTENT is set and overrides this selection in this process", err=True)
    if as_json:
        emit_json({"intent_context": intent_context(chosen.intent), "previous_intent_id": chosen.previous,
                   "status_changed": chosen.status_changed})
    else:
        click.echo(intent_context_xml(chosen.intent))
    return EXIT_OK


@click.command(epilog="Example: gitai clear")
@json_option
def clear(as_json: bool) -> int:
    """Leave this worktree with no active intent."""
    previous = clear_intent(layout())
    if os.environ.get("GITAI_INTENT", "").strip():
        click.echo("gitai: warning: GITAI_INTENT is set and still applies in this process", err=True)
    if as_json:
        emit_json({"previous_intent_id": previous})
    else:
        click.echo(f"cleared (was {previous})" if previous else "no intent was active")
    return EXIT_OK

