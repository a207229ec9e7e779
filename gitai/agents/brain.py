"""The shared brain: `.orchestration/AGENT.md`, lessons appended one per line under a lock, never
rewritten. `gitai context` shows the latest ones (gitai/agents/context.py reads the same format)."""

from __future__ import annotations

import os

from gitai.layout import Layout


def add_lesson(layout: Layout, text: str, intent_id: str | None = None) -> dict[str, str]:
    """Append `- <UTC time> [<intent>] <author>: <text>`; the intent defaults to the active one."""
    from gitai.errors import GitaiError
    from gitai.intents.active import active_intent
    from gitai.intents.events import actor, record_event
    from gitai.util.jsonl import append_lines
    from gitai.util.text import one_line
    from gitai.util.time import utc_now

    body = one_line(" ".join(text.split()))
    if not body:
        raise GitaiError("a lesson needs some text: gitai lesson \"TEXT\"")
    if intent_id is None:
        active = active_intent(layout)
        intent_id = active.id if active else None
    if intent_id is not None:
        from gitai.gate.policy import load_policy

        load_policy(layout).require(intent_id)
    author = actor(layout.root)
    model = os.environ.get("GITAI_MODEL")
    if model:
        author += f" ({model})"
    stamp = utc_now().split(".")[0].rstrip("Z") + "Z"
    line = f"- {stamp} [{intent_id or 'general'}] {author}: {body}"
    path = layout.guard(os.path.join(layout.orchestration, "AGENT.md"))  # never through a cloned symlink
    if not os.path.isdir(layout.orchestration):
        raise GitaiError("no .orchestration/ here: run 'gitai init' first")
    append_lines(path, [line])  # flock + O_APPEND: concurrent lessons never tear
    record_event(layout, "lesson", intent_id=intent_id, text=body)
    return {"timestamp": stamp, "intent_id": intent_id or "general", "author": author, "text": body, "line": line}
