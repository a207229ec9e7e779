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
    only_if_untraced: bool = False,
) -> Record | None:
    """Build and store the commit's record (note and ledger line), then extend its files' line origins.
    With `only_if_untraced`: None, and nothing stored, when the commit has a record of its own by then."""
    if intent_id is not None and not scope_verified(layout, intent_id, changes):
        extra_metadata = {**(extra_metadata or {}), "intent_verified": False}
    record = make_record(commit, changes, intent_id, contributor, extra_metadata, layout.shared_state_dir)
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


def trace_commit(
    layout: Layout,
    reader: ObjectReader,
    commit: str,
    fallback_intent: str | None,
    contributor: Contributor,
    extra_metadata: dict[str, Any] | None = None,
) -> Record | None:
    """Trace `commit`; its intent is the `Intent:` trailer, else `fallback_intent` (may be None)."""
    parents = commit_parents(reader, commit)
    changes = commit_changes(layout.root, reader, commit, parents)
    intent_id = commit_intent(layout.root, commit) or fallback_intent
    return record_commit(layout, commit, parents, changes, intent_id, contributor, extra_metadata)
