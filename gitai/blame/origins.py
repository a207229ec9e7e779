"""The line-origins value and its compact on-disk form."""

from __future__ import annotations

from itertools import groupby
from typing import Any, NamedTuple

Origin = tuple[str, str]
"""(commit, the file's path in that commit)."""

Origins = list[Origin]
"""One origin per line of a file version, in line order."""

MAX_UNRECORDED = 512  # a version resting on more commits without a record is not kept


class Version(NamedTuple):
    """A file version's origins, and the commits without a record that they rest on: were one of
    those to get a record later (sync, backfill) classifying it AST_REFACTOR, the origins would
    change, so a kept version is only good while none of them has a record."""

    origins: Origins
    unrecorded: frozenset[str] = frozenset()


def encode(version: Version) -> dict[str, Any]:
    """Run-length form: tables of commits and paths, then [count, commit index, path index] runs."""
    commits: dict[str, int] = {}
    paths: dict[str, int] = {}
    runs: list[list[int]] = []
    for (commit, path), group in groupby(version.origins):
        count = len(list(group))
        runs.append([count, commits.setdefault(commit, len(commits)), paths.setdefault(path, len(paths))])
    return {"commits": list(commits), "paths": list(paths), "runs": runs, "unrecorded": sorted(version.unrecorded)}


def decode(data: dict[str, Any]) -> Version:
    """The inverse of `encode`."""
    commits, paths = data["commits"], data["paths"]
    origins: Origins = []
    for count, commit, path in data["runs"]:
        origins.extend([(commits[commit], paths[path])] * count)
    return Version(origins, frozenset(data["unrecorded"]))
