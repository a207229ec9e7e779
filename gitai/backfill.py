"""`gitai backfill`: trace commits that have no note (adopting gitai in an existing repository).

Intent: the commit's `Intent:` trailer (source `trailer`); else, with `--infer scope`, per file:
each file goes to the one intent whose scope owns it (source `scope`, so readers can tell an
inference from a declaration), and a commit spanning intents carries one per file; else
unattributed (`intent_id: null`). Contributor: `unknown` (history does not say). Records are
stored by batches (one notes commit each) and on any exit, so an interrupted run resumes where it
stopped.

Speed (thousands of commits): no git process per commit (one `diff-tree --stdin` for every diff,
one `cat-file --batch`, `last_change` answered from the diffs), classification in worker processes.
"""

from __future__ import annotations

import os
import sys
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gitai.gate.policy import Policy
from gitai.git.blame import LastChanges
from gitai.git.diff import DiffStream, Hunk, RawChange
from gitai.git.objects import ObjectReader, commit_parents
from gitai.git.runner import head_commit, rev_list, run_git
from gitai.git.trailers import commit_intents
from gitai.layout import Layout
from gitai.recording import Classified, RecordBatch, tip_blobs
from gitai.trace.changes import CommitChanges, commit_changes
from gitai.trace.classify_commit import changed_lines, classify_prepared_files, file_changes
from gitai.trace.notes_reader import notes_of
from gitai.trace.record import Contributor, TraceRecord, own_records

if TYPE_CHECKING:
    from gitai.syntax.classify import FileChange, PreparedFile
    from gitai.syntax.hash_cache import HashCache

UNKNOWN_CONTRIBUTOR: Contributor = {"type": "unknown"}


@dataclass
class BackfillResult:
    traced: list[str] = field(default_factory=list)
    skipped: int = 0  # commits that already had a record
    by_source: dict[str, int] = field(default_factory=lambda: {"trailer": 0, "scope": 0, "unattributed": 0})
    several: int = 0  # commits inferred to serve several intents (one per file)

    def to_json(self) -> dict[str, Any]:
        return {"traced": len(self.traced), "skipped": self.skipped, "intent_from": self.by_source,
                "several_intents": self.several, "commits": self.traced}


def commits_in(layout: Layout, revision_range: str | None, every_ref: bool = False) -> dict[str, list[str]]:
    """Commits of the range (default: everything reachable from HEAD; `every_ref`: from every
    branch and tag), oldest first, each with its parents."""
    if every_ref:
        lines = run_git(["rev-list", "--topo-order", "--reverse", "--parents", "--exclude=refs/notes/*",
                         "--exclude=refs/gitai/*", "--exclude=refs/stash", "--all", "--"],
                        layout.root).decode().splitlines()
    elif revision_range is None and head_commit(layout.root) is None:
        return {}  # empty repository
    else:
        lines = rev_list(layout.root, "HEAD" if revision_range is None else revision_range,
                         "--topo-order", "--reverse", "--parents")
    return {line.split()[0]: line.split()[1:] for line in lines if line}


def tip_files(layout: Layout, commits: dict[str, list[str]]) -> frozenset[tuple[str, str]]:
    """The (path, blob) of every file at the range's heads (its commits with no child in it): the
    versions backfill keeps in the caches, those later readers ask for (blame-intent at a branch's
    tip, the next commit's post-commit hook). One `git ls-tree` per head."""
    parents = {parent for of in commits.values() for parent in of}
    files: set[tuple[str, str]] = set()
    for head in (commit for commit in commits if commit not in parents):
        listing = run_git(["ls-tree", "-r", "-z", "--full-tree", head], layout.root)
        for entry in listing.split(b"\0"):
            meta, _, name = entry.partition(b"\t")
            fields = meta.split()
            if len(fields) == 3 and fields[1] == b"blob":
                files.add((name.decode("utf-8", "surrogateescape"), fields[2].decode()))
    return frozenset(files)


def file_owner(policy: Policy, path: str) -> str | None:
    """The one intent whose scope owns `path` (None: exempt, unowned, or owned by several)."""
    if policy.is_exempt(path):
        return None
    owners = policy.owners(path)
    return owners[0] if len(owners) == 1 else None


