"""The oldest git gitai runs with, and the check every command makes before it runs git.

2.38 is the newest feature gitai uses: `git merge-tree --write-tree` (the gate during a merge).
The others are older: `--remerge-diff` 2.36, `rev-parse --path-format` 2.31.
"""

from __future__ import annotations

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
    try:
        proc = subprocess.run(["git", "--version"], capture_output=True)
    except OSError:
        raise GitaiError(f"git not found on PATH; gitai needs git {needed} or later") from None
    text = proc.stdout.decode("utf-8", "replace").strip()
    found = parse_version(text)
    if found is None:
        raise GitaiError(f"cannot tell git's version from {text or 'git --version'!r}; gitai needs git {needed} or later")
    if found[:2] < MINIMUM:
        shown = ".".join(map(str, found))
        raise GitaiError(f"git {shown} found on PATH; gitai needs git {needed} or later")
