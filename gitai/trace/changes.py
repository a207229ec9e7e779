"""What a commit adds, changes and deletes, with the blobs and `-U0` hunks of each file: the input
of the record (ranges) and of classification.

Ranges are the lines the commit adds or changes against its first parent (a root commit: whole
files; a merge: only lines that are new against every parent, i.e. the lines `git blame` would
give the merge itself).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gitai.git.diff import (
    GITLINK_MODE,
    SYMLINK_MODE,
    Hunk,
    Listed,
    RawChange,
    added_lines,
    blob_hunks,
    merge_paths,
    raw_and_hunks,
)
from gitai.git.objects import ObjectReader
from gitai.util.files import LARGE_FILE, is_binary
from gitai.util.lines import split_lines

if TYPE_CHECKING:
    from collections.abc import Callable

    Diffs = Callable[[str | None, str], Listed]
    """(parent or None, commit) -> `raw_and_hunks`: a `DiffStream` (backfill)."""


@dataclass
class ChangedFile:
    """One path the commit adds or changes, with its blobs (for ranges and classification)."""

    path: str
    old_path: str | None
    new_data: bytes | None  # None for symlinks and submodules
    old_data: bytes | None
    kind: str = "text"  # text | binary | symlink | submodule | large
    added_lines: list[int] = field(default_factory=list)
    hunks: list[Hunk] = field(default_factory=list)  # text files: the diff against the (first) parent
    new_oid: str = ""
    old_oid: str | None = None
    # a merge's other parents, in order: the file's name there (None: not there), its blob, the hunks
    other_parents: list[tuple[str | None, str | None, list[Hunk]]] = field(default_factory=list)


@dataclass
class CommitChanges:
    files: list[ChangedFile]
    deleted: list[tuple[str, bytes | None]]  # (path, old content)
    # per parent: whether a path it has is gone (deleted or renamed away): an added file may then
    # be one that `git blame` follows there (a file split in two, each half renamed from it)
    paths_gone: list[bool] = field(default_factory=list)


class _Prefetched:
    """A commit's blobs read together; anything else (a missing one: its KeyError) by `reader`."""

    def __init__(self, reader: ObjectReader, blobs: dict[str, bytes]) -> None:
        self.reader = reader
        self.blobs = blobs

    def read(self, oid: str) -> bytes:
        found = self.blobs.get(oid)
        return found if found is not None else self.reader.read(oid)


def _content(reader: ObjectReader | _Prefetched, mode: int, oid: str) -> bytes | None:
    return None if mode in (GITLINK_MODE, SYMLINK_MODE) or mode == 0 else reader.read(oid)


def changes_against(root: str, reader: ObjectReader, parent: str | None, commit: str,
                    diffs: Diffs | None = None) -> CommitChanges:
    """What `commit` adds, changes and deletes against `parent` (None: the empty tree); `diffs`:
    the stream that has this diff (backfill), else one `diff-tree` here."""
    return _loaded(root, reader, diffs(parent, commit) if diffs else raw_and_hunks(root, parent, commit))


def _loaded(root: str, reader: ObjectReader, listed: Listed,
            files: set[str] | None = None, deleted: set[str] | None = None) -> CommitChanges:
    """The changes of one diff, with their blobs; with `files` and `deleted`, only the changes
    of those paths are read (whether a path is gone is of the whole diff still)."""
    raw, per_change = listed
    if files is not None and deleted is not None:
        kept = [index for index, change in enumerate(raw)
                if (change.old_path in deleted if change.status == "D" else change.new_path in files)]
        changes = load_changes(root, reader, [raw[index] for index in kept],
                               None if per_change is None else [per_change[index] for index in kept])
    else:
        changes = load_changes(root, reader, raw, per_change)
    changes.paths_gone = [any(change.status in "DR" for change in raw)]
    return changes


def load_changes(
    root: str, reader: ObjectReader, raw: list[RawChange], per_change: list[list[Hunk] | None] | None
) -> CommitChanges:
    """Read the blobs of raw changes; `per_change` gives their hunks (None: diff those files here)."""
    files: list[ChangedFile] = []
    deleted: list[tuple[str, bytes | None]] = []
    wanted = [oid for change in raw
              for mode, oid in ((change.old_mode, change.old_oid), (change.new_mode, change.new_oid))
              if mode not in (0, GITLINK_MODE, SYMLINK_MODE)]
    blobs = _Prefetched(reader, reader.read_many(wanted, remember=True) if wanted else {})
    for index, change in enumerate(raw):
        if change.status == "D":
            deleted.append((change.old_path, _content(blobs, change.old_mode, change.old_oid)))
            continue
        old_path = None if change.status == "A" else change.old_path
        old_data = None if change.status == "A" else _content(blobs, change.old_mode, change.old_oid)
        if change.new_mode in (GITLINK_MODE, SYMLINK_MODE):
            kind = "submodule" if change.new_mode == GITLINK_MODE else "symlink"
            files.append(ChangedFile(change.new_path, old_path, None, None, kind))
            continue
        new_data = blobs.read(change.new_oid)
        if is_binary(new_data):
            files.append(ChangedFile(change.new_path, old_path, new_data, old_data, "binary"))
        elif len(new_data) > LARGE_FILE:
            files.append(ChangedFile(change.new_path, old_path, new_data, old_data, "large"))
        else:
            if old_data is not None and is_binary(old_data):  # binary became text: every line is new
                count = len(split_lines(new_data))
                hunks = [(0, 0, 1, count)] if count else []
            else:
                listed = per_change[index] if per_change is not None else None
                hunks = listed if listed is not None else _fallback_hunks(root, change)
            old_oid = None if change.status == "A" else change.old_oid
            files.append(ChangedFile(change.new_path, old_path, new_data, old_data, "text", added_lines(hunks),
                                     hunks, change.new_oid, old_oid))
    return CommitChanges(files, deleted)


def _fallback_hunks(root: str, change: RawChange) -> list[Hunk]:
    had_text_old = change.status != "A" and change.old_mode not in (GITLINK_MODE, SYMLINK_MODE)
    return blob_hunks(root, change.old_oid if had_text_old else None, change.new_oid)


def commit_changes(root: str, reader: ObjectReader, commit: str, parents: list[str],
                   diffs: Diffs | None = None) -> CommitChanges:
    """The commit's changes; for a merge, only lines new against every parent (`diffs`: see
    `changes_against`). A merge's files are those it changes against every parent (any other it
    took from one of them), so only theirs are read: a merge of a long-lived branch differs from
    its other parent in many files it does not change."""
    if len(parents) < 2:
        return changes_against(root, reader, parents[0] if parents else None, commit, diffs)
    listed = [diffs(parent, commit) if diffs else raw_and_hunks(root, parent, commit) for parent in parents]
    files, deleted = merge_paths([raw for raw, _ in listed])
    first = _loaded(root, reader, listed[0], files, deleted)
    for other in (_loaded(root, reader, diff, files, set()) for diff in listed[1:]):
        first.paths_gone += other.paths_gone
        other_files = {f.path: f for f in other.files}
        for changed in first.files:
            against = other_files[changed.path]
            if changed.kind == "text":
                changed.added_lines = sorted(set(changed.added_lines) & set(against.added_lines))
            changed.other_parents.append((against.old_path, against.old_oid, against.hunks))
    return first
