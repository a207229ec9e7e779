"""`gitai status`: the active intent and the staged paths against its scope."""

from __future__ import annotations

from typing import Any

import click

from gitai.commands.output import emit_json, json_option, layout
from gitai.errors import EXIT_OK
from gitai.gate.check import check_paths, staged_paths
from gitai.gate.policy import load_policy
from gitai.intents.active import active_intent
from gitai.util.text import display_path, printable


@click.command(epilog="Example: gitai status")
@json_option
def status(as_json: bool) -> int:
    """Active intent, and the staged paths in and out of its scope."""
    lay = layout()
    active = active_intent(lay)
    paths = staged_paths(lay)
    policy = load_policy(lay)
    intent_id = active.id if active and active.id in policy.intents else None
    result = check_paths(policy, intent_id, paths)
    bad = {v.path for v in result.violations}
    rows: list[dict[str, Any]] = [
        {"path": p, "scope": "exempt" if policy.is_exempt(p) else "out" if p in bad else "in",
         "owners": policy.owners(p)}
        for p in paths
    ]
    if as_json:
        emit_json({"intent_id": active.id if active else None, "source": active.source if active else None,
                   "known": intent_id is not None, "ok": result.ok, "staged": rows})
        return EXIT_OK
    if active is None:
        click.echo("no active intent (gitai select INT-ID)")
    else:
        known = "" if intent_id else "  (not in the catalogue!)"
        name = policy.intents[intent_id].name if intent_id else ""
        where = "GITAI_INTENT" if active.source == "env" else "this worktree"
        click.echo(printable(f"active intent: {active.id} {name} [{where}]{known}"))
    if not rows:
        click.echo("nothing staged")
    for row in rows:
        label = {"exempt": "exempt  ", "in": "in scope", "out": "OUT     "}[row["scope"]]
        owners = f"  (owned by {', '.join(row['owners'])})" if row["scope"] == "out" and row["owners"] else ""
        click.echo(f"  {label}  {display_path(row['path'])}{owners}")
    return EXIT_OK

