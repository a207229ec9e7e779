"""`gitai classify`: AST_REFACTOR or INTENT_EVOLUTION for a commit or the staged changes."""

from __future__ import annotations

import click

from gitai.commands.output import emit_json, json_option, layout
from gitai.errors import EXIT_OK, GitaiError
from gitai.trace.classify_commit import classify_revision, classify_staged


@click.command("classify", epilog="Example: gitai classify --staged")
@click.argument("rev", required=False)
@click.option("--staged", is_flag=True, help="Classify the staged changes instead of a commit.")
@json_option
def classify_cmd(rev: str | None, staged: bool, as_json: bool) -> int:
    """AST_REFACTOR or INTENT_EVOLUTION, per file and per definition, for REV (default HEAD) or --staged."""
    if staged and rev:
        raise GitaiError("use one of REV or --staged")
    lay = layout()
    result = classify_staged(lay) if staged else classify_revision(lay, rev or "HEAD")
    if as_json:
        emit_json(result.to_json())
        return EXIT_OK
    click.echo(f"{result.commit[:12] if result.commit else 'staged'}: {result.classification}")
    for path, info in sorted(result.files.items()):
        reason = f" ({info.reason})" if info.reason else ""
        click.echo(f"  {path}: {info.classification}{reason}")
        for d in info.definitions:
            if d.status != "unchanged":
                where = d.moved_from or d.moved_to
                extra = f" ({'from' if d.moved_from else 'to'} {where['path']}:{where['name']})" if where else ""
                click.echo(f"      {d.status:<9} {d.kind} {d.name}{extra}")
    return EXIT_OK

