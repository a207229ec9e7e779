"""`gitai log`: traced commits, newest first."""

from __future__ import annotations

import click

from gitai.commands.output import emit_json, json_option, layout
from gitai.errors import EXIT_OK
from gitai.util.text import NO_INTENT


@click.command("log", epilog="Example: gitai log INT-001")
@click.argument("intent_id", required=False)
@click.option("--declared-only", is_flag=True, help="Leave out commits whose intent backfill inferred (~INT-ID).")
@json_option
def log_cmd(intent_id: str | None, declared_only: bool, as_json: bool) -> int:
    """Commits traced to an intent (or to any), newest first, with the files they touched."""
    from gitai.trace.log import traced_log
    from gitai.util.text import display_path

    lay = layout()
    entries = traced_log(lay, intent_id, declared_only=declared_only)
    if intent_id is not None and not entries:
        from gitai.intents.catalogue import load_catalogue

        load_catalogue(lay.catalogue, lay.root).get(intent_id)  # unknown intent: exit 2
    if as_json:
        emit_json([e.to_json() for e in entries])
        return EXIT_OK
    for e in entries:
        kind = f" [{e.classification}]" if e.classification else ""
        mark = "~" if e.intent_source == "scope" else ""
        shown = mark + e.intent_id if e.intent_id else ("(several)" if e.intents else NO_INTENT)
        click.echo(f"{e.commit[:12]} {e.date[:10]} {shown}{kind} {e.subject}")
        for path in e.files:
            per_file = e.intents.get(path) if e.intents is not None else None
            click.echo(f"    {display_path(path)}" + (f"  {mark}{per_file}" if per_file else ""))
    if not entries:
        click.echo("no traced commits" + (f" for {intent_id}" if intent_id else ""))
    return EXIT_OK

