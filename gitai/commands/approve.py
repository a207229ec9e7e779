"""`gitai approve ID`, `gitai done ID`, `gitai block ID --reason TEXT`: decisions for people, not agents
(each refuses to run inside an agent). Each is an event in .orchestration/events.jsonl."""

from __future__ import annotations

import click

from gitai.commands.output import emit_json, json_option, layout
from gitai.errors import EXIT_OK
from gitai.intents.approval import approve as record_approval
from gitai.intents.approval import close


def _status_warning(entry: dict[str, object]) -> None:
    if not entry.get("status_written"):
        click.echo(f"gitai: warning: could not rewrite {entry['intent_id']}'s status in the catalogue safely "
                   "(flow-style YAML?); the change is recorded in .orchestration/events.jsonl", err=True)


@click.command(epilog="Example: gitai approve INT-004")
@click.argument("intent_id")
@json_option
def approve(intent_id: str, as_json: bool) -> int:
    """Approve INTENT_ID so that agents may select it (for requires_approval: true); records who and when."""
    entry = record_approval(layout(), intent_id)
    if as_json:
        emit_json(entry)
    else:
        note = "" if entry["requires_approval"] else " (it does not require approval)"
        click.echo(f"approved {entry['intent_id']} by {entry['approved_by']} at {entry['approved_at']}{note}")
    return EXIT_OK


@click.command(epilog="Example: gitai done INT-001")
@click.argument("intent_id")
@json_option
def done(intent_id: str, as_json: bool) -> int:
    """Mark INTENT_ID DONE: no new work goes under it."""
    entry = close(layout(), intent_id, "DONE")
    _status_warning(entry)
    if as_json:
        emit_json(entry)
    else:
        click.echo(f"{entry['intent_id']}: {entry['previous_status']} -> DONE")
    return EXIT_OK


@click.command(epilog="Example: gitai block INT-002 --reason \"waiting for the API review\"")
@click.argument("intent_id")
@click.option("--reason", required=True, metavar="TEXT", help="Why the intent is blocked (written as blocked_reason).")
@json_option
def block(intent_id: str, reason: str, as_json: bool) -> int:
    """Mark INTENT_ID BLOCKED with a reason: no new work goes under it until a person unblocks it."""
    entry = close(layout(), intent_id, "BLOCKED", reason)
    _status_warning(entry)
    if as_json:
        emit_json(entry)
    else:
        click.echo(f"{entry['intent_id']}: {entry['previous_status']} -> BLOCKED ({entry['reason']})")
    return EXIT_OK
