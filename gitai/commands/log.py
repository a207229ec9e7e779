"""`gitai log`: traced commits, newest first, through a pager on a terminal."""

from __future__ import annotations

import click

from gitai.commands.output import emit_json, json_option, reader_layout
from gitai.errors import EXIT_OK, GitaiError
from gitai.git.pager import show
from gitai.git.runner import run_git
from gitai.trace.log import LogFilter, traced_log
from gitai.trace.record import INFERRED
from gitai.util.text import NO_INTENT, display_path, printable


@click.command("log", epilog="Example: gitai log INT-001 --since '2 weeks ago' --path src/auth")
@click.argument("intent_id", required=False)
@click.option("-n", "--limit", type=click.IntRange(min=0), metavar="N", help="At most N commits.")
@click.option("--path", "path", metavar="P",
              help="Only commits that touched P (a file, or anything under a directory).")
@click.option("--no-merges", is_flag=True, help="Leave merge commits out.")
@click.option("--merges", "show_merges", is_flag=True,
              help="List merges without changes of their own in full (by default they are folded into one line).")
@click.option("--since", metavar="DATE", help="Only commits made since DATE (as git log: 2026-11-01, '2 weeks ago').")
@click.option("--no-pager", is_flag=True, help="Do not page the output on a terminal.")
@click.option("--declared-only", is_flag=True, help="Leave out commits whose intent backfill inferred (~INT-ID).")
@json_option
def log_cmd(intent_id: str | None, limit: int | None, path: str | None, no_merges: bool, show_merges: bool,
            since: str | None, no_pager: bool, declared_only: bool, as_json: bool) -> int:
    """Commits traced to an intent (or to any), newest first, with the files they touched."""
    lay = reader_layout()
    where = LogFilter(intent_id=intent_id, path=lay.repo_path(path) if path is not None else None,
                      no_merges=no_merges, since=_since(lay.root, since) if since else None, limit=limit,
                      fold_merges=not (show_merges or as_json), declared_only=declared_only)
    entries = traced_log(lay, where=where)
    if intent_id is not None and not entries:
        from gitai.intents.catalogue import load_catalogue

        load_catalogue(lay.catalogue, lay.root).get(intent_id)  # unknown intent: exit 2
    if as_json:
        emit_json([e.to_json() for e in entries])
        return EXIT_OK
    out: list[str] = []
    folded: list[str] = []
    for e in entries + [None]:
        if e is not None and where.fold_merges and e.empty_merge:
            folded.append(e.commit[:12])
            continue
        if folded:
            what = "merge" if len(folded) == 1 else f"{len(folded)} merges"
            out.append(f"{', '.join(folded)} ({what} without changes of its own; --merges lists them)")
            folded = []
        if e is None:
            break
        kind = f" [{e.classification}]" if e.classification else ""
        mark = "~" if e.intent_source == INFERRED else ""
        shown = mark + e.intent_id if e.intent_id else ("(several)" if e.intents else NO_INTENT)
        out.append(f"{e.commit[:12]} {e.date[:10]} {shown}{kind} {e.subject}")
        for path in e.files:
            per_file = e.intents.get(path) if e.intents is not None else None
            out.append(f"    {display_path(path)}" + (f"  {mark}{per_file}" if per_file else ""))
    if not entries:
        out.append("no traced commits" + (f" for {intent_id}" if intent_id else ""))
    show(printable("".join(line + "\n" for line in out)), lay.root, use_pager=not no_pager)
    return EXIT_OK


def _since(root: str, date: str) -> int:
    """DATE as git reads it (`git rev-parse --since=DATE` prints `--max-age=SECONDS`)."""
    out = run_git(["rev-parse", f"--since={date}"], root, check=False).decode().strip()
    if not out.startswith("--max-age="):
        raise GitaiError(f"--since {date}: not a date")
    return int(out.split("=", 1)[1])
