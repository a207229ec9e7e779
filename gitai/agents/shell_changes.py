"""What an agent's shell command changed in the work tree: checkpointed as the agent's.

A shell command can change any file (`sed -i`, a redirect, a formatter, a generator, a script), so
its text is not read for this: the work tree is compared before and after. Before a command that
may write (anything but a few plain readers), the before-shell hook lists the changed and new
files (`git status`) with each one's size and modification time, and checkpoints as a person's
whatever changed since the last checkpoint (gitai/agents/checkpoints.py `catch_up`). After it,
the after-shell hook lists them again: each file that appeared, changed or went away is the
command's doing, checkpointed as the agent's where the session's intent lets the agent write it.
A change outside that scope is not claimed for the session (its lines follow the commit's
contributor): one `agent-shell-outside-scope` event names it.
Where git cannot list the work tree after a command (`git status` fails: a damaged index), what it changed
is unknown: nothing is recorded then, and nothing is caught up as a person's until a listing works again;
the first one that does compares with the last listing before the command, and claims the difference
as the session's commands' (UNSETTLED), rather than let the next catch-up make the agent's work a person's.
A command that also commits (`sed -i F && git commit -am msg`) is settled for the files it commits by
git's post-commit hook, which runs before the after-shell hook (`settle_running_command`).
Lean: `gitai hook` imports this for shell commands only.
"""

from __future__ import annotations

import os
import time

from gitai.agents.checkpoints import (
    MAX_FILE,
    blob_id,
    catch_up,
    file_state,
    logged_paths,
    move_log,
    read_file,
    record_checkpoint,
    record_deleted,
)
from gitai.agents.sessions import COMMAND_FRESH
from gitai.agents.shell_reads import segments
from gitai.util.files import is_binary

SNAPSHOTS = "shell_before"  # session key: per tool call, the work tree's changed files before it
WORKTREES = "worktrees"  # in a snapshot: the other worktrees' changed files, by work tree root
# In SNAPSHOTS: the last work tree gitai listed before a command whose changes it could not list after it (git
# status failed): the next listing that works claims every change since as the session's commands' doing.
UNSETTLED = "unsettled"
MAX_DIRTY = 5000  # more changed files than this: the command's changes are not attributed
OWN_DIRS = (".git/", ".orchestration/")
SIMILAR = 0.5  # a new file this much like one that went away in the same command was moved
# Programs that only read or print (with no redirection in the command): no snapshot is needed.
# Not here, because an option makes them write or run a program: sort -o, uniq IN OUT, tree -o, file -C,
# rg --pre, bat --pager, less -o.
READERS = ("cat", "head", "tail", "nl", "more", "grep", "wc", "ls", "pwd", "echo", "printf",
           "true", "false", "test", "[", "cd", "stat", "which", "type", "du", "df", "date", "diff", "cmp",
           "tr", "cut", "basename", "dirname", "realpath", "readlink", "whoami", "id", "env")
GIT_READERS = ("status", "diff", "log", "show", "rev-parse", "ls-files", "blame", "grep")

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from gitai.agents.normalize import AgentEvent
    from gitai.agents.sessions import Session
    from gitai.layout import Layout


def may_write(command: str) -> bool:
    """False only for a command made of plain readers, with no redirection or substitution."""
    if any(mark in command for mark in (">", "`", "$(", "<(")):
        return True
    found = segments(command)
    if not found:
        return found is None
    for words in found:
        name = words[0]
        if name == "git":
            if (len(words) < 2 or words[1] not in GIT_READERS
                    or any(w.startswith(("--output", "--open-files-in-pager", "-O")) for w in words)):
                return True
        elif name not in READERS or (name == "env" and len(words) > 1):
            return True
    return False


def changed_files(layout: Layout) -> dict[str, list[int] | None] | None:
    """The work tree's changed, new and deleted files (not ignored ones), each with its
    `file_state` (None: deleted); None when there are too many to follow or git cannot say."""
    from gitai.git.repository import without_config_overrides
    from gitai.git.runner import git_stdout, split_z

    out = git_stdout(["--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all",
                      "--no-renames", "--ignore-submodules=all"], layout.root, env=without_config_overrides())
    if out is None:
        return None
    entries = split_z(out)
    if len(entries) > MAX_DIRTY:
        return None
    found: dict[str, list[int] | None] = {}
    for entry in entries:
        rel = entry[3:]
        if len(entry) > 3 and not rel.startswith(OWN_DIRS) and not rel.endswith("/"):
            found[rel] = file_state(os.path.join(layout.root, rel))
    return found


def writable_by(layout: Layout, intent_id: str | None) -> Callable[[str], bool]:
    """Whether the session's intent lets the agent write a path (the scope gate's own rule)."""
    from gitai.agents.gate import check_write_paths
    from gitai.agents.protocol import ALLOW
    from gitai.gate.policy import load_policy

    policy = load_policy(layout)
    return lambda rel: check_write_paths(layout, policy, intent_id, [rel]).decision == ALLOW


