"""A compact, cached index of the trace for fast readers (blame-intent, the intent map).

Per traced commit: its intent, its commit-level classification, and per file the classification
and (for AST_REFACTOR files) the definitions' line mappings and the changed lines' origins. Kept
in an SQLite database, `<common git dir>/gitai/notes-index.sqlite`, with the notes commit it was
built from; brought up to date by the notes that changed since (one `git diff-tree` of the two
notes trees), so the update after a pull costs in proportion to the new notes, not to the trace,
and a reader that needs a few commits reads only their rows. Complete, or partial (a fresh
clone's `blame-intent`: only the commits it asked about). Plumbing only: no full parse of every
record per run.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from gitai import __version__
from gitai.git.notes import changed_notes, list_notes
from gitai.git.objects import ObjectReader, read_objects
from gitai.git.runner import run_git
from gitai.layout import NOTES_REF, Layout
from gitai.trace.record import (
    DefinitionMeta,
    FileMeta,
    TraceRecord,
    attributed_ranges,
    choose_record,
    own_records,
    parse_note,
)

INDEX_NAME = "notes-index.sqlite"
LONG_WAIT = 10.0  # seconds a reader of the whole trace waits for another process's update
SHORT_WAIT = 0.1  # and a reader of a few commits (blame-intent, the hooks), which can do without
VERSION = f"{__version__}/8"  # bump the suffix when summarize() changes
CommitInfo = dict[str, Any]
"""{"intent": str|None, "source": str|None, "class": str|None, "files": {path: {"class": str, ...}},
"intents": {path: str|None} (only when the files serve different intents)}; a file's "who":
[[contributor type, model_id|None, session|None, lines], ...] from its ranges (gitai stats, blame)."""


def summarize(record: TraceRecord) -> tuple[CommitInfo, dict[str, dict[str, Any]]]:
    """What fast readers need of a record: the light summary, and per AST_REFACTOR file what only
    blame's look-through needs (kept apart): the definitions' line mappings (`definitions`) and
    where the changed lines come from (`line_origins`)."""
    stored: dict[str, FileMeta] = record.meta.get("files", {})  # compact: no reasons to derive
    commit_class = record.classification
    paths = {entry["path"] for entry in record.file_entries} | set(record.deleted) | set(stored)
    files: dict[str, dict[str, Any]] = {}
    refactors: dict[str, dict[str, Any]] = {}
    for path in sorted(paths):
        info = stored.get(path, {})
        entry: dict[str, Any] = {"class": info.get("classification", commit_class)}
        if info.get("renamed_from"):
            entry["renamed_from"] = info["renamed_from"]
        files[path] = entry
        if entry["class"] != "AST_REFACTOR":
            continue
        defs = []
        for d in info.get("definitions", []):
            old_lines = d.get("old_lines") or _moved_source_lines(stored, path, d)
            if d.get("new_lines") and old_lines:
                defs.append({"name": d.get("name"), "old_lines": old_lines, "new_lines": d["new_lines"],
                             "moved_from": d.get("moved_from")})
        detail: dict[str, Any] = {"definitions": defs} if defs else {}
        if info.get("line_origins"):
            detail["line_origins"] = info["line_origins"]
        if detail:
            refactors[path] = detail
    for file_entry in record.file_entries:
        counts: dict[tuple[str, str | None, str | None], int] = {}
        for rng, contributor, session in attributed_ranges(file_entry):
            key = (str(contributor.get("type", "unknown")), contributor.get("model_id"), session)
            counts[key] = counts.get(key, 0) + max(0, rng["end_line"] - rng["start_line"] + 1)
        if counts:
            files.setdefault(file_entry["path"], {"class": None})["who"] = [[*key, n] for key, n in counts.items()]
    summary: CommitInfo = {"intent": record.intent, "source": record.intent_source,
                           "class": record.classification, "files": files}
    intents = record.file_intents
    if intents is not None:
        summary["intents"] = intents
        for path, spans in record.intent_spans.items():  # a carried file whose lines serve several intents
            files.setdefault(path, {})["spans"] = spans
    return summary, refactors


def info_intent(info: CommitInfo, path: str) -> str | None:
    """The intent a summarized commit gives the lines of `path`."""
    intents = info.get("intents")
    return intents.get(path) if isinstance(intents, dict) else info.get("intent")


def _moved_source_lines(files: dict[str, FileMeta], path: str, definition: DefinitionMeta) -> list[int] | None:
    """A definition moved in from another file: its old lines, from the source file's entry."""
    source = definition.get("moved_from")
    if not source:
        return None
    source_path = str(source.get("path"))  # its name before the commit, which may also have renamed it
    entries = [files.get(source_path, {})] + [
        info for info in files.values() if info.get("renamed_from") == source_path]
    for d in (d for entry in entries for d in entry.get("definitions", [])):
        old_lines = d.get("old_lines")
        if d.get("moved_to") == {"path": path, "name": definition.get("name")} and old_lines:
            return list(old_lines)
    return None


