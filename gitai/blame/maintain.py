"""Extend line origins by one commit, right after it is traced (hooks and backfill).

Only from origins already kept for the parents: the hooks never run `git blame`. A file whose
parent version has none is left to `blame-intent`, which computes and keeps them on first use;
from then on each commit extends them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gitai.blame.annotate import step_from_parents
from gitai.blame.origin_cache import OriginStore
from gitai.blame.origins import Version
from gitai.git.blame import last_change
from gitai.layout import Layout
from gitai.trace.changes import CommitChanges
from gitai.trace.summary_index import summarize


def extend_origins(layout: Layout, commit: str, parents: list[str], changes: CommitChanges,
                   record: dict[str, Any], last_change_of: Callable[[str, str], str | None] | None = None,
                   store: OriginStore | None = None) -> None:
    """Keep the origins of the commit's changed text files, where the versions they rest on are kept
    (for many commits, backfill's: `last_change_of` answers `last_change` without git, see
    `LastChanges`; `store` is one store for them all)."""
    text = [f for f in changes.files if f.kind == "text" and f.new_oid]
    if not text:
        return
    store = store or OriginStore(layout)
    info, definitions = summarize(record)
    last_of: dict[tuple[str, str], str | None] = {}

    def version_of(parent: str, name: str, blob: str) -> Version | None:
        candidates = store.commits(name, blob)
        if not candidates:
            return None
        if parent in candidates:  # the parent made this version itself
            return store.get(name, blob, parent)
        if (parent, name) not in last_of:  # else the commit that last changed the file before it
            last_of[parent, name] = (last_change_of(parent, name) if last_change_of
                                     else last_change(layout.root, parent, name))
        last = last_of[parent, name]
        return store.get(name, blob, last) if last in candidates else None

    for changed in text:
        known = [(changed.old_path, changed.old_oid, changed.hunks), *changed.other_parents]
        if any(name is None and gone for (name, _, _), gone in zip(known, changes.paths_gone)):
            continue  # added where a path is gone: git blame may follow it from there; leave it to blame-intent
        version = step_from_parents(layout.root, commit, changed.path, changed.new_oid, parents, info,
                                    definitions.get(changed.path, []), version_of, known)
        if version is not None:
            store.put(changed.path, changed.new_oid, commit, version)
