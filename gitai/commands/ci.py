"""`gitai ci github|gitlab`: write the CI workflow (the gate on requests, carry on merge)."""

from __future__ import annotations

import click

from gitai.ci.workflows import install_source, write_ci
from gitai.commands.output import emit_json, json_option, layout
from gitai.errors import EXIT_OK


@click.command("ci", epilog="Example: gitai ci github --install git+https://git.example.com/team/gitai.git@v0.1.0")
@click.argument("host", type=click.Choice(["github", "gitlab"]))
@click.option("--install", "install", metavar="SPEC",
              help="Where CI installs gitai from: a version, a pip requirement, a VCS URL or a wheel path "
                   "(default: this gitai's VCS URL, else its version).")
@click.option("--force", is_flag=True, help="Overwrite an existing gitai CI file.")
@json_option
def ci_cmd(host: str, install: str | None, force: bool, as_json: bool) -> int:
    """Write a CI workflow: `gitai check --range` on pull/merge requests, `gitai carry` and notes push on merge."""
    lay = layout()
    source = install_source(install)
    path = lay.relative(write_ci(lay, host, source, force))
    if as_json:
        emit_json({"host": host, "path": path, "install": source.spec, "install_origin": source.origin})
    else:
        click.echo(f"wrote {path}: review it and commit it like any code")
        if source.origin == "version":
            click.echo(f"it installs {source.spec} from the runner's package index; if that version is not "
                       "published there, run again with --install SPEC --force (a VCS URL or a wheel path)")
        else:
            click.echo(f"it installs {source.spec}")
    return EXIT_OK
