"""Line origins of a file at a commit: from the cache when the hooks or an earlier run kept
them, else computed through plain `git blame` and kept.

One `git blame` of the file gives each line the commit that last changed it, which is the step's
answer (gitai.blame.step follows git blame's rules) except where that commit is AST_REFACTOR for
the file. Only those lines are followed further: the step at the refactor commit, taken over
placeholder origins, says which line of a parent (or of the file a definition moved from) each
of them takes its origin from, and `git blame -L` of that version, for just those lines, gives
it, through further refactor commits the same way. The `git blame -L` runs of one round go side
by side. When an older version's origins are kept, the first `git blame` stops there. The version
computed is kept, so later runs, and the hooks extending origins commit by commit, start from there.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from gitai.blame.origin_cache import OriginStore
from gitai.blame.origins import Origin, Origins, Version
from gitai.blame.step import (
    InconsistentStep,
    OriginsUnknown,
    ParentSide,
    Refactor,
    is_refactor,
    step,
)
from gitai.errors import GitaiError
from gitai.git.blame import BlamedRun, blob_id, file_history, git_blame, last_change, parents_of
from gitai.git.diff import Hunk, blob_hunks, raw_changes
from gitai.git.runner import run_git
from gitai.layout import Layout
from gitai.trace.summary_index import TraceIndex

VersionOf = Callable[[str, str, str], "Version | None"]
"""(parent commit, path there, blob there) -> that version's origins; None: not known."""

LineKey = tuple[str, str, int]
"""One line of a version of a file: (commit, the file's path there, line number)."""

KEPT_LOOKBACK = 64
"""How many of the file's newest changes are searched for a version whose origins are kept."""

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
        self._steps: dict[tuple[str, str], Origins | None] = {}

    def _valid(self, version: Version | None) -> Version | None:
        """A kept version, unless a commit it treated as unrecorded has a record by now."""
        if version is None or not self.index.has_none_of(version.unrecorded):
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

    def _newest_kept(self, commit: str, path: str) -> dict[str, Version]:
        """The newest older version of the file whose origins are kept (on a linear history, enough)."""
        if not os.path.isdir(self.store.directory):
            return {}  # nothing kept at all (a fresh clone): no history to search
        for earlier, blob in file_history(self.root, commit, path, KEPT_LOOKBACK):
            if blob and earlier != commit:
                found = self._valid(self.store.get(path, blob, earlier))
                if found is not None:
                    return {earlier: found}
        return {}

    def _through_git_blame(self, commit: str, path: str) -> tuple[Version, bool]:
        """The origins by `git blame`, and whether every version they rest on was known."""
        kept = self._newest_kept(commit, path)
        follow = _Follow(self)
        origins: Origins = []
        followed: dict[int, LineKey] = {}  # position in origins -> the refactor commit's line it stands for
        unrecorded: set[str] = set()
        exact = True
        runs = git_blame(self.root, commit, path, sorted(kept))
        self.index.prefetch({run.commit for run in runs})
        for run in runs:
            key = (run.commit, run.path)
            if run.boundary:  # the kept version, or another boundary it implies (a merge base)
                version = kept[run.commit] if run.path == path and run.commit in kept else self.at(*key)
                start = run.orig_start - 1
                if start + run.count > len(version.origins):
                    exact = False  # cannot follow these lines: give them to the commit, keep nothing
                    origins.extend([key] * run.count)
                    continue
                origins.extend(version.origins[start : start + run.count])
                unrecorded |= version.unrecorded
            elif follow.is_refactor(run):
                for offset in range(run.count):
                    followed[len(origins)] = line = (run.commit, run.path, run.orig_start + offset)
                    follow.want(line)
                    origins.append(key)
            else:
                origins.extend([key] * run.count)
        follow.run()
        for position, line in followed.items():
            origins[position] = follow.origin_of(line)
        unrecorded |= self.index.without_record({origin_commit for origin_commit, _ in origins})
        return Version(origins, frozenset(unrecorded)), exact and follow.exact

    def step_placeholders(self, commit: str, path: str) -> Origins | None:
        """The step at a commit that is AST_REFACTOR for `path`, over placeholder origins: each line
        gets `placeholder(parent, name, line)` for the line of a parent's (or a moved definition's
        source file's) version it takes its origin from, or the commit's own origin (None: the
        step cannot be taken)."""
        if (commit, path) not in self._steps:
            blob = blob_id(self.root, commit, path)
            version = None
            if blob is not None:
                def placeholders(parent: str, name: str, parent_blob: str) -> Version:
                    count = _line_count(self.root, parent_blob)
                    return Version([placeholder(parent, name, n) for n in range(1, count + 1)])

                version = step_from_parents(self.root, commit, path, blob, parents_of(self.root, commit),
                                            self.index.info(commit), self.index.definitions(commit, path),
                                            placeholders)
            self._steps[commit, path] = version.origins if version is not None else None
        return self._steps[commit, path]


