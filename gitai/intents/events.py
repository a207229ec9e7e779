"""Governance events (select, clear, refusals): `.orchestration/events.jsonl`, append-only."""

from __future__ import annotations

import os

from gitai.layout import Layout
from gitai.util.jsonl import append_lines, dumps
from gitai.util.time import utc_now


def actor() -> str:
    """Who acts: the agent named by GITAI_AGENT, else the login name."""
    agent = os.environ.get("GITAI_AGENT")
    if agent:
        return f"agent:{agent}"
    return "user:" + (os.environ.get("USER") or os.environ.get("LOGNAME") or "unknown")


def record_event(layout: Layout, event: str, **fields: object) -> None:
    """Append one governance event; never raises (events are a log, not a gate)."""
    entry = {"timestamp": utc_now(), "event": event, "worktree": layout.root, "actor": actor(), **fields}
    try:
        layout.ensure_local_dir()
        append_lines(layout.events, [dumps(entry)])
    except Exception:  # noqa: BLE001 - a log must never break the command or hook that writes it
        pass