def before_shell(layout: Layout, event: AgentEvent, session: Session, intent_id: str | None,
                 commit_dirs: list[str]) -> bool:
    """Before a command that may write: a person's edits since the last checkpoints are checkpointed
    as theirs, and the changed files noted for the after-shell hook, also in each other worktree of the
    repository among `commit_dirs` (where the command commits: `git -C ../wt commit`), for that
    worktree's post-commit hook. True when the session changed."""
    snapshots = session.data.get(SNAPSHOTS)
    if not isinstance(snapshots, dict):
        snapshots = {}
    now = time.time()
    fresh = {k: v for k, v in snapshots.items() if isinstance(v, dict) and now - float(v.get("at", 0)) < COMMAND_FRESH}
    if not may_write(event.command or ""):
        if fresh != snapshots:
            session.data[SNAPSHOTS] = fresh
            return True
        return False
    unsettled = fresh.get(UNSETTLED)
    if isinstance(unsettled, dict):  # a command's changes not listed yet: they are not a person's
        listed = changed_files(layout)
        if listed is None:  # still unknown: nothing is caught up as a person's, and this command is in it too
            session.data[SNAPSHOTS] = fresh
            return True
        del fresh[UNSETTLED]
        _settle(layout, event, session, intent_id, unsettled, listed)
    changed = _person_caught_up(layout, intent_id)
    if changed is not None:
        snapshot: dict[str, Any] = {"at": now, "files": changed, "transcript": event.transcript_path}
        others = {other.root: found for other in _other_worktrees(layout, commit_dirs)
                  if (found := _person_caught_up(other, intent_id)) is not None}
        if others:
            snapshot[WORKTREES] = others
        fresh[event.tool_use_id or ""] = snapshot
    session.data[SNAPSHOTS] = fresh
    return True


def _person_caught_up(layout: Layout, intent_id: str | None) -> dict[str, list[int] | None] | None:
    """The worktree's changed files (`changed_files`), after checkpointing as a person's what changed
    in them since the last checkpoints."""
    changed = changed_files(layout)
    logged = logged_paths(layout)
    for rel, last in logged.items():
        catch_up(layout, rel, first=False, last=last)
    if changed is not None:
        writable = writable_by(layout, intent_id)
        for rel in changed:
            if rel not in logged and writable(rel):
                catch_up(layout, rel)  # uncommitted work no hook saw: what the command starts from
    return changed


def _other_worktrees(layout: Layout, directories: list[str]) -> list[Layout]:
    """The repository's other worktrees that `directories` are in."""
    from gitai.errors import GitaiError
    from gitai.layout import find_layout

    found: dict[str, Layout] = {}
    for directory in dict.fromkeys(directories):
        if os.path.realpath(directory) == os.path.realpath(layout.root):
            continue
        try:
            other = find_layout(directory)
        except GitaiError:
            continue
        if other.repo.common_dir == layout.repo.common_dir and other.root != layout.root:
            found.setdefault(other.root, other)
    return list(found.values())


def after_shell(layout: Layout, event: AgentEvent, session: Session, intent_id: str | None) -> bool:
    """After the command: each file it made, changed or removed is checkpointed as the agent's.
    True when the session changed."""
    snapshots = session.data.get(SNAPSHOTS)
    if not isinstance(snapshots, dict):
        return False
    own = snapshots.pop(event.tool_use_id or "", None)
    snapshot = snapshots.pop(UNSETTLED, None) or own  # the older state, where one is unsettled
    if not isinstance(snapshot, dict) or not isinstance(snapshot.get("files"), dict):
        return snapshot is not None
    now = changed_files(layout)
    if now is None:  # git cannot say what the command changed: the next listing that works will
        snapshots[UNSETTLED] = snapshot
        return True
    _settle(layout, event, session, intent_id, snapshot, now)
    return True


def _settle(layout: Layout, event: AgentEvent, session: Session, intent_id: str | None, snapshot: dict[str, Any],
            now: dict[str, list[int] | None]) -> None:
    """Each file that appeared, changed or went away between the `snapshot` and `now` is checkpointed
    as the agent's, where the intent lets it write the file."""
    before: dict[str, list[int] | None] = snapshot["files"]
    touched = [rel for rel, state in now.items() if _changed(before, rel, state)]
    touched += [rel for rel in before if rel not in now]  # made clean again (`git checkout -- FILE`)
    if not touched:
        return
    writable = writable_by(layout, intent_id)
    outside = [rel for rel in touched if not writable(rel)]
    made: dict[str, tuple[bytes, list[int]]] = {}
    gone: list[str] = []
    for rel in touched:
        if rel in outside:
            continue
        path = os.path.join(layout.root, rel)
        found = read_file(path, limit=MAX_FILE)  # a larger file is never read: not attributed
        if found is None:
            if file_state(path) is None:
                gone.append(rel)
        elif not is_binary(found[0]):
            made[rel] = found
    moved_from = _moves(layout, gone, made)
    model = event.model or session.data.get("model")
    for rel in gone:
        if rel not in moved_from.values():
            record_deleted(layout, rel, event.host, session.key)
    for rel, found in made.items():
        _claim(layout, session, event.host, rel, found, intent_id, model, event.transcript_path, moved_from.get(rel))
    if outside:
        from gitai.intents.events import record_event

        record_event(layout, "agent-shell-outside-scope", False, actor=f"agent:{event.host}", intent_id=intent_id,
                     host=event.host, session=session.key, command=(event.command or "")[:500], paths=outside[:50])


