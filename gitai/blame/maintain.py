"""Extend line origins by one commit, right after it is traced (hooks and backfill).

From the origins kept for the parents. A file whose parent version has none is left to
`blame-intent`, which computes and keeps them on first use; from then on each commit extends
them. The record of a commit that is AST_REFACTOR for a file keeps where that file's changed
lines come from (`line_origins`), so a clone answers without following them through history:
for such a file the hooks compute the parent's origins through `git blame` when they are not
kept. A file added while another is gone is followed by a `git blame` of the commit alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gitai.blame.annotate import Annotator, ParentFile, step_from_parents
from gitai.blame.origin_cache import OriginStore
from gitai.blame.origins import Origins, Version, lines_form
from gitai.blame.step import REFACTOR, InconsistentStep, is_refactor
from gitai.errors import GitaiError
from gitai.git.blame import blob_id, git_blame, last_change
from gitai.git.runner import run_git
from gitai.layout import Layout
from gitai.trace.changes import CommitChanges
from gitai.trace.record import TraceRecord
from gitai.trace.summary_index import TraceIndex, load_index, summarize

MAX_FOLLOWED = 8
"""Files of one commit whose parent versions `new_origins(follow=True)` computes: a reformat of a
whole repository must not hold its post-commit hook for a `git blame` per file. The others' lines
are followed through git when asked about, as for a record without line origins."""
MAX_GONE_FOLLOWED = 64
"""Files of one commit added while another path is gone that are followed by a `git blame` of the
commit (a few milliseconds each); the others are left to `blame-intent`."""


def new_origins(layout: Layout, commit: str, parents: list[str], changes: CommitChanges,
                record: TraceRecord, last_change_of: Callable[[str, str], str | None] | None = None,
                store: OriginStore | None = None, follow: bool = False) -> dict[str, Version]:
    """The origins of the commit's changed text files (by path), where the versions they rest on
    are kept (for many commits, backfill's: `last_change_of` answers `last_change` without git,
    see `LastChanges`; `store` is one store for them all); with `follow`, for a file the commit
    refactors, those versions are computed through `git blame` when not kept, so its record can
    say where its lines come from (those parents' versions are kept then). The commit's own are
    kept by `keep_origins`, once its record is stored. The record of a commit that is AST_REFACTOR
    for a file gets the origins of that file's changed lines (`line_origins`)."""
    text = [f for f in changes.files if f.kind == "text" and f.new_oid]
    if not text:
        return {}
    store = store or OriginStore(layout)
    info, refactors = summarize(record) if _refactors(record) else (None, {})
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
    follower = _Follower(layout, store) if follow else None
    gone_budget = MAX_GONE_FOLLOWED
    try:
        for changed in text:
            known = [(changed.old_path, changed.old_oid, changed.hunks), *changed.other_parents]
            definitions = refactors.get(changed.path, {}).get("definitions", [])
            refactor = is_refactor(info, changed.path)
            if any(name is None and gone for (name, _, _), gone in zip(known, changes.paths_gone, strict=True)):
                if not refactor and gone_budget > 0:  # (a refactor's is left to blame-intent)
                    gone_budget -= 1
                    try:
                        version = _added_where_a_path_is_gone(layout.root, commit, changed.path, parents, version_of)
                    except GitaiError:  # git blame failed (a blob missing, say): left to blame-intent
                        version = None
                    if version is not None:
                        found[changed.path] = version
                continue
            version = step_from_parents(layout.root, commit, changed.path, changed.new_oid, parents, info,
                                        definitions, version_of, known)
            if version is None and refactor and follower is not None and follower.parent_versions(
                    parents, known, definitions):
                version = step_from_parents(layout.root, commit, changed.path, changed.new_oid, parents, info,
                                            definitions, version_of, known)
            if version is not None:
                found[changed.path] = version
    finally:
        if follower is not None:
            follower.close()
    if found:
        for changed in text:
            if changed.path in found and changed.added_lines and is_refactor(info, changed.path):
                kept = lines_form(found[changed.path], changed.path, changed.added_lines)
                if kept is not None:
                    record.set_line_origins(changed.path, kept)
    return found


def _refactors(record: TraceRecord) -> bool:
    """Whether the record classifies the commit, or any file of it, AST_REFACTOR: else no line is
    followed through it, and the step needs nothing of its summary (which counts every range)."""
    return record.classification == REFACTOR or any(
        info.get("classification") == REFACTOR for info in record.meta.get("files", {}).values())


def keep_origins(layout: Layout, commit: str, changes: CommitChanges, versions: dict[str, Version],
                 store: OriginStore | None = None) -> None:
    """Keep the origins `new_origins` found, once the commit's record is stored."""
    store = store or OriginStore(layout)
    for changed in changes.files:
        if changed.path in versions:
            store.put(changed.path, changed.new_oid, commit, versions[changed.path])


class _Follower:
    """Computes through `git blame` (as `blame-intent` does, and keeps) the origins of the parents'
    versions of files a commit refactors, when they are not kept: for at most MAX_FOLLOWED files
    of the commit, and not in a shallow or partial clone (where `git blame` would stop at the
    shallow root, or fetch every old blob from the remote)."""

    def __init__(self, layout: Layout, store: OriginStore) -> None:
        self.layout, self.store = layout, store
        self.budget = MAX_FOLLOWED
        self._annotator: Annotator | None = None
        self._index: TraceIndex | None = None

    def parent_versions(self, parents: list[str], known: list[ParentFile], definitions: list[dict[str, Any]]) -> bool:
        """Compute those of one file, and of the files its definitions moved in from; False when
        not allowed to."""
        if self.budget <= 0:
            return False
        if self._annotator is None:
            if not _whole_history(self.layout.root):
                self.budget = 0
                return False
            self._index = load_index(self.layout, only_needed=True)
            self._annotator = Annotator(self.layout, self._index, self.store)
        self.budget -= 1
        # a side per parent; a root commit has one side (no file) and no parent: nothing to compute
        wanted: list[tuple[str, str, str | None]] = [
            (parent, name, blob) for parent, (name, blob, _) in zip(parents, known, strict=False) if name and blob]
        sources = {str(d["moved_from"]["path"]) for d in definitions if isinstance(d.get("moved_from"), dict)}
        wanted += [(parents[0], source, None) for source in sorted(sources)] if parents else []
        for parent, name, blob in wanted:
            try:
                self._annotator.at(parent, name, blob)
            except GitaiError:
                continue  # no such file there: nothing to follow
            except InconsistentStep:  # a damaged kept version: computed afresh
                self._annotator.at(parent, name, blob, refresh=True)
        return True

    def close(self) -> None:
        if self._annotator is not None and self._index is not None:
            self._annotator.close()
            self._index.save()
            self._index.close()


def _whole_history(root: str) -> bool:
    """Neither a shallow nor a partial clone."""
    shallow = run_git(["rev-parse", "--is-shallow-repository"], root, check=False).strip() == b"true"
    promisor = run_git(["config", "--get-regexp", r"^(extensions\.partialclone|remote\..*\.promisor)$"],
                       root, check=False).strip()
    return not shallow and not promisor


def _added_where_a_path_is_gone(root: str, commit: str, path: str, parents: list[str],
                                version_of: Callable[[str, str, str], Version | None]) -> Version | None:
    """The origins of a file the commit adds while it deletes or renames another: `git blame` may
    follow the new file into the gone one (a file split in two continues in both halves), where
    `diff-tree -M` pairs the gone file with one new file only. So `git blame` of this commit alone
    (stopping at its parents) says which lines are new here and which come from which line of a
    parent's file, whose kept origins then give theirs, as `blame-intent` follows them."""
    origins: Origins = []
    unrecorded: set[str] = set()
    versions: dict[tuple[str, str], Version | None] = {}
    for run in git_blame(root, commit, path, parents):
        if run.commit == commit and not run.boundary:
            origins += [(commit, path)] * run.count
            continue
        if (run.commit, run.path) not in versions:
            blob = blob_id(root, run.commit, run.path)
            versions[run.commit, run.path] = version_of(run.commit, run.path, blob) if blob else None
        version = versions[run.commit, run.path]
        if version is None or run.orig_start - 1 + run.count > len(version.origins):
            return None
        origins += version.origins[run.orig_start - 1:run.orig_start - 1 + run.count]
        unrecorded |= version.unrecorded
    return Version(origins, frozenset(unrecorded))
