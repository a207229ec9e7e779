"""Per-session state of agent sessions: `<git dir>/gitai/sessions/<host>-<session id>.json`.

A session remembers the intent it selected (bound by a successful `gitai select` through its own
shell), its agent and model, and a fingerprint of every file as it last read or wrote it (the
stale-write lock). Files untouched for STALE_AFTER seconds are ignored and removed at the next
session start; session end removes the session's own file. Lean: hooks import this.
"""

from __future__ import annotations

import os
import time

from gitai.util import hookjson
from gitai.util.files import remove_stale, write_atomic

STALE_AFTER = 12 * 3600
SESSIONS = "sessions"  # in a worktree's state directory: one file a session
COMMIT_FILE = "agent-commit.json"  # the agent session about to commit (before-shell saw `git commit`)
COMMIT_FRESH = 600
COMMIT_RUNNING = 120  # seconds a commit command's announcement makes a commit the agent's
COMMAND_FRESH = 3600  # seconds: a command whose after-shell never came is forgotten after this
HEAD_BEFORE = "head_before_commit"  # session key: HEAD when the session's last commit command started
HEAD_AT = "head_before_at"  # session key: when HEAD_BEFORE was remembered (time.time())
# session key, with HEAD_BEFORE: the command was not read as a commit command, so nothing gated what it may commit
UNGATED = "head_before_ungated"
SAFE_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")  # the others become "_"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from gitai.layout import Layout


def sessions_dir(layout: Layout) -> str:
    return os.path.join(layout.state_dir, SESSIONS)


def session_key(host: str, session_id: str) -> str:
    """A file name for the session; a host that sends no session id (Copilot) has one session per worktree."""
    sid = session_id or "default"
    return "".join(c if c in SAFE_ID_CHARS else "_" for c in f"{host}-{sid}")[:200]


class Session:
    """One agent session's state, loaded from and saved to its file."""

    def __init__(self, layout: Layout, host: str, session_id: str, state_dir: str | None = None) -> None:
        """`state_dir`: that of the worktree the session works in, where it is not `layout`'s."""
        self.key = session_key(host, session_id)
        self.path = os.path.join(state_dir or layout.state_dir, SESSIONS, self.key + ".json")
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
    from zlib import crc32  # here, not at the top: most hook calls fingerprint nothing

    return f"{len(data)}:{crc32(data):08x}"


def live_sessions(layout: Layout) -> list[dict[str, Any]]:
    """Every live session's data (with its `key`), newest first."""
    directory = sessions_dir(layout)
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


def is_live(layout: Layout, key: str) -> bool:
    """Whether the session `key` has a live state file in this worktree (not read: only its age)."""
    try:
        return time.time() - os.path.getmtime(os.path.join(sessions_dir(layout), key + ".json")) < STALE_AFTER
    except OSError:
        return False


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


def announcement(state_dir: str, fresh_for: float) -> dict[str, Any] | None:
    """The commit announcement (`note_commit`) in the worktree whose state directory is `state_dir`
    (another worktree's too), when made in the last `fresh_for` seconds (COMMIT_FRESH or COMMIT_RUNNING)."""
    try:
        with open(os.path.join(state_dir, COMMIT_FILE), encoding="utf-8") as handle:
            data = hookjson.loads(handle.read())
        fresh = time.time() - float(data.get("at", 0)) < fresh_for
    except (OSError, ValueError, TypeError, AttributeError):
        return None
    return data if fresh and isinstance(data, dict) else None


def _announced(layout: Layout, key: str, fresh_for: float) -> str | None:
    """`key` of the announcement `running_announcement` finds."""
    value = (running_announcement(layout, fresh_for) or {}).get(key)
    return value if isinstance(value, str) and value else None


def running_announcement(layout: Layout, fresh_for: float) -> dict[str, Any] | None:
    """The commit announcement made in the last `fresh_for` seconds by an agent session this commit
    runs inside, with the `state_dir` it was found in: the session may work in any of the repository's
    worktrees (`git -C ../wt commit`), and the commit's own process must be inside the announcing host
    (its variables, or its program above: `env -u CLAUDECODE git commit`), so that a person's commit
    from a terminal while an agent's commit command runs stays the person's."""
    for state_dir in layout.worktree_state_dirs():
        found = announcement(state_dir, fresh_for)
        if found and isinstance(found.get("host"), str):
            from gitai.agents.ungoverned import runs_inside

            if runs_inside(found["host"], os.environ):
                return {**found, "state_dir": state_dir}
    return None


