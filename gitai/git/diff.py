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
DIFF_OPTIONS = ("--no-color", "--no-ext-diff", "--no-textconv", "--diff-algorithm=myers", "--indent-heuristic",
                "--inter-hunk-context=0")
"""Pinned, whatever the user's diff configuration says: hunks must match `git blame`'s line tracking
(the same in every clone: they end up in records). With `--text` (gitai decides what is binary), a
`-diff` attribute does not hide the changes."""

Hunk = tuple[int, int, int, int]
"""One `-U0` hunk: old start, old count, new start, new count (git's numbering: with a count of
0, the start is the line after which the change sits)."""


def raw_and_hunks(root: str, parent: str | None, commit: str) -> tuple[list[RawChange], list[list[Hunk] | None] | None]:
    """The changes of `raw_changes` and, for each in that order, its `-U0` hunks (None where git
    saw a binary file: a real one, or text marked `-diff`, which the caller diffs again with
    `--text`), from one `diff-tree --raw -p`. The hunks are None when the patch does not line up
    with the raw listing (the caller then diffs file by file). Many commits: `DiffStream`."""
    out = run_git(["diff-tree", *RAW_AND_PATCH, "--no-commit-id", parent or empty_tree(root, commit), commit], root)
    return parse_raw_and_hunks(out)


RAW_AND_PATCH = ("-r", "-z", "--raw", "-p", "-U0", "-M", *DIFF_OPTIONS)


def parse_raw_and_hunks(out: bytes) -> tuple[list[RawChange], list[list[Hunk] | None] | None]:
    """Parse one diff of `diff-tree -z --raw -p` (see `raw_and_hunks`)."""
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


class DiffStream:
    """`raw_and_hunks` for many (parent, commit) pairs known in advance (backfill: thousands),
    from one `git diff-tree --stdin` fed by a thread while its output is read as it comes: a
    process per commit cost more than the diffs themselves. Asked for the pairs in their order;
    a pair asked out of order, or a stream that failed, falls back to `raw_and_hunks`."""

    def __init__(self, root: str, pairs: list[tuple[str | None, str]]) -> None:
        import subprocess
        import threading

        self.root = root
        self.pairs = pairs
        self.next = 0
        self.buffer = bytearray()
        self.failed = not pairs
        if self.failed:
            return
        # a root commit alone (with --root: against the empty tree), else "COMMIT PARENT"
        self._proc = subprocess.Popen(["git", "diff-tree", "--stdin", "--root", "--always", *RAW_AND_PATCH],
                                      cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, bufsize=0)
        lines = b"".join(f"{commit} {parent}\n".encode() if parent else f"{commit}\n".encode()
                         for parent, commit in pairs)
        self._writer = threading.Thread(target=self._feed, args=(lines,), daemon=True)
        self._writer.start()

    def _feed(self, lines: bytes) -> None:
        assert self._proc.stdin
        try:
            view = memoryview(lines)
            while view:  # unbuffered: a write may take part of it
                view = view[self._proc.stdin.write(view) or 0:]
            self._proc.stdin.close()
        except OSError:
            pass  # git stopped early: the reader falls back

    def _fill(self) -> bool:
        """Read more output; False at its end."""
        assert self._proc.stdout
        data = self._proc.stdout.read(1 << 16)  # unbuffered: what is there, up to that
        self.buffer += data
        return bool(data)

    def _index(self, byte: bytes, start: int) -> int:
        """Where `byte` next occurs from `start`, reading on as needed (-1: the output ended first)."""
        while (found := self.buffer.find(byte, start)) < 0:
            start = max(start, len(self.buffer) - len(byte) + 1)  # a huge patch is searched once
            if not self._fill():
                return -1
        return found

    def _take(self) -> bytes | None:
        """The next pair's diff (without its header), or None when the output does not line up."""
        header = self.pairs[self.next][1].encode() + b"\0"
        while len(self.buffer) < len(header) and self._fill():
            pass
        if not self.buffer.startswith(header):
            return None
        pos = len(header)
        while True:  # the raw entries, ":META\0PATH\0" (renames and copies: two paths)
            if len(self.buffer) <= pos:
                self._fill()
            if not self.buffer.startswith(b":", pos):
                break
            meta_end = self._index(b"\0", pos)
            if meta_end < 0:
                return None
            paths = 2 if self.buffer[self.buffer.rindex(b" ", pos, meta_end) + 1] in b"RC" else 1
            pos = meta_end
            for _ in range(paths):
                pos = self._index(b"\0", pos + 1)
                if pos < 0:
                    return None
            pos += 1
        if self.next + 1 == len(self.pairs):
            while self._fill():
                pass
            end = len(self.buffer)
        else:  # the patch ends where the next pair's header starts a line (no patch line starts so)
            following = self.pairs[self.next + 1][1].encode() + b"\0"
            while len(self.buffer) < pos + len(following) and self._fill():
                pass
            if self.buffer.startswith(following, pos):
                end = pos
            else:
                end = self._index(b"\n" + following, pos) + 1
                if end == 0:
                    return None
        out = bytes(self.buffer[len(header):end])
        del self.buffer[:end]
        return out

    def __call__(self, parent: str | None, commit: str) -> tuple[list[RawChange], list[list[Hunk] | None] | None]:
        if not self.failed and self.next < len(self.pairs) and self.pairs[self.next] == (parent, commit):
            out = self._take()
            self.next += 1
            if out is not None:
                return parse_raw_and_hunks(out)
            self.failed = True
        return raw_and_hunks(self.root, parent, commit)

    def close(self) -> None:
        if self.pairs:
            self._proc.kill()
            self._proc.wait()
            self._writer.join()

    def __enter__(self) -> DiffStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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


