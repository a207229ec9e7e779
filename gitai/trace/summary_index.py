"""A compact, cached index of the trace for fast readers (blame-intent, the intent map).

Per traced commit: its intent, its commit-level classification, and per file the classification
and (for AST_REFACTOR files) the definitions' line mappings. Cached in
`<common git dir>/gitai/notes-index.json`, keyed by the notes ref, refreshed incrementally
by note blob id; plumbing only, so a reader pays neither pygit2's import nor a full parse of
every record on each run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any

from gitai import __version__
from gitai.git.notes import list_notes
from gitai.git.objects import read_blobs
from gitai.git.runner import run_git
from gitai.layout import NOTES_REF, Layout
from gitai.trace.record import (
    DefinitionMeta,
    FileMeta,
    Record,
    attributed_ranges,
    classification_of,
    file_entries,
    file_intents,
    file_meta,
    intent_of,
    intent_source_of,
    intent_spans,
    is_backfilled,
    own_records,
    parse_note,
    record_id,
)
from gitai.util.files import write_atomic

INDEX_NAME = "notes-index.json"
DEFINITIONS_NAME = "notes-definitions.json"
VERSION = f"{__version__}/4"  # bump the suffix when summarize() changes
CommitInfo = dict[str, Any]
"""{"intent": str|None, "source": str|None, "class": str|None, "files": {path: {"class": str, ...}},
"intents": {path: str|None} (only when the files serve different intents)}; a file's "who":
[[contributor type, model_id|None, session|None, lines], ...] from its ranges (gitai stats, blame)."""


def choose_record(records: list[Record]) -> Record | None:
    """One record per commit: a hook-made record before a backfilled one, then the earliest."""
    if not records:
        return None
    return sorted(records, key=lambda r: (is_backfilled(r), r.get("timestamp", ""), record_id(r)))[0]


def summarize(record: Record) -> tuple[CommitInfo, dict[str, list[dict[str, Any]]]]:
    """What fast readers need of a record: the light summary, and the definition mappings of
    its AST_REFACTOR files (kept apart: only blame's look-through needs them)."""
    all_files = file_meta(record)
    files: dict[str, dict[str, Any]] = {}
    definitions: dict[str, list[dict[str, Any]]] = {}
    for path, info in all_files.items():
        entry: dict[str, Any] = {"class": info.get("classification")}
        if info.get("renamed_from"):
            entry["renamed_from"] = info["renamed_from"]
        files[path] = entry
        if info.get("classification") != "AST_REFACTOR":
            continue
        defs = []
        for d in info.get("definitions", []):
            old_lines = d.get("old_lines") or _moved_source_lines(all_files, path, d)
            if d.get("new_lines") and old_lines:
                defs.append({"name": d.get("name"), "old_lines": old_lines, "new_lines": d["new_lines"],
                             "moved_from": d.get("moved_from")})
        if defs:
            definitions[path] = defs
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
    return summary, definitions


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


class TraceIndex:
    """commit -> CommitInfo for every traced commit; definition mappings load on first use."""

    def __init__(self, commits: dict[str, CommitInfo], definitions_path: str | None) -> None:
        self.commits = commits
        self._definitions_path = definitions_path
        self._definitions: dict[str, dict[str, list[dict[str, Any]]]] | None = None

    def info(self, commit: str) -> CommitInfo | None:
        """The commit's summary (None: no record)."""
        return self.commits.get(commit)

    def prefetch(self, commits: Iterable[str]) -> None:
        """Read these commits' notes now, together (here: all are read already)."""

    def has_none_of(self, commits: Iterable[str]) -> bool:
        """Whether none of these commits has a record."""
        return all(self.info(commit) is None for commit in commits)

    def without_record(self, commits: Iterable[str]) -> set[str]:
        """Those of these commits that have no record."""
        return {commit for commit in commits if self.info(commit) is None}

    def definitions(self, commit: str, path: str) -> list[dict[str, Any]]:
        """The definition mappings (old and new lines, moved_from) of an AST_REFACTOR file."""
        if self._definitions is None:
            self._definitions = _read_json(self._definitions_path) if self._definitions_path else {}
        return list(self._definitions.get(commit, {}).get(path, []))

    def save(self) -> None:
        """Keep what was read for the next run (here: kept already)."""


class LazyTraceIndex(TraceIndex):
    """Reads only the notes it is asked about, for a first run with no complete index kept (a
    fresh clone): reading every note there costs more than the rest of a `blame-intent`. What it
    read is kept (`save`) as a partial index, which later runs extend, and which a reader of the
    whole trace completes."""

    def __init__(self, layout: Layout, head: str, cached: dict[str, Any], definitions_path: str) -> None:
        super().__init__({}, definitions_path)
        self._root = layout.root
        self._index_path = os.path.join(layout.shared_state_dir, INDEX_NAME)
        self._head = head
        self._listing: dict[str, str] | None = None  # annotated commit -> note blob
        self._entries: dict[str, dict[str, Any]] = dict(cached.get("commits", {}))
        self._absent: set[str] = set(cached.get("absent", []))
        self._new_definitions: dict[str, dict[str, list[dict[str, Any]]]] = {}
        self._changed = False
        if cached.get("notes") != head:  # notes changed since: keep only what still matches
            listing = self._notes()
            self._entries = {sha: e for sha, e in self._entries.items() if listing.get(sha) == e.get("blob")}
            self._absent = set()
            self._changed = True
        self.commits = {sha: entry["info"] for sha, entry in self._entries.items()}

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
        notes = read_blobs(self._root, list(set(wanted.values())))
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

    def definitions(self, commit: str, path: str) -> list[dict[str, Any]]:
        self.info(commit)
        if commit in self._new_definitions:
            return list(self._new_definitions[commit].get(path, []))
        return super().definitions(commit, path)

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


def load_index(layout: Layout, only_needed: bool = False) -> TraceIndex:
    """The index of the trace, from the cache when the notes did not change. `only_needed`:
    unless a complete index is kept, one that reads only the notes it is asked about."""
    head = run_git(["rev-parse", "-q", "--verify", NOTES_REF], layout.root, check=False).decode().strip()
    if not head:
        return TraceIndex({}, None)
    path = os.path.join(layout.shared_state_dir, INDEX_NAME)
    defs_path = os.path.join(layout.shared_state_dir, DEFINITIONS_NAME)
    cached = _read_json(path)
    fresh = cached.get("version") == VERSION
    complete = fresh and not cached.get("partial")
    if complete and cached.get("notes") == head:
        return TraceIndex({sha: entry["info"] for sha, entry in cached["commits"].items()}, defs_path)
    if only_needed and not complete:
        return LazyTraceIndex(layout, head, cached if fresh else {}, defs_path)
    from gitai.git.objects import ObjectReader

    old = cached.get("commits", {}) if fresh else {}
    old_definitions = _read_json(defs_path) if fresh else {}
    commits: dict[str, dict[str, Any]] = {}
    definitions: dict[str, Any] = {}
    with ObjectReader(layout.root) as reader:
        for blob, sha in list_notes(layout.root, NOTES_REF):
            if sha in old and old[sha]["blob"] == blob:
                commits[sha] = old[sha]
                if sha in old_definitions:
                    definitions[sha] = old_definitions[sha]
                continue
            record = choose_record(own_records(parse_note(reader.read(blob).decode("utf-8", "replace")), sha))
            if record is not None:
                info, defs = summarize(record)
                commits[sha] = {"blob": blob, "info": info}
                if defs:
                    definitions[sha] = defs
    _write_json(defs_path, definitions)
    _write_json(path, {"version": VERSION, "notes": head, "commits": commits})
    return TraceIndex({sha: entry["info"] for sha, entry in commits.items()}, defs_path)
