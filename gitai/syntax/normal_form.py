"""Normal-form hashes of source files and of the definitions in them.

The normal form of a subtree is a token stream: field and node-type markers for named nodes, the
text of leaves, a close marker per inner node; comments, punctuation-only and quote tokens and
whitespace are left out, parenthesized expressions are transparent (docs/classification.md).
A definition's own hash leaves its nested definitions out; its tree hash (Merkle) adds their tree
hashes sorted (without nested definitions it is the own hash), so reordering definitions never
changes a tree hash. The file is hashed the same way
with its top-level definitions. Hash strings look like "ts:python@0.25.0:<sha256 hex>".
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitai.syntax.definitions import find_definitions
from gitai.syntax.languages import load_grammar

if TYPE_CHECKING:
    from tree_sitter import Node, Tree


@dataclass(frozen=True)
class Definition:
    """One definition: `hash` covers its own code, `tree_hash` adds its nested definitions."""

    kind: str
    name: str
    hash: str
    tree_hash: str
    lines: tuple[int, int]  # 1-based, inclusive


@dataclass(frozen=True)
class ParsedSource:
    """The normal form of a file.

    `hash` covers the whole file regardless of definition order; `skeleton_hash` covers the code
    outside top-level definitions; `bare` is true when that code is empty (a Go package clause
    aside); `parse_error` when tree-sitter recovered from a syntax error.
    """

    language: str
    hash: str
    skeleton_hash: str
    definitions: tuple[Definition, ...]
    parse_error: bool
    bare: bool


# Actions per node kind; a skipped subtree (nested definition) is dropped too.
_DROP, _ANON, _QUOTE, _OPAQUE, _COLLAPSE, _NODE, _TRANSPARENT = range(7)

_PUNCTUATION = frozenset({"(", ")", "[", "]", "{", "}", ",", ";"})
_QUOTES = frozenset({'"', "'", "`", '"""', "'''"})
_EXTRAS = frozenset({"comment", "line_comment", "block_comment", "html_comment", "line_continuation"})
_OVERRIDES: dict[str, dict[str, int]] = {
    "python": {"string_start": _QUOTE, "string_end": _DROP, "string_content": _OPAQUE, "format_specifier": _OPAQUE},
    "javascript": {"jsx_text": _COLLAPSE},
    "tsx": {"jsx_text": _COLLAPSE},
}

_CHUNK = 1024  # tokens joined per hash update
_QUOTE_MARK, _GAP_MARK, _CLOSE = b"\x01Q", b"\x01G", b"\x01C"
_ERROR_KIND = 0xFFFF  # tree-sitter's ERROR symbol, outside node_kind_count


@dataclass(frozen=True)
class _Tables:
    actions: dict[int, int]  # by kind id
    markers: dict[int, bytes]  # by kind id: one marker per node type name
    fields: list[bytes]  # by field id


@functools.cache
def _tables(language: str) -> _Tables:
    lang = load_grammar(language).language
    overrides = _OVERRIDES.get(language, {})
    actions, markers = {}, {}
    for kind in [*range(lang.node_kind_count), _ERROR_KIND]:
        name = lang.node_kind_for_id(kind) or ""
        named = kind == _ERROR_KIND or lang.node_kind_is_named(kind)
        if not named:
            if name in _PUNCTUATION or not name.strip():
                action = _DROP
            else:  # "not in", "is not": keywords with layout inside
                action = _QUOTE if name in _QUOTES else _COLLAPSE if len(name.split()) > 1 else _ANON
        elif name in overrides:
            action = overrides[name]
        elif name in _EXTRAS:
            action = _DROP
        else:
            action = _TRANSPARENT if name == "parenthesized_expression" else _NODE
        actions[kind] = action
        canonical = lang.id_for_node_kind(name, named)
        markers[kind] = b"\x01N%d" % (kind if canonical is None else canonical)
    fields = [b""] + [b"\x01F%d" % i for i in range(1, lang.field_count + 1)]
    return _Tables(actions, markers, fields)


def _escape(text: bytes) -> bytes:
    """Keep marker bytes out of source text (only needed when the source contains them)."""
    return text.replace(b"\x01", b"\x01\x03").replace(b"\x00", b"\x01\x02")


def _gap_text(gap: bytes) -> bytes:
    """Source text between leaves, without layout: whitespace and line continuations."""
    return b" ".join(gap.replace(b"\\\r\n", b" ").replace(b"\\\n", b" ").split())


