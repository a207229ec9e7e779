"""Extend line origins by one commit, right after it is traced (hooks and backfill).

Only from origins already kept for the parents: the hooks never run `git blame`. A file whose
parent version has none is left to `blame-intent`, which computes and keeps them on first use;
from then on each commit extends them.
"""

from __future__ import annotations

from typing import Any

from gitai.layout import Layout
from gitai.origins.annotate import step_from_parents
from gitai.origins.history import last_changes
from gitai.origins.model import Version
from gitai.origins.store import OriginStore
from gitai.trace.index import summarize
from gitai.trace.record import CommitChanges


def extend_origins(layout: Layout, commit: str, parents: list[str], changes: CommitChanges,
                   record: dict[str, Any]) -> None:
    """Keep the origins of the commit's changed text files, where the versions they rest on are kept."""
    text = [f for f in changes.files if f.kind == "text" and f.new_oid]
    if not text:
        return
    store = OriginStore(layout)
    info, definitions = summarize(record)
    needed: set[tuple[str, str | None]] = {(f.old_path or f.path, f.old_oid) for f in text if parents and f.old_oid}
    needed |= {(str(d["moved_from"]["path"]), None) for defs in definitions.values() for d in defs
               if d.get("moved_from")}
    # names whose kept versions were not made by the parent itself: which commit last changed them?
    look_up = {name for name, oid in needed if oid is None or (store.commits(name, oid) and
                                                                parents[0] not in store.commits(name, oid))}
    last_of: dict[str, str] | None = None

    def version_of(parent: str, name: str, blob: str) -> Version | None:
        nonlocal last_of
        candidates = store.commits(name, blob)
        if not candidates:
            return None
        if parent in candidates:
            return store.get(name, blob, parent)
        if parent != parents[0]:
            return None  # a merge's other parents: only when they made the file themselves
        if last_of is None:
            last_of = last_changes(layout.root, parent, look_up)
        last = last_of.get(name)
        return store.get(name, blob, last) if last in candidates else None

    for changed in text:
        version = step_from_parents(layout.root, commit, changed.path, changed.new_oid, parents, info,
                                    definitions.get(changed.path, []), version_of, (changed.old_oid, changed.hunks))
        if version is not None:
            store.put(changed.path, changed.new_oid, commit, version)
