"""Checkpoints: each version of a file that agents and people left between two commits, for
line-level provenance.

An agent's checkpoint stores the file's content as its write tool or its shell command left it
(after-write, after-shell). A person's checkpoint (`kind: person`) stores what the hooks found
just before an agent changed the file when nothing an agent did explains it: a person's edit
between two agent steps, or the uncommitted content the agent started from (`catch_up`). Each is
the content as a git blob (in the object database, never the working tree) and one small JSON
line in `<git dir>/gitai/checkpoints/<path hash>.jsonl`: the blob, its size and modification time
(`stat`: a later hook that finds the same needs no hash), the blob the session wrote before (when
nothing changed the file in between), host, session, model, intent, transcript path, time. The
commit hooks read them (gitai/trace/attribution.py) and drop a file's log once its content is
committed; entries older than STALE_AFTER are ignored and removed. Local working state: it is
never pushed, and no content goes into notes.
Lean: the agent hooks import this.
"""

from __future__ import annotations

import os
import stat
import time

from gitai.util import hookjson
from gitai.util.files import is_binary

STALE_AFTER = 7 * 86400
MAX_LOG_BYTES = 64 * 1024  # past this, a log keeps its newest KEEP entries
KEEP = 64
PERSON = "person"  # an entry's `kind`: content no agent hook wrote (absent: an agent's)
MAX_FILE = 1024 * 1024  # a larger file is checkpointed only from an agent's write tool
RACY = 0.05  # seconds: a file modified this close to its checkpoint may change again unseen by its stat
MODEL_PROVIDERS = (("claude", "anthropic"), ("gpt-", "openai"), ("o1", "openai"), ("o3", "openai"),
                   ("o4", "openai"), ("codex", "openai"), ("gemini", "google"), ("grok", "xai"))

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hashlib import sha1
    from typing import Any

    from gitai.layout import Layout
else:
    try:  # the same digest without `hashlib`, which loads OpenSSL's libcrypto: milliseconds of every agent hook
        from _sha1 import sha1
    except ImportError:  # a Python built without it
        from hashlib import sha1


def checkpoints_dir(layout: Layout) -> str:
    return os.path.join(layout.state_dir, "checkpoints")