def _digest(
    nodes: Sequence[Node], src: bytes, escape: bool, tables: _Tables, skip: frozenset[int], skip_depth: int
) -> str:
    """SHA-256 of the normal-form token stream of `nodes`, leaving out subtrees whose id is in `skip`.

    Iterative TreeCursor walk; `skip` is only consulted down to `skip_depth` below each node;
    `escape` when `src` holds the marker bytes NUL or 0x01. Source bytes that no leaf covers (a
    grammar's hidden tokens) are kept unless they are layout.
    """
    actions, markers, fields = tables.actions, tables.markers, tables.fields
    out: list[bytes] = []
    append = out.append
    for top in nodes:
        cursor = top.walk()
        first_child, next_sibling, parent = cursor.goto_first_child, cursor.goto_next_sibling, cursor.goto_parent
        closes: list[bytes] = []
        pos = top.start_byte
        depth = 0
        while True:
            node: Node = cursor.node  # type: ignore[assignment]  # never None inside a walk
            kind = node.kind_id
            action = actions[kind]
            if action >= _NODE:
                if depth <= skip_depth and node.id in skip:
                    action = _DROP
                else:
                    field = cursor.field_id
                    if field:
                        append(fields[field])
                    if first_child():
                        if action == _NODE:
                            append(markers[kind])
                            closes.append(_CLOSE)
                        else:
                            closes.append(b"")
                        depth += 1
                        continue
            elif action >= _OPAQUE:
                field = cursor.field_id
                if field:
                    append(fields[field])
            start, end = node.byte_range
            if start > pos and not src[pos:start].isspace():
                gap = _gap_text(src[pos:start])
                if gap:
                    append(_GAP_MARK)
                    append(_escape(gap) if escape else gap)
            if end > pos:
                pos = end
            if action == _ANON:  # keywords and operators: their text, no marker
                append(_escape(src[start:end]) if escape else src[start:end])
            elif action >= _OPAQUE:  # named leaves
                append(markers[kind])
                if start == end and action >= _NODE:  # empty: like a node whose children were all dropped
                    append(_CLOSE)
                else:
                    text = b" ".join(src[start:end].split()) if action == _COLLAPSE else src[start:end]
                    append(_escape(text) if escape else text)
            elif action == _QUOTE:  # only a prefix is kept: b"x" differs from "x", 'x' == "x"
                text = bytes(sorted(src[start:end].strip(b"\"'`").lower()))
                if text:
                    append(_QUOTE_MARK)
                    append(_escape(text) if escape else text)
            while depth and not next_sibling():
                parent()
                depth -= 1
                close = closes.pop()
                if close:
                    append(close)
            if not depth:
                break
        if top.end_byte > pos and not src[pos : top.end_byte].isspace():
            tail = _gap_text(src[pos : top.end_byte])
            if tail:
                append(_GAP_MARK)
                append(_escape(tail) if escape else tail)
    digest = hashlib.sha256()
    join = b"\x00".join
    for chunk in range(0, len(out), _CHUNK):  # joining millions of items at once is slow
        if chunk:
            digest.update(b"\x00")
        digest.update(join(out[chunk : chunk + _CHUNK]))
    return digest.hexdigest()


def _lines(first: Node, last: Node) -> tuple[int, int]:
    start = first.start_point.row + 1
    end_row, end_column = last.end_point
    return start, max(start, end_row + 1 if end_column else end_row)


_DIGESTS: dict[tuple[object, ...], str] = {}
_MAX_DIGESTS = 50_000


def _remembered_digest(language: str, nodes: Sequence[Node], src: bytes, escape: bool, tables: _Tables,
                       skipped: list[Node], skip_depth: int) -> str:
    """`_digest`, remembered by the bytes the nodes span and where the skipped definitions sit in
    them: a new version of a file re-hashes only the definitions whose text changed (the token
    stream of a span is a function of its text and of what is left out of it)."""
    start, end = nodes[0].start_byte, nodes[-1].end_byte
    key = (language, escape, nodes[0].kind_id, len(nodes), skip_depth, hashlib.sha1(src[start:end]).digest(),
           tuple((n.start_byte - start, n.end_byte - start) for n in skipped))
    found = _DIGESTS.get(key)
    if found is None:
        found = _digest(nodes, src, escape, tables, frozenset(n.id for n in skipped), skip_depth)
        if len(_DIGESTS) >= _MAX_DIGESTS:
            _DIGESTS.clear()
        _DIGESTS[key] = found
    return found


def parse(language: str, data: bytes) -> Tree:
    """Parse `data` with the grammar of `language` (a fresh parser per call: thread-safe)."""
    from tree_sitter import Parser

    return Parser(load_grammar(language).language).parse(data)


def hash_source(language: str, data: bytes) -> ParsedSource:
    """Parse `data` with the grammar of `language` and hash its normal form and definitions."""
    return hash_tree(language, data, parse(language, data))


def hash_tree(language: str, data: bytes, tree: Tree) -> ParsedSource:
    """Hash the normal form and definitions of `tree`, already parsed from `data`."""
    prefix = load_grammar(language).hash_prefix
    tables = _tables(language)
    root = tree.root_node
    escape = b"\x00" in data or b"\x01" in data
    found = find_definitions(language, root)
    sites = found.sites
    members: list[list[int]] = [[] for _ in range(len(sites) + 1)]  # frame 0 is the file
    for index, site in enumerate(sites):
        members[site.parent + 1].append(index)

    own: list[str] = [""] * len(sites)
    merkle: list[str] = [""] * len(sites)

    def frame_hashes(frame: int, nodes: Sequence[Node]) -> tuple[str, str]:
        inner = [sites[i] for i in members[frame]]
        if not inner:
            own_hex = _remembered_digest(language, nodes, data, escape, tables, [], -1)
            return own_hex, own_hex
        own_hex = _remembered_digest(language, nodes, data, escape, tables, [n for site in inner for n in site.nodes],
                                     max(site.depth for site in inner))
        nested = "".join(sorted(merkle[i] for i in members[frame]))
        return own_hex, hashlib.sha256(f"{own_hex}{nested}".encode()).hexdigest()

    for index in range(len(sites) - 1, -1, -1):  # members come after their parents
        own[index], merkle[index] = frame_hashes(index + 1, sites[index].nodes)
    file_own, file_tree = frame_hashes(0, (root,))
    return ParsedSource(
        language=language,
        hash=prefix + file_tree,
        skeleton_hash=prefix + file_own,
        definitions=tuple(
            Definition(site.kind, site.name, prefix + own[i], prefix + merkle[i], _lines(site.nodes[0], site.nodes[-1]))
            for i, site in enumerate(sites)
        ),
        parse_error=root.has_error,
        bare=found.bare,
    )
