"""`gitai check`: staged changes, a commit range or paths against an intent's scope."""

from __future__ import annotations

import click

from gitai.commands.output import emit_json, json_option, layout
from gitai.errors import EXIT_OK, EXIT_PROBLEM, GitaiError
from gitai.gate.check import check_paths, check_range, pass_bot_author, staged_paths
from gitai.gate.policy import load_policy
from gitai.intents.active import active_intent
from gitai.util.text import display_path


@click.command(epilog="Example: gitai check --range origin/main..HEAD --json")
@click.option("--staged", "mode", flag_value="staged", help="Check the index (the default).")
@click.option("--range", "revision_range", metavar="A..B", help="Check each commit against its Intent: trailer.")
@click.option("--intent", "intent_id", metavar="ID", help="Check against this intent instead of the active one.")
@click.argument("paths", nargs=-1)
@json_option
def check(
    mode: str | None, revision_range: str | None, intent_id: str | None, paths: tuple[str, ...], as_json: bool
) -> int:
    """Check staged changes, a commit range or PATHs against an intent's scope (exit 1 on violations)."""
    if sum(bool(x) for x in (mode, revision_range is not None, paths)) > 1:
        raise GitaiError("use one of --staged, --range A..B or PATH...")
    lay = layout()
    policy = load_policy(lay)
    if revision_range is not None:
        result = check_range(lay, policy, revision_range, intent_id)
    else:
        if intent_id is None:
            active = active_intent(lay)
            intent_id = active.id if active else None
        targets = [lay.repo_path(p) for p in paths] if paths else staged_paths(lay)
        result = check_paths(policy, intent_id, targets)
        if not paths:
            pass_bot_author(lay, policy, result)
    if as_json:
        emit_json(result.to_json())
        return EXIT_OK if result.ok else EXIT_PROBLEM
    for change in result.scope_changes or []:
        click.echo(f"{change['commit'][:12]} scope of {change['intent_id']} changed (committed under "
                   f"{change['committed_under'] or 'no intent'}): {', '.join(change['before']) or '(none)'} -> "
                   f"{', '.join(change['after']) or '(none)'}")
    if result.bot_commits:
        click.echo(f"{len(result.bot_commits)} commits by bot_authors not checked: "
                   + ", ".join(sha[:12] for sha in result.bot_commits))
    if result.bot_author:
        click.echo(f"not checked: {result.bot_author} is on bot_authors")
    if result.ok:
        click.echo(f"ok: {result.checked} {result.unit} checked")
    else:
        for v in result.violations:
            where = f"{v.commit[:12]} " if v.commit else ""
            owners = ", ".join(v.owners) or "no intent"
            against = f" [{v.intent_id}]" if v.intent_id else ""
            click.echo(f"{where}{v.reason}{against}: {display_path(v.path)} (owned by: {owners})")
    if not as_json and paths:
        for path in sorted(set(result.exempt)):
            click.echo(f"exempt (no intent needs to own it): {display_path(path)}")
    return EXIT_OK if result.ok else EXIT_PROBLEM

