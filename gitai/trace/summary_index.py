"""A compact, cached index of the trace for fast readers (blame-intent, the intent map).

Per traced commit: its intent, its commit-level classification, and per file the classification
and (for AST_REFACTOR files) the definitions' line mappings and the changed lines' origins. Kept in an SQLite database,
`<common git dir>/gitai/notes-index.sqlite`, with the notes commit it was built from; brought up
to date by the notes that changed since (one `git diff-tree` of the two notes trees), so the update
after a pull costs in proportion to the new notes, not to the trace, and a reader that needs a few
commits reads only their rows. Plumbing only: no pygit2, no full parse of every record per run.
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
    Record,
    attributed_ranges,
    classification_of,
    deleted_paths,
    file_entries,
    file_intents,
    gitai_meta,
    intent_of,
    intent_source_of,
    intent_spans,
    is_backfilled,
    own_records,
    parse_note,
    record_id,
)
from gitai.util.files import write_atomic

INDEX_NAME = "notes-index.sqlite"
PARTIAL_INDEX_NAME = "notes-index.json"  # LazyTraceIndex's partial index, before a complete one is built
DEFINITIONS_NAME = "notes-definitions.json"
VERSION = f"{__version__}/6"  # bump the suffix when summarize() changes
CommitInfo = dict[str, Any]
"""{"intent": str|None, "source": str|None, "class": str|None, "files": {path: {"class": str, ...}},
"intents": {path: str|None} (only when the files serve different intents)}; a file's "who":
[[contributor type, model_id|None, session|None, lines], ...] from its ranges (gitai stats, blame)."""


def choose_record(records: list[Record]) -> Record | None:
    """One record per commit: a hook-made record before a backfilled one, then the earliest."""
    if not records:
        return None
    return sorted(records, key=lambda r: (is_backfilled(r), r.get("timestamp", ""), record_id(r)))[0]


def summarize(record: Record) -> tuple[CommitInfo, dict[str, dict[str, Any]]]:
    """What fast readers need of a record: the light summary, and per AST_REFACTOR file what only
    blame's look-through needs (kept apart): the definitions' line mappings (`definitions`) and
    where the changed lines come from (`line_origins`)."""
    stored: dict[str, FileMeta] = gitai_meta(record).get("files", {})  # compact: no reasons to derive
    commit_class = classification_of(record)
    paths = {entry["path"] for entry in file_entries(record)} | set(deleted_paths(record)) | set(stored)
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
    for file_entry in file_entries(record):
        counts: dict[tuple[str, str | None, str | None], int] = {}
        for rng, contributor, session in attributed_ranges(file_entry):
            key = (str(contributor.get("type", "unknown")), contributor.get("model_id"), session)
            counts[key] = counts.get(key, 0) + max(0, rng["end_line"] - rng["start_line"] + 1)
        if counts:
            files.setdefault(file_entry["path"], {"class": None})["who"] = [[*key, n] for key, n in counts.items()]
    summary: CommitInfo = {"intent": intent_of(record), "source": intent_source_of(record),
                           "class": classification_of(record), "files": files}
    intents = file_intents(record)
    if intents is not None:
        summary["intents"] = intents
        for path, spans in intent_spans(record).items():  # a carried file whose lines serve several intents
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
    for d in files.get(str(source.get("path")), {}).get("definitions", []):
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
    """Reads only the notes it is asked about, for a first run with no complete index kept (a
    fresh clone): reading every note there costs more than the rest of a `blame-intent`. What it
    read is kept (`save`) as a partial index, which later runs extend, and which a reader of the
    whole trace completes."""

    def __init__(self, layout: Layout, head: str, cached: dict[str, Any], definitions_path: str) -> None:
        super().__init__(None)
        self._definitions_path = definitions_path
        self._root = layout.root
        self._index_path = os.path.join(layout.shared_state_dir, PARTIAL_INDEX_NAME)
        self._head = head
        self._listing: dict[str, str] | None = None  # annotated commit -> note blob
        self._reader: ObjectReader | None = None  # asked a few notes at a time (as `git blame` names commits)
        self._entries: dict[str, dict[str, Any]] = dict(cached.get("commits", {}))
        self._absent: set[str] = set(cached.get("absent", []))
        self._new_definitions: dict[str, dict[str, dict[str, Any]]] = {}
        self._changed = False
        if cached.get("notes") != head:  # notes changed since: keep only what still matches
            listing = self._notes()
            self._entries = {sha: e for sha, e in self._entries.items() if listing.get(sha) == e.get("blob")}
            self._absent = set()
            self._changed = True
        self.commits: dict[str, CommitInfo] = {sha: entry["info"] for sha, entry in self._entries.items()}  # type: ignore[assignment]

    def _notes(self) -> dict[str, str]:
        if self._listing is None:
            self._listing = {sha: blob for blob, sha in list_notes(self._root, NOTES_REF)}
        return self._listing

    def info(self, commit: str) -> CommitInfo | None:
        if commit not in self.commits and commit not in self._absent:
            self.prefetch([commit])
        return self.commits.get(commit)

    def prefetch(self, commits: Iterable[str]) -> None:
        missing = [sha for sha in commits if sha not in self.commits and sha not in self._absent]
        if not missing:
            return
        listing = self._notes()
        wanted = {sha: listing[sha] for sha in missing if sha in listing}
        self._absent.update(sha for sha in missing if sha not in wanted)
        if self._reader is None:
            self._reader = ObjectReader(self._root)
        notes = self._reader.read_many(list(wanted.values()))
        for sha, blob in wanted.items():
            record = choose_record(own_records(parse_note(notes.get(blob, b"").decode("utf-8", "replace")), sha))
            if record is None:
                self._absent.add(sha)
                continue
            info, defs = summarize(record)
            self._entries[sha] = {"blob": blob, "info": info}
            self.commits[sha] = info
            self._new_definitions[sha] = defs  # even none: replaces what an older note had
        self._changed = True

    def _refactor(self, commit: str, path: str) -> dict[str, Any]:
        self.info(commit)
        if commit in self._new_definitions:
            detail = self._new_definitions[commit].get(path)
        else:
            detail = _read_json(self._definitions_path).get(commit, {}).get(path)
        return detail if isinstance(detail, dict) else {}

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def save(self) -> None:
        if not self._changed:
            return
        assert self._definitions_path is not None
        definitions = _read_json(self._definitions_path)
        definitions.update(self._new_definitions)
        _write_json(self._definitions_path, definitions)
        _write_json(self._index_path, {"version": VERSION, "notes": self._head, "partial": True,
                                       "commits": self._entries, "absent": sorted(self._absent)})
        self._changed = False


def _read_json(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _write_json(path: str, data: dict[str, Any]) -> None:
    try:
        write_atomic(path, json.dumps(data))
    except OSError:
        pass  # a read-only git dir only costs speed


SCHEMA = ("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
          "CREATE TABLE IF NOT EXISTS commits (sha TEXT PRIMARY KEY, blob TEXT NOT NULL, info TEXT NOT NULL, defs TEXT)")


def _open(path: str) -> sqlite3.Connection:
    """The index database at `path`; in memory when the git dir cannot hold it (read-only, or
    locked past the timeout); a damaged file is replaced. Write-ahead log without a sync per
    update: a cache may lose its last update on a power cut, never its consistency."""
    for _ in range(2):
        try:
            db = sqlite3.connect(path, timeout=10, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            for statement in SCHEMA:
                db.execute(statement)
            return db
        except sqlite3.OperationalError:
            break
        except sqlite3.DatabaseError:  # not a database (any more): build it again
            try:
                for name in (path, path + "-wal", path + "-shm"):
                    if os.path.exists(name):
                        os.unlink(name)
            except OSError:
                break
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
    `only_needed`: when no complete index was ever built (a fresh clone), one that reads only
    the notes it is asked about (LazyTraceIndex) instead of building it."""
    head = run_git(["rev-parse", "-q", "--verify", NOTES_REF], layout.root, check=False).decode().strip()
    if not head:
        return TraceIndex(None)
    os.makedirs(layout.shared_state_dir, exist_ok=True)
    path = os.path.join(layout.shared_state_dir, INDEX_NAME)
    db = _open(path) if os.path.exists(path) or not only_needed else None  # a fresh clone: none made yet
    built_from = _built_from(db) if db is not None else None
    if db is not None and built_from == head:
        return TraceIndex(db)
    if only_needed and built_from is None:
        cached = _read_json(os.path.join(layout.shared_state_dir, PARTIAL_INDEX_NAME))
        return LazyTraceIndex(layout, head, cached if cached.get("version") == VERSION else {},
                              os.path.join(layout.shared_state_dir, DEFINITIONS_NAME))
    assert db is not None
    try:
        db.execute("BEGIN IMMEDIATE")  # one writer at a time; readers see the old state meanwhile
        built_from = _built_from(db)  # another process may have brought it up to date meanwhile
        if built_from != head:
            changed = changed_notes(layout.root, built_from, head)
            rebuild = changed is None
            changes: list[tuple[str, str | None]]
            if changed is None:
                db.execute("DELETE FROM commits")
                changes = [(sha, blob) for blob, sha in list_notes(layout.root, NOTES_REF)]
            else:
                changes = [(sha, blob) for sha, _, blob in changed]
            _apply(db, layout.root, changes, rebuild)
            db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", [("version", VERSION), ("notes", head)])
        db.execute("COMMIT")
        for name in (PARTIAL_INDEX_NAME, DEFINITIONS_NAME):  # a first blame-intent's partial index, superseded
            if os.path.exists(os.path.join(layout.shared_state_dir, name)):
                os.unlink(os.path.join(layout.shared_state_dir, name))
    except sqlite3.OperationalError:  # locked past the timeout, or a read-only git dir: the state read stands
        if db.in_transaction:
            db.execute("ROLLBACK")
    return TraceIndex(db)


def _built_from(db: sqlite3.Connection) -> str | None:
    """The notes commit the index was built from (None: none, or by another version of gitai)."""
    return _meta(db, "notes") if _meta(db, "version") == VERSION else None


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
    for (sha, blob), (_, data) in zip(todo, read_objects(root, [blob for _, blob in todo])):
        note = data.decode("utf-8", "replace") if data is not None else ""
        record = choose_record(own_records(parse_note(note), sha))
        if record is None:
            db.execute("DELETE FROM commits WHERE sha = ?", (sha,))
            continue
        info, defs = summarize(record)
        db.execute("INSERT OR REPLACE INTO commits VALUES (?, ?, ?, ?)",
                   (sha, blob, json.dumps(info), json.dumps(defs) if defs else None))