class ScopeOwners:
    """`file_owner` of a policy, remembered per path: a history changes the same paths again and
    again, and matching a path against every scope costs more than the rest of its attribution."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.known: dict[str, str | None] = {}

    def __call__(self, path: str) -> str | None:
        if path not in self.known:
            self.known[path] = file_owner(self.policy, path)
        return self.known[path]


def infer_by_scope(owner_of: Callable[[str], str | None], files: list[str],
                   deleted: list[str]) -> tuple[str | None, dict[str, str | None]]:
    """Per changed file its owner (`owner_of`: `file_owner`), and the commit's intent: the one
    intent owning its paths (deleted ones too), or None when they serve several or none."""
    per_file = {path: owner_of(path) for path in files}
    owners = {i for i in per_file.values() if i} | {i for i in map(owner_of, deleted) if i}
    return (owners.pop() if len(owners) == 1 else None), per_file


def refuse_while_unmerged(layout: Layout) -> None:
    """Backfill writes a record only for a commit no record it can see covers: notes fetched
    from a remote and not merged yet are records it cannot see, so it refuses until they are."""
    from gitai.errors import GitaiError
    from gitai.trace.travel import remote_of, sync_command, unmerged_refs

    unmerged = unmerged_refs(layout)
    if unmerged:
        raise GitaiError(f"the records fetched from {remote_of(unmerged[0])} are not merged yet (backfill would "
                         f"duplicate them); run '{sync_command(unmerged[0])}' first")


def backfill(
    layout: Layout,
    policy: Policy | None,
    revision_range: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    every_ref: bool = False,
    infer: str = "scope",
    jobs: int | None = None,
) -> BackfillResult:
    """Record every commit of the range that has no record of its own (`infer`: "scope" or "none").
    A record is stored only if its commit is still untraced when its batch is written (under the
    trace lock), so concurrent runs never duplicate. `jobs`: processes classifying (None: one per
    core for a long history; 1: none besides this one), see `Classifiers`."""
    import gc

    # Python's cycle collector off for the run (the workers fork with it off too): backfill allocates
    # millions of short-lived objects while it holds large live ones (syntax trees, memos, line
    # origins), so the collector ran thousands of times over the same live objects, 5 to 7% of the
    # run's CPU on click; and the run makes next to no cyclic garbage (406 unreachable objects at the
    # end of click's whole history, in one process). Reference counting frees the rest as before.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _backfill(layout, policy, revision_range, progress, every_ref, infer, jobs)
    finally:
        if collecting:
            gc.enable()


def _backfill(layout: Layout, policy: Policy | None, revision_range: str | None,
              progress: Callable[[int, int], None] | None, every_ref: bool, infer: str,
              jobs: int | None) -> BackfillResult:
    refuse_while_unmerged(layout)
    graph = commits_in(layout, revision_range, every_ref)
    commits = list(graph)
    notes = notes_of(layout, commits)
    untraced = [c for c in commits if not own_records(notes.get(c, []), c)]
    trailers = commit_intents(layout.root, untraced)
    tips = tip_files(layout, graph) if untraced else frozenset()
    result = BackfillResult()
    owner_of = ScopeOwners(policy) if policy is not None else None
    sources: dict[str, str] = {}
    history = LastChanges(layout.root)
    # forked before any git process of ours is open (a worker would hold its pipes)
    workers = _workers(jobs, len(untraced))
    with Classifiers(layout, workers, len(untraced), tip_blobs(tips)) as classifiers, \
            ObjectReader(layout.root) as reader:
        objects = reader.read_many(untraced)
        parents_of = {sha: commit_parents(reader, sha, objects.get(sha)) for sha in untraced}
        del objects
        pairs: list[tuple[str | None, str]] = []  # every diff the commits need, in the order asked
        for sha in untraced:
            pairs += [(parent, sha) for parent in parents_of[sha]] or [(None, sha)]

        def stored(record: TraceRecord) -> None:
            result.traced.append(record.revision)
            result.by_source[sources[record.revision]] += 1
            result.several += len(record.intents) > 1

        with DiffStream(layout.root, pairs) as stream, \
                RecordBatch(layout, last_change_of=history, on_stored=stored, tips=tips) as batch:

            def diff(parent: str | None, commit: str) -> tuple[list[RawChange], list[list[Hunk] | None] | None]:
                raw, hunks = stream(parent, commit)
                history.learn(commit, parent, frozenset(p for c in raw for p in (c.old_path, c.new_path)))
                return raw, hunks

            for number, sha in enumerate(commits, start=1):
                if sha not in parents_of:
                    result.skipped += 1
                else:
                    changes = commit_changes(layout.root, reader, sha, parents_of[sha], diff)
                    intent_id, source, per_file = _intent(trailers.get(sha), infer, owner_of, changes)
                    extra: dict[str, Any] = {"backfilled": True}
                    if notes.get(sha):  # a note copied from a rewritten commit (notes.rewriteRef)
                        extra["rewritten_from"] = sorted({r.revision for r in notes[sha]})
                    sources[sha] = source
                    classifiers.add(Pending(sha, parents_of[sha], changes, intent_id, extra,
                                            None if source == "unattributed" else source, per_file), batch)
                if progress:
                    progress(number, len(commits))
            classifiers.finish(batch)
    result.skipped += len(batch.dropped)  # another run traced them meanwhile
    return result


def _intent(trailer: str | None, infer: str, owner_of: Callable[[str], str | None] | None,
            changes: CommitChanges) -> tuple[str | None, str, dict[str, str | None] | None]:
    """The commit's intent, where it comes from, and (inferred) each file's (`owner_of`: None
    without a policy; else `file_owner`)."""
    if trailer is not None:
        return trailer, "trailer", None
    if infer != "scope" or owner_of is None:
        return None, "unattributed", None
    intent_id, per_file = infer_by_scope(owner_of, [f.path for f in changes.files], [p for p, _ in changes.deleted])
    if not (intent_id or any(per_file.values())):
        return intent_id, "unattributed", None
    return intent_id, "scope", per_file


@dataclass
class Pending:
    """A commit read and attributed, waiting for its classification."""

    commit: str
    parents: list[str]
    changes: CommitChanges
    intent_id: str | None
    extra: dict[str, Any]
    intent_source: str | None
    per_file: dict[str, str | None] | None


PARALLEL_FROM = 64  # commits to trace from which, by default, classification runs in worker processes
ROUND_COMMITS = 64  # consecutive commits per round of tasks (one per worker), at most: a short history is cut in four
ROUND_BYTES = 16 << 20  # file content per round, at most (a round's input is held in both processes)
ROUNDS = 3  # rounds given to the workers and not collected yet, at most
# What classifying a changed file costs besides its bytes, as the bytes that cost as much: a worker's CPU
# per change measured on click's history is about 0.7 ms plus 25 ns per content byte (parse, hashes,
# pairing); counted in bytes alone, the worker given many small files did half as much again as the other.
CHANGE_COST_BYTES = 28_000


def _workers(jobs: int | None, commits: int) -> int:
    """How many worker processes to classify with (0: classify here)."""
    if jobs is None:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        jobs = cores if commits >= PARALLEL_FROM else 1
    return jobs if jobs > 1 else 0


_worker_hashes: HashCache | None = None


def _start_worker(state_dir: str, written: frozenset[str] | None, parent: int) -> None:
    """`written`: the blobs whose normal forms the worker keeps on disk (see `RecordBatch`);
    `parent`: backfill's pid, with which the worker ends (killed, it would leave it waiting)."""
    import signal

    from gitai.util.lifetime import die_with_parent

    global _worker_hashes
    die_with_parent()
    if os.getppid() != parent:
        os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # an interrupt is the parent's to handle
    from gitai.syntax.hash_cache import HashCache

    _worker_hashes = HashCache(state_dir, recent=256, written=written)


