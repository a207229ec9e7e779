"""Line origins of a file at a commit: from the cache when the hooks or an earlier run kept
them, else computed through plain `git blame` and kept.

`git blame` does the line tracking; each line it gives to a commit that is AST_REFACTOR for
the file is looked up in that commit's own origins, which come from the step (gitai.origins.step)
over the parents' origins, computed the same way, recursively. Every version computed is kept,
so later runs, and the hooks extending origins commit by commit, start from there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gitai.layout import Layout
from gitai.origins.history import blob_id, file_history, git_blame, is_refactor, last_change, parents_of
from gitai.origins.model import Origins
from gitai.origins.step import InconsistentStep, ParentSide, Refactor, step
from gitai.origins.store import OriginStore
from gitai.trace.gitdata import Hunk, blob_hunks
from gitai.trace.index import TraceIndex

OriginsOf = Callable[[str, str, str], "Origins | None"]
"""(parent commit, path there, blob there) -> that version's origins; None: not known."""


def step_from_parents(
    root: str,
    commit: str,
    path: str,
    blob: str,
    parents: list[str],
    commit_info: dict[str, Any] | None,
    definitions: list[dict[str, Any]],
    origins_of: OriginsOf,
    first_side: tuple[str | None, list[Hunk]] | None = None,
) -> Origins | None:
    """The origins of `path` at `commit` from its parents' (None when a parent's are not known).
    `first_side` (the first parent's blob, None for a new file, and the hunks) saves a diff."""
    file_info = (commit_info or {}).get("files", {}).get(path, {})
    old_path = file_info.get("renamed_from") or path
    sides: list[ParentSide] = []
    for number, parent in enumerate(parents or [None]):
        if number == 0 and first_side is not None:
            parent_blob, hunks = first_side
            name = old_path
        else:
            name = old_path if number == 0 else path
            parent_blob = blob_id(root, parent, name) if parent else None
            if parent_blob is None and parent and name != old_path:
                name, parent_blob = old_path, blob_id(root, parent, old_path)
            hunks = [] if parent_blob == blob else blob_hunks(root, parent_blob, blob)
        if parent is None or parent_blob is None:
            sides.append(ParentSide([], hunks))
            continue
        origins = origins_of(parent, name, parent_blob)
        if origins is None:
            return None
        sides.append(ParentSide(origins, hunks, parent_blob == blob))
    first = sides[0]
    line_count = len(first.origins or []) + sum(new - old for _, old, _, new in first.hunks)
    refactor = None
    if is_refactor(commit_info, path):
        def moved_in(source: str) -> Origins | None:
            source_blob = blob_id(root, parents[0], source) if parents else None
            return origins_of(parents[0], source, source_blob) if source_blob else None

        refactor = Refactor(definitions, moved_in)
    try:
        return step(commit, path, line_count, sides, refactor)
    except InconsistentStep:
        return None


class Annotator:
    """Line origins for one repository, computing and keeping what the cache lacks."""

    def __init__(self, layout: Layout, index: TraceIndex) -> None:
        self.root = layout.root
        self.index = index
        self.store = OriginStore(layout)

    def at(self, commit: str, path: str, blob: str | None = None, refresh: bool = False) -> Origins:
        """The origins of `path` (which must exist there) as of `commit`; `refresh` ignores the cache."""
        blob = blob or blob_id(self.root, commit, path)
        assert blob is not None, f"{path} does not exist at {commit}"
        last = last_change(self.root, commit, path) or commit
        cached = None if refresh else self.store.get(path, blob, last)
        if cached is not None:
            return cached
        origins = self._through_git_blame(commit, path)
        self.store.put(path, blob, last, origins)
        return origins

    def _through_git_blame(self, commit: str, path: str) -> Origins:
        """Blame stops at the file's AST_REFACTOR commits and at the newest commit whose origins
        are kept (all excluded as boundaries); lines that reach one take their origin from that commit's
        origins (for a refactor, from the step over its parents, recursively)."""
        commits = self.index.commits
        history = file_history(self.root, commit, path)
        refactors = {c for c, _ in history if is_refactor(commits.get(c), path)}
        if commit in refactors:
            version = self._refactor_version(commit, path)
            if version is not None:
                return version
            refactors.discard(commit)
        # the newest commit with kept origins (enough on a linear history; older lines on other
        # branches are blamed the long way, correctly)
        kept: dict[str, str] = {}
        for earlier, blob in history:
            if blob and earlier != commit and earlier in self.store.commits(path, blob):
                kept[earlier] = blob
                break
        versions: dict[tuple[str, str], Origins | None] = {}
        origins: Origins = []
        for run in git_blame(self.root, commit, path, sorted(refactors | kept.keys())):
            key = (run.commit, run.path)
            refactor = is_refactor(commits.get(run.commit), run.path)
            if not (run.boundary or refactor):
                origins.extend([key] * run.count)
                continue
            if key not in versions:  # a refactor, a commit with kept origins, or a merge base
                if refactor:
                    versions[key] = self._refactor_version(*key)
                elif run.path == path and run.commit in kept:
                    versions[key] = self.store.get(path, kept[run.commit], run.commit) or self.at(*key)
                else:
                    versions[key] = self.at(*key)
            version = versions[key]
            start = run.orig_start - 1
            if version and start + run.count <= len(version):
                origins.extend(version[start : start + run.count])
            else:
                origins.extend([key] * run.count)
        return origins

    def _refactor_version(self, commit: str, path: str) -> Origins | None:
        """The origins of `path` at a commit that is AST_REFACTOR for it: the step over its parents."""
        blob = blob_id(self.root, commit, path)
        if blob is None:
            return None
        cached = self.store.get(path, blob, commit)
        if cached is not None:
            return cached
        origins = step_from_parents(
            self.root, commit, path, blob, parents_of(self.root, commit), self.index.commits.get(commit),
            self.index.definitions(commit, path), lambda parent, name, parent_blob: self.at(parent, name, parent_blob),
        )
        if origins is not None:
            self.store.put(path, blob, commit, origins)
        return origins
