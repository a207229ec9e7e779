"""Normal-form hashes of file contents, kept between runs.

The post-commit hook hashes both sides of every changed file; the old side of a commit is, most
of the time, the new side of the commit before, hashed by the previous hook. Kept in
`<git common dir>/gitai/syntax-v5/`, one small JSON file per (language, content): a cache, safe
to delete. An entry made with another grammar version is ignored; `-v5` names the normal-form
rules, so changing them (gitai.syntax.normal_form) must bump it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from itertools import accumulate
from typing import TYPE_CHECKING, Any

from gitai.syntax.definitions import Definitions, find_definitions
from gitai.syntax.languages import load_grammar
from gitai.syntax.normal_form import (
    Definition,
    ParsedSource,
    Statement,
    folding,
    hash_source,
    hash_tree,
    parse,
    top_level_statements,
)
from gitai.util.files import write_atomic

DIRECTORY = "syntax-v5"
TREE_BYTES = 4 << 20  # source bytes whose syntax trees are held, the least recently used go (a tree takes
# about 18 bytes a source byte, less when parsed from an earlier version's: they share what did not change)

if TYPE_CHECKING:
    from tree_sitter import Tree

    from gitai.syntax.classify import LineHunk

Edit = tuple[int, int, int, int]
"""Bytes [old start, old end) of the old text replaced by [new start, new end) of the new text."""


class HashCache:
    """`hash_source`, remembered on disk; with `recent`, also in memory for that many newest files
    (backfill: the version a commit makes is the old side of the next commit changing the file),
    with the syntax trees of the newest (TREE_BYTES of source), for `statements` and to parse the
    next version of a file incrementally (a commit's new side is hashed right after its old side,
    with the hunks between them: see classify)."""

    def __init__(self, state_dir: str, recent: int = 0, written: frozenset[str] | None = None) -> None:
        """`written`: the blob ids whose contents are written to disk (None: all; backfill writes
        only the versions at the tips of what it traced, the others being in memory while it needs
        them, and hashed again if not)."""
        self.directory = os.path.join(state_dir, DIRECTORY)
        self.recent = recent
        self.written = written
        self._recent: dict[tuple[str, bytes], ParsedSource] = {}
        self._trees: dict[tuple[str, bytes], tuple[Tree, Definitions]] = {}  # with the definitions found in them
        self._tree_bytes = 0  # the source bytes of those trees
        self._previous: tuple[str, bytes] | None = None

    def hash_source(self, language: str, data: bytes, hunks: Sequence[LineHunk] | None = None) -> ParsedSource:
        """`hunks`: see classify.Hasher (they say where the tree of the content hashed just before
        changed, so the parse reuses the rest)."""
        if not self.recent:
            return self._hash_source(language, data, None)
        key = (language, data)
        found = self._recent.get(key)
        if found is None:
            found = self._hash_source(language, data, hunks)
            if len(self._recent) >= self.recent:
                del self._recent[next(iter(self._recent))]
            self._recent[key] = found
        elif key in self._trees:
            self._trees[key] = self._trees.pop(key)  # in use again: the last to go
        self._previous = key
        return found

    def statements(self, language: str, data: bytes) -> list[Statement]:
        """`top_level_statements`, from the tree kept when `data` was hashed, if it still is."""
        tree, found = self._trees.get((language, data), (None, None))
        return top_level_statements(language, data, tree, found)

    def _parse_and_hash(self, language: str, data: bytes, hunks: Sequence[LineHunk] | None) -> ParsedSource:
        if not self.recent:
            return hash_source(language, data)
        previous = self._previous
        held = self._trees.get(previous) if previous and previous[0] == language else None
        base = held[0] if held else None
        tree = reparse(language, previous[1], base, data, hunks) if previous and base else parse(language, data)
        if self._trees.pop((language, data), None) is not None:  # parsed again while still held: counted once
            self._tree_bytes -= len(data)
        self._tree_bytes += len(data)
        while self._trees and self._tree_bytes > TREE_BYTES:
            oldest = next(iter(self._trees))
            del self._trees[oldest]
            self._tree_bytes -= len(oldest[1])
        found = find_definitions(language, tree.root_node, folding(language, data, tree.root_node))
        self._trees[language, data] = tree, found
        return hash_tree(language, data, tree, found)

    def _hash_source(self, language: str, data: bytes, hunks: Sequence[LineHunk] | None) -> ParsedSource:
        key = hashlib.sha256(language.encode() + b"\0" + data).hexdigest()
        path = os.path.join(self.directory, key[:2], key[2:] + ".json")
        prefix = load_grammar(language).hash_prefix
        try:
            with open(path, encoding="utf-8") as handle:
                parsed = _decode(json.load(handle))
            if parsed.language == language and parsed.hash.startswith(prefix):
                return parsed
        except (OSError, ValueError, KeyError, TypeError):
            pass  # not kept yet, or damaged: hash again
        parsed = self._parse_and_hash(language, data, hunks)
        if self.written is None or _blob_id(data, self.written) in self.written:
            try:
                write_atomic(path, json.dumps(_encode(parsed), separators=(",", ":")))
            except OSError:
                pass  # a read-only git dir only costs speed
        return parsed


def _blob_id(data: bytes, like: frozenset[str]) -> str:
    """The id git gives `data` as a blob, in the hash of the ids in `like` (SHA-1 or SHA-256)."""
    oid = next(iter(like), "")
    algorithm = hashlib.sha256 if len(oid) == 64 else hashlib.sha1
    return algorithm(b"blob %d\0" % len(data) + data).hexdigest()


def _encode(parsed: ParsedSource) -> dict[str, Any]:
    return {
        "language": parsed.language, "hash": parsed.hash, "skeleton_hash": parsed.skeleton_hash,
        "parse_error": parsed.parse_error, "bare": parsed.bare,
        "definitions": [[d.kind, d.name, d.hash, d.tree_hash, *d.lines] for d in parsed.definitions],
    }


def _decode(data: dict[str, Any]) -> ParsedSource:
    definitions = tuple(Definition(kind, name, own, tree, (start, end))
                        for kind, name, own, tree, start, end in data["definitions"])
    return ParsedSource(str(data["language"]), str(data["hash"]), str(data["skeleton_hash"]), definitions,
                        bool(data["parse_error"]), bool(data["bare"]))


def reparse(language: str, old: bytes, old_tree: Tree, new: bytes, hunks: Sequence[LineHunk] | None = None) -> Tree:
    """`new` parsed reusing the tree of `old` (tree-sitter's incremental parsing): the tree a parse
    of `new` gives (but for a rare case of tree-sitter's own, in JavaScript, where a comment lands
    elsewhere: the normal form, without comments, is the same; docs/development.md). The edits
    are the `hunks` (git's `-U0` hunks from `old` to `new`) when they hold (every line they leave
    out is the same in both), in Python each begun where its sides first differ (see
    `_later_starts`), else the bytes between the common head and tail as one. Where error
    recovery was needed, or little is shared, `new` is parsed afresh."""
    edits = _line_edits(old, new, hunks) if hunks is not None else None
    if edits is not None:
        if language in LATER_START_LANGUAGES:
            edits = _later_starts(old, new, edits)
    else:
        head = _common_head(old, new)
        tail = _common_tail(old, new, head)
        edits = [(head, len(old) - tail, head, len(new) - tail)]
    kept = len(new) - sum(new_end - new_start for _, _, new_start, new_end in edits)
    if kept < len(new) // 2 or old_tree.root_node.has_error:
        return parse(language, new)
    tree = parse_edited(language, old, old_tree, new, edits)
    return parse(language, new) if tree.root_node.has_error else tree


def parse_edited(language: str, old: bytes, old_tree: Tree, new: bytes, edits: list[Edit]) -> Tree:
    """`new` parsed from the tree of `old` edited by `edits` (byte edits from `old` to `new`, in order)."""
    from tree_sitter import Parser

    edited = old_tree.copy()
    points = _points(old, [offset for old_start, old_end, _, _ in edits for offset in (old_start, old_end)])
    for index in range(len(edits) - 1, -1, -1):  # from the end: what is before is the old text
        old_start, old_end, new_start, new_end = edits[index]
        start = points[2 * index]
        inserted = new[new_start:new_end]
        rows = inserted.count(b"\n")
        column = len(inserted) - inserted.rfind(b"\n") - 1 if rows else start[1] + len(inserted)
        edited.edit(old_start, old_end, old_start + len(inserted), start, points[2 * index + 1],
                    (start[0] + rows, column))
    return Parser(load_grammar(language).language).parse(new, edited)


_LINE_ENDS: dict[bytes, list[int]] = {}
_LINE_ENDS_BYTES = 8 << 20  # the source bytes whose line ends are remembered, at most
_line_ends_held = 0  # the source bytes of those remembered


def _line_ends(data: bytes) -> list[int]:
    """Per line as git counts them (split at each `\n`), the length of its text and of those before
    it, their `\n`s left out (no Python code runs per line: a file has thousands, a commit few hunks).
    Remembered for the newest: the new side of a reparse is, in backfill, the old side of the next
    one of that file."""
    global _line_ends_held
    ends = _LINE_ENDS.get(data)
    if ends is None:
        ends = _LINE_ENDS[data] = list(accumulate(map(len, data.split(b"\n"))))
        _line_ends_held += len(data)
        while _line_ends_held > _LINE_ENDS_BYTES and len(_LINE_ENDS) > 1:  # the oldest go
            oldest = next(iter(_LINE_ENDS))
            del _LINE_ENDS[oldest]
            _line_ends_held -= len(oldest)
    return ends


def _line_edits(old: bytes, new: bytes, hunks: Sequence[LineHunk]) -> list[Edit] | None:
    """The byte edits of `-U0` line hunks from `old` to `new`, in order; None unless they hold."""
    old_ends, new_ends = _line_ends(old), _line_ends(new)
    edits: list[Edit] = []
    old_done = new_done = 0  # where the text after the last edit begins
    for old_line, old_count, new_line, new_count in hunks:
        old_first = old_line if old_count else old_line + 1  # 1-based first line of each side's part
        new_first = new_line if new_count else new_line + 1
        if not (0 < old_first and old_first + old_count <= len(old_ends) + 1
                and 0 < new_first and new_first + new_count <= len(new_ends) + 1):
            return None
        old_start, old_end = _start(old_ends, old_first), min(_start(old_ends, old_first + old_count), len(old))
        new_start, new_end = _start(new_ends, new_first), min(_start(new_ends, new_first + new_count), len(new))
        if not (old_count or new_count) or old_start > old_end or new_start > new_end:
            return None  # git never emits an empty hunk, nor one past the end of a side
        if old_start < old_done or new_start < new_done or old[old_done:old_start] != new[new_done:new_start]:
            return None
        edits.append((old_start, old_end, new_start, new_end))
        old_done, new_done = old_end, new_end
    return edits if old[old_done:] == new[new_done:] else None


SAME_HEAD_BYTES = 256  # how far an edit's start is moved on, at most, over bytes both sides share
# The languages whose edits `_later_starts` moves: Python, checked to give a fresh parse's tree on every
# version of click, rich and httpx. In JavaScript (express) such edits met, at another version than
# line edits do, tree-sitter's parse from an old tree placing a comment after an automatic semicolon
# otherwise than a fresh parse does.
LATER_START_LANGUAGES = frozenset({"python"})


def _later_starts(old: bytes, new: bytes, edits: list[Edit]) -> list[Edit]:
    """`edits`, each begun where its sides first differ (at most SAME_HEAD_BYTES later); one that
    so moves past an end (an insertion moves right over what it repeats of the text after it)
    is ended on the start of the line after its new start, both sides alike.

    Why: a line edit begins at the start of a line; if the indentation changed just before it
    (a new block's first line, the first line after a block), the zero-width indent, dedent and
    newline tokens ending the line before look ahead into the edit and are marked changed.
    tree-sitter passes over changed tokens before the parse has lexed them anew, so the node
    after them, at the same byte, is compared with a scanner state a token behind; the states
    differ, the whole node is passed over, and so is each node after it that begins after a
    dedent: the rest of the file is lexed again (the common case in Python: a method added
    before another, a line added at the head of a block). An edit that begins past the first byte
    of that line's text leaves those tokens as they were."""
    moved: list[Edit] = []
    for index, (old_start, old_end, new_start, new_end) in enumerate(edits):
        limit = edits[index + 1][0] if index + 1 < len(edits) else len(old)
        most = min(limit - old_start, len(new) - new_start, SAME_HEAD_BYTES)
        same = 0
        while same < most and old[old_start + same] == new[new_start + same]:
            same += 1
        start, new_start_moved = old_start + same, new_start + same
        end, new_end_moved = old_end, new_end
        if start > old_end or new_start_moved > new_end:  # moved past an end: the text after the edit is the
            line_end = old.find(b"\n", start, limit)  # same on both sides, so both ends move on as far
            end = max(limit if line_end < 0 else line_end + 1, old_end + new_start_moved - new_end)
            new_end_moved = new_end + end - old_end
        if end <= limit:
            old_start, old_end, new_start, new_end = start, end, new_start_moved, new_end_moved
        moved.append((old_start, old_end, new_start, new_end))
    return moved


def _start(ends: list[int], line: int) -> int:
    """The offset line `line` (1-based) starts at (one past the end, after the last line): the
    text of the lines before it and their `\n`s."""
    return ends[line - 2] + line - 1 if line > 1 else 0


def _common_head(a: bytes, b: bytes) -> int:
    low, high = 0, min(len(a), len(b))
    while low < high:  # a binary search: slices compare at memcmp speed
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_tail(a: bytes, b: bytes, head: int) -> int:
    """The length of the common tail, not overlapping the common head."""
    low, high = 0, min(len(a), len(b)) - head
    while low < high:
        middle = (low + high + 1) // 2
        if a[len(a) - middle:] == b[len(b) - middle:]:
            low = middle
        else:
            high = middle - 1
    return low


def _points(data: bytes, offsets: list[int]) -> list[tuple[int, int]]:
    """(row, column in bytes) of each of `offsets` (in order), as tree-sitter counts them: the rows
    counted on from the offset before (the text is read once, not once per offset)."""
    points = []
    row = done = 0
    for offset in offsets:
        row += data.count(b"\n", done, offset)
        done = offset
        points.append((row, offset - (data.rfind(b"\n", 0, offset) + 1)))
    return points
