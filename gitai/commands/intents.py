"""`gitai intents`: the catalogue's intents."""

from __future__ import annotations

import click

from gitai.commands.output import emit_json, json_option, layout
from gitai.errors import EXIT_OK
from gitai.intents.active import active_intent
from gitai.intents.catalogue import load_catalogue
from gitai.util.text import printable


@click.command(epilog="Example: gitai intents --json")
@json_option
def intents(as_json: bool) -> int:
    """List the intents of the catalogue."""
    lay = layout()
    catalogue = load_catalogue(lay.catalogue, lay.root)
    active = active_intent(lay)
    active_id = active.id if active else None
    if as_json:
        emit_json([{**i.to_json(), "active": i.id == active_id} for i in catalogue.intents])
        return EXIT_OK
    if not catalogue.intents:
        click.echo("no intents yet: add some to .orchestration/active_intents.yaml")
        return EXIT_OK
    width_id = max(len(i.id) for i in catalogue.intents) + 2
    width_name = max(len(i.name) for i in catalogue.intents)
    for i in catalogue.intents:
        mark = "*" if i.id == active_id else " "
        scope = ", ".join(i.owned_scope)
        click.echo(printable(f"{mark} {i.id:<{width_id}}{i.status:<12}{i.name:<{width_name}}  {scope}"))
    return EXIT_OK

