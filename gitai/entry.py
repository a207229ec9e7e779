"""The `gitai` console entry: `gitai hook ...` goes straight to the lean agent-hook entry (it runs on
every tool call of an agent, so it must not import click and the command modules); everything
else goes to the click CLI (gitai/cli.py)."""

from __future__ import annotations

import sys


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "hook":
        from gitai.agents.hook_entry import main as hook_main

        sys.exit(hook_main(sys.argv[2:]))
    from gitai.cli import main as cli_main

    cli_main()
