"""Trace one commit: resolve its intent, build its record (shared by the hooks and backfill)."""

from __future__ import annotations

from typing import Any

from gitai.check import commit_intent
from gitai.trace.gitdata import ObjectReader, commit_parents
from gitai.trace.record import CommitChanges, build_record, commit_changes
from gitai.trace.store import Record


def make_record(
    commit: str,
    changes: CommitChanges,
    intent_id: str | None,
    contributor: dict[str, Any],
    extra_metadata: dict[str, Any] | None = None,
) -> Record:
    """The one place a record is assembled from a commit's changes."""
    return build_record(commit, changes, intent_id, contributor, extra_metadata)


def trace_commit(
    root: str,
    reader: ObjectReader,
    commit: str,
    fallback_intent: str | None,
    contributor: dict[str, Any],
    extra_metadata: dict[str, Any] | None = None,
) -> Record:
    """The record of `commit`; its intent is the `Intent:` trailer, else `fallback_intent` (may be None)."""
    changes = commit_changes(root, reader, commit, commit_parents(reader, commit))
    intent_id = commit_intent(root, commit) or fallback_intent
    return make_record(commit, changes, intent_id, contributor, extra_metadata)
