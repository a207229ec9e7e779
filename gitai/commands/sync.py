"""`gitai sync`: exchange the trace notes with a remote."""

from __future__ import annotations

import click

from gitai.commands.output import emit_json, json_option, layout
from gitai.errors import EXIT_OK
from gitai.trace.sync import sync as run_sync


@click.command(epilog="Example: gitai sync origin")
@click.argument("remote", default="origin")
@json_option
def sync(remote: str, as_json: bool) -> int:
    """Fetch, merge and push refs/notes/gitai with REMOTE, losing no record of either side."""
    result = run_sync(layout(), remote)
    if as_json:
        emit_json(result.to_json())
    else:
        pushed = "pushed" if result.pushed else "nothing to push"
        click.echo(f"{remote}: received {result.received} records; {pushed}")
    return EXIT_OK

