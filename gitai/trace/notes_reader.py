"""Bulk reads of the trace for the commands (verify, rebuild, recover, log, backfill, sync).

Plumbing only (`git notes list`, `git ls-tree`, one `git cat-file --batch`): it works in SHA-1
and SHA-256 repositories alike (pygit2 cannot open the latter), and reads an old state of the
notes (a reflog entry of refs/notes/gitai) the same way as the current one.
"""

from __future__ import annotations

from collections.abc import Iterator

from gitai.git.notes import list_notes
from gitai.git.objects import ObjectReader
from gitai.git.runner import git_process, split_z
from gitai.layout import NOTES_REF, Layout
from gitai.trace.record import MAX_NOTE_BYTES, TraceRecord, split_note


def all_notes(layout: Layout) -> dict[str, list[TraceRecord]]:
    """Every annotated commit -> the well-formed records of its note."""
    return {commit: records for commit, (records, _) in all_notes_checked(layout).items()}


def all_notes_checked(layout: Layout) -> dict[str, tuple[list[TraceRecord], int]]:
    """Every annotated commit -> its well-formed records and the number of malformed lines."""
    return _read_blobs(layout, [(commit, blob) for blob, commit in list_notes(layout.root, NOTES_REF)])


def notes_of(layout: Layout, commits: list[str]) -> dict[str, list[TraceRecord]]:
    """The records of these commits' notes only (a backfill of a range on a long trace reads that
    range's notes, not every one)."""
    wanted = set(commits)
    pairs = [(commit, blob) for blob, commit in list_notes(layout.root, NOTES_REF) if commit in wanted]
    return {commit: records for commit, (records, _) in _read_blobs(layout, pairs).items()}


def each_note(layout: Layout) -> Iterator[tuple[str, list[TraceRecord]]]:
    """Every annotated commit (in commit id order) and the well-formed records of its note, read
    one note at a time: a reader of a long trace never holds every record."""
    for commit, records, _ in each_note_checked(layout):
        yield commit, records


def each_note_checked(layout: Layout) -> Iterator[tuple[str, list[TraceRecord], int]]:
    """As each_note, with the number of malformed lines of each note."""
    pairs = sorted((commit, blob) for blob, commit in list_notes(layout.root, NOTES_REF))
    if not pairs:
        return
    with ObjectReader(layout.root) as reader:
        for commit, blob in pairs:
            records, malformed = read_records(reader, blob)
            yield commit, records, malformed


def notes_at(layout: Layout, notes_commit: str) -> dict[str, list[TraceRecord]]:
    """The records a past state of the notes ref held (a commit of its reflog)."""
    out = git_process(["ls-tree", "-r", "-z", "--end-of-options", notes_commit], layout.root)
    pairs = []
    for entry in split_z(out.stdout) if out.returncode == 0 else []:
        meta, _, path = entry.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == "blob":
            pairs.append((path.replace("/", ""), parts[2]))  # notes fan out as ab/cdef...: the path is the id
    return {commit: records for commit, (records, _) in _read_blobs(layout, pairs).items()}


def read_records(reader: ObjectReader, blob: str) -> tuple[list[TraceRecord], int]:
    """The well-formed records of one note blob and the number of malformed lines (a huge or
    missing note is not read, only reported as one malformed line)."""
    try:
        data = reader.read_at_most(blob, MAX_NOTE_BYTES)
    except KeyError:
        data = None
    return _records(data)


def _records(data: bytes | None) -> tuple[list[TraceRecord], int]:
    """`read_records` of a note's content (None: missing, or too large to be read)."""
    return ([], 1) if data is None else split_note(data.decode("utf-8", "replace"))


NOTES_PER_READ = 256
"""Notes read and parsed at a time: the contents held at once, each up to MAX_NOTE_BYTES."""


def _read_blobs(layout: Layout, pairs: list[tuple[str, str]]) -> dict[str, tuple[list[TraceRecord], int]]:
    notes: dict[str, tuple[list[TraceRecord], int]] = {}
    if not pairs:
        return notes
    with ObjectReader(layout.root) as reader:
        for start in range(0, len(pairs), NOTES_PER_READ):
            some = pairs[start:start + NOTES_PER_READ]
            found = reader.read_many([blob for _, blob in some], limit=MAX_NOTE_BYTES)
            for commit, blob in some:
                notes[commit] = _records(found.get(blob))
    return notes
