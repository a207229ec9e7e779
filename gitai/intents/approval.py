"""Human approval of intents (`requires_approval: true`), so an agent cannot work under such an
intent before a person ran `gitai approve ID`, and the other person-only actions (done, block,
both uninstalls).

Approvals live in `approvals.jsonl` beside the ledger (`.orchestration/`, local to the clone and
shared by its worktrees), which no kernel domain lets an agent write; the `approve` event in
`events.jsonl` (writable in a domain: the hooks append there) is history, never the authority.
A person-only action asks for a confirmation typed on the controlling terminal (docs/security.md,
"Person-only actions"). Lean: the agent hook imports this.
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


APPROVALS = "approvals.jsonl"
TERMINAL = "/dev/tty"


def approvals_path(layout: Layout) -> str:
    return os.path.join(os.path.dirname(layout.ledger), APPROVALS)


def is_approved(layout: Layout, intent_id: str) -> bool:
    """Whether a person approved `intent_id` (an approval not revoked by a later done or block)."""
    from gitai.util.jsonl import read_jsonl

    approved = False
    for _, event in read_jsonl(approvals_path(layout)).records:
        if event.get("intent_id") != intent_id:
            continue
        if event.get("event") == "approve":
            approved = True
        elif event.get("event") in ("done", "block"):
            approved = False
    return approved


def require_person(command: str, subject: str) -> None:
    """Go on only when a person confirms `command` on this process's controlling terminal: an
    agent's tool call has none to type on. Environment variables are not evidence either way (an
    agent can unset them), but a set one refuses early with a clearer message."""
    from gitai.errors import GitaiError

    variable = agent_variable()
    if variable:
        raise GitaiError(f"'gitai {command}' is for people, not agents, and this process runs inside an agent "
                         f"({variable} is set); ask a person to run it in their own terminal")
    try:
        fd = os.open(TERMINAL, os.O_RDWR | os.O_NOCTTY)
    except OSError:
        raise GitaiError(f"'gitai {command}' is for people: it asks for a confirmation on a terminal, and this "
                         "process has none (an agent's or a script's); run it in your own terminal, or see "
                         "docs/security.md for the committed route") from None
    from gitai.util.text import one_line

    try:
        os.write(fd, f"gitai {command} {one_line(subject)}: type 'yes' to confirm: ".encode("utf-8", "replace"))
        typed = b""
        while not typed.endswith(b"\n") and len(typed) < 64:
            chunk = os.read(fd, 64)
            if not chunk:
                break
            typed += chunk
    finally:
        os.close(fd)
    answer = typed.decode("utf-8", "replace").strip().lower()
    if answer not in ("y", "yes"):
        raise GitaiError(f"'gitai {command}' not confirmed on the terminal; nothing changed")


def record_approval(layout: Layout, entry: dict[str, object], event: str) -> None:
    """Append to the approvals file (approve, or the done/block that revoke an approval)."""
    from gitai.util.jsonl import append_lines, dumps
    from gitai.util.time import utc_now

    layout.ensure_local_dir()
    append_lines(layout.guard(approvals_path(layout)), [dumps({"timestamp": utc_now(), "event": event, **entry})])


def approve(layout: Layout, intent_id: str) -> dict[str, object]:
    """Record a person's approval of an intent that requires it."""
    from gitai.intents.catalogue import load_catalogue
    from gitai.intents.events import actor, check_events_writable, record_event
    from gitai.util.time import utc_now

    intent = load_catalogue(layout.catalogue, layout.root).get(intent_id)
    require_person("approve", f"{intent.id} ({intent.name})")
    check_events_writable(layout)  # an approval that cannot be recorded is refused, not lost
    entry = {"intent_id": intent.id, "approved_by": actor(layout.root), "approved_at": utc_now(),
             "requires_approval": intent.requires_approval, "already_approved": is_approved(layout, intent.id)}
    record_approval(layout, entry, "approve")
    record_event(layout, "approve", True, **entry)
    return entry


def close(layout: Layout, intent_id: str, status: str, reason: str | None = None) -> dict[str, object]:
    """`gitai done` / `gitai block`: set the status (and blocked reason) the safe way `select` does."""
    from gitai.errors import GitaiError
    from gitai.intents.catalogue import load_catalogue
    from gitai.intents.events import actor, check_events_writable, record_event
    from gitai.intents.status_edit import write_fields

    command = "done" if status == "DONE" else "block"
    catalogue = load_catalogue(layout.catalogue, layout.root)
    intent = catalogue.get(intent_id)
    if status == "BLOCKED" and not (reason or "").strip():
        raise GitaiError("a blocked intent needs a reason: gitai block ID --reason TEXT")
    require_person(command, f"{intent.id} ({intent.name})")
    check_events_writable(layout)
    values = {"status": status}
    if reason:
        values["blocked_reason"] = reason.strip()
    from pathlib import Path

    written = write_fields(Path(layout.guard(str(catalogue.path))), intent.id, values, catalogue.list_key)
    entry: dict[str, object] = {"intent_id": intent.id, "previous_status": intent.status, "status": status,
                                "by": actor(layout.root), "status_written": written}
    if reason:
        entry["reason"] = reason.strip()
    record_approval(layout, {"intent_id": intent.id}, command)
    record_event(layout, command, True, **entry)
    return entry
