"""Human approval of intents (`requires_approval: true`): recorded as `approve` events, so an
agent cannot select such an intent before a person ran `gitai approve ID`.

Approvals live in `.orchestration/events.jsonl`, which is local to the clone (shared by its
worktrees): a person approves where the agents run. Lean: the agent hook imports this.
"""

from __future__ import annotations

import os

from gitai.agents.hosts import AGENT_VARIABLES as HOST_VARIABLES
from gitai.layout import Layout

# Variables that mark a process as running inside a coding agent: gitai's own and the hosts'
# (gitai/agents/hosts.py, which also says which of them make a commit the agent's).
AGENT_VARIABLES = ("GITAI_AGENT", *HOST_VARIABLES, "GITAI_HOOK_HOST")


def agent_variable(environ: dict[str, str] | None = None) -> str | None:
    """The first agent variable set in the environment: this process runs inside an agent."""
    env = os.environ if environ is None else environ
    return next((name for name in AGENT_VARIABLES if env.get(name)), None)


def is_approved(layout: Layout, intent_id: str) -> bool:
    """Whether a person approved `intent_id` (an `approve` event, not revoked by a later one)."""
    from gitai.util.jsonl import read_jsonl

    approved = False
    for _, event in read_jsonl(layout.events).records:
        if event.get("intent_id") != intent_id:
            continue
        if event.get("event") == "approve":
            approved = True
        elif event.get("event") in ("done", "block"):
            approved = False
    return approved


def require_person(command: str) -> None:
    """Refuse `command` when it runs inside an agent: approvals and status changes are people's."""
    from gitai.errors import GitaiError

    variable = agent_variable()
    if variable:
        raise GitaiError(f"'gitai {command}' is for people, not agents, and this process runs inside an agent "
                         f"({variable} is set); ask a person to run it in their own terminal")


def approve(layout: Layout, intent_id: str) -> dict[str, object]:
    """Record a person's approval of an intent that requires it."""
    from gitai.intents.catalogue import load_catalogue
    from gitai.intents.events import actor, check_events_writable, record_event
    from gitai.util.time import utc_now

    require_person("approve")
    intent = load_catalogue(layout.catalogue, layout.root).get(intent_id)
    check_events_writable(layout)  # an approval that cannot be recorded is refused, not lost
    entry = {"intent_id": intent.id, "approved_by": actor(), "approved_at": utc_now(),
             "requires_approval": intent.requires_approval, "already_approved": is_approved(layout, intent.id)}
    record_event(layout, "approve", True, **entry)
    return entry


def close(layout: Layout, intent_id: str, status: str, reason: str | None = None) -> dict[str, object]:
    """`gitai done` / `gitai block`: set the status (and blocked reason) the safe way `select` does."""
    from gitai.errors import GitaiError
    from gitai.intents.catalogue import load_catalogue
    from gitai.intents.events import actor, check_events_writable, record_event
    from gitai.intents.status_edit import write_fields

    command = "done" if status == "DONE" else "block"
    require_person(command)
    catalogue = load_catalogue(layout.catalogue, layout.root)
    intent = catalogue.get(intent_id)
    if status == "BLOCKED" and not (reason or "").strip():
        raise GitaiError("a blocked intent needs a reason: gitai block ID --reason TEXT")
    check_events_writable(layout)
    values = {"status": status}
    if reason:
        values["blocked_reason"] = reason.strip()
    from pathlib import Path

    written = write_fields(Path(layout.guard(str(catalogue.path))), intent.id, values, catalogue.list_key)
    entry: dict[str, object] = {"intent_id": intent.id, "previous_status": intent.status, "status": status,
                                "by": actor(), "status_written": written}
    if reason:
        entry["reason"] = reason.strip()
    record_event(layout, command, True, **entry)
    return entry
