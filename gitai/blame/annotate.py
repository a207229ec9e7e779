"""Line origins of a file at a commit: from the cache when the hooks or an earlier run kept
them, else computed through plain `git blame` and kept.

`git blame` does the line tracking, stopping at the file's AST_REFACTOR commits and at the newest
version whose origins are kept (all excluded as boundaries). Lines that reach a refactor commit
are looked up in that commit's own origins, which come from the step (gitai.blame.step) over
its parents' origins, computed the same way. Refactor commits are taken oldest first, so each
`git blame` stops at the previous one and the recursion stays shallow. Every version computed is
kept, so later runs, and the hooks extending origins commit by commit, start from there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gitai.blame.origin_cache import OriginStore
from gitai.blame.origins import Origins, Version
from gitai.blame.step import (
    InconsistentStep,
    OriginsUnknown,
    ParentSide,
    Refactor,
    is_refactor,
    step,
)
from gitai.errors import GitaiError
from gitai.git.blame import blob_id, file_history, git_blame, last_change, parents_of
from gitai.git.diff import Hunk, blob_hunks, raw_changes
from gitai.layout import Layout
from gitai.trace.summary_index import TraceIndex

VersionOf = Callable[[str, str, str], "Version | None"]
"""(parent commit, path there, blob there) -> that version's origins; None: not known."""

ParentFile = tuple[str | None, str | None, list[Hunk]]
"""The file as one parent has it: its name there (None: not there), its blob, the hunks to the commit's."""


def parent_file(root: str, parent: str, commit: str, path: str, blob: str) -> ParentFile:
    """How `parent` has the file `commit` has at `path`, with git's rename detection (as `git blame`)."""
    for change in raw_changes(root, parent, commit):
        if change.new_path == path:
            if change.status == "A":
                return None, None, blob_hunks(root, None, blob)
            return change.old_path, change.old_oid, blob_hunks(root, change.old_oid, blob)
    return path, blob, []  # unchanged against this parent


def step_from_parents(
    root: str,
    commit: str,
    path: str,
    blob: str,
    parents: list[str],
    commit_info: dict[str, Any] | None,
    definitions: list[dict[str, Any]],
    version_of: VersionOf,
    known: list[ParentFile] | None = None,
) -> Version | None:
    """The origins of `path` at `commit` from its parents' (None when one it needs is not known).
    `known`: how each parent has the file, when the caller diffed them already."""
    if known is None:
        known = [parent_file(root, parent, commit, path, blob) for parent in parents] or [
            (None, None, blob_hunks(root, None, blob))]
    sides: list[ParentSide] = []
    unrecorded: set[str] = set()
    each_parent: list[str | None] = [*parents] or [None]  # None: a root commit
    for number, (parent, (name, parent_blob, hunks)) in enumerate(zip(each_parent, known)):
        if parent is None or name is None or parent_blob is None:
            if number == 0:
                sides.append(ParentSide([], hunks))  # new against the first parent
            continue  # a later parent without the file gives no line
        version = version_of(parent, name, parent_blob)
        if version is None:
            return None
        unrecorded |= version.unrecorded
        sides.append(ParentSide(version.origins, hunks, parent_blob == blob))
    first = sides[0]
    line_count = len(first.origins) + sum(new - old for _, old, _, new in first.hunks)
    refactor = None
    if is_refactor(commit_info, path):
        def moved_in(source: str) -> Origins | None:
            source_blob = blob_id(root, parents[0], source) if parents else None
            if source_blob is None:
                return None  # no such file: the moved lines cannot be followed
            version = version_of(parents[0], source, source_blob)
            if version is None:
                raise OriginsUnknown(source)
            unrecorded.update(version.unrecorded)
            return version.origins

        refactor = Refactor(definitions, moved_in)
    try:
        origins = step(commit, path, line_count, sides, refactor)
    except (InconsistentStep, OriginsUnknown):
        return None
    return Version(origins, frozenset(unrecorded))


