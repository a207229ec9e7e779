"""`gitai trace verify | rebuild`."""

from __future__ import annotations

import click

from gitai.commands.output import emit_json, json_option, layout
from gitai.errors import EXIT_OK, EXIT_PROBLEM


@click.group(epilog="Example: gitai trace verify")
def trace() -> None:
    """Check or rebuild the trace (notes are the source of truth)."""


@trace.command("verify", epilog="Example: gitai trace verify --json")
@json_option
def trace_verify(as_json: bool) -> int:
    """Recompute every range hash from git and compare notes with the ledger (exit 1 on mismatch)."""
    from gitai.trace.audit import verify

    result = verify(layout())
    if as_json:
        emit_json(result.to_json())
    else:
        for problem in result.problems:
            where = f"{problem.commit[:12]}: " if problem.commit else ""
            click.echo(f"{problem.kind}: {where}{problem.message}")
        status = "ok" if result.ok else f"{len(result.problems)} problems"
        click.echo(f"{status}: {result.notes} notes, {result.records} records, {result.ranges} ranges, "
                   f"{result.ledger_lines} ledger lines" + (f", {len(result.orphaned)} orphaned notes" if result.orphaned else ""))
    return EXIT_OK if result.ok else EXIT_PROBLEM


@trace.command("rebuild", epilog="Example: gitai trace rebuild")
@json_option
def trace_rebuild(as_json: bool) -> int:
    """Regenerate the ledger from the notes."""
    from gitai.trace.audit import rebuild

    lay = layout()
    count = rebuild(lay)
    if as_json:
        emit_json({"records": count, "ledger": lay.relative(lay.ledger)})
    else:
        click.echo(f"wrote {count} records to {lay.relative(lay.ledger)}")
    return EXIT_OK

