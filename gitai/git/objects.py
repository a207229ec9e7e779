"""Reading git objects through one long-lived `git cat-file --batch` (no pygit2 on the hook path:
importing it costs about 110 ms)."""

from __future__ import annotations

import subprocess

from gitai.git.runner import run_git

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


def commit_parents(reader: ObjectReader, commit: str) -> list[str]:
    """The parents of a commit, in order, from its object header."""
    parents = []
    for line in reader.read(commit).split(b"\n"):
        if not line:
            break
        if line.startswith(b"parent "):
            parents.append(line[7:].decode())
    return parents
