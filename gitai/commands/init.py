"""`gitai init`: the .orchestration/ skeleton and the git hooks."""

from __future__ import annotations

import os

import click

from gitai.agents.instructions import write_instructions
from gitai.commands.hooks import warn_shared_hooks
from gitai.commands.output import emit_json, json_option, layout
from gitai.errors import EXIT_OK
from gitai.hooks.install import install_hooks
from gitai.intents.skeleton import check_orchestration_dir, init_orchestration


@click.command(epilog="Example: gitai init")
@click.option("--no-hooks", is_flag=True, help="Create the skeleton only.")
@click.option("--no-notes-travel", is_flag=True, help="Do not make the notes travel with git push and git pull.")
@json_option
def init(no_hooks: bool, no_notes_travel: bool, as_json: bool) -> int:
    """Create the .orchestration/ skeleton, the gitai section of AGENTS.md and the hooks (idempotent)."""
    lay = layout()
    check_orchestration_dir(lay)
    hooks = [] if no_hooks else install_hooks(lay)  # first: it may refuse, and then nothing is created
    created = init_orchestration(lay)
    instructions = write_instructions(lay.root)
    travel = None
    received = 0
    if hooks and not no_notes_travel:
        from gitai.trace.travel import enable, fetch_team_notes

        travel = enable(lay)
        received = fetch_team_notes(lay)  # a clone: the team's records, before any reader needs them
    if hooks:
        warn_shared_hooks(lay)
    if as_json:
        emit_json({"created": [os.path.relpath(p, lay.root) for p in created], "hooks": [h.to_json() for h in hooks],
                   "notes_travel": travel is not None, "records_received": received,
                   "agent_instructions": instructions})
        return EXIT_OK
    for path in created:
        click.echo(f"created {os.path.relpath(path, lay.root)}")
    if not created:
        click.echo(".orchestration/ already set up; nothing overwritten")
    for name in instructions:
        click.echo(f"wrote the gitai section of {name} (the loop agents follow)")
    for hook in hooks:
        behind = f" (as {hook.path.name}, run by {hook.framework})" if hook.framework else ""
        click.echo(f"hook {hook.name}: {hook.state}{' (chained to the previous hook)' if hook.chained else ''}{behind}")
    if travel is not None:
        click.echo("notes travel with git push and git pull" + (f" ({', '.join(travel)})" if travel else "")
                   + "; 'gitai init --no-notes-travel' next time to opt out")
    if received:
        click.echo(f"merged {received} records from the remotes' notes")
    click.echo("next: add intents to .orchestration/active_intents.yaml, then 'gitai select INT-ID'")
    return EXIT_OK

