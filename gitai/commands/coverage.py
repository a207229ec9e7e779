"""`gitai coverage`: the files at HEAD that no intent owns and those that several own."""

from __future__ import annotations

import click

from gitai.commands.output import emit_json, json_option, layout
from gitai.errors import EXIT_OK, EXIT_PROBLEM
from gitai.gate.coverage import coverage as scope_coverage
from gitai.util.text import display_path


@click.command(epilog="Example: gitai coverage --json")
@json_option
def coverage(as_json: bool) -> int:
    """Files at HEAD owned by no intent or by several (exit 1 when there are any, so CI can require full coverage)."""
    result = scope_coverage(layout())
    if as_json:
        emit_json(result.to_json())
        return EXIT_OK if result.complete else EXIT_PROBLEM
    for path in result.unowned:
        click.echo(f"no intent: {display_path(path)}")
    for path, owners in result.shared:
        click.echo(f"several:   {display_path(path)} ({', '.join(owners)})")
    click.echo(f"{result.files} files at HEAD: {result.owned_once} owned by one intent, {len(result.unowned)} by none, "
               f"{len(result.shared)} by several, {result.exempt} exempt")
    return EXIT_OK if result.complete else EXIT_PROBLEM
