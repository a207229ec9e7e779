"""The line-origins value and its compact on-disk form."""

from __future__ import annotations

from itertools import groupby
from typing import Any

Origin = tuple[str, str]
"""(commit, the file's path in that commit)."""

Origins = list[Origin]
"""One origin per line of a file version, in line order."""


def encode(origins: Origins) -> dict[str, Any]:
    """Run-length form: tables of commits and paths, then [count, commit index, path index] runs."""
    commits: dict[str, int] = {}
    paths: dict[str, int] = {}
    runs: list[list[int]] = []
    for (commit, path), group in groupby(origins):
        count = sum(1 for _ in group)
        runs.append([count, commits.setdefault(commit, len(commits)), paths.setdefault(path, len(paths))])
    return {"commits": list(commits), "paths": list(paths), "runs": runs}


def decode(data: dict[str, Any]) -> Origins:
    """The inverse of `encode`."""
    commits, paths = data["commits"], data["paths"]
    origins: Origins = []
    for count, commit, path in data["runs"]:
        origins.extend([(commits[commit], paths[path])] * count)
    return origins
