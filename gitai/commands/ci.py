"""`gitai ci github|gitlab`: write the CI workflow (the gate on requests, carry on merge)."""

from __future__ import annotations

import click

from gitai.commands.output import emit_json, json_option, layout
from gitai.errors import EXIT_OK


@click.command("ci", epilog="Example: gitai ci github")
@click.argument("host", type=click.Choice(["github", "gitlab"]))
@click.option("--force", is_flag=True, help="Overwrite an existing gitai CI file.")
@json_option
def ci_cmd(host: str, force: bool, as_json: bool) -> int:
    """Write a CI workflow: `gitai check --range` on pull/merge requests, `gitai carry` and notes push on merge."""
    from gitai.ci.workflows import write_ci

    lay = layout()
    path = lay.relative(write_ci(lay, host, force))
    if as_json:
        emit_json({"host": host, "path": path})
    else:
        click.echo(f"wrote {path}: review it and commit it like any code")
    return EXIT_OK
