"""Trace one commit: resolve its intent, classify its changes, build and store its record, extend its
files' line origins. The one module (with backfill) that drives both the trace and blame."""

from __future__ import annotations

from typing import Any

from gitai.blame.maintain import extend_origins
from gitai.git.objects import ObjectReader, commit_parents
from gitai.git.trailers import commit_intent
from gitai.layout import Layout
from gitai.trace.changes import CommitChanges, commit_changes
from gitai.trace.classify_commit import classify
from gitai.trace.record import Contributor, Record, build_record
from gitai.trace.store import store_record, store_records


def make_record(
    commit: str,
    changes: CommitChanges,
    intent_id: str | None,
    contributor: Contributor,
    extra_metadata: dict[str, Any] | None = None,
    cache_dir: str | None = None,
    intent_source: str | None = None,
    per_file: dict[str, str | None] | None = None,
) -> Record:
    """The one place a record is assembled from a commit's changes (`cache_dir`: see `classify`)."""
    commit_class, file_metadata = classify(changes, cache_dir)
    extra = {"classification": commit_class, **(extra_metadata or {})}
    return build_record(commit, changes, intent_id, contributor, extra, file_metadata, intent_source, per_file)


def record_commit(
    layout: Layout,
    commit: str,
    parents: list[str],
    changes: CommitChanges,
    intent_id: str | None,
    contributor: Contributor,
    extra_metadata: dict[str, Any] | None = None,
    intent_source: str | None = None,
    per_file: dict[str, str | None] | None = None,
) -> Record:
    """Build and store the commit's record (note and ledger line), then extend its files' line origins."""
    record = make_record(commit, changes, intent_id, contributor, extra_metadata, layout.shared_state_dir,
                         intent_source, per_file)
    store_record(layout, record)
    extend_origins(layout, commit, parents, changes, record)
    return record


class RecordBatch:
    """`record_commit` for many commits (backfill): records are stored by batches of `size`
    through one notes commit each, and whatever is pending when the batch closes (also on an
    interrupt) is stored, so an interrupted run loses nothing it built."""

    def __init__(self, layout: Layout, size: int = 500) -> None:
        self.layout = layout
        self.size = size
        self.pending: list[Record] = []

    def add(self, commit: str, parents: list[str], changes: CommitChanges, intent_id: str | None,
            contributor: Contributor, extra_metadata: dict[str, Any] | None = None,
            intent_source: str | None = None, per_file: dict[str, str | None] | None = None) -> Record:
        record = make_record(commit, changes, intent_id, contributor, extra_metadata, self.layout.shared_state_dir,
                             intent_source, per_file)
        self.pending.append(record)
        extend_origins(self.layout, commit, parents, changes, record)
        if len(self.pending) >= self.size:
            self.flush()
        return record

    def flush(self) -> None:
        store_records(self.layout, self.pending)
        self.pending = []

    def __enter__(self) -> RecordBatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.flush()


def trace_commit(
    layout: Layout,
    reader: ObjectReader,
    commit: str,
    fallback_intent: str | None,
    contributor: Contributor,
    extra_metadata: dict[str, Any] | None = None,
    fallback_source: str = "active",
) -> Record:
    """Trace `commit`; its intent is the `Intent:` trailer (source `trailer`), else `fallback_intent`
    (may be None) with `fallback_source` (the worktree's selection: `active`)."""
    parents = commit_parents(reader, commit)
    changes = commit_changes(layout.root, reader, commit, parents)
    trailer = commit_intent(layout.root, commit)
    intent_id, source = (trailer, "trailer") if trailer else (fallback_intent, fallback_source)
    return record_commit(layout, commit, parents, changes, intent_id, contributor, extra_metadata,
                         source if intent_id else None)
