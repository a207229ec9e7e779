"""Per-session state of agent sessions: `<git dir>/gitai/sessions/<host>-<session id>.json`.

A session remembers the intent it selected (bound by a successful `gitai select` through its own
shell), its agent and model, and a fingerprint of every file as it last read or wrote it (the
stale-write lock). Files untouched for STALE_AFTER seconds are ignored and removed at the next
session start; session end removes the session's own file. Lean: hooks import this.
"""

from __future__ import annotations

import os
import time
import zlib

from gitai.util import hookjson
from gitai.util.files import remove_stale, write_atomic

STALE_AFTER = 12 * 3600
COMMIT_FILE = "agent-commit.json"  # the agent session about to commit (before-shell saw `git commit`)
COMMIT_FRESH = 600
COMMIT_RUNNING = 120  # seconds a commit command's announcement makes a commit the agent's
HEAD_BEFORE = "head_before_commit"  # session key: HEAD when the session's last commit command started
SAFE_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")  # the others become "_"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from gitai.layout import Layout


def sessions_dir(layout: Layout) -> str:
    return os.path.join(layout.state_dir, "sessions")


def session_key(host: str, session_id: str) -> str:
    """A file name for the session; a host that sends no session id (Copilot) has one session per worktree."""
    sid = session_id or "default"
    return "".join(c if c in SAFE_ID_CHARS else "_" for c in f"{host}-{sid}")[:200]


class Session:
    """One agent session's state, loaded from and saved to its file."""

    def __init__(self, layout: Layout, host: str, session_id: str) -> None:
        self.key = session_key(host, session_id)
        self.path = os.path.join(sessions_dir(layout), self.key + ".json")
        self.data: dict[str, Any] = {"host": host, "session_id": session_id}
        self.exists = False
        try:
            with open(self.path, encoding="utf-8") as handle:
                loaded = hookjson.loads(handle.read())
            if isinstance(loaded, dict) and time.time() - os.path.getmtime(self.path) < STALE_AFTER:
                self.data = loaded
                self.exists = True
        except (OSError, ValueError):
            pass

    @property
    def intent(self) -> str | None:
        value = self.data.get("intent_id")
        return value if isinstance(value, str) and value else None

    def files(self) -> dict[str, str]:
        files = self.data.get("files")
        if not isinstance(files, dict):
            files = self.data["files"] = {}
        return files

    def save(self) -> None:
        self.data["updated"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        write_atomic(self.path, hookjson.dumps(self.data, ensure_ascii=False))
        self.exists = True

    def remove(self) -> None:
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


def fingerprint(path: str) -> str:
    """Size and CRC-32 of a file's content ("absent" when it does not exist): enough to notice
    that someone changed it since this session looked."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return "absent"
    except OSError:
        return "unreadable"
    return f"{len(data)}:{zlib.crc32(data):08x}"


def live_sessions(layout: Layout) -> list[dict[str, Any]]:
    """Every live session's data (with its `key`), newest first."""
    return live_sessions_in(layout.state_dir)


def live_sessions_in(state_dir: str) -> list[dict[str, Any]]:
    """`live_sessions` of the worktree whose state directory is `state_dir` (another worktree's too)."""
    directory = os.path.join(state_dir, "sessions")
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return []
    now = time.time()
    found = []
    for name in names:
        if not name.endswith(".json"):
            continue
        path = os.path.join(directory, name)
        try:
            mtime = os.path.getmtime(path)
            if now - mtime >= STALE_AFTER:
                continue
            with open(path, encoding="utf-8") as handle:
                data = hookjson.loads(handle.read())
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            data["key"] = name[:-5]
            found.append((mtime, data))
    return [d for _, d in sorted(found, key=lambda item: -item[0])]


def prune_stale(layout: Layout) -> None:
    """Remove session files older than STALE_AFTER (sessions that never said goodbye)."""
    remove_stale(sessions_dir(layout), STALE_AFTER, time.time())


def note_commit(layout: Layout, session: Session, tool_use_id: str) -> None:
    """The session is about to run `git commit` (tool call `tool_use_id`): the post-commit hook reads
    its model from here (an agent's shell carries no model variable), and which command is running."""
    data = {key: session.data.get(key) for key in ("host", "session_id", "model", "model_source", "intent_id")}
    data["tool_use_id"] = tool_use_id
    data["at"] = time.time()
    try:
        write_atomic(os.path.join(layout.state_dir, COMMIT_FILE), hookjson.dumps(data))
    except OSError:
        pass


def _committing(layout: Layout, key: str, fresh_for: float = COMMIT_FRESH) -> str | None:
    """`key` of the agent session that announced a commit in the last `fresh_for` seconds."""
    return committing_in(layout.state_dir, key, fresh_for)


def committing_in(state_dir: str, key: str, fresh_for: float = COMMIT_RUNNING) -> str | None:
    """`_committing` in the worktree whose state directory is `state_dir` (another worktree's too)."""
    try:
        with open(os.path.join(state_dir, COMMIT_FILE), encoding="utf-8") as handle:
            data = hookjson.loads(handle.read())
        fresh = time.time() - float(data.get("at", 0)) < fresh_for
    except (OSError, ValueError, TypeError, AttributeError):
        return None
    value = data.get(key) if fresh else None
    return value if isinstance(value, str) and value else None


def committing_host(layout: Layout) -> str | None:
    """The host of the agent session whose commit command is running: its commit is the agent's
    whatever the command's environment says (`env -u CLAUDECODE git commit`). The after-shell hook
    ends the announcement; COMMIT_RUNNING bounds it where that hook never comes (a failed command)."""
    return _committing(layout, "host", COMMIT_RUNNING)


def committing_session(layout: Layout) -> tuple[Session, str] | None:
    """The agent session whose commit command is running (as `committing_host`), and that command's
    tool call id; None when no agent's commit command is running."""
    host, session_id = committing_host(layout), _committing(layout, "session_id", COMMIT_RUNNING)
    if host is None or session_id is None:
        return None
    return Session(layout, host, session_id), _committing(layout, "tool_use_id", COMMIT_RUNNING) or ""


def commit_command_done(layout: Layout, session: Session) -> None:
    """After the session's shell command: its announcement ends, so a person's later commit is theirs."""
    if _committing(layout, "session_id") == session.data.get("session_id"):
        try:
            os.remove(os.path.join(layout.state_dir, COMMIT_FILE))
        except OSError:
            pass


def committing_model(layout: Layout) -> str | None:
    """The model of the agent session that announced a commit in the last COMMIT_FRESH seconds."""
    return _committing(layout, "model")


def model_metadata(layout: Layout, contributor: Mapping[str, object]) -> dict[str, Any]:
    """`{"model_source": ...}` for a record whose contributor is that session's model: where the
    hooks found it (its payload, transcript, environment, command line or settings)."""
    source = _committing(layout, "model_source")
    model = _committing(layout, "model")
    named = contributor.get("model_id")
    return {"model_source": source} if source and model and named and str(named).endswith(model) else {}