def log_path(layout: Layout, rel: str) -> str:
    name = sha1(rel.encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return os.path.join(checkpoints_dir(layout), name + ".jsonl")


def model_id(model: str | None) -> str | None:
    """The model in models.dev "provider/model" form where the provider can be told from the name."""
    if not model:
        return None
    model = model.strip()[:250]
    if "/" in model:
        return model
    lowered = model.lower()
    for prefix, provider in MODEL_PROVIDERS:
        if lowered.startswith(prefix):
            return f"{provider}/{model}"
    return model


_SHA256: dict[str, bool] = {}


def _sha256_repo(layout: Layout) -> bool:
    common = layout.repo.common_dir
    if common not in _SHA256:
        try:
            with open(os.path.join(common, "config"), encoding="utf-8", errors="replace") as handle:
                _SHA256[common] = "objectformat" in handle.read().lower()
        except OSError:
            _SHA256[common] = False
    return _SHA256[common]


def blob_id(layout: Layout, data: bytes) -> str:
    """The object id git gives `data` as a blob, without storing it."""
    if _sha256_repo(layout):
        from hashlib import sha256

        return sha256(b"blob %d\0" % len(data) + data).hexdigest()
    return sha1(b"blob %d\0" % len(data) + data).hexdigest()


def read_blob(layout: Layout, oid: str) -> bytes | None:
    """A blob `write_blob` stored (a loose object), or None."""
    import zlib  # here, not at the top: a write to a file with no checkpoint needs none

    try:
        with open(os.path.join(layout.repo.common_dir, "objects", oid[:2], oid[2:]), "rb") as handle:
            header, _, data = zlib.decompress(handle.read()).partition(b"\0")
    except (OSError, zlib.error):
        return None
    return data if header.startswith(b"blob ") else None


def file_state(path: str) -> list[int] | None:
    """A regular file's size and modification time in ns (None: no such file)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns] if stat.S_ISREG(st.st_mode) else None


def read_file(path: str, limit: int | None = None) -> tuple[bytes, list[int]] | None:
    """A regular file's content and its `file_state` (None: no such file, or larger than `limit`,
    which is told before anything is read)."""
    try:
        with open(path, "rb") as handle:
            st = os.fstat(handle.fileno())
            if not stat.S_ISREG(st.st_mode) or (limit is not None and st.st_size > limit):
                return None
            return handle.read(), [st.st_size, st.st_mtime_ns]
    except OSError:
        return None


def write_blob(layout: Layout, data: bytes) -> str:
    """Store `data` as a loose git blob (what `git hash-object -w` does, without a process)."""
    if _sha256_repo(layout):
        from gitai.git.runner import run_git

        return run_git(["hash-object", "-w", "--stdin"], layout.root, input=data).decode().strip()
    import zlib

    header = b"blob %d\0" % len(data)
    oid = sha1(header + data).hexdigest()
    directory = os.path.join(layout.repo.common_dir, "objects", oid[:2])
    target = os.path.join(directory, oid[2:])
    if not os.path.exists(target):
        os.makedirs(directory, exist_ok=True)
        temp = f"{target}.{os.getpid()}.tmp"
        with open(temp, "wb") as handle:
            handle.write(zlib.compress(header + data, 1))
        os.chmod(temp, 0o444)
        os.replace(temp, target)
    return oid


def last_entry(path: str) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, os.fstat(handle.fileno()).st_size - 8192))
            lines = handle.read().splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        try:
            value = hookjson.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def record_checkpoint(layout: Layout, rel: str, host: str, session_key: str, model: str | None,
                      intent_id: str | None, transcript: str | None, unchanged_since: bool = True,
                      via: str | None = None, found: tuple[bytes, list[int]] | None = None) -> str | None:
    """Append the agent's checkpoint of `rel` as it is now; returns its blob (None: no such file).
    `unchanged_since`: the session last knew the file as its own previous write left it. `via`:
    "shell" when a shell command made the change. `found`: the content and state, already read."""
    found = found or read_file(os.path.join(layout.root, rel))
    if found is None:
        return None  # deleted or not a file: nothing of the agent's to attribute
    data, state = found
    blob = write_blob(layout, data)
    path = log_path(layout, rel)
    last = last_entry(path)
    # The content before this write is the session's own last checkpoint only when it is the newest
    # one and the session saw no other content since (the stale-write lock makes the session read a
    # file someone else changed). Otherwise unknown: the commit's base or the previous entry.
    prev = last.get("blob") if unchanged_since and last and last.get("session") == session_key else None
    if last is not None and last.get("blob") == blob:
        return blob  # the write changed nothing
    entry = {"path": rel, "blob": blob, "prev": prev, "host": host, "session": session_key,
             "model": model_id(model), "intent_id": intent_id, "time": round(time.time(), 3), "stat": state}
    if via:
        entry["via"] = via
    if transcript:
        entry["transcript"] = transcript
    _append(path, entry)
    return blob


def catch_up(layout: Layout, rel: str, first: bool = True, last: dict[str, Any] | None = None) -> None:
    """Before an agent changes `rel`: whatever changed it since its last checkpoint was done where
    no agent hook saw it (a person's editor, a tool of theirs), so it is checkpointed as a person's
    first; the agent's own change is then exactly the difference its checkpoint makes. `first`: also
    when `rel` has no checkpoint yet (its uncommitted content is then what the agent started from).
    `last`: its newest entry, already read."""
    target = os.path.join(layout.root, rel)
    path = log_path(layout, rel)
    last = last or last_entry(path)
    state = file_state(target)
    if last is None:
        if not first or state is None or state[0] > MAX_FILE:
            return
    elif state is None:
        if not last.get("deleted"):
            _append(path, {"path": rel, "blob": write_blob(layout, b""), "kind": PERSON, "deleted": True,
                           "time": round(time.time(), 3)})
        return
    elif state == last.get("stat") and not _racy(last):
        return
    found = read_file(target)
    if found is None:
        return
    data, state = found
    if last is None and is_binary(data):
        return  # no line of it is attributed
    if last is not None and blob_id(layout, data) == last.get("blob"):
        return  # touched, not changed
    _append(path, {"path": rel, "blob": write_blob(layout, data), "kind": PERSON, "time": round(time.time(), 3),
                   "stat": state})


def _racy(entry: dict[str, Any]) -> bool:
    """The file's recorded modification time is so close to the checkpoint's that a later change in
    the same clock tick could keep it (git's "racy clean" entries): its content must be compared."""
    recorded = entry.get("stat")
    when = entry.get("time")
    if not (isinstance(recorded, list) and len(recorded) == 2 and isinstance(when, (int, float))):
        return True
    return bool(recorded[1] / 1e9 >= when - RACY)


def record_deleted(layout: Layout, rel: str, host: str, session_key: str) -> None:
    """An agent's shell command removed `rel`: its checkpoint is empty, so that a file made later
    under the same name starts afresh."""
    path = log_path(layout, rel)
    last = last_entry(path)
    if last is None or last.get("deleted"):
        return
    _append(path, {"path": rel, "blob": write_blob(layout, b""), "prev": None, "host": host,
                   "session": session_key, "deleted": True, "via": "shell", "time": round(time.time(), 3)})


def move_log(layout: Layout, old: str, new: str) -> None:
    """`old` was moved to `new` (`git mv`, `mv`): its checkpoints follow it."""
    source = log_path(layout, old)
    try:
        with open(source, "rb") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return
    moved = []
    for line in lines:
        try:
            value = hookjson.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            moved.append({**value, "path": new})
    for entry in moved:
        _append(log_path(layout, new), entry)
    drop(layout, old)


def _append(path: str, entry: dict[str, Any]) -> None:
    line = (hookjson.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8", "surrogateescape")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "ab") as handle:
        handle.write(line)
        size = handle.tell()
    if size > MAX_LOG_BYTES:
        _trim(path)


def logged_paths(layout: Layout) -> dict[str, dict[str, Any]]:
    """Every file with a checkpoint log: its newest entry, by path."""
    directory = checkpoints_dir(layout)
    try:
        names = os.listdir(directory)
    except OSError:
        return {}
    found: dict[str, dict[str, Any]] = {}
    for name in names:
        if name.endswith(".jsonl"):
            last = last_entry(os.path.join(directory, name))
            if last is not None and isinstance(last.get("path"), str):
                found[last["path"]] = last
    return found


def _trim(path: str) -> None:
    from gitai.util.files import write_atomic

    with open(path, "rb") as handle:
        lines = handle.read().splitlines(keepends=True)
    write_atomic(path, b"".join(lines[-KEEP:]).decode("utf-8", "surrogateescape"))


def read_checkpoints(layout: Layout, rel: str, now: float | None = None) -> list[dict[str, Any]]:
    """The live checkpoints of `rel`, oldest first (malformed and stale lines skipped)."""
    now = time.time() if now is None else now
    try:
        with open(log_path(layout, rel), "rb") as handle:
            raw = handle.read().splitlines()
    except OSError:
        return []
    found = []
    for line in raw:
        try:
            value = hookjson.loads(line)
        except ValueError:
            continue
        if (isinstance(value, dict) and value.get("path") == rel and isinstance(value.get("blob"), str)
                and isinstance(value.get("time"), (int, float)) and now - value["time"] < STALE_AFTER):
            found.append(value)
    return found


def has_checkpoints(layout: Layout) -> bool:
    try:
        return any(name.endswith(".jsonl") for name in os.listdir(checkpoints_dir(layout)))
    except OSError:
        return False


def drop(layout: Layout, rel: str) -> None:
    try:
        os.unlink(log_path(layout, rel))
    except OSError:
        pass


def prune_stale(layout: Layout, now: float | None = None) -> None:
    """Remove logs nobody wrote to for STALE_AFTER."""
    from gitai.util.files import remove_stale

    remove_stale(checkpoints_dir(layout), STALE_AFTER, time.time() if now is None else now)