def _prepare_files(task: list[tuple[FileChange, list[int]]]) -> list[PreparedFile]:
    """A worker's part of a round: the versions of its files, in commit order, each with the lines
    its commit added (the answers cut to what the records need)."""
    from gitai.syntax.classify import for_record, prepare_file

    assert _worker_hashes is not None
    hashes = _worker_hashes
    return [for_record(prepare_file(change, hashes.hash_source, hashes.statements), lines) for change, lines in task]


def _content_bytes(change: FileChange) -> int:
    """The file content a change's classification reads."""
    return len(change.old_data or b"") + len(change.new_data or b"")


def _answered(answer: list[PreparedFile]) -> Future[list[PreparedFile]]:
    future: Future[list[PreparedFile]] = Future()
    future.set_result(answer)
    return future


def _failed() -> Future[list[PreparedFile]]:
    future: Future[list[PreparedFile]] = Future()
    future.set_exception(BrokenProcessPool("a worker process died"))
    return future


class FileOwners:
    """Which of `workers` processes each file's versions go to, for the whole run: its old path's
    (a rename keeps it); a file seen first goes to the one given the least work so far (content
    bytes, and `CHANGE_COST_BYTES` per change)."""

    def __init__(self, workers: int) -> None:
        self.owner: dict[str, int] = {}
        self.given = [0] * workers

    def of(self, change: FileChange) -> int:
        path = change.old_path if change.old_data is not None else change.new_path
        worker = self.owner.get(path or "")
        if worker is None:
            worker = min(range(len(self.given)), key=self.given.__getitem__)
        for named in (change.old_path, change.new_path):
            if named is not None:
                self.owner[named] = worker
        self.given[worker] += _content_bytes(change) + CHANGE_COST_BYTES
        return worker


