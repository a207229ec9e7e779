"""Commit data through git plumbing (`diff-tree`, `cat-file --batch`).

The record builder runs in the post-commit hook, where importing pygit2 alone would cost more
than the whole budget (about 110 ms here), so it reads git through a few subprocesses instead.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass

from gitai.git import run_git
from gitai.trace.lines import split_lines

HUNK_HEADER = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)
EMPTY_TREES = {40: "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
               64: "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"}  # SHA-1, SHA-256


def empty_tree(root: str, like: str | None = None) -> str:
    """The empty tree's id in this repository's hash (`like`: any object id of the repository)."""
    if like and len(like) in EMPTY_TREES:
        return EMPTY_TREES[len(like)]
    return run_git(["hash-object", "-t", "tree", "--stdin"], root, input=b"").decode().strip()


class ObjectReader:
    """A long-lived `git cat-file --batch` for reading many objects cheaply."""

    def __init__(self, root: str) -> None:
        self._proc = subprocess.Popen(
            ["git", "cat-file", "--batch"], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    def read(self, oid: str) -> bytes:
        assert self._proc.stdin and self._proc.stdout
        self._proc.stdin.write(oid.encode() + b"\n")
        self._proc.stdin.flush()
        header = self._proc.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            raise KeyError(oid)
        size = int(header[2])
        data = self._proc.stdout.read(size)
        self._proc.stdout.read(1)  # the newline after the object
        return data

    def close(self) -> None:
        if self._proc.stdin:
            self._proc.stdin.close()
        self._proc.wait()

    def __enter__(self) -> ObjectReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True)
class RawChange:
    """One entry of `git diff-tree --raw`."""

    status: str  # A M D R T C (rename and copy scores dropped)
    old_mode: int
    new_mode: int
    old_oid: str
    new_oid: str
    old_path: str
    new_path: str


def raw_changes(root: str, parent: str | None, commit: str) -> list[RawChange]:
    """Changed paths of `commit` against `parent` (None: the empty tree), with rename detection."""
    return parse_raw(run_git(["diff-tree", "-r", "-z", "--raw", "-M", "--no-commit-id",
                                parent or empty_tree(root, commit), commit], root))


def staged_raw_changes(root: str, head: str | None) -> list[RawChange]:
    """What the index changes against HEAD (None: an unborn branch), with rename detection."""
    return parse_raw(run_git(["diff-index", "--cached", "-z", "--raw", "-M", head or empty_tree(root)], root))


def parse_raw(out: bytes) -> list[RawChange]:
    """Parse `--raw -z` output of the diff plumbing commands."""
    fields = out.split(b"\0")
    changes = []
    index = 0
    while index < len(fields) and fields[index].startswith(b":"):
        meta = fields[index][1:].decode().split(" ")
        status = meta[4][0]
        paths = 2 if status in "RC" else 1
        names = [f.decode("utf-8", "surrogateescape") for f in fields[index + 1 : index + 1 + paths]]
        changes.append(RawChange(status, int(meta[0], 8), int(meta[1], 8), meta[2], meta[3], names[0], names[-1]))
        index += 1 + paths
    return changes


BINARY_PATCH = re.compile(rb"^Binary files .* differ$", re.MULTILINE)
DIFF_OPTIONS = ("--no-color", "--no-ext-diff", "--no-textconv", "--diff-algorithm=myers", "--inter-hunk-context=0")
"""Pinned, whatever the user's diff configuration says: hunks must match `git blame`'s line tracking.
With `--text` (gitai decides what is binary), a `-diff` attribute does not hide the changes."""

Hunk = tuple[int, int, int, int]
"""One `-U0` hunk: old start, old count, new start, new count (git's numbering: with a count of
0, the start is the line after which the change sits)."""


def hunks_per_change(root: str, parent: str | None, commit: str, count: int) -> list[list[Hunk] | None] | None:
    """For each change in `raw_changes` order, its `-U0` hunks (None where git saw a binary file:
    a real one, or text marked `-diff`, which the caller diffs again with `--text`).

    Reads one `diff-tree -p -U0` and splits it at the per-file headers; returns None when the
    patch does not line up with the raw listing (the caller then diffs file by file).
    """
    out = run_git(
        ["diff-tree", "-p", "-U0", "-M", *DIFF_OPTIONS, "--no-commit-id", parent or empty_tree(root, commit), commit],
        root,
    )
    chunks = re.split(rb"^diff --git ", out, flags=re.MULTILINE)[1:]
    if len(chunks) != count:
        return None
    return [None if BINARY_PATCH.search(chunk) else parse_hunks(chunk) for chunk in chunks]


def blob_hunks(root: str, old: str | None, new: str) -> list[Hunk]:
    """The `-U0` hunks between two blobs (None: no old file, so every line is added)."""
    if old is None:  # not `git diff EMPTY_BLOB`: the empty blob need not exist in the repository
        count = len(split_lines(run_git(["cat-file", "blob", new], root)))
        return [(0, 0, 1, count)] if count else []
    return parse_hunks(run_git(["diff", "-U0", "--text", *DIFF_OPTIONS, old, new], root))


def parse_hunks(patch: bytes) -> list[Hunk]:
    """The hunk headers of a `-U0` patch."""
    return [
        (int(m.group(1)), int(m.group(2) or 1), int(m.group(3)), int(m.group(4) or 1))
        for m in HUNK_HEADER.finditer(patch)
    ]


def added_lines(hunks: list[Hunk]) -> list[int]:
    """The new-side line numbers the hunks add or change."""
    return [line for _, _, start, length in hunks for line in range(start, start + length)]


def commit_parents(reader: ObjectReader, commit: str) -> list[str]:
    """The parents of a commit, in order, from its object header."""
    parents = []
    for line in reader.read(commit).split(b"\n"):
        if not line:
            break
        if line.startswith(b"parent "):
            parents.append(line[7:].decode())
    return parents