def committing_host(layout: Layout) -> str | None:
    """The host of the agent session whose commit command is running (`running_announcement`): its
    commit is the agent's whatever the command's environment says. The after-shell hook ends the
    announcement; COMMIT_RUNNING bounds it where that hook never comes (a failed command)."""
    return _announced(layout, "host", COMMIT_RUNNING)


def committing_session(layout: Layout) -> tuple[Session, str, str] | None:
    """The agent session whose commit command is running (as `committing_host`), that command's tool
    call id, and the state directory of the worktree the session works in; None when none is running."""
    found = running_announcement(layout, COMMIT_RUNNING)
    host, session_id = (found or {}).get("host"), (found or {}).get("session_id")
    if found is None or not isinstance(host, str) or not isinstance(session_id, str) or not session_id:
        return None
    state_dir = str(found["state_dir"])
    tool_use_id = found.get("tool_use_id")
    return (Session(layout, host, session_id, state_dir), tool_use_id if isinstance(tool_use_id, str) else "",
            state_dir)


def commit_command_done(layout: Layout, session: Session) -> None:
    """After the session's shell command: its announcement ends, so a person's later commit is theirs."""
    own = announcement(layout.state_dir, COMMIT_FRESH) or {}
    if own.get("session_id") == session.data.get("session_id"):
        try:
            os.remove(os.path.join(layout.state_dir, COMMIT_FILE))
        except OSError:
            pass


def committing_model(layout: Layout) -> str | None:
    """The model of the agent session that announced a commit in the last COMMIT_FRESH seconds."""
    return _announced(layout, "model", COMMIT_FRESH)


def model_metadata(layout: Layout, contributor: Mapping[str, object]) -> dict[str, Any]:
    """`{"model_source": ...}` for a record whose contributor is that session's model: where the
    hooks found it (its payload, transcript, environment, command line or settings)."""
    source = _announced(layout, "model_source", COMMIT_FRESH)
    model = _announced(layout, "model", COMMIT_FRESH)
    named = contributor.get("model_id")
    return {"model_source": source} if source and model and named and str(named).endswith(model) else {}


def current_head(layout: Layout) -> str:
    """HEAD's commit id from git's files where they say it for certain (no git process), else from
    git; "" on an unborn branch."""
    from gitai.git.repository import head_from_files
    from gitai.git.runner import head_commit

    return head_from_files(layout.repo) or head_commit(layout.root) or ""


def remember_head(layout: Layout, session: Session, gated: bool = True) -> None:
    """Before a command that may commit where git runs no hooks: the HEAD the after-shell hook compares
    with. `gated`: the command was read as a commit command and what it commits checked before it runs.
    A HEAD remembered less than COMMAND_FRESH seconds ago is kept, with its time: the command it was
    remembered for may still run beside this one (a host runs tool calls in parallel), and its commits
    lie after that HEAD; one older than that is replaced (a command whose after-shell never came:
    declined, interrupted). What nothing gated stays ungated."""
    before, ungated = remembered_head(session)
    if before is None:
        session.data[HEAD_BEFORE], session.data[HEAD_AT] = current_head(layout), time.time()
    if gated and not ungated:
        session.data.pop(UNGATED, None)
    else:
        session.data[UNGATED] = True


def remembered_head(session: Session) -> tuple[str | None, bool]:
    """The HEAD remembered before the session's command (None: none, or remembered COMMAND_FRESH
    seconds ago or more: its after-shell never came, and the commits since may be anyone's), and
    whether nothing gated it."""
    before, at = session.data.get(HEAD_BEFORE), session.data.get(HEAD_AT)
    if not isinstance(before, str) or not isinstance(at, (int, float)) or time.time() - at >= COMMAND_FRESH:
        return None, False
    return before, session.data.get(UNGATED) is True


def forget_head(session: Session) -> tuple[str | None, bool]:
    """After the command: `remembered_head`, no longer remembered."""
    found = remembered_head(session)
    for key in (HEAD_BEFORE, HEAD_AT, UNGATED):
        session.data.pop(key, None)
    return found
