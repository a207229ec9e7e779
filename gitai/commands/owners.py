"""`gitai owners PATH...`: which intents own each path (agents ask before they write)."""

from __future__ import annotations

from typing import Any

import click

from gitai.commands.output import emit_json, json_option, layout
from gitai.errors import EXIT_OK
from gitai.gate.policy import load_policy
from gitai.intents.active import active_intent
from gitai.intents.patterns import is_exempt
from gitai.util.text import display_path


@click.command(epilog="Example: gitai owners src/auth/login.py docs/api.md")
@click.argument("paths", nargs=-1, required=True)
@json_option
def owners(paths: tuple[str, ...], as_json: bool) -> int:
    """Which intents own each PATH, and whether it is exempt (needs no intent)."""
    lay = layout()
    policy = load_policy(lay)
    active = active_intent(lay)
    active_id = active.id if active and active.id in policy.intents else None
    rows: list[dict[str, Any]] = []
    for given in paths:
        path = lay.repo_path(given)
        rows.append({"path": path, "owners": policy.owners(path), "exempt": policy.is_exempt(path),
                     "agents_may_write": not is_exempt(path) and path != ".git" and not path.startswith(".git/"),
                     "in_active_scope": bool(active_id and policy.in_scope(active_id, path))})
    if as_json:
        emit_json({"intent_id": active_id, "paths": rows})
        return EXIT_OK
    for row in rows:
        owned = ", ".join(row["owners"]) or "no intent"
        notes = []
        if row["exempt"]:
            notes.append("exempt" + ("" if row["agents_may_write"] else ", but not for agents"))
        if active_id:
            notes.append(f"{'in' if row['in_active_scope'] else 'outside'} {active_id}'s scope")
        click.echo(f"{display_path(row['path'])}: {owned}" + (f" ({'; '.join(notes)})" if notes else ""))
    return EXIT_OK
