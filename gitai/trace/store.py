"""Where records live: git notes on `refs/notes/gitai` and the append-only JSONL ledger.

Writers take one lock (`<common git dir>/gitai/trace.lock`) around "write note, append ledger
line", so notes and ledger stay in the same order even with several worktrees committing at once.
Plumbing only (no pygit2): the post-commit hook uses this module.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Iterator
from typing import Any

from gitai.git import GitCommandError, git_process
from gitai.jsonl import append_lines, dumps
from gitai.layout import NOTES_REF, Layout

Record = dict[str, Any]
LOCK_ATTEMPTS = 50


def parse_note(body: str) -> list[Record]:
    """A note holds one record per line (two after `gitai sync` met two versions of one commit)."""
    return split_note(body)[0]


def split_note(body: str) -> tuple[list[Record], int]:
    """The well-formed records of a note, and how many lines were not (notes arrive by sync)."""
    records, bad = [], 0
    for line in body.splitlines():
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError:
            value = None
        if is_record(value):
            records.append(value)
        else:
            bad += 1
    return records, bad


def is_record(value: object) -> bool:
    """The shape every reader of records relies on (the schema says more; this is what matters)."""
    if not isinstance(value, dict):
        return False
    vcs, files, meta = value.get("vcs"), value.get("files"), value.get("metadata", {})
    if not (isinstance(vcs, dict) and isinstance(vcs.get("revision"), str) and isinstance(files, list)):
        return False
    if not (isinstance(meta, dict) and isinstance(meta.get("dev.gitai", {}), dict)):
        return False
    for entry in files:
        if not (isinstance(entry, dict) and isinstance(entry.get("path"), str)
                and isinstance(entry.get("conversations"), list)):
            return False
        for conversation in entry["conversations"]:
            ranges = conversation.get("ranges") if isinstance(conversation, dict) else None
            if not isinstance(ranges, list) or not all(
                isinstance(r, dict) and isinstance(r.get("start_line"), int) and isinstance(r.get("end_line"), int)
                for r in ranges
            ):
                return False
    return True


def read_note(root: str, commit: str) -> list[Record]:
    """The records attached to `commit` (empty when it has no note)."""
    proc = git_process(["notes", "--ref", NOTES_REF, "show", commit], root)
    return parse_note(proc.stdout.decode("utf-8", "replace")) if proc.returncode == 0 else []


def record_intent(record: Record) -> str | None:
    """The intent a record attributes its commit to (None: unattributed)."""
    meta = record.get("metadata", {}).get("dev.gitai", {})
    return meta.get("intent_id") if isinstance(meta.get("intent_id"), str) else None


def own_records(records: list[Record], commit: str) -> list[Record]:
    """The records describing this very commit (a note copied from a rewritten commit does not count)."""
    return [r for r in records if r.get("vcs", {}).get("revision") == commit]


@contextlib.contextmanager
def trace_lock(layout: Layout) -> Iterator[None]:
    """Serialise record writers across processes and worktrees."""
    os.makedirs(layout.shared_state_dir, exist_ok=True)
    fd = os.open(os.path.join(layout.shared_state_dir, "trace.lock"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def note_body(records: list[Record]) -> str:
    return "".join(dumps(r) + "\n" for r in records)


def write_note(root: str, commit: str, records: list[Record]) -> None:
    """Replace the note of `commit`; retries while another git process holds the notes ref lock."""
    body = note_body(records).encode("utf-8")
    for _ in range(LOCK_ATTEMPTS):
        proc = git_process(["notes", "--ref", NOTES_REF, "add", "-f", "-F", "-", commit], root, body)
        if proc.returncode == 0:
            return
        time.sleep(0.02)
    message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    raise GitCommandError(f"git notes add failed: {message[-1] if message else proc.returncode}")


def store_record(layout: Layout, record: Record) -> None:
    """Attach the record to its commit and append it to the ledger, under the trace lock."""
    with trace_lock(layout):
        write_note(layout.root, record["vcs"]["revision"], [record])
        layout.ensure_local_dir()
        append_lines(layout.ledger, [dumps(record)])
