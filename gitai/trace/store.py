"""Where records live: git notes on `refs/notes/gitai` and the append-only JSONL ledger.

Writers take one lock (`<common git dir>/gitai/trace.lock`) around "write note, append ledger
line", so notes and ledger stay in the same order even with several worktrees committing at once.
Plumbing only (no pygit2): the post-commit hook uses this module.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
from collections.abc import Iterator

from gitai.git.notes import add_note, list_notes, show_note, write_notes
from gitai.layout import NOTES_REF, Layout
from gitai.trace.record import TraceRecord, parse_note
from gitai.util.files import UnsafePathError
from gitai.util.jsonl import append_lines


def read_note(root: str, commit: str) -> list[TraceRecord]:
    """The valid records attached to `commit` (empty when it has no note)."""
    body = show_note(root, NOTES_REF, commit)
    return parse_note(body) if body is not None else []


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


def note_body(records: list[TraceRecord]) -> str:
    return note_of_lines([r.dumps() for r in records])


def note_of_lines(lines: list[str]) -> str:
    """A note's text from its records serialised (one JSON line each, as in the ledger)."""
    return "".join(line + "\n" for line in lines)


def store_records(layout: Layout, records: list[TraceRecord]) -> list[TraceRecord]:
    """Attach many records (one per commit) and append them to the ledger, under the trace lock,
    through one `git fast-import` making one notes commit (a `git notes add` per record costs a
    process and a notes commit each: backfill of thousands of commits). As `store_record` with
    `only_if_untraced`: a commit that got a record of its own meanwhile is left out. Returns the
    records stored."""
    if not records:
        return []
    with trace_lock(layout):
        noted = {commit for _, commit in list_notes(layout.root, NOTES_REF)}
        fresh = [r for r in records if r.revision not in noted
                 or not any(o.revision == r.revision for o in read_note(layout.root, r.revision))]
        if not fresh:
            return []
        lines = [r.dumps() for r in fresh]  # each record's note and ledger line: the same text
        write_notes(layout.root, NOTES_REF, [(r.revision, note_of_lines([line]).encode("utf-8"))
                                             for r, line in zip(fresh, lines, strict=True)])
        try:
            layout.ensure_local_dir()
            append_lines(layout.ledger, lines)
        except UnsafePathError as exc:
            sys.stderr.write(f"gitai: warning: {exc}; {len(fresh)} records are in their notes only\n")
    return fresh


def store_record(layout: Layout, record: TraceRecord, only_if_untraced: bool = False) -> bool:
    """Attach the record to its commit and append it to the ledger, under the trace lock; with
    `only_if_untraced`, nothing is stored (False) when the commit got a record of its own meanwhile
    (two backfills at once). A ledger behind a symbolic link is skipped with a warning: the note
    (the source of truth) is kept."""
    with trace_lock(layout):
        if only_if_untraced and any(r.revision == record.revision for r in read_note(layout.root, record.revision)):
            return False
        add_note(layout.root, NOTES_REF, record.revision, note_body([record]).encode("utf-8"))
        try:
            layout.ensure_local_dir()
            append_lines(layout.ledger, [record.dumps()])
        except UnsafePathError as exc:
            sys.stderr.write(f"gitai: warning: {exc}; the record of {record.revision[:12]} is in its note only\n")
    return True