def placeholder(commit: str, path: str, line: int) -> Origin:
    """Stands for the origin of one line of a version (a NUL never occurs in a path)."""
    return commit, f"{path}\0{line}"


def placeheld(origin: Origin) -> LineKey | None:
    """The line a placeholder stands for (None: a real origin)."""
    path, nul, line = origin[1].rpartition("\0")
    return (origin[0], path, int(line)) if nul else None


def _line_count(root: str, blob: str) -> int:
    data = run_git(["cat-file", "blob", blob], root)
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


class _Follow:
    """Origins of single lines of past versions: `git blame -L` from each version, and the step
    (over placeholders) at each refactor commit a line reaches."""

    def __init__(self, annotator: Annotator) -> None:
        self.annotator = annotator
        self.origins: dict[LineKey, Origin] = {}
        self.links: dict[LineKey, LineKey] = {}  # a line -> the line whose origin it takes
        self.to_step: dict[tuple[str, str], set[int]] = {}
        self.to_blame: dict[tuple[str, str], set[int]] = {}
        self.exact = True

    def is_refactor(self, run: BlamedRun) -> bool:
        return is_refactor(self.annotator.index.info(run.commit), run.path)

    def want(self, line: LineKey) -> None:
        """A line of a refactor commit's version, to follow through the step at that commit."""
        if line not in self.origins and line not in self.links:
            self.to_step.setdefault(line[:2], set()).add(line[2])

    def run(self) -> None:
        while self.to_step:
            steps, self.to_step = self.to_step, {}
            for (commit, path), numbers in steps.items():
                stepped = self.annotator.step_placeholders(commit, path)
                for number in numbers:
                    line = (commit, path, number)
                    if stepped is None or number > len(stepped):
                        self.exact = False  # cannot follow: the line stays with the refactor commit
                        self.origins[line] = (commit, path)
                        continue
                    target = placeheld(stepped[number - 1])
                    if target is None:
                        self.origins[line] = stepped[number - 1]
                        continue
                    self.links[line] = target
                    if target not in self.origins and target not in self.links:
                        self.to_blame.setdefault(target[:2], set()).add(target[2])
            blames, self.to_blame = self.to_blame, {}
            blamed = _blame_all(self.annotator.root, blames)
            self.annotator.index.prefetch({run.commit for runs in blamed.values() for run in runs})
            for (commit, path), runs in blamed.items():
                for run in runs:
                    for offset in range(run.count):
                        line = (commit, path, run.final_start + offset)
                        if self.is_refactor(run):
                            self.links[line] = target = (run.commit, run.path, run.orig_start + offset)
                            self.want(target)
                        else:
                            self.origins[line] = (run.commit, run.path)

    def origin_of(self, line: LineKey) -> Origin:
        while line not in self.origins:
            line = self.links[line]
        return self.origins[line]


def _ranges(numbers: set[int]) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    for number in sorted(numbers):
        if ranges and ranges[-1][1] == number - 1:
            ranges[-1] = (ranges[-1][0], number)
        else:
            ranges.append((number, number))
    return ranges


def _blame_all(root: str, queries: dict[tuple[str, str], set[int]]) -> dict[tuple[str, str], list[BlamedRun]]:
    """`git blame -L` of the given lines of each version, the runs side by side (one per core)."""
    def blame(version: tuple[str, str]) -> list[BlamedRun]:
        return git_blame(root, version[0], version[1], [], _ranges(queries[version]))

    if len(queries) <= 1:
        return {version: blame(version) for version in queries}
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(len(queries), os.cpu_count() or 1)) as pool:
        return dict(zip(queries, pool.map(blame, queries)))
