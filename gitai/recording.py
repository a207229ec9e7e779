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
from gitai.trace.store import store_record


def make_record(
    commit: str,
    changes: CommitChanges,
    intent_id: str | None,
    contributor: Contributor,
    extra_metadata: dict[str, Any] | None = None,
    cache_dir: str | None = None,
) -> Record:
    """The one place a record is assembled from a commit's changes (`cache_dir`: see `classify`)."""
    commit_class, file_metadata = classify(changes, cache_dir)
    extra = {"classification": commit_class, **(extra_metadata or {})}
    return build_record(commit, changes, intent_id, contributor, extra, file_metadata)


def record_commit(
    layout: Layout,
    commit: str,
    parents: list[str],
    changes: CommitChanges,
    intent_id: str | None,
    contributor: Contributor,
    extra_metadata: dict[str, Any] | None = None,
) -> Record:
    """Build and store the commit's record (note and ledger line), then extend its files' line origins."""
    record = make_record(commit, changes, intent_id, contributor, extra_metadata, layout.shared_state_dir)
    store_record(layout, record)
    extend_origins(layout, commit, parents, changes, record)
    return record


def trace_commit(
    layout: Layout,
    reader: ObjectReader,
    commit: str,
    fallback_intent: str | None,
    contributor: Contributor,
    extra_metadata: dict[str, Any] | None = None,
) -> Record:
    """Trace `commit`; its intent is the `Intent:` trailer, else `fallback_intent` (may be None)."""
    parents = commit_parents(reader, commit)
    changes = commit_changes(layout.root, reader, commit, parents)
    intent_id = commit_intent(layout.root, commit) or fallback_intent
    return record_commit(layout, commit, parents, changes, intent_id, contributor, extra_metadata)
