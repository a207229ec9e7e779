"""Extend line origins by one commit, right after it is traced (hooks and backfill).

From the origins kept for the parents. A file whose parent version has none is left to
`blame-intent`, which computes and keeps them on first use; from then on each commit extends
them. The record of a commit that is AST_REFACTOR for a file keeps where that file's changed
lines come from (`line_origins`), so a clone answers without following them through history:
for such a file (only), the hooks compute the parent's origins through `git blame` when they are
not kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gitai.blame.annotate import ParentFile, step_from_parents
from gitai.blame.origin_cache import OriginStore
from gitai.blame.origins import Origins, Version, lines_form
from gitai.blame.step import is_refactor
from gitai.errors import GitaiError
from gitai.git.blame import blob_id, git_blame, last_change
from gitai.layout import Layout
from gitai.trace.changes import CommitChanges
from gitai.trace.record import set_line_origins
from gitai.trace.summary_index import summarize

MAX_FOLLOWED = 8
"""Files of one commit whose parent versions `new_origins(follow=True)` computes: a reformat of a
whole repository must not hold its post-commit hook for a `git blame` per file. The others' lines
are followed through git when asked about, as for a record without line origins."""


def new_origins(layout: Layout, commit: str, parents: list[str], changes: CommitChanges,
                record: dict[str, Any], last_change_of: Callable[[str, str], str | None] | None = None,
                store: OriginStore | None = None, follow: bool = False) -> dict[str, Version]:
    """The origins of the commit's changed text files (by path), where the versions they rest on
    are kept (for many commits, backfill's: `last_change_of` answers `last_change` without git,
    see `LastChanges`; `store` is one store for them all); with `follow`, for a file the commit
    refactors, those versions are computed through `git blame` when not kept, so its record can
    say where its lines come from. Nothing is kept yet: see `keep_origins`. The record of a commit
    that is AST_REFACTOR for a file gets the origins of that file's changed lines (`line_origins`)."""
    text = [f for f in changes.files if f.kind == "text" and f.new_oid]
    if not text:
        return {}
    store = store or OriginStore(layout)
    info, refactors = summarize(record)
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

    found: dict[str, Version] = {}
    followed = 0
    for changed in text:
        known = [(changed.old_path, changed.old_oid, changed.hunks), *changed.other_parents]
        definitions = refactors.get(changed.path, {}).get("definitions", [])
        if any(name is None and gone for (name, _, _), gone in zip(known, changes.paths_gone)):
            if not is_refactor(info, changed.path):  # (else left to blame-intent)
                version = _added_where_a_path_is_gone(layout.root, commit, changed.path, parents, version_of)
                if version is not None:
                    found[changed.path] = version
            continue
        version = step_from_parents(layout.root, commit, changed.path, changed.new_oid, parents, info,
                                    definitions, version_of, known)
        if version is None and follow and followed < MAX_FOLLOWED and is_refactor(info, changed.path):
            followed += 1
            _compute_parent_versions(layout, store, parents, known, definitions)
            version = step_from_parents(layout.root, commit, changed.path, changed.new_oid, parents, info,
                                        definitions, version_of, known)
        if version is not None:
            found[changed.path] = version
    if found:
        for changed in text:
            if changed.path in found and changed.added_lines and is_refactor(info, changed.path):
                kept = lines_form(found[changed.path], changed.path, changed.added_lines)
                if kept is not None:
                    set_line_origins(record, changed.path, kept)
    return found


def keep_origins(layout: Layout, commit: str, changes: CommitChanges, versions: dict[str, Version],
                 store: OriginStore | None = None) -> None:
    """Keep the origins `new_origins` found, once the commit's record is stored."""
    store = store or OriginStore(layout)
    for changed in changes.files:
        if changed.path in versions:
            store.put(changed.path, changed.new_oid, commit, versions[changed.path])


def _compute_parent_versions(layout: Layout, store: OriginStore, parents: list[str], known: list[ParentFile],
                             definitions: list[dict[str, Any]]) -> None:
    """Compute and keep (as `blame-intent` does) the origins of the parents' versions of a file,
    and of the files its definitions moved in from."""
    from gitai.blame.annotate import Annotator
    from gitai.trace.summary_index import load_index

    index = load_index(layout, only_needed=True)
    annotator = Annotator(layout, index, store)
    try:
        wanted: list[tuple[str, str, str | None]] = [
            (parent, name, blob) for parent, (name, blob, _) in zip(parents, known) if name and blob]
        sources = {str(d["moved_from"]["path"]) for d in definitions if isinstance(d.get("moved_from"), dict)}
        wanted += [(parents[0], source, None) for source in sorted(sources)] if parents else []
        for parent, name, blob in wanted:
            try:
                annotator.at(parent, name, blob)
            except GitaiError:
                continue  # no such file there: nothing to follow
    finally:
        annotator.close()
        index.save()
        index.close()


def _added_where_a_path_is_gone(root: str, commit: str, path: str, parents: list[str],
                                version_of: Callable[[str, str, str], Version | None]) -> Version | None:
    """The origins of a file the commit adds while it deletes or renames another: `git blame` may
    follow the new file into the gone one (a file split in two continues in both halves), where
    `diff-tree -M` pairs the gone file with one new file only. So `git blame` of this commit alone
    (stopping at its parents) says which lines are new here and which come from which line of a
    parent's file, whose kept origins then give theirs, as `blame-intent` follows them."""
    origins: Origins = []
    unrecorded: set[str] = set()
    for run in git_blame(root, commit, path, parents):
        if run.commit == commit and not run.boundary:
            origins += [(commit, path)] * run.count
            continue
        blob = blob_id(root, run.commit, run.path)
        version = version_of(run.commit, run.path, blob) if blob else None
        if version is None or run.orig_start - 1 + run.count > len(version.origins):
            return None
        origins += version.origins[run.orig_start - 1:run.orig_start - 1 + run.count]
        unrecorded |= version.unrecorded
    return Version(origins, frozenset(unrecorded))
