"""The oldest git gitai runs with, and the check every command makes before it runs git.

2.38 is the newest feature gitai uses: `git merge-tree --write-tree` (the gate during a merge).
The others are older: `--remerge-diff` 2.36, `rev-parse --path-format` 2.31.
Every command checks, so a git that passed is remembered (in the user's cache directory) by its
path, size, inode and modification time: the check then reads one small file instead of
starting `git --version`.
"""

from __future__ import annotations

import os
import re
import subprocess

from gitai.errors import GitaiError

MINIMUM = (2, 38)


def parse_version(text: str) -> tuple[int, ...] | None:
    """(2, 39, 5) from `git version 2.39.5` (vendor suffixes such as `.windows.1` ignored)."""
    found = re.match(r"git version (\d+)\.(\d+)(?:\.(\d+))?", text.strip())
    return tuple(int(part) for part in found.groups() if part is not None) if found else None


def require_git() -> None:
    """Refuse with one line (exit 2) when git is missing or older than MINIMUM."""
    needed = ".".join(map(str, MINIMUM))
    identity = _identity()
    cache = _cache_path()
    if identity and cache:
        try:
            with open(cache, encoding="utf-8") as handle:
                if handle.read() == identity:
                    return
        except OSError:
            pass
    try:
        proc = subprocess.run(["git", "--version"], capture_output=True)
    except OSError:
        raise GitaiError(f"git not found on PATH; gitai needs git {needed} or later") from None
    text = proc.stdout.decode("utf-8", "replace").strip()
    found = parse_version(text)
    if found is None:
        raise GitaiError(f"cannot tell git's version from {text or 'git --version'!r}; "
                         f"gitai needs git {needed} or later")
    if found[:2] < MINIMUM:
        shown = ".".join(map(str, found))
        raise GitaiError(f"git {shown} found on PATH; gitai needs git {needed} or later")
    if identity and cache:
        from gitai.util.files import write_atomic

        try:
            write_atomic(cache, identity)
        except OSError:
            pass  # no cache directory: the next command asks git again


def _identity() -> str | None:
    """The `git` that PATH finds, as path, size, inode and modification time, and the minimum it passed."""
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        path = os.path.join(directory or ".", "git")
        try:
            stat = os.stat(path)
        except OSError:
            continue
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return f"{os.path.abspath(path)}\0{stat.st_size}\0{stat.st_ino}\0{stat.st_mtime_ns}\0{MINIMUM}\n"
    return None


def _cache_path() -> str | None:
    home = os.environ.get("HOME")
    base = os.environ.get("XDG_CACHE_HOME") or (os.path.join(home, ".cache") if home else "")
    return os.path.join(base, "gitai", "git-version") if os.path.isabs(base) else None
