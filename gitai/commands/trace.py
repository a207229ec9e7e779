"""`gitai trace verify | rebuild | recover`."""

from __future__ import annotations

import click

from gitai.commands.output import emit_json, json_option, layout, reader_layout
from gitai.errors import EXIT_OK, EXIT_PROBLEM
from gitai.trace.audit import rebuild, recover, verify
from gitai.trace.travel import missing_record_advice


@click.group(epilog="Example: gitai trace verify")
def trace() -> None:
    """Check, repair or rebuild the trace (notes are the source of truth)."""


@trace.command("verify", epilog="Example: gitai trace verify --missing")
@click.option("--missing", "list_missing", is_flag=True, help="List the commits that have no record.")
@json_option
def trace_verify(list_missing: bool, as_json: bool) -> int:
    """Recompute every range hash from git and compare notes with the ledger (exit 1 on mismatch)."""
    lay = reader_layout()
    result = verify(lay)
    if as_json:
        emit_json(result.to_json())
        return EXIT_OK if result.ok else EXIT_PROBLEM
    for problem in result.problems:
        where = f"{problem.commit[:12]}: " if problem.commit else ""
        click.echo(f"{problem.kind}: {where}{problem.message}")
    if list_missing:
        for sha in result.missing:
            click.echo(f"missing: {sha}")
    status = "ok" if result.ok else f"{len(result.problems)} problems"
    orphaned = f", {len(result.orphaned)} orphaned notes" if result.orphaned else ""
    click.echo(f"{status}: {result.notes} notes, {result.records} records, {result.ranges} ranges, "
               f"{result.ledger_lines} ledger lines{orphaned}")
    if result.missing:
        click.echo(f"{len(result.missing)} commits reachable from HEAD have no record (list them with --missing; "
                   f"{missing_record_advice(lay)})")
    return EXIT_OK if result.ok else EXIT_PROBLEM


@trace.command("rebuild", epilog="Example: gitai trace rebuild")
@click.option("--force", is_flag=True, help="Drop ledger records that no note holds (see 'gitai trace recover').")
@json_option
def trace_rebuild(force: bool, as_json: bool) -> int:
    """Regenerate the ledger from the notes (refuses to drop a record only the ledger holds)."""
    lay = layout()
    count = rebuild(lay, force)
    if as_json:
        emit_json({"records": count, "ledger": lay.relative(lay.ledger)})
    else:
        click.echo(f"wrote {count} records to {lay.relative(lay.ledger)}")
    return EXIT_OK


@trace.command("recover", epilog="Example: gitai trace recover")
@json_option
def trace_recover(as_json: bool) -> int:
    """Put back into the notes the records only the ledger or the notes reflog still hold."""
    result = recover(layout())
    if as_json:
        emit_json(result.to_json())
    else:
        click.echo(f"restored {len(result.to_notes)} records to the notes ({result.from_reflog} from the notes "
                   f"reflog); appended {result.to_ledger} to the ledger"
                   + (f"; {result.unrestorable} ledger records name commits git no longer has (kept in the ledger)"
                      if result.unrestorable else ""))
    return EXIT_OK
