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
from typing import TYPE_CHECKING, Any

from gitai.syntax.languages import load_grammar
from gitai.syntax.normal_form import (
    Definition,
    ParsedSource,
    Statement,
    hash_source,
    hash_tree,
    parse,
    top_level_statements,
)
from gitai.util.files import write_atomic

DIRECTORY = "syntax-v5"
TREES = 32  # syntax trees held, the least recently used go (a large file's is a few megabytes)

if TYPE_CHECKING:
    from tree_sitter import Tree


class HashCache:
    """`hash_source`, remembered on disk; with `recent`, also in memory for that many newest files
    (backfill: the version a commit makes is the old side of the next commit changing the file),
    with the syntax trees of the newest few, for `statements` and to parse the next version of a
    file incrementally (a commit's new side is hashed right after its old side: see classify)."""

    def __init__(self, state_dir: str, recent: int = 0) -> None:
        self.directory = os.path.join(state_dir, DIRECTORY)
        self.recent = recent
        self._recent: dict[tuple[str, bytes], ParsedSource] = {}
        self._trees: dict[tuple[str, bytes], Tree] = {}
        self._previous: tuple[str, bytes] | None = None

    def hash_source(self, language: str, data: bytes) -> ParsedSource:
        if not self.recent:
            return self._hash_source(language, data)
        key = (language, data)
        found = self._recent.get(key)
        if found is None:
            found = self._hash_source(language, data)
            if len(self._recent) >= self.recent:
                del self._recent[next(iter(self._recent))]
            self._recent[key] = found
        elif key in self._trees:
            self._trees[key] = self._trees.pop(key)  # in use again: the last to go
        self._previous = key
        return found

    def statements(self, language: str, data: bytes) -> list[Statement]:
        """`top_level_statements`, from the tree kept when `data` was hashed, if it still is."""
        return top_level_statements(language, data, self._trees.get((language, data)))

    def _parse_and_hash(self, language: str, data: bytes) -> ParsedSource:
        if not self.recent:
            return hash_source(language, data)
        previous = self._previous
        base = self._trees.get(previous) if previous and previous[0] == language else None
        tree = reparse(language, previous[1], base, data) if previous and base else parse(language, data)
        if len(self._trees) >= TREES:
            del self._trees[next(iter(self._trees))]
        self._trees[language, data] = tree
        return hash_tree(language, data, tree)

    def _hash_source(self, language: str, data: bytes) -> ParsedSource:
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
        parsed = self._parse_and_hash(language, data)
        try:
            write_atomic(path, json.dumps(_encode(parsed), separators=(",", ":")))
        except OSError:
            pass  # a read-only git dir only costs speed
        return parsed


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


def reparse(language: str, old: bytes, old_tree: Tree, new: bytes) -> Tree:
    """`new` parsed reusing the tree of `old` (tree-sitter's incremental parsing), the bytes between
    their common head and tail as the one edit: the tree a parse of `new` gives. Where error
    recovery was needed, or little is shared, `new` is parsed afresh."""
    head = _common_head(old, new)
    tail = _common_tail(old, new, head)
    if head + tail < len(new) // 2 or old_tree.root_node.has_error:
        return parse(language, new)
    from tree_sitter import Parser

    old_end, new_end = len(old) - tail, len(new) - tail
    edited = old_tree.copy()
    edited.edit(head, old_end, new_end, _point(old, head), _point(old, old_end), _point(new, new_end))
    tree = Parser(load_grammar(language).language).parse(new, edited)
    return parse(language, new) if tree.root_node.has_error else tree


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


def _point(data: bytes, offset: int) -> tuple[int, int]:
    """(row, column in bytes) of `offset`, as tree-sitter counts them."""
    row = data.count(b"\n", 0, offset)
    return row, offset - (data.rfind(b"\n", 0, offset) + 1)
