"""`gitai stats`: how many added lines an agent wrote, a person changed, or a person wrote."""

from __future__ import annotations

import click

from gitai.commands.output import emit_json, json_option, reader_layout
from gitai.errors import EXIT_OK
from gitai.trace.stats import TYPES, compute_stats
from gitai.util.text import NO_INTENT


def _share(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


@click.command("stats", epilog="Example: gitai stats main~20..main --by model")
@click.argument("rev", required=False)
@click.option("--by", "by", type=click.Choice(["intent", "contributor", "model", "file"]), default="intent",
              show_default=True, help="Group the lines by intent, contributor type, model or file.")
@json_option
def stats_cmd(rev: str | None, by: str, as_json: bool) -> int:
    """Lines added by ai / mixed (an agent's line a person changed) / human / unknown, over REV (one
    commit), A..B (a range) or the whole current branch; AI share and accepted-as-written share."""
    result = compute_stats(reader_layout(), rev, by)
    if as_json:
        emit_json(result.to_json())
        return EXIT_OK
    data = result.to_json()
    click.echo(f"{data['scope']}: {data['commits_traced']} of {data['commits']} commits traced")
    header = f"{by:<32} " + " ".join(f"{t:>8}" for t in TYPES) + f" {'ai share':>9} {'accepted':>9}"
    click.echo(header)
    for row in [*data["rows"], {"key": "total", **data["totals"]}]:
        key = row["key"] if row["key"] is not None else (NO_INTENT if by == "intent" else "-")
        click.echo(f"{str(key)[:32]:<32} " + " ".join(f"{row['lines'][t]:>8}" for t in TYPES)
                   + f" {_share(row['ai_share']):>9} {_share(row['accepted_as_written']):>9}")
    return EXIT_OK
