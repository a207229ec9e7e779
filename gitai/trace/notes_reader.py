"""Bulk reads of the trace for the commands (verify, log, show, blame): pygit2, in-process.

Not for hooks: importing pygit2 costs about 110 ms.
"""

from __future__ import annotations

import pygit2

from gitai.layout import NOTES_REF, Layout
from gitai.trace.record import Record, split_note


def open_repository(layout: Layout) -> pygit2.Repository:
    """The pygit2 repository of this worktree (its HEAD, the shared object store)."""
    return pygit2.Repository(layout.root)


def all_notes(repo: pygit2.Repository) -> dict[str, list[Record]]:
    """Every annotated commit -> the well-formed records of its note."""
    return {commit: records for commit, (records, _) in all_notes_checked(repo).items()}


def all_notes_checked(repo: pygit2.Repository) -> dict[str, tuple[list[Record], int]]:
    """Every annotated commit -> its well-formed records and the number of malformed lines."""
    try:
        notes = list(repo.notes(NOTES_REF))  # type: ignore[call-arg]  # the stub lacks the ref argument
    except (KeyError, pygit2.GitError):
        return {}
    return {str(note.annotated_id): split_note(note.message) for note in notes}
