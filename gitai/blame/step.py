"""One commit's step: a file's line origins at a commit, from its origins in the parents.

The rules are `git blame`'s, so that extending origins commit by commit gives what `git blame`
gives: lines a parent's version has unchanged keep that parent's origins (parents in order; a
parent with the very same blob takes every line), the rest belong to the commit. Except when the
commit is AST_REFACTOR for the file: then its lines are followed into the first parent through
the definition mappings of the trace (a definition reformatted in place: the line at the same
position in the hunk; moved, within or between files: the same offset in the definition), and
the other lines (outside any definition, or inserted into one, such as a comment) take the origin
of the nearest line above (else below). A refactor adds no meaning of its own, so it never owns a
line, unless nothing at all could be followed.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from gitai.blame.origins import Origin, Origins
from gitai.git.diff import Hunk


@dataclass
class ParentSide:
    """The file as one parent has it: its origins (empty: the file is new against this parent)
    and the `-U0` hunks from that version to the commit's."""

    origins: Origins
    hunks: list[Hunk] = field(default_factory=list)
    identical: bool = False  # the same blob


@dataclass
class Refactor:
    """What following an AST_REFACTOR commit needs: the trace's definition mappings for the file
    and the origins, at the first parent, of files definitions moved in from (None: no such file
    there; raises OriginsUnknown when the file is there but its origins are not known)."""

    definitions: list[dict[str, Any]]
    sources: Callable[[str], Origins | None]


class InconsistentStep(Exception):
    """The hunks do not fit the parent's origins (a damaged cache entry)."""


class OriginsUnknown(Exception):
    """A version the step needs has no known origins: the step cannot be taken."""


NO_HUNK: Hunk = (0, 0, 0, 0)


def _pieces(side: ParentSide) -> Iterator[tuple[slice, Hunk]]:
    """The parent's unchanged lines before each hunk (a slice of its origins) with the hunk, and
    last the unchanged lines after the last hunk with NO_HUNK."""
    next_old = 1
    for hunk in side.hunks:
        old_start, old_count = hunk[0], hunk[1]
        first_changed = old_start if old_count else old_start + 1
        yield slice(next_old - 1, first_changed - 1), hunk
        next_old = first_changed + old_count
    yield slice(next_old - 1, None), NO_HUNK


def carry(side: ParentSide, line_count: int) -> tuple[list[Origin | None], list[Hunk]]:
    """The commit's lines with the origins `side` gives unchanged lines (None for the others),
    and for each line, the hunk it lies in (NO_HUNK for unchanged lines)."""
    lines = carried(side, line_count, None)
    hunk_of: list[Hunk] = []
    for kept, hunk in _pieces(side):
        hunk_of += [NO_HUNK] * len(side.origins[kept])
        hunk_of += [hunk] * hunk[3]
    return lines, hunk_of


Changed = TypeVar("Changed", Origin, Origin | None)


def carried(side: ParentSide, line_count: int, changed: Changed) -> list[Changed]:
    """The lines of `carry` alone, with `changed` for each changed line: a file's step is mostly
    copies of runs of its parent's origins, made here by slices, not line by line."""
    old = side.origins
    lines: list[Changed] = []
    for kept, hunk in _pieces(side):
        lines += old[kept]
        lines += [changed] * hunk[3]
    if len(lines) != line_count or kept.start > len(old):
        raise InconsistentStep
    return lines


def step(commit: str, path: str, line_count: int, sides: list[ParentSide], refactor: Refactor | None) -> Origins:
    """The origins of the commit's version of `path`, from one side per parent that has the file,
    the first parent's first (empty when it lacks the file). Raises InconsistentStep, OriginsUnknown."""
    for side in sides:
        if side.identical and len(side.origins) == line_count:
            return list(side.origins)
    own: Origin = (commit, path)
    first = sides[0]
    if refactor is None and len(sides) == 1:  # the commit's own lines are those it changes
        return carried(first, line_count, own)
    lines, hunk_of = carry(first, line_count) if refactor is not None else (carried(first, line_count, None), [])
    for side in sides[1:]:
        if None not in lines:
            break
        other = carried(side, line_count, None)
        lines = [mine if mine is not None else theirs for mine, theirs in zip(lines, other, strict=True)]
    if None not in lines:
        return [origin for origin in lines if origin is not None]
    if refactor is None:
        return [origin or own for origin in lines]
    followed = _follow(lines, hunk_of, path, first.origins, refactor)
    return _fill_from_neighbours(followed, own)


def _follow(lines: list[Origin | None], hunk_of: list[Hunk], path: str, parent: Origins,
            refactor: Refactor) -> list[Origin | None]:
    """Changed lines of a refactor, followed through the definition mappings into the first parent."""
    definitions = sorted(refactor.definitions, key=lambda d: d["new_lines"][0])
    starts = [d["new_lines"][0] for d in definitions]
    result = list(lines)
    for position, origin in enumerate(lines):
        if origin is not None:
            continue
        number = position + 1
        definition = _innermost(definitions, starts, number)
        if definition is not None:
            result[position] = _mapped(definition, number, hunk_of[position], path, parent, refactor)
    return result


def _innermost(definitions: list[dict[str, Any]], starts: list[int], number: int) -> dict[str, Any] | None:
    """The definition that contains line `number` and starts last (the innermost)."""
    for index in range(bisect_right(starts, number) - 1, -1, -1):
        start, end = definitions[index]["new_lines"]
        if start <= number <= end:
            return definitions[index]
    return None


def _mapped(definition: dict[str, Any], number: int, hunk: Hunk, path: str, parent: Origins,
            refactor: Refactor) -> Origin | None:
    """Line `number`'s origin through its definition's mapping; None for a line the refactor
    inserted into a definition that stayed in place (a comment, a blank line)."""
    old_start, old_end = definition["old_lines"]
    moved = definition.get("moved_from")
    hunk_old, hunk_old_count, hunk_new, hunk_new_count = hunk
    source: Origins | None = parent
    if moved:  # the same offset in the definition where it was
        if moved.get("path") != path:
            source = refactor.sources(str(moved["path"]))
        line = old_start + min(number - definition["new_lines"][0], old_end - old_start)
    elif hunk_old_count:  # reformatted in place: the same position in the hunk, inside the definition
        line = hunk_old + (number - hunk_new) * hunk_old_count // hunk_new_count
        line = min(max(line, old_start), old_end)
    else:
        return None
    if source is None or not 1 <= line <= len(source):
        return None
    origin: Origin = source[line - 1]
    return origin


def _fill_from_neighbours(lines: list[Origin | None], own: Origin) -> Origins:
    """Lines still open take the nearest origin above, else below; with none at all, the commit's own."""
    if all(origin is None for origin in lines):
        return [own] * len(lines)
    filled = list(lines)
    last: Origin | None = None
    for position, origin in enumerate(lines):
        last = origin or last
        filled[position] = last
    following: Origin | None = None
    for position in range(len(lines) - 1, -1, -1):
        following = lines[position] or following
        if filled[position] is None:
            filled[position] = following
    return [origin or own for origin in filled]


REFACTOR = "AST_REFACTOR"


def is_refactor(commit_info: dict[str, Any] | None, path: str) -> bool:
    """Whether the trace classifies the commit AST_REFACTOR for `path` (the file's own class,
    else the commit's)."""
    if not commit_info:
        return False
    file_info = commit_info.get("files", {}).get(path)
    return (file_info.get("class") if file_info else commit_info.get("class")) == REFACTOR
