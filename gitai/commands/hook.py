"""`gitai hook HOST [EVENT]`, as listed by `gitai --help`. The console entry (gitai/entry.py) sends
`gitai hook` to gitai.agents.hook_entry before click is imported; this command reaches the same code
from `python -m gitai.cli` and tests that drive the click group."""

from __future__ import annotations

import click


@click.command(context_settings={"ignore_unknown_options": True},
               epilog="Example: gitai hook claude-code < payload.json")
@click.argument("host")
@click.argument("event", required=False)
def hook(host: str, event: str | None) -> int:
    """Answer one agent hook call: reads the host's payload on stdin (what agents' configs run)."""
    from gitai.agents.hook_entry import main

    return main([host] + ([event] if event else []))


