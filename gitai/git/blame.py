"""The few facts about history that line origins need, through git plumbing."""

from __future__ import annotations

import subprocess
from bisect import bisect_right
from collections.abc import Callable, Iterable

from gitai.errors import GitaiError
from gitai.git.runner import git_process, run_git


def blob_id(root: str, commit: str, path: str) -> str | None:
    """The blob `path` has at `commit` (None: no such file there)."""
    proc = git_process(["rev-parse", "-q", "--verify", f"{commit}:{path}"], root)
    oid = proc.stdout.decode().strip()
    return oid if proc.returncode == 0 and oid else None


def parents_of(root: str, commit: str) -> list[str]:
    """The parents of `commit`, in order."""
    proc = git_process(["rev-parse", f"{commit}^@"], root)
    return proc.stdout.decode().split()


def last_change(root: str, commit: str, path: str) -> str | None:
    """The newest commit, from `commit` back, that changed `path` (git log's history simplification)."""
    proc = git_process(["--literal-pathspecs", "log", "-1", "--format=%H", commit, "--", path], root)
    return proc.stdout.decode().strip() or None


class LastChanges:
    """`last_change` for a history walked oldest first (backfill), answered from each commit's
    changed paths against each of its parents, as learned from the diffs already made: git log's
    default simplification is one chain (a merge with a parent it is the same as, for the path,
    follows the first such parent; a commit changing the path against every parent is the answer;
    a root commit is, when it has the path), so no `git log` per question. Commits not learned
    (outside the walk) ask git.

    Runs of single-parent commits learned one after the other (each the parent of the next) are
    answered at once: the newest commit of the run, up to the one asked about, that changed the
    path (a sorted list of positions per path). So a question costs a step per run crossed, not
    per commit, and nothing is kept per (commit, path) but the answers: on a long linear history
    (100,000 commits, 50,000 files) a step-by-step memo grew with commits x files."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.changed: dict[str, list[tuple[str | None, frozenset[str]]]] = {}
        self.order: list[str] = []  # learned commits, in the order learned
        self.position: dict[str, int] = {}
        self.run_start: dict[str, int] = {}  # where the commit's run of single-parent commits begins
        self.changes_of: dict[str, list[int]] = {}  # path -> positions of the commits that changed it
        self.known: dict[tuple[str, str], str | None] = {}

    def learn(self, commit: str, parent: str | None, paths: frozenset[str]) -> None:
        """The paths `commit` changes against `parent` (None: a root commit's files); parents in order."""
        sides = self.changed.setdefault(commit, [])
        sides.append((parent, paths))
        if len(sides) > 1:  # a merge: a run of its own
            self.run_start[commit] = self.position[commit]
            return
        position = len(self.order)
        follows = parent is not None and self.order and self.order[-1] == parent
        self.run_start[commit] = self.run_start[parent] if follows and parent else position
        self.position[commit] = position
        self.order.append(commit)
        for path in paths:
            self.changes_of.setdefault(path, []).append(position)

    def __call__(self, commit: str, path: str) -> str | None:
        if (commit, path) in self.known:
            return self.known[commit, path]
        current = commit
        while True:
            position = self.position.get(current)
            if position is None:  # outside the walk
                found = last_change(self.root, current, path)
                break
            start = self.run_start[current]
            if start < position:  # the run's commits after its first, up to this one
                changes = self.changes_of.get(path, [])
                newest = bisect_right(changes, position) - 1
                if newest >= 0 and changes[newest] > start:
                    found = self.order[changes[newest]]
                    break
                current = self.order[start]
            sides = self.changed[current]
            if sides[0][0] is None:  # a root commit
                found = current if path in sides[0][1] else None
                break
            same = next((parent for parent, paths in sides if path not in paths), None)
            if same is None:
                found = current
                break
            current = same
        self.known[commit, path] = found
        return found


def commit_graph(root: str, commit: str) -> dict[str, list[str]]:
    """Every commit reachable from `commit` -> its parents, children before parents (one
    `git rev-list --topo-order --parents`)."""
    graph: dict[str, list[str]] = {}
    for line in run_git(["rev-list", "--topo-order", "--parents", commit, "--"], root).decode().splitlines():
        child, *parents = line.split()
        graph[child] = parents
    return graph


class BlamedRun:
    """What `git blame` says of a run of lines: the commit, the file's path there, where the run
    starts there and here, how long it is, and whether the commit is a boundary (one of the
    excluded commits, where blame stopped)."""

    __slots__ = ("commit", "path", "orig_start", "final_start", "count", "boundary")

    def __init__(self, commit: str, path: str, orig_start: int, final_start: int, count: int, boundary: bool) -> None:
        self.commit, self.path, self.boundary = commit, path, boundary
        self.orig_start, self.final_start, self.count = orig_start, final_start, count


BLAME_OPTIONS = ("--diff-algorithm=myers", "--indent-heuristic", "--no-textconv", "--ignore-revs-file=")
"""Whatever the user's configuration says (`diff.*`, `blame.ignoreRevsFile`; the empty
`--ignore-revs-file=` clears the configured list): the diff the hooks use, the same in every clone,
since what `git blame` answers ends up in records (`line_origins`)."""


_started: dict[tuple[str, str, str], subprocess.Popen[bytes]] = {}
"""Whole-file blames started ahead (`start_blame`), by (root, commit, path)."""


def start_blame(root: str, commit: str, path: str) -> None:
    """Start `git blame` of the whole file now, for `git_blame` to take up later in this process:
    what is left of it at exit is ended."""
    if not _started:
        import atexit

        atexit.register(_end_started)
    proc = subprocess.Popen(_blame_args(commit, path, [], None), cwd=root, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    try:  # room for what git writes before it is read (64 KB by default: it would wait)
        import fcntl

        fcntl.fcntl(proc.stdout.fileno(), fcntl.F_SETPIPE_SZ, 1 << 20)
    except (ImportError, AttributeError, OSError):
        pass  # not Linux, or over the system's limit: git waits for the reader, no more
    _started[root, commit, path] = proc


def _end_started() -> None:
    for proc in _started.values():
        proc.kill()
        proc.wait()


def _blame_args(commit: str, path: str, exclude: list[str], lines: list[tuple[int, int]] | None) -> list[str]:
    ranges = [f"-L{start},{end}" for start, end in lines or []]
    return ["git", "blame", "--incremental", "--root", *BLAME_OPTIONS, *ranges, commit,
            *(f"^{c}" for c in exclude), "--", path]


def git_blame(root: str, commit: str, path: str, exclude: list[str],
              lines: list[tuple[int, int]] | None = None,
              on_commit: Callable[[str], None] | None = None) -> list[BlamedRun]:
    """`git blame --incremental --root [-L START,END...] COMMIT ^EXCLUDED... -- PATH`, as runs in line
    order (taken up from `start_blame` when it started this one). `on_commit` sees each commit
    named as git names it, while git goes on walking (a reader of the commits' notes then costs
    no time of its own)."""
    import tempfile

    started = _started.pop((root, commit, path), None) if not exclude and not lines else None
    if started is not None:
        runs = _runs_of(started, on_commit)
        if started.returncode == 0:
            return runs
        on_commit = None  # it failed: run it again for git's message (the commits it named were seen)
    with tempfile.TemporaryFile() as errors:  # a file, not a pipe: git never waits on an unread stderr
        proc = subprocess.Popen(_blame_args(commit, path, exclude, lines), cwd=root, stdout=subprocess.PIPE,
                                stderr=errors)
        runs = _runs_of(proc, on_commit)
        if proc.returncode != 0:
            errors.seek(0)
            message = errors.read().decode("utf-8", "replace").strip().splitlines()
            raise GitaiError(f"git blame failed: {message[-1] if message else proc.returncode}")
    return runs


def _runs_of(proc: subprocess.Popen[bytes], on_commit: Callable[[str], None] | None) -> list[BlamedRun]:
    """The runs a started `git blame --incremental` gives, once it has ended."""
    assert proc.stdout is not None
    try:
        return parse_incremental(proc.stdout, on_commit)
    except BaseException:  # the parser or `on_commit` failed: no git left running
        proc.kill()
        raise
    finally:
        proc.stdout.close()
        proc.wait()


def parse_incremental(output: Iterable[bytes], on_commit: Callable[[str], None] | None = None) -> list[BlamedRun]:
    """Parse the lines of `git blame --incremental`: per run of lines, a header `SHA ORIG FINAL
    COUNT`, the commit's details the first time it appears (`boundary` among them), then `filename
    NAME`, which ends the entry (so a header is only looked for at the start of an entry)."""
    runs: list[BlamedRun] = []
    boundaries: set[bytes] = set()
    seen: set[bytes] = set()
    sha, orig, final, count = b"", 0, 0, 0
    expect_header = True
    for raw in output:
        raw = raw.rstrip(b"\n")
        if expect_header:
            if not raw:
                continue
            sha, orig_text, final_text, count_text = raw.split(b" ")
            orig, final, count = int(orig_text), int(final_text), int(count_text)
            expect_header = False
        elif raw.startswith(b"filename "):
            runs.append(BlamedRun(sha.decode(), unquote_path(raw[9:]), orig, final, count, sha in boundaries))
            expect_header = True
            if on_commit is not None and sha not in seen:
                seen.add(sha)
                on_commit(sha.decode())
        elif raw == b"boundary":
            boundaries.add(sha)
    return sorted(runs, key=lambda run: run.final_start)


def file_history(root: str, commit: str, path: str, limit: int | None = None) -> list[tuple[str, str | None]]:
    """The commits, from `commit` back, that changed `path` (git log's history simplification,
    no rename following), newest first, each with the file's blob after it (None: deleted, or a
    merge, whose changes git log does not list); `limit`: only that many of the newest."""
    count = [f"--max-count={limit}"] if limit is not None else []
    out = run_git(["--literal-pathspecs", "log", "-z", "--raw", "--no-abbrev", "--no-renames", "--format=%x01%H",
                   *count, commit, "--", path], root)
    history: list[tuple[str, str | None]] = []
    path_follows = False  # with -z, a raw entry is its `:modes oids status` item, then the path
    for item in out.split(b"\0"):
        if path_follows:
            path_follows = False
            continue
        item = item.lstrip(b"\n")
        if item.startswith(b"\x01"):
            history.append((item[1:].decode(), None))
        elif item.startswith(b":") and history:
            path_follows = True
            fields = item.split()
            if fields[4] != b"D":
                history[-1] = (history[-1][0], fields[3].decode())
    return history


C_ESCAPES = {b"a": 7, b"b": 8, b"t": 9, b"n": 10, b"v": 11, b"f": 12, b"r": 13, b'"': 34, b"\\": 92}


def unquote_path(raw: bytes) -> str:
    """Undo git's quoting of unusual file names (`"src/\\303\\251.py"` -> `src/é.py`)."""
    if not (raw.startswith(b'"') and raw.endswith(b'"') and len(raw) >= 2):
        return raw.decode("utf-8", "surrogateescape")
    out = bytearray()
    body, i = raw[1:-1], 0
    while i < len(body):
        if body[i : i + 1] == b"\\" and i + 1 < len(body):
            digits = body[i + 1 : i + 4]
            if len(digits) == 3 and digits.isdigit():
                out.append(int(digits, 8))
                i += 4
                continue
            nxt = body[i + 1 : i + 2]
            out.append(C_ESCAPES.get(nxt, nxt[0]))
            i += 2
            continue
        out.append(body[i])
        i += 1
    return bytes(out).decode("utf-8", "surrogateescape")
