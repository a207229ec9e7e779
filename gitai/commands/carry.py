"""`gitai carry`: records for the commits a server made in a squash or rebase merge."""

from __future__ import annotations

import click

from gitai.carry import carry
from gitai.commands.output import emit_json, json_option, layout
from gitai.errors import EXIT_OK


@click.command("carry", epilog="Example: gitai carry $(git merge-base main feature)..feature --to main")
@click.argument("source_range", metavar="A..B")
@click.option("--to", "target", required=True, metavar="C|X..C",
              help="The commit (squash) or commits (rebase) that replaced A..B.")
@json_option
def carry_cmd(source_range: str, target: str, as_json: bool) -> int:
    """Build the records of the commits that replaced A..B (squash/rebase merge) from A..B's records, line by line."""
    result = carry(layout(), source_range, target)
    if as_json:
        emit_json(result.to_json())
        return EXIT_OK
    for item in result.carried:
        exact = "exact" if item["carry"] == "rebase" else "best effort"
        click.echo(f"{item['commit'][:12]} {item['carry']} ({exact}): {item['known']}/{item['lines']} lines "
                   f"carried from {len(item['carried_from'])} commits")
    for sha in result.skipped:
        click.echo(f"{sha[:12]} already has a record; left alone")
    return EXIT_OK
