"""`gitai show`: the trace record of a commit."""

from __future__ import annotations

import click

from gitai.commands.output import emit_json, json_option, reader_layout
from gitai.errors import EXIT_OK, EXIT_PROBLEM
from gitai.trace.log import commit_records, describe_record
from gitai.trace.travel import missing_record_advice


@click.command(epilog="Example: gitai show HEAD~1 --json")
@click.argument("rev", default="HEAD")
@json_option
def show(rev: str, as_json: bool) -> int:
    """Show the trace record of a commit (default HEAD). JSON: a list of records."""
    lay = reader_layout()
    sha, records = commit_records(lay, rev)
    if as_json:
        emit_json([r.data for r in records])
    elif not records:
        click.echo(f"commit {sha} has no trace record ({missing_record_advice(lay)})")
    else:
        from gitai.util.text import printable

        click.echo(printable("\n\n".join("\n".join(describe_record(r)) for r in records)))
    return EXIT_OK if records else EXIT_PROBLEM

