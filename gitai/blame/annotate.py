"""Line origins of a file at a commit: from the cache when the hooks or an earlier run kept
them, else computed through plain `git blame` and kept.

One `git blame` of the file gives each line the commit that last changed it, which is the step's
answer (gitai.blame.step follows git blame's rules) except where that commit is AST_REFACTOR for
the file. There the refactor's record usually says where the line comes from (`line_origins`,
written when it was recorded; the notes are read while `git blame` runs). Only the other lines
are followed further: the step at the refactor commit, taken over placeholder origins, says which
line of a parent (or of the file a definition moved from) each of them takes its origin from, and
`git blame -L` of that version, for just those lines, gives it, through further refactor commits
the same way. When an older version's origins are kept, the first `git blame` stops there. The
version computed is kept, so later runs, and the hooks extending origins commit by commit, start
from there.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from gitai.blame.origin_cache import OriginStore
from gitai.blame.origins import Origin, Origins, RecordedOrigins, Version
from gitai.blame.step import (
    InconsistentStep,
    OriginsUnknown,
    ParentSide,
    Refactor,
    is_refactor,
    step,
)
from gitai.errors import GitaiError
from gitai.git.blame import BlamedRun, blob_id, commit_graph, file_history, git_blame, last_change
from gitai.git.diff import Hunk, blob_hunks, raw_changes
from gitai.git.objects import ObjectReader
from gitai.layout import Layout
from gitai.trace.summary_index import TraceIndex
from gitai.util.lines import merge_ranges

VersionOf = Callable[[str, str, str], "Version | None"]
"""(parent commit, path there, blob there) -> that version's origins; None: not known."""

LineKey = tuple[str, str, int]
"""One line of a version of a file: (commit, the file's path there, line number)."""

NOTES_PER_READ = 32
"""While `git blame` runs, the notes of the commits it names are read this many at a time (each
read waits for `git cat-file`, which competes with `git blame` for the cores)."""

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
    blob_of: Callable[[str, str], str | None] | None = None,
) -> Version | None:
    """The origins of `path` at `commit` from its parents' (None when one it needs is not known).
    `known`: how each parent has the file, when the caller diffed them already; `blob_of`:
    (commit, path) -> blob, when the caller reads trees faster than `git rev-parse`."""
    if known is None:
        known = [parent_file(root, parent, commit, path, blob) for parent in parents] or [
            (None, None, blob_hunks(root, None, blob))]
    sides: list[ParentSide] = []
    unrecorded: set[str] = set()
    each_parent: list[str | None] = [*parents] or [None]  # None: a root commit
    for number, (parent, (name, parent_blob, hunks)) in enumerate(zip(each_parent, known, strict=True)):
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
        sources: dict[str, Version | None] = {}

        def moved_in(source: str) -> Origins | None:
            if source not in sources:
                source_blob = (blob_of or (lambda c, p: blob_id(root, c, p)))(parents[0], source) if parents else None
                sources[source] = None if source_blob is None else version_of(parents[0], source, source_blob)
                if source_blob is not None and sources[source] is None:
                    raise OriginsUnknown(source)
            version = sources[source]
            if version is None:
                return None  # no such file: the moved lines cannot be followed
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

    def __init__(self, layout: Layout, index: TraceIndex, store: OriginStore | None = None) -> None:
        self.root = layout.root
        self.index = index
        self.store = store or OriginStore(layout)
        self._steps: dict[tuple[str, str], Origins | None] = {}
        self._placeholder_versions: dict[tuple[str, str, str], Version] = {}
        self._reader: ObjectReader | None = None

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
        follow = _Follow(self, commit, path, self._newest_kept(commit, path))
        named: list[str] = []

        def read_notes_meanwhile(sha: str) -> None:  # a few at a time: one `cat-file` round trip each
            named.append(sha)
            if len(named) >= NOTES_PER_READ:
                self.index.prefetch(named)
                named.clear()

        runs = git_blame(self.root, commit, path, sorted(follow.kept), on_commit=read_notes_meanwhile)
        self.index.prefetch(named)
        follow.take(commit, path, runs)
        follow.run()
        origins = [follow.origin_of((commit, path, number)) for number in range(1, sum(run.count for run in runs) + 1)]
        unrecorded = follow.unrecorded | self.index.without_record({origin_commit for origin_commit, _ in origins})
        return Version(origins, frozenset(unrecorded)), follow.exact

    def step_placeholders(self, commit: str, path: str, parents: list[str]) -> Origins | None:
        """The step at a commit that is AST_REFACTOR for `path`, over placeholder origins: each line
        gets `placeholder(parent, name, line)` for the line of a parent's (or a moved definition's
        source file's) version it takes its origin from, or the commit's own origin (None: the
        step cannot be taken)."""
        if (commit, path) not in self._steps:
            reader = self._objects()
            blob = reader.blob_at(commit, path)
            version = None
            if blob is not None:
                known = [self._parent_file(parent, commit, path, blob) for parent in parents] or None
                version = step_from_parents(self.root, commit, path, blob, parents, self.index.info(commit),
                                            self.index.definitions(commit, path), self._placeholders, known,
                                            reader.blob_at)
            self._steps[commit, path] = version.origins if version is not None else None
        return self._steps[commit, path]

    def _parent_file(self, parent: str, commit: str, path: str, blob: str) -> ParentFile:
        """`parent_file`, without diffing the trees when the parent has the file under the same
        name (a path present on both sides is never a rename's destination)."""
        parent_blob = self._objects().blob_at(parent, path)
        if parent_blob is None:
            return parent_file(self.root, parent, commit, path, blob)
        return path, parent_blob, [] if parent_blob == blob else blob_hunks(self.root, parent_blob, blob)

    def _objects(self) -> ObjectReader:
        if self._reader is None:
            self._reader = ObjectReader(self.root)
        return self._reader

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def _placeholders(self, commit: str, path: str, blob: str) -> Version:
        """A version whose every line is its own placeholder."""
        if (commit, path, blob) not in self._placeholder_versions:
            data = self._objects().read(blob)
            count = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
            self._placeholder_versions[commit, path, blob] = Version(
                [placeholder(commit, path, n) for n in range(1, count + 1)])
        return self._placeholder_versions[commit, path, blob]


