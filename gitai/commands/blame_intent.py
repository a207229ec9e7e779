"""`gitai blame-intent`: which intent each line of a file serves."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from gitai.blame.blame_intent import blame_intent, summarize
from gitai.commands.output import emit_json, emit_json_rows, json_option, reader_layout
from gitai.errors import EXIT_OK, GitaiError
from gitai.util.text import NO_INTENT, printable

INTENT_COLOURS = ("cyan", "green", "yellow", "magenta", "blue", "bright_cyan", "bright_green", "bright_magenta")


@click.command("blame-intent", epilog="Example: gitai blame-intent src/auth/login.py -L 10,20")
@click.argument("file")
@click.option("-L", "line_range", metavar="START,END", help="Only these lines (1-based, inclusive).")
@click.option("--rev", metavar="REV", help="Blame the file at REV instead of the working tree.")
@click.option("--porcelain", is_flag=True, help="Tab-separated: line, intent, commit, classification, text.")
@click.option("--summary", is_flag=True, help="Lines and share per intent and contributor (ai, mixed, human, unknown).")
@click.option("--declared-only", is_flag=True, help="Hide intents only inferred by backfill (shown as ~INT-ID).")
@json_option
def blame_intent_cmd(file: str, line_range: str | None, rev: str | None, porcelain: bool, summary: bool,
                     declared_only: bool, as_json: bool) -> int:
    """Which intent each line of FILE serves, looking through refactor commits and moved code."""
    if porcelain and as_json:
        raise GitaiError("use one of --json or --porcelain")
    lay = reader_layout()
    lines = blame_intent(lay, lay.repo_path(file), rev, line_range, declared_only)
    if summary:
        rows = summarize(lines)
        if as_json:
            emit_json(rows)
        else:
            for row in rows:
                mark = "~" if row["inferred"] else ""
                label = (mark + row["intent_id"] if row["intent_id"] else NO_INTENT) + (
                    " (uncommitted)" if row["uncommitted"] else "")
                click.echo(printable(f"{label:<32} {row['contributor'] or '-':<8} {row['lines']:>7}  "
                                     f"{row['share'] * 100:5.1f}%"))
        return EXIT_OK
    if as_json:
        emit_json_rows([line.to_json() for line in lines])
        return EXIT_OK
    if porcelain:  # empty fields for null: an intent id is never empty
        sys.stdout.write("".join(
            f"{line.line}\t{line.intent_id or ''}\t{line.commit or ''}\t{line.classification or ''}\t{line.content}\n"
            for line in lines))
        return EXIT_OK
    colour = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    labels = [printable(_label(line)) for line in lines]  # escaped before colour: the colour is gitai's own
    width = max((len(label) for label in labels), default=1)
    whos = [printable(_who_label(line.contributor)) for line in lines]
    who_width = max((len(w) for w in whos), default=1)
    digits = len(str(lines[-1].line)) if lines else 1
    palette: dict[str, str] = {}
    out: list[str] = []
    for line, label, who in zip(lines, labels, whos, strict=True):
        intent = line.intent_id or NO_INTENT
        cell = f"{label:<{width}}"
        if colour and line.intent_id:
            palette.setdefault(intent, INTENT_COLOURS[len(palette) % len(INTENT_COLOURS)])
            cell = click.style(cell, fg=palette[intent])
        commit = line.commit[:8] if line.commit else "uncommit"
        out.append(f"{cell} {commit} {who:<{who_width}} {line.line:>{digits}}) {line.content}\n")
    sys.stdout.write("".join(out))
    return EXIT_OK



def _who_label(contributor: dict[str, Any] | None) -> str:
    """`ai:<model>` / `mixed:<model>` / `human` / `unknown`; `-` for an uncommitted or untraced line."""
    if contributor is None:
        return "-"
    model = contributor.get("model_id")
    return f"{contributor['type']}:{model}" if model else str(contributor["type"])


def _label(line: Any) -> str:
    """The intent as shown: `~INT-ID` when backfill inferred it from scopes, the no-intent label when none."""
    return ("~" if line.inferred else "") + line.intent_id if line.intent_id else NO_INTENT