class Classifiers:
    """Classification, the bulk of backfill's work, in `workers` forked processes (0: here), while
    this one reads the next commits (`commits` in all) and keeps records and line origins in order.

    Each worker owns a set of files for the whole run (`FileOwners`), so every version of a file is
    parsed in the same process, from the tree of the version before, and none is parsed afresh for
    having gone to another worker. The workers do the part of each file's classification that reads
    its contents (`prepare_file`: parses, normal-form hashes, definitions paired) and answer with
    what the record needs of it (`for_record`); this process does the rest, commit by commit in
    order (moves between files, the verdicts), which is little. The commits go by rounds of
    consecutive ones, one task per worker. Should a worker die, what is left is classified here.
    `written`: see `_start_worker`."""

    def __init__(self, layout: Layout, workers: int, commits: int, written: frozenset[str] | None = None) -> None:
        self.size = min(ROUND_COMMITS, -(-commits // 4))  # commits per round
        self.owners = FileOwners(workers)
        self.round: list[tuple[Pending, list[int]]] = []  # commits, and the worker of each file of theirs
        self.tasks: list[list[tuple[FileChange, list[int]]]] = [[] for _ in range(workers)]
        self.round_bytes = 0
        self.running: deque[tuple[list[tuple[Pending, list[int]]], list[Future[list[PreparedFile]]]]] = deque()
        self.broken = False
        self.pools: list[ProcessPoolExecutor] = []
        if workers:
            import multiprocessing

            try:
                context = multiprocessing.get_context("fork")
            except ValueError:
                return  # no fork on this platform: classify here
            self.pools = [ProcessPoolExecutor(1, context, _start_worker,
                                              (layout.shared_state_dir, written, os.getpid()))
                          for _ in range(workers)]
            for started in [pool.submit(os.getpid) for pool in self.pools]:  # forks them all now
                started.result()

    def add(self, pending: Pending, batch: RecordBatch) -> None:
        if not self.pools or self.broken:
            while self.running:  # records go in commit order
                self._collect(batch)
            self._record(pending, None, batch)
            return
        routes = []
        for change, lines in zip(file_changes(pending.changes), changed_lines(pending.changes), strict=True):
            worker = self.owners.of(change)
            self.tasks[worker].append((change, lines))
            routes.append(worker)
            self.round_bytes += _content_bytes(change)
        self.round.append((pending, routes))
        if len(self.round) >= self.size or self.round_bytes >= ROUND_BYTES:
            self._submit(batch)

    def _submit(self, batch: RecordBatch) -> None:
        if self.round:
            futures = []
            for pool, task in zip(self.pools, self.tasks, strict=True):
                try:
                    futures.append(pool.submit(_prepare_files, task) if task else _answered([]))
                except BrokenProcessPool:  # a worker died: the rest is classified here
                    futures.append(_failed())
            self.running.append((self.round, futures))
            self.round = []
            self.tasks = [[] for _ in self.pools]
            self.round_bytes = 0
        while len(self.running) > ROUNDS:
            self._collect(batch)

    def _collect(self, batch: RecordBatch) -> None:
        commits, futures = self.running.popleft()
        try:
            answers = [iter(future.result()) for future in futures]
        except BrokenProcessPool:
            self.broken = True
            answers = []
        for pending, routes in commits:
            classification = classify_prepared_files(pending.changes, [next(answers[w]) for w in routes]) \
                if answers else None
            self._record(pending, classification, batch)

    def _record(self, pending: Pending, classification: Classified | None, batch: RecordBatch) -> None:
        batch.add(pending.commit, pending.parents, pending.changes, pending.intent_id, UNKNOWN_CONTRIBUTOR,
                  pending.extra, pending.intent_source, pending.per_file, classification)

    def finish(self, batch: RecordBatch) -> None:
        """Record what is still being classified."""
        if self.pools:
            self._submit(batch)
            while self.running:
                self._collect(batch)

    def __enter__(self) -> Classifiers:
        return self

    def __exit__(self, *exc: object) -> None:
        for pool in self.pools:
            pool.shutdown(wait=True, cancel_futures=True)


def terminal_progress(done: int, total: int) -> None:
    """A one-line progress bar on stderr (only used when stderr is a terminal)."""
    width = 30
    filled = width * done // max(total, 1)
    sys.stderr.write(f"\rbackfill [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()
