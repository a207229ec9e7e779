"""Governance events (select, clear, refusals): `.orchestration/events.jsonl`, append-only."""

from __future__ import annotations

import os

from gitai.layout import Layout
from gitai.util.jsonl import append_lines, dumps
from gitai.util.time import utc_now


def actor(root: str) -> str:
    """Who acts: the agent named by GITAI_AGENT, else the login name, else (an environment with
    neither: a container, a CI job) the person git commits as in the repository at `root`."""
    agent = os.environ.get("GITAI_AGENT")
    if agent:
        return f"agent:{agent}"
    return "user:" + (os.environ.get("USER") or os.environ.get("LOGNAME") or git_person(root) or "unknown")


def git_person(root: str) -> str | None:
    """`NAME <EMAIL>` from git's user.name and user.email (either alone when only one is set)."""
    from gitai.git.runner import git_process

    proc = git_process(["config", "--get-regexp", r"^user\.(name|email)$"], root)
    values = dict(line.partition(" ")[::2] for line in proc.stdout.decode("utf-8", "replace").splitlines())
    name, email = values.get("user.name", "").strip(), values.get("user.email", "").strip()
    if name and email:
        return f"{name} <{email}>"
    return name or email or None


def check_events_writable(layout: Layout) -> None:
    """Raise (OSError, GitaiError) now when the event log cannot be appended to, so that a command
    that must log what it does refuses before changing anything instead of dropping its event."""
    layout.ensure_local_dir()
    fd = os.open(layout.events, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    os.close(fd)


def record_event(layout: Layout, event: str, strict: bool = False, **fields: object) -> None:
    """Append one governance event. Hooks pass strict=False: there a log never breaks the commit.
    Commands check `check_events_writable` first and pass strict=True: an event is never dropped silently."""
    who = fields["actor"] if "actor" in fields else actor(layout.root)  # the agent hooks name theirs: no git process
    entry = {"timestamp": utc_now(), "event": event, "worktree": layout.root, "actor": who, **fields}
    try:
        layout.ensure_local_dir()
        append_lines(layout.events, [dumps(entry)])
    except Exception:
        if strict:
            raise
