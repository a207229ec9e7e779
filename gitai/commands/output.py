"""Shared by the subcommands: the --json option, JSON output, the repository's layout."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click

from gitai.layout import Layout, find_layout

json_option = click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")


def emit_json(data: Any) -> None:
    """Pretty JSON on stdout."""
    click.echo(_utf8_or_ascii(lambda ascii_only: json.dumps(data, indent=2, ensure_ascii=ascii_only)))


def emit_json_rows(rows: list[Any]) -> None:
    """A JSON list, one compact row per line: a long file's blame is megabytes, which the
    indenting encoder (pure Python) takes as long as the blame itself to write."""
    def render(ascii_only: bool) -> str:
        encode = json.JSONEncoder(ensure_ascii=ascii_only).encode  # one encoder: json.dumps makes one per row
        return "[\n" + ",\n".join("  " + encode(row) for row in rows) + "\n]" if rows else "[]"

    click.echo(_utf8_or_ascii(render))


def _utf8_or_ascii(render: Callable[[bool], str]) -> str:
    """`render(False)`, or with ASCII escapes when a path is not valid UTF-8 (as in the ledger)."""
    text = render(False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = render(True)
    return text


def layout() -> Layout:
    return find_layout()



def reader_layout() -> Layout:
    """The layout of a command that reads the trace, once the notes a `git fetch` brought from the
    team are merged (`trace.travel.catch_up`): a fresh clone sees its teammates' records."""
    from gitai.trace.travel import catch_up

    lay = find_layout()
    catch_up(lay)
    return lay
