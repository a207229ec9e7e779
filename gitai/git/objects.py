"""Reading git objects through one long-lived `git cat-file --batch` (no pygit2 on the hook path:
importing it costs about 110 ms)."""

from __future__ import annotations

import subprocess
from typing import TYPE_CHECKING

from gitai.git.runner import run_git

if TYPE_CHECKING:
    from collections.abc import Iterator

EMPTY_TREES = {40: "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
               64: "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"}  # SHA-1, SHA-256


def empty_tree(root: str, like: str | None = None) -> str:
    """The empty tree's id in this repository's hash (`like`: any object id of the repository)."""
    if like and len(like) in EMPTY_TREES:
        return EMPTY_TREES[len(like)]
    return run_git(["hash-object", "-t", "tree", "--stdin"], root, input=b"").decode().strip()


REMEMBERED_BYTES = 32 << 20
"""Contents `ObjectReader.read_many` keeps for later calls, at most."""


class ObjectReader:
    """A long-lived `git cat-file --batch` for reading many objects cheaply."""

    def __init__(self, root: str) -> None:
        self._proc = subprocess.Popen(
            ["git", "cat-file", "--batch"], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self._remembered: dict[str, bytes] = {}  # oldest first (see `read_many`)
        self._remembered_bytes = 0

    def read(self, oid: str) -> bytes:
        data = self.read_at_most(oid, None)
        assert data is not None
        return data

    def read_at_most(self, oid: str, limit: int | None) -> bytes | None:
        """The object's content; None (its bytes skipped unread) when it is larger than `limit`."""
        assert self._proc.stdin and self._proc.stdout
        self._proc.stdin.write(oid.encode() + b"\n")
        self._proc.stdin.flush()
        header = self._proc.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            raise KeyError(oid)
        size = int(header[2])
        if limit is not None and size > limit:
            self._skip(size)
            return None
        data = self._proc.stdout.read(size)
        self._proc.stdout.read(1)  # the newline after the object
        return data

    def _skip(self, size: int) -> None:
        """Read past an object of `size` bytes (and its newline) without keeping it."""
        assert self._proc.stdout
        while size:
            size -= len(self._proc.stdout.read(min(size, 1 << 20)))
        self._proc.stdout.read(1)

    def read_many(self, oids: list[str], remember: bool = False, limit: int | None = None) -> dict[str, bytes]:
        """The contents of many objects, asked for together (a round trip per batch, not per
        object); missing ones are left out, and so are those larger than `limit` (their bytes
        skipped unread). `remember`: keep them (the newest, up to REMEMBERED_BYTES in all) for
        later calls: a file's new version in one commit is its old one in the next, read again
        otherwise (a history's blobs twice over)."""
        assert self._proc.stdin and self._proc.stdout
        found: dict[str, bytes] = {}
        unique = list(dict.fromkeys(oids))
        if self._remembered:
            for oid in unique:
                data = self._remembered.pop(oid, None)
                if data is not None:
                    self._remembered[oid] = data  # the newest again
                    if limit is None or len(data) <= limit:
                        found[oid] = data
            unique = [oid for oid in unique if oid not in self._remembered]
        for start in range(0, len(unique), 256):  # requests well under a pipe's buffer: no deadlock
            batch = unique[start:start + 256]
            self._proc.stdin.write(b"".join(oid.encode() + b"\n" for oid in batch))
            self._proc.stdin.flush()
            for oid in batch:
                header = self._proc.stdout.readline().split()
                if len(header) < 3 or header[1] == b"missing":
                    continue
                size = int(header[2])
                if limit is not None and size > limit:
                    self._skip(size)
                    continue
                found[oid] = self._proc.stdout.read(size)
                self._proc.stdout.read(1)
        if remember:
            for oid in unique:
                data = found.get(oid)
                if data is not None and len(data) <= REMEMBERED_BYTES:
                    self._remembered[oid] = data
                    self._remembered_bytes += len(data)
            while self._remembered_bytes > REMEMBERED_BYTES:
                self._remembered_bytes -= len(self._remembered.pop(next(iter(self._remembered))))
        return found

    def tree_entry(self, commit: str, path: str) -> str | None:
        """The id of the object at `path` in `commit`'s tree (None: no such path). Raises KeyError
        when the commit itself is missing. Reads tree objects, so any path (newlines too) works."""
        found = self.entry(commit, path)
        return found[1] if found else None

    def blob_at(self, commit: str, path: str) -> str | None:
        """The blob of the file (regular or symbolic link) at `path` in `commit` (None: none there)."""
        found = self.entry(commit, path)
        return found[1] if found and found[0] in (b"100644", b"100755", b"120000") else None

    def entry(self, commit: str, path: str) -> tuple[bytes, str] | None:
        """The mode and id of the object at `path` in `commit`'s tree (None: no such path)."""
        data = self.read(commit)
        if not data.startswith(b"tree "):
            raise KeyError(commit)
        oid = data[5:data.index(b"\n")].decode()
        raw_length = len(oid) // 2  # 20 bytes for SHA-1, 32 for SHA-256
        mode = b"40000"
        for name in path.encode("utf-8", "surrogateescape").split(b"/"):
            if mode != b"40000":
                return None  # a path below a file
            tree = self.read(oid)
            found = None
            position = 0
            while position < len(tree):
                space = tree.index(b" ", position)
                nul = tree.index(b"\0", space)
                if tree[space + 1:nul] == name:
                    mode, found = tree[position:space], tree[nul + 1:nul + 1 + raw_length].hex()
                    break
                position = nul + 1 + raw_length
            if found is None:
                return None
            oid = found
        return mode, oid

    def close(self) -> None:
        """End git: its output is closed too, so an answer left unread (a read cut short by an
        interrupt) ends it with a broken pipe instead of leaving it, and this wait, blocked."""
        for stream in (self._proc.stdin, self._proc.stdout):
            if stream:
                try:
                    stream.close()
                except OSError:  # a request left in the buffer for a git already gone
                    pass
        self._proc.wait()

    def __enter__(self) -> ObjectReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_objects(root: str, oids: list[str]) -> Iterator[tuple[str, bytes | None]]:
    """Each object's content (None: missing), in order, through one `git cat-file --batch` whose
    requests a thread writes while the answers are read: no round trip per object (a full rebuild
    of the notes index reads 100,000 notes). Stopping early ends git."""
    if not oids:
        return  # no git process for nothing (a caller's zip(strict=True) asks for the end)
    import threading

    proc = subprocess.Popen(["git", "cat-file", "--batch"], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    stdin, stdout = proc.stdin, proc.stdout
    assert stdin is not None and stdout is not None

    def feed() -> None:
        try:
            for oid in oids:
                stdin.write(oid.encode() + b"\n")
            stdin.close()
        except (OSError, ValueError):
            pass  # git ended (the reader stopped early)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    done = False
    try:
        for oid in oids:
            header = stdout.readline().split()
            if len(header) < 3:  # "<oid> missing" (or ambiguous)
                yield oid, None
                continue
            data = stdout.read(int(header[2]))
            stdout.read(1)  # the newline after the object
            yield oid, data
        done = True
    finally:
        if not done and proc.poll() is None:
            proc.kill()
        writer.join()
        stdout.close()
        proc.wait()


def commit_parents(reader: ObjectReader, commit: str, data: bytes | None = None) -> list[str]:
    """The parents of a commit, in order, from its object header (`data`: the object, read already)."""
    parents = []
    for line in (reader.read(commit) if data is None else data).split(b"\n"):
        if not line:
            break
        if line.startswith(b"parent "):
            parents.append(line[7:].decode())
    return parents
