"""`gitai export`: every record, file, range, contributor, intent and event as tables."""

from __future__ import annotations

import click

from gitai.commands.output import emit_json, json_option, reader_layout
from gitai.errors import EXIT_OK
from gitai.report.export import export
from gitai.report.model import build_tables


@click.command("export", epilog="Example: gitai export --format jsonl -o trace.jsonl")
@click.option("--format", "fmt", type=click.Choice(["sqlite", "jsonl"]), default="sqlite", show_default=True,
              help="SQLite database, or JSON Lines (one object per row, with its table name).")
@click.option("-o", "--output", required=True, metavar="FILE", help="Where to write (replaced if it exists).")
@json_option
def export_cmd(fmt: str, output: str, as_json: bool) -> int:
    """Write the trace as relational tables for analysis across repositories (docs/export.md)."""
    counts = export(build_tables(reader_layout()), fmt, output)
    if as_json:
        emit_json({"path": output, "format": fmt, "tables": counts})
    else:
        click.echo(f"wrote {output} ({fmt}): " + ", ".join(f"{n} {name}" for name, n in counts.items()))
    return EXIT_OK
