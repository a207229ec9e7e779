"""The line-origins value and its compact on-disk form."""

from __future__ import annotations

import re
from bisect import bisect_right
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


MAX_LINE_ORIGIN_RUNS = 4096
"""Beyond this many runs a record keeps no line origins for the file (its lines are followed
through git): a reformat of a huge file with a fragmented history must not make a huge note."""


def lines_form(version: Version, path: str, numbers: list[int]) -> dict[str, Any] | None:
    """The origins of these lines of the file at `path`, as an AST_REFACTOR file's record keeps
    them (`line_origins`, docs/trace-format.md): a table of commits, then runs
    `[first line, count, commit index]`, with the origin's path appended where it is not `path`
    (None: more than MAX_LINE_ORIGIN_RUNS runs)."""
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
    return {"commits": list(commits), "lines": runs} if len(runs) <= MAX_LINE_ORIGIN_RUNS else None


class RecordedOrigins:
    """Line number -> origin, from a record's `line_origins`. A note comes from anywhere: a
    malformed one gives nothing (its lines are followed through git instead), and runs are looked
    up, never expanded line by line, so no note makes this cost more than its own size."""

    def __init__(self, data: object, path: str) -> None:
        self._starts: list[int] = []
        self._runs: list[tuple[int, int, Origin]] = []  # (first line, count, origin), by first line
        if not isinstance(data, dict):
            return
        commits, runs = data.get("commits"), data.get("lines")
        if not isinstance(commits, list) or not isinstance(runs, list) \
                or not all(isinstance(c, str) and _OBJECT_ID.fullmatch(c) for c in commits):
            return
        parsed = []
        for run in runs:
            if not (isinstance(run, list) and len(run) in (3, 4) and all(type(v) is int for v in run[:3])
                    and 0 < run[0] and 0 < run[1] and 0 <= run[2] < len(commits)
                    and (len(run) == 3 or (isinstance(run[3], str) and "\0" not in run[3]))):
                return
            parsed.append((run[0], run[1], (commits[run[2]], run[3] if len(run) == 4 else path)))
        self._runs = sorted(parsed, key=lambda run: run[0])
        self._starts = [run[0] for run in self._runs]

    def get(self, number: int) -> Origin | None:
        at = bisect_right(self._starts, number) - 1
        if at < 0:
            return None
        first, count, origin = self._runs[at]
        return origin if number < first + count else None
