"""`gitai backfill`: trace the commits that have no record."""

from __future__ import annotations

import os
import sys

import click

from gitai.backfill import backfill as run_backfill
from gitai.backfill import terminal_progress
from gitai.commands.output import emit_json, json_option, layout
from gitai.errors import EXIT_OK, GitaiError
from gitai.gate.policy import load_policy
from gitai.gc import gc


@click.command(epilog="Example: gitai backfill --range v1.0..HEAD")
@click.option("--range", "revision_range", metavar="A..B", help="Only these commits (default: all of HEAD).")
@click.option("--all", "every_ref", is_flag=True, help="Every commit of every branch and tag, not only HEAD's.")
@click.option("--infer", type=click.Choice(["scope", "none"]), default="scope", show_default=True,
              help="Without a trailer: give each file to the intent owning it (scope), or leave it unattributed.")
@click.option("--jobs", type=click.IntRange(min=1), metavar="N",
              help="Processes classifying changes (default: one per core from 64 commits on; 1: no others).")
@json_option
def backfill(revision_range: str | None, every_ref: bool, infer: str, jobs: int | None, as_json: bool) -> int:
    """Trace commits that have no record: intent from the trailer, else per file from the scope owner."""
    if every_ref and revision_range is not None:
        raise GitaiError("use one of --range A..B or --all")
    lay = layout()
    lay.guard(lay.ledger)
    policy = load_policy(lay) if os.path.exists(lay.catalogue) else None  # no catalogue: trailers only
    progress = terminal_progress if sys.stderr.isatty() and not as_json else None
    result = run_backfill(lay, policy, revision_range, progress, every_ref, infer, jobs)
    gc(lay)  # the caches within their bound (backfill adds the versions at the tips of what it traced)
    if as_json:
        emit_json(result.to_json())
    else:
        src = result.by_source
        click.echo(f"traced {len(result.traced)} commits ({src['trailer']} by trailer, {src['scope']} by scope, "
                   f"{src['unattributed']} unattributed; {result.several} span several intents); "
                   f"{result.skipped} already traced")
    return EXIT_OK

