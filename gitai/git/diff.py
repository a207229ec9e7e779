"""Commit data through git plumbing (`diff-tree`, `cat-file --batch`).

The record builder runs in the post-commit hook, where importing pygit2 alone would cost more
than the whole budget (about 110 ms here), so it reads git through a few subprocesses instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gitai.git.objects import empty_tree
from gitai.git.runner import run_git
from gitai.util.lines import split_lines

HUNK_HEADER = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


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


def raw_and_hunks(root: str, parent: str | None, commit: str) -> tuple[list[RawChange], list[list[Hunk] | None] | None]:
    """The changes of `raw_changes` and, for each in that order, its `-U0` hunks (None where git
    saw a binary file: a real one, or text marked `-diff`, which the caller diffs again with
    `--text`), from one `diff-tree --raw -p`: one process per commit (backfill runs thousands).
    The hunks are None when the patch does not line up with the raw listing (the caller then
    diffs file by file)."""
    out = run_git(["diff-tree", "-r", "-z", "--raw", "-p", "-U0", "-M", *DIFF_OPTIONS, "--no-commit-id",
                   parent or empty_tree(root, commit), commit], root)
    changes: list[RawChange] = []
    pos = 0
    while out.startswith(b":", pos):
        end = out.index(b"\0", pos)
        meta = out[pos + 1 : end].decode().split(" ")
        pos = end + 1
        status = meta[4][0]
        names = []
        for _ in range(2 if status in "RC" else 1):
            end = out.index(b"\0", pos)
            names.append(out[pos:end].decode("utf-8", "surrogateescape"))
            pos = end + 1
        changes.append(RawChange(status, int(meta[0], 8), int(meta[1], 8), meta[2], meta[3], names[0], names[-1]))
    chunks = re.split(rb"^diff --git ", out[pos:].lstrip(b"\0"), flags=re.MULTILINE)[1:]
    if len(chunks) != len(changes):
        return changes, None
    return changes, [None if BINARY_PATCH.search(chunk) else parse_hunks(chunk) for chunk in chunks]


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


