"""The line-origins value and its compact on-disk form."""

from __future__ import annotations

import re
from itertools import groupby
from typing import Any, NamedTuple

Origin = tuple[str, str]
"""(commit, the file's path in that commit)."""

Origins = list[Origin]
"""One origin per line of a file version, in line order."""

_OBJECT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
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


def lines_form(version: Version, path: str, numbers: list[int]) -> dict[str, Any]:
    """The origins of these lines of the file at `path`, as an AST_REFACTOR file's record keeps
    them (`line_origins`, docs/trace-format.md): a table of commits, then runs
    `[first line, count, commit index]`, with the origin's path appended where it is not `path`."""
    commits: dict[str, int] = {}
    runs: list[list[Any]] = []
    for number in sorted(n for n in numbers if 0 < n <= len(version.origins)):
        commit, origin_path = version.origins[number - 1]
        index = commits.setdefault(commit, len(commits))
        last = runs[-1] if runs else None
        if (last is not None and last[0] + last[1] == number and last[2] == index
                and (last[3] if len(last) > 3 else path) == origin_path):
            last[1] += 1
        else:
            runs.append([number, 1, index] if origin_path == path else [number, 1, index, origin_path])
    return {"commits": list(commits), "lines": runs}


def from_lines_form(data: object, path: str) -> dict[int, Origin]:
    """Line number -> origin from a record's `line_origins` (a note comes from anywhere: a malformed
    one gives nothing, and its lines are followed through git instead)."""
    if not isinstance(data, dict):
        return {}
    commits, runs = data.get("commits"), data.get("lines")
    if not isinstance(commits, list) or not isinstance(runs, list) \
            or not all(isinstance(c, str) and _OBJECT_ID.fullmatch(c) for c in commits):
        return {}
    found: dict[int, Origin] = {}
    for run in runs:
        if not (isinstance(run, list) and len(run) in (3, 4) and all(type(v) is int for v in run[:3])
                and 0 < run[0] and 0 < run[1] <= 1_000_000 and 0 <= run[2] < len(commits)
                and (len(run) == 3 or (isinstance(run[3], str) and "\0" not in run[3]))):
            return {}
        origin = (commits[run[2]], run[3] if len(run) == 4 else path)
        for number in range(run[0], run[0] + run[1]):
            found[number] = origin
    return found
