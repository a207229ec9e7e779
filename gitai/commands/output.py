"""Shared by the subcommands: the --json option, JSON output, the repository's layout."""

from __future__ import annotations

import json
from typing import Any

import click

from gitai.layout import Layout, find_layout

json_option = click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")


def emit_json(data: Any) -> None:
    """Pretty JSON on stdout; ASCII escapes when a path is not valid UTF-8 (as in the ledger)."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(data, indent=2, ensure_ascii=True)
    click.echo(text)


def layout() -> Layout:
    return find_layout()

