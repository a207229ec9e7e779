"""The few facts about history that line origins need, through git plumbing."""

from __future__ import annotations

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


BLAME_OPTIONS = ("--diff-algorithm=myers",)
"""Whatever the user's configuration says: the diff the hooks use. (`blame.ignoreRevsFile` still
applies: git 2.39 offers no way to turn it off for one run.)"""


def git_blame(root: str, commit: str, path: str, exclude: list[str],
              lines: list[tuple[int, int]] | None = None) -> list[BlamedRun]:
    """`git blame --incremental --root [-L START,END...] COMMIT ^EXCLUDED... -- PATH`, as runs in line order."""
    ranges = [f"-L{start},{end}" for start, end in lines or []]
    args = ["blame", "--incremental", "--root", *BLAME_OPTIONS, *ranges, commit, *(f"^{c}" for c in exclude), "--", path]
    proc = git_process(args, root)
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitaiError(f"git blame failed: {message[-1] if message else proc.returncode}")
    return parse_incremental(proc.stdout)


def parse_incremental(output: bytes) -> list[BlamedRun]:
    """Parse `git blame --incremental`: per run of lines, a header `SHA ORIG FINAL COUNT`, the
    commit's details the first time it appears (`boundary` among them), then `filename NAME`,
    which ends the entry (so a header is only looked for at the start of an entry)."""
    runs: list[BlamedRun] = []
    boundaries: set[bytes] = set()
    sha, orig, final, count = b"", 0, 0, 0
    expect_header = True
    for raw in output.split(b"\n"):
        if expect_header:
            if not raw:
                continue
            sha, orig_text, final_text, count_text = raw.split(b" ")
            orig, final, count = int(orig_text), int(final_text), int(count_text)
            expect_header = False
        elif raw.startswith(b"filename "):
            runs.append(BlamedRun(sha.decode(), unquote_path(raw[9:]), orig, final, count, sha in boundaries))
            expect_header = True
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