def placeholder(commit: str, path: str, line: int) -> Origin:
    """Stands for the origin of one line of a version (a NUL never occurs in a path)."""
    return commit, f"{path}\0{line}"


def placeheld(origin: Origin) -> LineKey | None:
    """The line a placeholder stands for (None: a real origin)."""
    path, nul, line = origin[1].rpartition("\0")
    return (origin[0], path, int(line)) if nul else None


class _Follow:
    """Origins of single lines of versions of files: `git blame -L` from each version, and the
    step (over placeholders) at each refactor commit a line reaches. Each `git blame` stops at the
    refactor commits already met (excluded when they are ancestors of where it starts), so lines
    that pass several of them share the walk between two."""

    def __init__(self, annotator: Annotator, top: str, top_path: str, kept: dict[str, Version]) -> None:
        self.annotator = annotator
        self.top, self.top_path = top, top_path  # blamed first: every version asked about is older
        self.kept = kept  # a kept version of top_path: commit -> origins
        self.origins: dict[LineKey, Origin] = {}
        self.links: dict[LineKey, LineKey] = {}  # a line -> the line whose origin it takes
        self.to_step: dict[tuple[str, str], set[int]] = {}
        self.to_blame: dict[tuple[str, str], set[int]] = {}
        self.refactors: dict[str, set[str]] = {}  # path -> refactor commits met for it
        self.unrecorded: set[str] = set()
        self.exact = True
        self._parents: dict[str, list[str]] | None = None
        self._order: dict[str, int] = {}
        self._ancestors: dict[str, set[str]] = {}
        self._good: dict[Origin, bool] = {}  # recorded origins: still good (`_still_good`)

    def take(self, commit: str, path: str, runs: list[BlamedRun]) -> None:
        """What `git blame` of version (commit, path) says of its lines."""
        index = self.annotator.index
        index.prefetch({run.commit for run in runs})
        recorded = self._recorded_origins(runs)
        for run in runs:
            refactor = is_refactor(index.info(run.commit), run.path)
            if refactor:
                self.refactors.setdefault(run.path, set()).add(run.commit)
            known = recorded.get((run.commit, run.path)) if refactor else None
            kept = self.kept.get(run.commit) if run.boundary and run.path == self.top_path else None
            for offset in range(run.count):
                line = (commit, path, run.final_start + offset)
                source = (run.commit, run.path, run.orig_start + offset)
                if kept is not None:
                    if source[2] > len(kept.origins):
                        self.exact = False  # cannot follow this line: give it to the commit, keep nothing
                        self.origins[line] = (run.commit, run.path)
                    else:
                        self.origins[line] = kept.origins[source[2] - 1]
                elif known is not None and (origin := known.get(source[2])) and self._still_good(origin, run.commit):
                    self.origins[line] = origin
                elif refactor:
                    if source != line:  # else the version blamed is the refactor commit's own
                        self.links[line] = source
                    self.want(source)
                elif run.boundary:  # where the walk stopped short of a refactor (a merge base)
                    if source[0] == commit:
                        self.exact = False
                        self.origins[line] = (run.commit, run.path)
                    else:
                        self.links[line] = source
                        self._blame(source)
                else:
                    self.origins[line] = (run.commit, run.path)
            if kept is not None:
                self.unrecorded |= kept.unrecorded

    def _recorded_origins(self, runs: list[BlamedRun]) -> dict[tuple[str, str], RecordedOrigins]:
        """Per refactor version (commit, path) these runs land on, the origins its record keeps of
        its changed lines (`line_origins`); the notes of the origin commits the runs need are read
        together, for `_still_good`."""
        index = self.annotator.index
        found: dict[tuple[str, str], RecordedOrigins] = {}
        needed: set[str] = set()
        for run in runs:
            if not is_refactor(index.info(run.commit), run.path):
                continue
            if (run.commit, run.path) not in found:
                found[run.commit, run.path] = RecordedOrigins(index.line_origins(run.commit, run.path), run.path)
            known = found[run.commit, run.path]
            needed.update(origin[0] for n in range(run.count) if (origin := known.get(run.orig_start + n)))
        index.prefetch(needed)
        return found

    def _still_good(self, origin: Origin, refactor: str) -> bool:
        """A recorded origin, unless its commit has since got a record that is AST_REFACTOR for its
        file (it had none when the refactor was recorded): then it is followed again."""
        if origin[0] == refactor:
            return True
        if origin not in self._good:
            self._good[origin] = not is_refactor(self.annotator.index.info(origin[0]), origin[1])
        return self._good[origin]

    def want(self, line: LineKey) -> None:
        """A line of a refactor commit's version, to follow through the step at that commit."""
        if line not in self.origins and line not in self.links:
            self.to_step.setdefault(line[:2], set()).add(line[2])

    def _blame(self, line: LineKey) -> None:
        if line not in self.origins and line not in self.links:
            self.to_blame.setdefault(line[:2], set()).add(line[2])

    def run(self) -> None:
        """Follow every line asked about, newest version first: by the time a version is blamed
        or stepped, every line wanted of it is known, so each is done once."""
        while self.to_step or self.to_blame:
            version = min({*self.to_step, *self.to_blame}, key=lambda v: (self._position(v[0]), v in self.to_step))
            commit, path = version
            if version in self.to_blame:
                runs = git_blame(self.annotator.root, commit, path, self._stops(commit, path),
                                 merge_ranges(sorted(self.to_blame.pop(version))))
                self.take(commit, path, runs)
                continue
            stepped = self.annotator.step_placeholders(commit, path, self._graph().get(commit, []))
            for number in self.to_step.pop(version):
                line = (commit, path, number)
                if stepped is None or number > len(stepped):
                    self.exact = False  # cannot follow: the line stays with the refactor commit
                    self.origins[line] = (commit, path)
                    continue
                target = placeheld(stepped[number - 1])
                if target is None:
                    self.origins[line] = stepped[number - 1]
                else:
                    self.links[line] = target
                    self._blame(target)

    def _graph(self) -> dict[str, list[str]]:
        if self._parents is None:
            self._parents = commit_graph(self.annotator.root, self.top)
            self._order = {commit: number for number, commit in enumerate(self._parents)}
        return self._parents

    def _position(self, commit: str) -> int:
        """Where the commit comes in topological order from the top (children first)."""
        self._graph()
        return self._order.get(commit, len(self._order))

    def _stops(self, commit: str, path: str) -> list[str]:
        """The refactor commits met for `path` that are ancestors of `commit`: where its blame stops."""
        met = self.refactors.get(path, set()) - {commit}
        if not met:
            return []
        if commit not in self._ancestors:
            graph = self._graph()
            seen: set[str] = set()
            todo = list(graph.get(commit, []))
            while todo:
                parent = todo.pop()
                if parent not in seen:
                    seen.add(parent)
                    todo.extend(graph.get(parent, []))
            self._ancestors[commit] = seen
        return sorted(met & self._ancestors[commit])

    def origin_of(self, line: LineKey) -> Origin:
        while line not in self.origins:
            line = self.links[line]
        return self.origins[line]

