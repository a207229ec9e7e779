"""Trace one commit: resolve its intent, classify its changes, build and store its record, extend its
files' line origins. The one module (with backfill) that drives both the trace and blame."""

from __future__ import annotations

from typing import Any

from gitai.blame.maintain import extend_origins
from gitai.errors import GitaiError
from gitai.git.objects import ObjectReader, commit_parents
from gitai.git.trailers import commit_intent
from gitai.layout import Layout
from gitai.trace.changes import CommitChanges, commit_changes
from gitai.trace.classify_commit import classify
from gitai.trace.record import INFERRED, Contributor, Record, build_record, revision
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
    only_if_untraced: bool = False,
) -> Record | None:
    """Build and store the commit's record (note and ledger line), then extend its files' line origins.
    With `only_if_untraced`: None, and nothing stored, when the commit has a record of its own by then."""
    extra_metadata = _verified(layout, intent_id, intent_source, changes, extra_metadata)
    record = make_record(commit, changes, intent_id, contributor, extra_metadata, layout.shared_state_dir,
                         intent_source, per_file)
    if not store_record(layout, record, only_if_untraced):
        return None
    extend_origins(layout, commit, parents, changes, record)
    return record


def scope_verified(layout: Layout, intent_id: str, changes: CommitChanges) -> bool:
    """The pre-commit gate's rule, for the whole commit: the intent is in the catalogue and owns every
    non-exempt path the commit changes. An amend, a reword in `rebase -i`, a revert or a
    `--no-verify` commit can get an intent this way that no gate checked; its record then says
    `intent_verified: false`."""
    from gitai.gate.policy import load_policy

    try:
        policy = load_policy(layout)
    except GitaiError:
        return False  # no readable catalogue: nothing to verify against
    if intent_id not in policy.intents:
        return False
    paths = [f.path for f in changes.files] + [f.old_path for f in changes.files if f.old_path]
    paths += [path for path, _ in changes.deleted]
    return all(policy.is_exempt(p) or policy.in_scope(intent_id, p) for p in paths)


def _verified(layout: Layout, intent_id: str | None, intent_source: str | None, changes: CommitChanges,
              extra_metadata: dict[str, Any] | None) -> dict[str, Any] | None:
    """`intent_verified: false` when no scope check covered a declared intent. An intent inferred
    from scopes (backfill, per file) owns its files by construction: not checked again."""
    if intent_id is not None and intent_source != INFERRED and not scope_verified(layout, intent_id, changes):
        return {**(extra_metadata or {}), "intent_verified": False}
    return extra_metadata


class RecordBatch:
    """`record_commit(..., only_if_untraced=True)` for many commits (backfill): records are stored
    by batches of `size` through one notes commit each, and whatever is pending when the batch
    closes (also on an interrupt) is stored, so an interrupted run loses nothing it built.
    `stored` lists the records stored; `dropped` the commits another run traced meanwhile."""

    def __init__(self, layout: Layout, size: int = 500) -> None:
        self.layout = layout
        self.size = size
        self.pending: list[Record] = []
        self.stored: list[Record] = []
        self.dropped: list[str] = []

    def add(self, commit: str, parents: list[str], changes: CommitChanges, intent_id: str | None,
            contributor: Contributor, extra_metadata: dict[str, Any] | None = None,
            intent_source: str | None = None, per_file: dict[str, str | None] | None = None) -> Record:
        extra_metadata = _verified(self.layout, intent_id, intent_source, changes, extra_metadata)
        record = make_record(commit, changes, intent_id, contributor, extra_metadata, self.layout.shared_state_dir,
                             intent_source, per_file)
        self.pending.append(record)
        extend_origins(self.layout, commit, parents, changes, record)
        if len(self.pending) >= self.size:
            self.flush()
        return record

    def flush(self) -> None:
        stored = store_records(self.layout, self.pending)
        kept = {revision(r) for r in stored}
        self.dropped += [revision(r) for r in self.pending if revision(r) not in kept]
        self.stored += stored
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
) -> Record | None:
    """Trace `commit`; its intent is the `Intent:` trailer (source `trailer`), else `fallback_intent`
    (may be None) with `fallback_source` (the worktree's selection: `active`)."""
    parents = commit_parents(reader, commit)
    changes = commit_changes(layout.root, reader, commit, parents)
    trailer = commit_intent(layout.root, commit)
    intent_id, source = (trailer, "trailer") if trailer else (fallback_intent, fallback_source)
    return record_commit(layout, commit, parents, changes, intent_id, contributor, extra_metadata,
                         source if intent_id else None)
