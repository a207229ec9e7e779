"""Checkpoints: what an agent session left in each file it wrote, for line-level provenance.

Each after-write stores the file's content as a git blob (in the object database, never the working
tree) and appends one small JSON line to `<git dir>/gitai/checkpoints/<path hash>.jsonl`: the blob,
the blob the session wrote before (when nothing changed the file in between), host, session,
model, intent, transcript path, time. The commit hooks read them (gitai/trace/attribution.py) and
drop a file's log once its content is committed; entries older than STALE_AFTER are ignored and
removed. Local working state: it is never pushed, and no content goes into notes.
Lean: the after-write hook imports this.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import zlib

STALE_AFTER = 7 * 86400
MAX_LOG_BYTES = 64 * 1024  # past this, a log keeps its newest KEEP entries
KEEP = 64
MODEL_PROVIDERS = (("claude", "anthropic"), ("gpt-", "openai"), ("o1", "openai"), ("o3", "openai"),
                   ("o4", "openai"), ("codex", "openai"), ("gemini", "google"), ("grok", "xai"))

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gitai.layout import Layout


def checkpoints_dir(layout: Layout) -> str:
    return os.path.join(layout.state_dir, "checkpoints")


def log_path(layout: Layout, rel: str) -> str:
    return os.path.join(checkpoints_dir(layout), hashlib.sha1(rel.encode("utf-8", "surrogateescape")).hexdigest()[:24] + ".jsonl")


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


def _sha256_repo(layout: Layout) -> bool:
    try:
        with open(os.path.join(layout.repo.common_dir, "config"), encoding="utf-8", errors="replace") as handle:
            return "objectformat" in handle.read().lower()
    except OSError:
        return False


def write_blob(layout: Layout, data: bytes) -> str:
    """Store `data` as a loose git blob (what `git hash-object -w` does, without a process)."""
    if _sha256_repo(layout):
        from gitai.git.runner import run_git

        return run_git(["hash-object", "-w", "--stdin"], layout.root, input=data).decode().strip()
    header = b"blob %d\0" % len(data)
    oid = hashlib.sha1(header + data).hexdigest()
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
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def record_checkpoint(layout: Layout, rel: str, host: str, session_key: str, model: str | None,
                      intent_id: str | None, transcript: str | None, unchanged_since: bool = True) -> str | None:
    """Append the checkpoint of `rel` as it is now; returns its blob (None: no such file).
    `unchanged_since`: the session last knew the file as its own previous write left it."""
    try:
        with open(os.path.join(layout.root, rel), "rb") as handle:
            data = handle.read()
    except OSError:
        return None  # deleted or not a file: nothing of the agent's to attribute
    blob = write_blob(layout, data)
    path = log_path(layout, rel)
    last = last_entry(path)
    # The content before this write is the session's own last checkpoint only when it is the newest
    # one and the session saw no other content since (the stale-write lock makes the session read a
    # file someone else changed). Otherwise unknown: the commit's base or the previous entry.
    prev = last.get("blob") if unchanged_since and last and last.get("session") == session_key else None
    if prev == blob:
        return blob  # the write changed nothing
    entry = {"path": rel, "blob": blob, "prev": prev, "host": host, "session": session_key,
             "model": model_id(model), "intent_id": intent_id, "time": round(time.time(), 3)}
    if transcript:
        entry["transcript"] = transcript
    line = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8", "surrogateescape")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "ab") as handle:
        handle.write(line)
        size = handle.tell()
    if size > MAX_LOG_BYTES:
        _trim(path)
    return blob


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
            value = json.loads(line)
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
