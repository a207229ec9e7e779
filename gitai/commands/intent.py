"""`gitai intent show ID`: a read-only view of one intent (`select` changes state; this does not)."""

from __future__ import annotations

import click

from gitai.commands.output import emit_json, json_option, layout
from gitai.errors import EXIT_OK
from gitai.intents.approval import is_approved
from gitai.intents.catalogue import load_catalogue
from gitai.intents.selection import intent_context_xml


@click.group(epilog="Example: gitai intent show INT-001")
def intent() -> None:
    """Look at one intent."""


@intent.command("show", epilog="Example: gitai intent show INT-001 --json")
@click.argument("intent_id")
@json_option
def intent_show(intent_id: str, as_json: bool) -> int:
    """Show INTENT_ID's context, approval and status, without selecting it."""
    lay = layout()
    found = load_catalogue(lay.catalogue, lay.root).get(intent_id)
    approved = is_approved(lay, found.id)
    if as_json:
        emit_json({**found.to_json(), "approved": approved})
        return EXIT_OK
    click.echo(intent_context_xml(found))
    if found.requires_approval:
        approval = "approved" if approved else f"not yet approved (gitai approve {found.id})"
        click.echo(f"requires approval: {approval}")
    if found.parent_intent:
        click.echo(f"parent intent: {found.parent_intent}")
    return EXIT_OK
