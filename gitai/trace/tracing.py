"""Trace one commit: resolve its intent, classify its changes, build and store its record (hooks and backfill)."""

from __future__ import annotations

from typing import Any

from gitai.layout import Layout
from gitai.origins.maintain import extend_origins
from gitai.trace.gitdata import ObjectReader, commit_parents
from gitai.trace.record import CommitChanges, build_record, commit_changes
from gitai.trace.store import Record, store_record
from gitai.trailers import commit_intent

NOT_PARSED = ("symlink", "submodule")  # a changed link target or submodule commit: behaviour changed


def classify(changes: CommitChanges, cache_dir: str | None = None) -> tuple[str, dict[str, dict[str, Any]]]:
    """Commit-level class and per-file classification metadata (tree-sitter loads only here);
    with `cache_dir`, normal-form hashes are kept there between runs."""
    from gitai.syntax.classify import INTENT_EVOLUTION, FileChange, classify_changes, to_record_json
    from gitai.syntax.hash_cache import HashCache
    from gitai.syntax.normal_form import hash_source

    inputs = [FileChange(f.old_path, f.path, f.old_data, f.new_data) for f in changes.files if f.kind not in NOT_PARSED]
    inputs += [FileChange(path, None, data, None) for path, data in changes.deleted if data is not None]
    result = classify_changes(inputs, HashCache(cache_dir).hash_source if cache_dir else hash_source)
    added = {f.path: f.added_lines for f in changes.files}
    files = {path: to_record_json(c, added.get(path, ())) for path, c in result.files.items()}
    commit_class = result.classification
    for changed in changes.files:
        if changed.kind in NOT_PARSED:
            files[changed.path] = {"classification": INTENT_EVOLUTION, "language": None, "definitions": [],
                                   "reason": f"{changed.kind} changed"}
            commit_class = INTENT_EVOLUTION
    return commit_class, files


def make_record(
    commit: str,
    changes: CommitChanges,
    intent_id: str | None,
    contributor: dict[str, Any],
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
    contributor: dict[str, Any],
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
    contributor: dict[str, Any],
    extra_metadata: dict[str, Any] | None = None,
) -> Record:
    """Trace `commit`; its intent is the `Intent:` trailer, else `fallback_intent` (may be None)."""
    parents = commit_parents(reader, commit)
    changes = commit_changes(layout.root, reader, commit, parents)
    intent_id = commit_intent(layout.root, commit) or fallback_intent
    return record_commit(layout, commit, parents, changes, intent_id, contributor, extra_metadata)