class CommitTable(Mapping[str, CommitInfo]):
    """commit -> CommitInfo, read from the index database on demand: a reader that needs a few
    commits (blame-intent) does not load every one; `items()` reads them all in one query."""

    def __init__(self, db: sqlite3.Connection | None) -> None:
        self._db = db
        self._cache: dict[str, CommitInfo | None] = {}

    def __getitem__(self, sha: str) -> CommitInfo:
        if sha not in self._cache:
            row = self._db.execute("SELECT info FROM commits WHERE sha = ?", (sha,)).fetchone() if self._db else None
            self._cache[sha] = json.loads(row[0]) if row else None
        info = self._cache[sha]
        if info is None:
            raise KeyError(sha)
        return info

    def __contains__(self, sha: object) -> bool:
        try:
            self[str(sha)]
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        return iter([row[0] for row in self._db.execute("SELECT sha FROM commits")] if self._db else [])

    def __len__(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM commits").fetchone()[0]) if self._db else 0

    def items(self) -> Iterator[tuple[str, CommitInfo]]:  # type: ignore[override]
        """Every commit and its summary, streamed (no process keeps them all)."""
        for sha, info in (self._db.execute("SELECT sha, info FROM commits") if self._db else []):
            yield sha, json.loads(info)


class TraceIndex:
    """commit -> CommitInfo for every traced commit; definition mappings are read on use."""

    def __init__(self, db: sqlite3.Connection | None) -> None:
        self._db = db
        self.commits = CommitTable(db)

    def info(self, commit: str) -> CommitInfo | None:
        """The commit's summary (None: no record)."""
        return self.commits.get(commit)

    def prefetch(self, commits: Iterable[str]) -> None:
        """Read these commits' notes now, together (here: the index has them already)."""

    def has_none_of(self, commits: Iterable[str]) -> bool:
        """Whether none of these commits has a record."""
        return all(self.info(commit) is None for commit in commits)

    def without_record(self, commits: Iterable[str]) -> set[str]:
        """Those of these commits that have no record."""
        return {commit for commit in commits if self.info(commit) is None}

    def definitions(self, commit: str, path: str) -> list[dict[str, Any]]:
        """The definition mappings (old and new lines, moved_from) of an AST_REFACTOR file."""
        return list(self._refactor(commit, path).get("definitions", []))

    def line_origins(self, commit: str, path: str) -> object:
        """Where the changed lines of an AST_REFACTOR file come from, as its record keeps them (None: not kept)."""
        return self._refactor(commit, path).get("line_origins")

    def _refactor(self, commit: str, path: str) -> dict[str, Any]:
        row = self._db.execute("SELECT defs FROM commits WHERE sha = ?", (commit,)).fetchone() if self._db else None
        detail = json.loads(row[0]).get(path) if row and row[0] else None
        return detail if isinstance(detail, dict) else {}

    def save(self) -> None:
        """Keep what was read for the next run (here: kept already)."""

    def close(self) -> None:
        """End the processes reading notes (here: none)."""


class LazyTraceIndex(TraceIndex):
    """A partial index, for a reader of a few commits when no complete index was ever built (a
    fresh clone): reading every note there costs more than the rest of a `blame-intent`. It reads
    only the notes it is asked about, and `save` adds them to the database, marked partial, which
    later runs extend and the first reader of the whole trace completes."""

    def __init__(self, layout: Layout, db: sqlite3.Connection, head: str) -> None:
        super().__init__(db)
        self._root = layout.root
        self._head = head
        self._listing: dict[str, str] | None = None  # annotated commit -> note blob
        self._reader: ObjectReader | None = None  # asked a few notes at a time (as `git blame` names commits)
        self._new: dict[str, tuple[str, CommitInfo, dict[str, Any]] | None] = {}  # read this run; None: no record
        self._absent: dict[str, bool] = {}  # whether the index knows the commit has no note

    def _notes(self) -> dict[str, str]:
        if self._listing is None:
            self._listing = {sha: blob for blob, sha in list_notes(self._root, NOTES_REF)}
        return self._listing

    def _known(self, sha: str) -> bool:
        """Whether the index says what the commit's note holds (or that it has none)."""
        if sha in self._new or sha in self.commits:
            return True
        if sha not in self._absent:
            assert self._db is not None
            self._absent[sha] = self._db.execute("SELECT 1 FROM absent WHERE sha = ?", (sha,)).fetchone() is not None
        return self._absent[sha]

    def info(self, commit: str) -> CommitInfo | None:
        if not self._known(commit):
            self.prefetch([commit])
        if commit in self._new:
            entry = self._new[commit]
            return entry[1] if entry else None
        return self.commits.get(commit)

    def prefetch(self, commits: Iterable[str]) -> None:
        missing = [sha for sha in dict.fromkeys(commits) if not self._known(sha)]
        if not missing:
            return
        listing = self._notes()
        wanted = {sha: listing[sha] for sha in missing if sha in listing}
        self._new.update({sha: None for sha in missing if sha not in wanted})
        if not wanted:
            return
        if self._reader is None:
            self._reader = ObjectReader(self._root)
        notes = self._reader.read_many(list(wanted.values()))
        for sha, blob in wanted.items():
            record = choose_record(own_records(parse_note(notes.get(blob, b"").decode("utf-8", "replace")), sha))
            if record is None:
                self._new[sha] = None
                continue
            info, refactors = summarize(record)
            self._new[sha] = (blob, info, refactors)

    def _refactor(self, commit: str, path: str) -> dict[str, Any]:
        self.info(commit)  # reads its note when not known yet
        if commit not in self._new:
            return super()._refactor(commit, path)
        entry = self._new[commit]
        detail = entry[2].get(path) if entry else None
        return detail if isinstance(detail, dict) else {}

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def save(self) -> None:
        """Add what this run read, unless the index moved on meanwhile (another run completed it,
        or brought it to newer notes): then what was read may be stale, and is dropped."""
        if not self._new:
            return
        assert self._db is not None
        try:
            self._db.execute(f"PRAGMA busy_timeout = {int(SHORT_WAIT * 1000)}")  # a cache: never wait for it
            self._db.execute("BEGIN IMMEDIATE")
            if _meta(self._db, "notes") == self._head and _meta(self._db, "complete") == "0" \
                    and _meta(self._db, "version") == VERSION:
                for sha, entry in self._new.items():
                    if entry is None:
                        self._db.execute("INSERT OR REPLACE INTO absent VALUES (?)", (sha,))
                    else:
                        blob, info, refactors = entry
                        self._db.execute("INSERT OR REPLACE INTO commits VALUES (?, ?, ?, ?)",
                                         (sha, blob, json.dumps(info), json.dumps(refactors) if refactors else None))
            self._db.execute("COMMIT")
        except sqlite3.OperationalError:  # locked past the timeout, or read-only: only costs speed
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
        self._new = {}


SCHEMA = ("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
          "CREATE TABLE IF NOT EXISTS commits "
          "(sha TEXT PRIMARY KEY, blob TEXT NOT NULL, info TEXT NOT NULL, defs TEXT)",
          "CREATE TABLE IF NOT EXISTS absent (sha TEXT PRIMARY KEY)")  # a partial index: known to have no note


def _open(path: str, wait: float) -> sqlite3.Connection:
    """The index database at `path` (waiting up to `wait` seconds for a lock); in memory when the
    git dir cannot hold it (read-only); a damaged file is replaced. Write-ahead log without a sync
    per update: a cache may lose its last update on a power cut, never its consistency."""
    for _ in range(2):
        try:
            db = sqlite3.connect(path, timeout=wait, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            for statement in SCHEMA:
                db.execute(statement)
            db.execute("SELECT * FROM meta").fetchall()  # a damaged page raises here, not in a reader
            db.execute("SELECT sha FROM commits LIMIT 1").fetchall()
            return db
        except sqlite3.OperationalError:
            break
        except sqlite3.DatabaseError:  # not a database (any more), or damaged: build it again
            try:
                for name in (path, path + "-wal", path + "-shm"):
                    if os.path.exists(name):
                        os.unlink(name)
            except OSError:
                break
    return _in_memory()


def _in_memory() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:", isolation_level=None)
    for statement in SCHEMA:
        db.execute(statement)
    return db


def _meta(db: sqlite3.Connection, key: str) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return str(row[0]) if row else None


def load_index(layout: Layout, only_needed: bool = False) -> TraceIndex:
    """The index of the trace, brought up to date with the notes ref: by the notes that changed
    since the state it was built from (a pull's new notes cost in proportion to their number).
    `only_needed`: when no complete index was ever built (a fresh clone), a partial one that
    reads only the notes it is asked about (LazyTraceIndex) instead of building it."""
    head = run_git(["rev-parse", "-q", "--verify", NOTES_REF], layout.root, check=False).decode().strip()
    if not head:
        return TraceIndex(None)
    os.makedirs(layout.shared_state_dir, exist_ok=True)
    # a reader of a few commits does not wait on another process's rebuild: it reads its own notes
    db = _open(os.path.join(layout.shared_state_dir, INDEX_NAME), SHORT_WAIT if only_needed else LONG_WAIT)
    built_from, complete = _state(db)
    if built_from == head and (complete or only_needed):
        return TraceIndex(db) if complete else LazyTraceIndex(layout, db, head)
    try:
        partial = _bring_up(db, layout.root, head, only_needed)
    except sqlite3.OperationalError:  # locked past the wait, or read-only: the file's state is not this one's
        if db.in_transaction:
            db.execute("ROLLBACK")
        db = _in_memory()
        partial = _bring_up(db, layout.root, head, only_needed)
    return LazyTraceIndex(layout, db, head) if partial else TraceIndex(db)


def _bring_up(db: sqlite3.Connection, root: str, head: str, only_needed: bool) -> bool:
    """Bring the index to `head`: a partial one stays partial when `only_needed`, else it is
    completed. Whether it is partial."""
    db.execute("BEGIN IMMEDIATE")  # one writer at a time; readers see the old state meanwhile
    built_from, complete = _state(db)  # another process may have brought it up to date meanwhile
    partial = only_needed and not complete
    if built_from != head or not (complete or partial):
        if partial:
            _forget_changed(db, root, built_from, head)
        else:
            _complete(db, root, built_from if complete else None, head)
        db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                       [("version", VERSION), ("notes", head), ("complete", "0" if partial else "1")])
    db.execute("COMMIT")
    return partial


def _forget_changed(db: sqlite3.Connection, root: str, built_from: str | None, head: str) -> None:
    """A partial index, brought to `head`: the commits whose notes changed are forgotten (read
    again when asked about), and so are those known to have none."""
    changed = changed_notes(root, built_from, head) if built_from is not None else None
    if changed is None:  # new, of another version, or from unrelated notes
        db.execute("DELETE FROM commits")
    for sha, _, _ in changed or []:
        db.execute("DELETE FROM commits WHERE sha = ?", (sha,))
    db.execute("DELETE FROM absent")


def _complete(db: sqlite3.Connection, root: str, built_from: str | None, head: str) -> None:
    """A complete index, brought to `head` from the complete one built from `built_from` (None:
    none, or only a partial one: every note is read)."""
    changed = changed_notes(root, built_from, head) if built_from is not None else None
    if changed is None:
        db.execute("DELETE FROM commits")
        db.execute("DELETE FROM absent")
        _apply(db, root, [(sha, blob) for blob, sha in list_notes(root, NOTES_REF)], True)
    else:
        _apply(db, root, [(sha, blob) for sha, _, blob in changed], False)


def _state(db: sqlite3.Connection) -> tuple[str | None, bool]:
    """The notes commit the index was built from (None: none, or by another version of gitai), and
    whether it is complete (else partial: only the commits a reader asked about)."""
    if _meta(db, "version") != VERSION:
        return None, False
    return _meta(db, "notes"), _meta(db, "complete") != "0"


def _apply(db: sqlite3.Connection, root: str, changes: list[tuple[str, str | None]], rebuild: bool) -> None:
    """Bring the rows of these commits in line with their note blobs (None: no note any more)."""
    todo: list[tuple[str, str]] = []
    for sha, blob in changes:
        if blob is None:
            db.execute("DELETE FROM commits WHERE sha = ?", (sha,))
            continue
        row = None if rebuild else db.execute("SELECT blob FROM commits WHERE sha = ?", (sha,)).fetchone()
        if not (row and row[0] == blob):  # else only moved in the notes tree's fan-out
            todo.append((sha, blob))
    for (sha, blob), (_, data) in zip(todo, read_objects(root, [blob for _, blob in todo]), strict=True):
        note = data.decode("utf-8", "replace") if data is not None else ""
        record = choose_record(own_records(parse_note(note), sha))
        if record is None:
            db.execute("DELETE FROM commits WHERE sha = ?", (sha,))
            continue
        info, defs = summarize(record)
        db.execute("INSERT OR REPLACE INTO commits VALUES (?, ?, ?, ?)",
                   (sha, blob, json.dumps(info), json.dumps(defs) if defs else None))