class Annotator:
    """Line origins for one repository, computing and keeping what the cache lacks."""

    def __init__(self, layout: Layout, index: TraceIndex) -> None:
        self.root = layout.root
        self.index = index
        self.store = OriginStore(layout)

    def _valid(self, version: Version | None) -> Version | None:
        """A kept version, unless a commit it treated as unrecorded has a record by now."""
        if version is None or any(c in self.index.commits for c in version.unrecorded):
            return None
        return version

    def at(self, commit: str, path: str, blob: str | None = None, refresh: bool = False) -> Version:
        """The origins of `path` (which must exist there) as of `commit`; `refresh` ignores the cache."""
        blob = blob or blob_id(self.root, commit, path)
        if blob is None:
            raise GitaiError(f"{path} does not exist at {commit}")
        last = last_change(self.root, commit, path) or commit
        cached = None if refresh else self._valid(self.store.get(path, blob, last))
        if cached is not None:
            return cached
        version, exact = self._through_git_blame(commit, path)
        if exact:
            self.store.put(path, blob, last, version)
        return version

    def _through_git_blame(self, commit: str, path: str) -> tuple[Version, bool]:
        """The origins by `git blame`, and whether every version they rest on was known."""
        commits = self.index.commits
        history = file_history(self.root, commit, path)
        refactors = {c for c, _ in history if is_refactor(commits.get(c), path)}
        if commit in refactors:
            version = self._refactor_version(commit, path)
            if version is not None:
                return version, True
            refactors.discard(commit)
        kept: dict[str, Version] = {}
        for earlier, blob in history:  # the newest kept version (on a linear history, enough)
            if blob and earlier != commit and earlier not in refactors:
                found = self._valid(self.store.get(path, blob, earlier))
                if found is not None:
                    kept[earlier] = found
                    break
        for earlier, blob in reversed(history):  # oldest first: each blame stops at the one before
            if earlier in refactors and earlier != commit and blob:
                self._refactor_version(earlier, path, blob)
        versions: dict[tuple[str, str], Version | None] = {}
        origins: Origins = []
        unrecorded: set[str] = set()
        exact = True
        for run in git_blame(self.root, commit, path, sorted(refactors | kept.keys())):
            key = (run.commit, run.path)
            refactor = is_refactor(commits.get(run.commit), run.path)
            if not (run.boundary or refactor):
                origins.extend([key] * run.count)
                if run.commit not in commits:
                    unrecorded.add(run.commit)
                continue
            if key not in versions:  # a refactor, the kept version, or another boundary (a merge base)
                if refactor:
                    versions[key] = self._refactor_version(*key)
                elif run.path == path and run.commit in kept:
                    versions[key] = kept[run.commit]
                else:
                    versions[key] = self.at(*key)
            version = versions[key]
            start = run.orig_start - 1
            if version is None or start + run.count > len(version.origins):
                exact = False  # cannot follow these lines: give them to the commit, keep nothing
                origins.extend([key] * run.count)
                continue
            origins.extend(version.origins[start : start + run.count])
            unrecorded |= version.unrecorded
        return Version(origins, frozenset(unrecorded)), exact

    def _refactor_version(self, commit: str, path: str, blob: str | None = None) -> Version | None:
        """The origins of `path` at a commit that is AST_REFACTOR for it: the step over its parents."""
        blob = blob or blob_id(self.root, commit, path)
        if blob is None:
            return None
        cached = self._valid(self.store.get(path, blob, commit))
        if cached is not None:
            return cached
        version = step_from_parents(
            self.root, commit, path, blob, parents_of(self.root, commit), self.index.commits.get(commit),
            self.index.definitions(commit, path), lambda parent, name, parent_blob: self.at(parent, name, parent_blob),
        )
        if version is not None:
            self.store.put(path, blob, commit, version)
        return version