def settle_running_command(layout: Layout, running: tuple[Session, str, str],
                           committed: list[tuple[str, str | None, bytes | None]]) -> None:
    """In git's post-commit hook, before the record is made, while an agent's commit command is
    `running` (`committing_session`: the session, its tool call, its worktree's state directory): each
    committed file (path, path before a rename, committed content) that the command changed since its
    before-shell snapshot of this worktree is checkpointed as the agent's, as the after-shell hook
    would, but too late for this record. Each one whose work tree is now as committed leaves the
    snapshot, so the after-shell hook sees no change to claim twice."""
    session, tool_use_id, state_dir = running
    snapshots = session.data.get(SNAPSHOTS)
    snapshot = snapshots.get(tool_use_id) if isinstance(snapshots, dict) else None
    if not isinstance(snapshot, dict):
        return
    if state_dir != layout.state_dir:  # the session works in another worktree: its snapshot of this one
        others = snapshot.get(WORKTREES)
        snapshot = {**snapshot, "files": others.get(layout.root) if isinstance(others, dict) else None}
    if not isinstance(snapshot.get("files"), dict):
        return
    from gitai.intents.active import active_intent

    before: dict[str, list[int] | None] = snapshot["files"]
    active = active_intent(layout)
    intent_id = session.intent or (active.id if active else None)
    writable = writable_by(layout, intent_id)
    model = session.data.get("model")
    transcript = snapshot.get("transcript")
    logged = logged_paths(layout)
    for rel, old, data in committed:
        if data is None:
            continue
        found = read_file(os.path.join(layout.root, rel), limit=MAX_FILE)
        as_committed = found is not None and found[0] == data
        if _changed(before, rel, found[1] if found else None):  # the command changed it
            if writable(rel) and len(data) <= MAX_FILE and not is_binary(data):
                moved = old if old and old != rel and old in logged and rel not in logged else None
                # The committed content; its file state only where the work tree still has it
                # (else the next catch-up compares content).
                _claim(layout, session, session.data.get("host") or "", rel,
                       (data, found[1] if found and as_committed else []), intent_id, model, transcript, moved)
        if as_committed:
            before.pop(rel, None)  # as in HEAD now
    session.save()


def _changed(before: dict[str, list[int] | None], rel: str, state: list[int] | None) -> bool:
    """Whether `rel` changed since the before-shell snapshot `before` (its file state then)."""
    return rel not in before or before[rel] != state


def _claim(layout: Layout, session: Session, host: str, rel: str, found: tuple[bytes, list[int]],
           intent_id: str | None, model: object, transcript: object, moved_from: str | None) -> None:
    """Checkpoint `rel` (`found`: its content and file state) as the agent's shell command's change,
    its checkpoints first following it from `moved_from`."""
    if moved_from:
        move_log(layout, moved_from, rel)
    record_checkpoint(layout, rel, host, session.key, model if isinstance(model, str) else None, intent_id,
                      transcript if isinstance(transcript, str) else None, unchanged_since=False, via="shell",
                      found=found)


def _moves(layout: Layout, gone: list[str], made: dict[str, tuple[bytes, list[int]]]) -> dict[str, str]:
    """New path -> old path, for each file the command moved (`git mv a b`, `mv a b`, perhaps then
    changed): a file that went away with checkpoints, whose last content the new one has, or mostly
    has (git's rename rule: half the lines), keeps its checkpoints under its new name."""
    if not gone or not made:
        return {}
    logged = logged_paths(layout)
    olds = {rel: str(logged[rel]["blob"]) for rel in gone if rel in logged}
    moves: dict[str, str] = {}
    for rel, (data, _) in made.items():
        if rel in logged or not olds:
            continue
        oid = blob_id(layout, data)
        old = next((o for o, blob in olds.items() if blob == oid), None) or _similar(layout, olds, data)
        if old is not None:
            moves[rel] = old
            del olds[old]
    return moves


def _similar(layout: Layout, olds: dict[str, str], data: bytes) -> str | None:
    from difflib import SequenceMatcher

    from gitai.agents.checkpoints import read_blob

    lines = data.splitlines()
    best, found = SIMILAR, None
    for old, blob in olds.items():
        before = read_blob(layout, blob)
        if before is not None:
            ratio = SequenceMatcher(None, before.splitlines(), lines, autojunk=False).ratio()
            if ratio >= best:
                best, found = ratio, old
    return found
