"""`gitai map`: the intent map, regenerated from the notes."""

from __future__ import annotations

import click

from gitai.commands.output import emit_json, json_option, reader_layout
from gitai.errors import EXIT_OK
from gitai.trace.intent_map import build_map, map_json, render_dot, render_markdown, render_mermaid, write_map


@click.command("map", epilog="Example: gitai map --format dot | dot -Tsvg -o map.svg")
@click.option("--format", "fmt", type=click.Choice(["markdown", "mermaid", "dot", "json"]),
              help="Print the map to stdout in this format instead of writing .orchestration/intent_map.md.")
@click.option("--declared-only", is_flag=True, help="Leave out commits whose intent backfill inferred.")
@json_option
def map_cmd(fmt: str | None, declared_only: bool, as_json: bool) -> int:
    """Regenerate .orchestration/intent_map.md from the notes (files each intent changed in meaning)."""
    lay = reader_layout()
    intents = build_map(lay, declared_only)
    if fmt == "json" or (fmt is not None and as_json):
        emit_json({"intents": map_json(intents)})
        return EXIT_OK
    if fmt is not None:
        render = {"markdown": render_markdown, "mermaid": render_mermaid, "dot": render_dot}[fmt]
        click.echo(render(intents), nl=False)
        return EXIT_OK
    path = write_map(lay, intents)
    if as_json:
        emit_json({"path": lay.relative(path), "intents": map_json(intents)})
    else:
        click.echo(f"wrote {lay.relative(path)}: {len(intents)} intents, {sum(len(i.files) for i in intents)} files")
    return EXIT_OK
