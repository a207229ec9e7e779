"""Normal-form hashes of source files and of the definitions in them.

The normal form of a subtree is a token stream: field and node-type markers for named nodes, the
text of leaves, a close marker per inner node; comments, punctuation-only and quote tokens and
whitespace are left out, and the canonical forms of canonical.py apply (transparent wrappers,
aliases, sorted imports, string spellings; docs/classification.md).
A definition's own hash leaves its nested definitions out; its tree hash (Merkle) adds their tree
hashes sorted (without nested definitions it is the own hash), so reordering definitions never
changes a tree hash. The file is hashed the same way
with its top-level definitions. Hash strings look like "ts2:python@0.25.0:<sha256 hex>".
"""

from __future__ import annotations

import functools
import hashlib
import re
from array import array
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from gitai.syntax.canonical import CANONS
from gitai.syntax.definitions import Definitions, Site, find_definitions
from gitai.syntax.languages import load_grammar

if TYPE_CHECKING:
    from tree_sitter import Node, Tree, TreeCursor


class Definition(NamedTuple):
    """One definition: `hash` covers its own code, `tree_hash` adds its nested definitions.
    (A named tuple: a file can hold thousands, and a frozen dataclass costs twice as much to make.)"""

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
# _WRITTEN: a node its handler wrote, for the walk to pass by (no kind's own action)
# _SPECIAL and after: a handler's; _STARTS, _CONTAINS, _PLAIN: only called when the node passes a guard
(_DROP, _ANON, _QUOTE, _OPAQUE, _COLLAPSE, _SQUEEZE, _RUN, _NODE, _TRANSPARENT, _WRITTEN, _SPECIAL, _STARTS,
 _CONTAINS, _PLAIN) = range(14)
_INNER = frozenset({_NODE, _TRANSPARENT})  # named nodes the walk goes into (a marker unless transparent)
_NAMED = _INNER | {_OPAQUE, _COLLAPSE}  # written with their field and type marker (and text when they are leaves)

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
_TRANSPARENT_RESULT: list[bytes] = []  # a handler's answer: walk the node as a transparent wrapper


@dataclass(frozen=True)
class _Tables:
    language: str
    actions: list[int]  # by kind id; ERROR (kind id 0xFFFF) last
    markers: list[bytes]  # by kind id (ERROR last): one marker per node type name (or its alias)
    fields: list[bytes]  # by field id; empty for a dropped field
    handlers: dict[int, Handler]  # by kind id, for _SPECIAL and set (_RUN handled apart)
    starts: list[tuple[bytes, ...]]  # by kind id, for _STARTS: the handler can only apply when the node starts so
    needles: list[Callable[[bytes, int, int], object] | None]  # by kind id: _CONTAINS a search that must find,
    # _PLAIN a match of the whole text that spares the call (unless the node's field is in `keyed`)
    keyed: list[frozenset[int]]  # by kind id, for _PLAIN: the fields under which the handler still looks
    field_ids: dict[str, int]
    kind_markers: dict[str, bytes]  # by node type name
    distinct: frozenset[int]  # kind ids of runs whose duplicates count once
    plain: list[bool]  # by kind id: walked as a named node or a transparent wrapper, with no handler


class _Memo:
    """The token streams of subtrees walked before, for one language, by kind id, parse state and text:
    a new version of a definition is mostly the old one's statements, which need no walk again.
    A subtree's stream is a function of these (what tree-sitter's own reuse of subtrees rests on:
    the same text parsed from the same state), not of its kind and text alone (C++'s `a::b::C` ends
    in a type's name in a template's arguments, in a value's in a call's). Only where that holds:
    a subtree with a state (none when parsed while alternatives were open), in a tree without
    syntax errors (error recovery parses the same text apart differently: C's `sizeof(T)*2` as a
    call of `sizeof` in one file, a `sizeof` of a type in the next), of a kind whose children's
    handlers do not look above it (not in `roots`), entered by the walk after layout only (the text
    before it then adds nothing to its first gap). Each stream is kept joined, one token, with where
    its walk ended (a grammar's hidden tokens may end a node past its last leaf) and the string
    prefix it left."""

    __slots__ = ("roots", "streams")
    held = 0  # bytes held by the memos of all languages, keys and streams

    def __init__(self, roots: frozenset[int]) -> None:
        self.roots = roots
        self.streams: dict[tuple[int, int, bytes], tuple[bytes, int, bytes]] = {}

    def keep(self, key: tuple[int, int, bytes], stream: bytes, end: int, prefix: bytes) -> None:
        if _Memo.held > _MEMO_BYTES:  # all go: a language's memo is worth most to its next files
            for memo in _MEMOS.values():
                memo.streams.clear()
            _Memo.held = 0
        self.streams[key] = (stream, end, prefix)
        _Memo.held += len(key[2]) + len(stream)


_NO_STATE = 0xFFFF  # tree-sitter's parse state of a subtree parsed while alternatives were open (not reused)
_MEMO_LEAST = 24  # source bytes of the smallest subtree remembered (smaller ones cost less to walk than to look up)
_MEMO_BYTES = 16 << 20  # on click's history 2% fewer bytes found than with twice as much, 7% with half
# node kinds whose children's handlers look at the node's parent (a docstring's owner): never remembered alone
_CONTEXTS: dict[str, tuple[str, ...]] = {"python": ("module", "block")}


_MEMOS: dict[str, _Memo] = {}


def _memo(language: str) -> _Memo:
    memo = _MEMOS.get(language)
    if memo is None:
        lang = load_grammar(language).language
        memo = _MEMOS[language] = _Memo(frozenset(kind for kind in range(lang.node_kind_count)
                                                  if lang.node_kind_for_id(kind) in _CONTEXTS.get(language, ())))
    return memo


class _Walk:
    """State one normal-form walk shares with the handlers: the source and the current string prefix;
    `memo` for the walks of whole frames and statements (not the handlers', which may look inside the
    tokens they get back), None where the source needs escaping or the tree has syntax errors."""

    __slots__ = ("escape", "memo", "prefix", "src", "tables")

    def __init__(self, src: bytes, escape: bool, tables: _Tables, memo: _Memo | None = None) -> None:
        self.src, self.escape, self.tables, self.prefix = src, escape, tables, b""
        self.memo = None if escape else memo

    def text(self, text: bytes) -> bytes:
        return _escape(text) if self.escape else text


Handler = Callable[["Node", int, _Walk], "list[bytes] | None"]
"""(node, its field id, walk) -> the node's tokens, None to walk it as usual, or _TRANSPARENT_RESULT."""
_Frame = tuple[list[bytes], frozenset[int], int]
"""A definition's own stream as `_walk` writes it: its tokens so far, the ids it leaves out, and how deep."""


@functools.cache
def _tables(language: str) -> _Tables:
    lang = load_grammar(language).language
    canon = CANONS[language]
    overrides = _OVERRIDES.get(language, {})
    special = {**canon.handlers, **dict.fromkeys(canon.sets, "set")}
    actions: list[int] = []  # by kind id, ERROR last (lists index faster than dicts)
    markers: list[bytes] = []
    handlers = {}
    starts: list[tuple[bytes, ...]] = []
    needles: list[Callable[[bytes, int, int], object] | None] = []
    keyed: list[frozenset[int]] = []
    field_names = [lang.field_name_for_id(i) or "" for i in range(lang.field_count + 1)]
    field_ids = {name: i for i, name in enumerate(field_names) if name}
    for kind in [*range(lang.node_kind_count), _ERROR_KIND]:
        name = lang.node_kind_for_id(kind) or ""
        named = kind == _ERROR_KIND or lang.node_kind_is_named(kind)
        if not named:
            if name in _PUNCTUATION or not name.strip():
                action = _DROP
            else:  # "not in", "is not": keywords with layout inside
                action = (_QUOTE if name in _QUOTES else _SQUEEZE if name in canon.squeezed
                          else _COLLAPSE if len(name.split()) > 1 else _ANON)
        elif name in special:
            handlers[kind] = _HANDLERS[special[name]]
            guard = _GUARDS.get(special[name])
            action = (_PLAIN if special[name] in _WRITTEN_AS_IS else _SPECIAL if guard is None
                      else _STARTS if isinstance(guard, tuple) else _CONTAINS)
        elif name in overrides:
            action = overrides[name]
        elif name in _EXTRAS or name in canon.dropped:
            action = _DROP
        elif name in canon.runs:
            action = _RUN
        else:
            action = _TRANSPARENT if name in canon.transparent else _NODE
        actions.append(action)
        guard = _GUARDS.get(special[name]) if action >= _SPECIAL else None
        starts.append(guard if isinstance(guard, tuple) else ())
        needles.append(guard.search if isinstance(guard, re.Pattern)
                       else _WRITTEN_AS_IS[special[name]][0].fullmatch if action == _PLAIN else None)
        keyed.append(frozenset(field_ids[field] for field in _WRITTEN_AS_IS[special[name]][1] if field in field_ids)
                     if action == _PLAIN else frozenset())
        written = canon.aliases.get(name, name) if named else name
        canonical = lang.id_for_node_kind(written, named)
        markers.append(b"\x01N%d" % (kind if canonical is None else canonical))
    fields = [b""]
    for name in field_names[1:]:
        written = canon.field_aliases.get(name, name)
        fields.append(b"" if name in canon.dropped_fields else b"\x01F%d" % field_ids.get(written, 0))
    kind_markers: dict[str, bytes] = {}
    for kind in range(lang.node_kind_count):
        if lang.node_kind_is_named(kind):
            kind_markers.setdefault(lang.node_kind_for_id(kind) or "", markers[kind])
    distinct = frozenset(kind for kind in range(lang.node_kind_count) if lang.node_kind_for_id(kind) in canon.distinct)
    plain = [action in _INNER for action in actions]
    return _Tables(language, actions, markers, fields, handlers, starts, needles, keyed, field_ids, kind_markers,
                   distinct, plain)


def _escape(text: bytes) -> bytes:
    """Keep marker bytes out of source text (only needed when the source contains them)."""
    return text.replace(b"\x01", b"\x01\x03").replace(b"\x00", b"\x01\x02")


def _gap_text(gap: bytes) -> bytes:
    """Source text between leaves, without layout: whitespace and line continuations."""
    return b" ".join(gap.replace(b"\\\r\n", b" ").replace(b"\\\n", b" ").split())


def _gap(src: bytes, pos: int, start: int, escape: bool, out: list[bytes]) -> int:
    """Write the text between `pos` and `start` unless it is layout; the new position."""
    if start > pos and not src[pos:start].isspace():
        gap = _gap_text(src[pos:start])
        if gap:
            out.append(_GAP_MARK)
            out.append(_escape(gap) if escape else gap)
    return max(pos, start)


def _digest(nodes: Sequence[Node], walk: _Walk, skip: frozenset[int], skip_depth: int) -> str:
    """SHA-256 of the normal-form token stream of `nodes`, leaving out subtrees whose id is in `skip`."""
    walk.prefix = b""  # one walk object serves all the digests of a file: each starts afresh
    return _stream_digest(_walk(nodes, walk, skip, skip_depth, memo=walk.memo))


def _stream_digest(out: list[bytes]) -> str:
    """SHA-256 of a normal-form token stream."""
    if len(out) <= _CHUNK:
        return hashlib.sha256(b"\x00".join(out)).hexdigest()
    digest = hashlib.sha256()
    join = b"\x00".join
    for chunk in range(0, len(out), _CHUNK):  # joining millions of items at once is slow
        if chunk:
            digest.update(b"\x00")
        digest.update(join(out[chunk : chunk + _CHUNK]))
    return digest.hexdigest()


def _walk(
    nodes: Sequence[Node], walk: _Walk, skip: frozenset[int] = frozenset(), skip_depth: int = -1,
    as_is: bool = False, frames: dict[int, _Frame] | None = None, memo: _Memo | None = None,
) -> list[bytes]:
    """The normal-form token stream of `nodes`, leaving out subtrees whose id is in `skip`.

    Iterative TreeCursor walk; `skip` is only consulted down to `skip_depth` below each node;
    `as_is`: no handler for `nodes` themselves (a handler walking its own node); `frames`: left-out
    nodes (by id, taken out as used) to walk on the way into their own streams, as `_walk` of them
    alone with their own `skip` would (one walk for all of a file's definitions); `memo`: the
    streams of subtrees walked before, by their kind and text (see `_Memo`). Source bytes
    that no leaf covers (a grammar's hidden tokens) are kept unless they are layout. Speed: this
    loop runs once per node, so the common kinds (named nodes first, keywords, punctuation, quotes)
    are written inline; a handler's kind asks `_handled` first (and, left to the walk, is walked as
    a named node), the rest share `_rare`.
    """
    tables = walk.tables
    src, escape = walk.src, walk.escape
    actions, markers, fields = tables.actions, tables.markers, tables.fields
    starts = tables.starts
    node_action, drop, anon, quote = _NODE, _DROP, _ANON, _QUOTE
    special, starting, written = _SPECIAL, _STARTS, _WRITTEN
    out: list[bytes] = []
    append = out.append
    outer: list[tuple[list[bytes], int, frozenset[int], int, int, int]] = []  # the walks `frames` interrupted
    frame_depth = frame_end = -1  # where the current one of `frames` ends: its node's depth and end byte
    streams, roots, least = (memo.streams, memo.roots, _MEMO_LEAST) if memo is not None else (None, (), 0)
    recording: list[tuple[int, int, tuple[int, int, bytes], int]] = []  # subtrees `memo` lacks: (depth, where
    # their stream begins in `out`, key, start byte), to keep when the walk leaves them
    for top in nodes:
        cursor = top.walk()
        first_child, next_sibling, parent = cursor.goto_first_child, cursor.goto_next_sibling, cursor.goto_parent
        transparent: list[int] = []  # depths of the transparent nodes the walk is in (no close marker)
        pos = top.start_byte
        depth = 0
        while True:
            node: Node = cursor.node  # type: ignore[assignment]  # never None inside a walk
            kind = node.kind_id
            try:
                action = actions[kind]
            except IndexError:  # tree-sitter's ERROR, past the grammar's kinds: the last entry
                kind = len(actions) - 1
                action = actions[kind]
            # named nodes (the common case first), and a handler's kind its handler leaves to the walk; the most
            # common guard, a prefix (TypeScript's member and call expressions), is checked here to spare the call
            if action == node_action or (action >= special and (
                (action == starting and not src.startswith(starts[kind], node.start_byte))
                or (action := _handled(node, kind, action, cursor, walk, out, pos, not depth and as_is)) == node_action
            )):
                if depth <= skip_depth and node.id in skip:  # a nested definition: hashed on its own
                    start, end = node.byte_range
                    if start > pos and not src[pos:start].isspace():
                        _gap(src, pos, start, escape, out)
                    pos = end  # tree-sitter's nodes come in order: `end` is never before `pos`
                    frame = frames.pop(node.id, None) if frames is not None else None
                    if frame is not None and first_child():  # walked here, into its own stream
                        outer.append((out, pos, skip, skip_depth, frame_depth, frame_end))
                        out, skip, skip_depth = frame
                        append = out.append
                        skip_depth += depth
                        frame_depth, frame_end, pos = depth, end, start
                        append(markers[kind])
                        depth += 1
                        continue
                else:
                    field_id = cursor.field_id
                    if field_id:
                        field = fields[field_id]
                        if field:
                            append(field)
                    known = None
                    if streams is not None and depth > skip_depth and kind not in roots:
                        start, end = node.byte_range
                        if end - start >= least and (start == pos or (pos < start and src[pos:start].isspace())) \
                                and (state := node.parse_state) != _NO_STATE:
                            key = (kind, state, src[start:end])
                            known = streams.get(key)
                            if known is None and first_child():
                                append(markers[kind])
                                recording.append((depth, len(out) - 1, key, start))
                                depth += 1
                                continue
                    if known is not None:  # walked before: its stream, where it ended, the string prefix after it
                        append(known[0])
                        pos = start + known[1]
                        walk.prefix = known[2]
                    elif first_child():
                        append(markers[kind])
                        depth += 1
                        continue
                    else:
                        start, end = node.byte_range
                        if start > pos and not src[pos:start].isspace():
                            _gap(src, pos, start, escape, out)
                        pos = end
                        append(markers[kind])
                        if start == end:  # empty: like a node whose children were all dropped
                            append(_CLOSE)
                        else:
                            append(_escape(src[start:end]) if escape else src[start:end])
            elif action == anon:  # keywords and operators: their text, no marker
                start, end = node.byte_range
                if start > pos and not src[pos:start].isspace():
                    _gap(src, pos, start, escape, out)
                pos = end
                append(_escape(src[start:end]) if escape else src[start:end])
            elif action == drop:
                start, end = node.byte_range
                if start > pos and not src[pos:start].isspace():
                    _gap(src, pos, start, escape, out)
                pos = end
            elif action == quote:  # only a string prefix is kept: b"x" differs from "x", 'x' == "x"
                start, end = node.byte_range
                if start > pos and not src[pos:start].isspace():
                    _gap(src, pos, start, escape, out)
                pos = end
                text = src[start:end].strip(b"\"'`")
                if text:  # most quotes have no prefix
                    text = bytes(sorted(text.lower().replace(b"u", b"")))  # Python u'' is ''
                    if text:
                        append(_QUOTE_MARK)
                        append(_escape(text) if escape else text)
                walk.prefix = text
            elif action == written:  # by its handler
                pos = node.end_byte
            else:
                entered, pos = _rare(node, kind, action, cursor, walk, out, pos, not depth and as_is,
                                     depth <= skip_depth and node.id in skip)
                if entered is not None:
                    if entered == _MOVED:  # on a later sibling, not walked yet
                        continue
                    depth += 1
                    if not entered:
                        transparent.append(depth)
                    continue
            if next_sibling():  # the cursor cannot leave `top`: false at depth 0
                continue
            while depth:
                parent()
                depth -= 1
                if transparent and transparent[-1] == depth + 1:
                    transparent.pop()
                else:
                    append(_CLOSE)
                    if recording and recording[-1][0] == depth:
                        _, mark, key, start = recording.pop()
                        memo.keep(key, b"\x00".join(out[mark:]), pos - start, walk.prefix)  # type: ignore[union-attr]
                if depth == frame_depth:  # the end of one of `frames`: back to the walk it interrupted
                    if frame_end > pos:
                        _gap(src, pos, frame_end, escape, out)
                    out, pos, skip, skip_depth, frame_depth, frame_end = outer.pop()
                    append = out.append
                if next_sibling():  # false at depth 0 (the loop ends)
                    break
            else:
                break
        if top.end_byte > pos:
            _gap(src, pos, top.end_byte, escape, out)
    return out


def _handled(node: Node, kind: int, action: int, cursor: TreeCursor, walk: _Walk, out: list[bytes], pos: int,
             as_is: bool) -> int:
    """Ask the handler of `node` (a handler's kind, none when `as_is`): _WRITTEN when it wrote the node to
    `out` (the text before it from `pos` first), _TRANSPARENT to walk it as a transparent wrapper, _NODE
    as any node. A guard spares the call where the handler cannot apply (`_walk` checks _STARTS's)."""
    if as_is:
        return _NODE
    tables, src = walk.tables, walk.src
    start, end = node.byte_range
    if action == _CONTAINS and tables.needles[kind](src, start, end) is None:  # type: ignore[misc]
        return _NODE
    field_id = cursor.field_id or 0
    if action == _PLAIN and field_id not in tables.keyed[kind] and \
            tables.needles[kind](src, start, end) is not None:  # type: ignore[misc]
        return _NODE
    replaced = tables.handlers[kind](node, field_id, walk)
    if replaced is None:
        return _NODE
    if replaced is _TRANSPARENT_RESULT:
        return _TRANSPARENT
    _gap(src, pos, start, walk.escape, out)
    if replaced and tables.fields[field_id]:
        out.append(tables.fields[field_id])
    out.extend(replaced)
    return _WRITTEN


_MOVED = 2  # `_rare`'s answer: the cursor is on a later sibling the walk has not written yet


def _rare(node: Node, kind: int, action: int, cursor: TreeCursor, walk: _Walk, out: list[bytes], pos: int,
          as_is: bool, skipped: bool) -> tuple[bool | int | None, int]:
    """`_walk` for the node kinds its first branches leave: runs, transparent wrappers, opaque and
    collapsed leaves, squeezed keywords. Whether the walk goes into the node (True: with a close marker),
    None when it does not, _MOVED when a run took the cursor to a later sibling; and the new position."""
    src, escape, tables = walk.src, walk.escape, walk.tables
    if action == _RUN:
        if not as_is:
            return _run(node, cursor, walk, out, pos)
        action = _NODE
    if skipped and action in _INNER:
        action = _DROP
    if action in _NAMED:
        field_id = cursor.field_id
        if field_id and tables.fields[field_id]:
            out.append(tables.fields[field_id])
        if action in _INNER and cursor.goto_first_child():
            if action == _NODE:
                out.append(tables.markers[kind])
                return True, pos
            return False, pos
    start, end = node.byte_range
    pos = max(_gap(src, pos, start, escape, out), end)
    if action in _NAMED:  # named leaves
        out.append(tables.markers[kind])
        if start == end and action in _INNER:  # empty: like a node whose children were all dropped
            out.append(_CLOSE)
        else:
            text = b" ".join(src[start:end].split()) if action == _COLLAPSE else src[start:end]
            out.append(_escape(text) if escape else text)
    elif action == _SQUEEZE:  # a keyword written with layout inside (`# define`)
        out.append(b"".join(src[start:end].split()))
    return None, pos


def _run(node: Node, cursor: TreeCursor, walk: _Walk, out: list[bytes], pos: int) -> tuple[int | None, int]:
    """A run: `node` and the siblings of its kind that follow it (dropped nodes such as comments
    between them aside), written sorted; _MOVED when the cursor stopped on a sibling after the run."""
    src, escape, actions = walk.src, walk.escape, walk.tables.actions
    run: list[bytes] = []
    moved: int | None = None
    distinct = node.kind_id in walk.tables.distinct
    while True:
        start, end = node.byte_range
        pos = _gap(src, pos, start, escape, out)
        if actions[node.kind_id] == _RUN:
            run.append(b"\x00".join(_walk((node,), walk, as_is=True)))
        pos = max(pos, end)
        if not cursor.goto_next_sibling():
            break
        node = cursor.node  # type: ignore[assignment]
        kind = node.kind_id
        if kind >= len(actions) or actions[kind] not in (_RUN, _DROP):
            moved = _MOVED
            break
    run = sorted(set(run)) if distinct else sorted(run)
    out.extend(run)
    return moved, pos


# --- handlers: the rules of canonical.py that look at a node -------------------------------------

_ESCAPE = re.compile(rb"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^}]*\}|.)", re.DOTALL)
_JS_IDENTIFIER = re.compile(rb"[A-Za-z_$][\w$]*|0|[1-9][0-9]*")
_RUST_DIVERGING = frozenset({"return_expression", "break_expression", "continue_expression"})
_DOCSTRING_OWNERS = frozenset({"function_definition", "class_definition"})
_RUST_STATEMENTS = frozenset({"expression_statement", "let_declaration", "empty_statement", "label",
                              "attribute_item", "inner_attribute_item", "macro_definition"})


def _named(node: Node) -> list[Node]:
    return [child for child in node.named_children if not child.is_extra]


def _python_escapes(text: bytes, prefix: bytes) -> bytes:
    """`\\'` is `'`; hex digits of escapes in lower case, `\\N{...}` names in upper case (black and
    ruff respell all three); `\\u` and `\\N` are escapes in text strings only."""

    def respell(match: re.Match[bytes]) -> bytes:
        code = match.group(1)
        if code in (b"'", b'"'):
            return code
        if code[:1] == b"x" or (code[:1] in (b"u", b"U") and len(code) > 1 and b"b" not in prefix):
            return b"\\" + code[:1] + code[1:].lower()
        if code[:2] == b"N{" and b"b" not in prefix:
            return b"\\" + code.upper()
        return match.group(0)

    return _ESCAPE.sub(respell, text)


def _python_string(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """String text with escapes respelled as black does, unless raw."""
    text = walk.src[node.start_byte : node.end_byte]
    if b"\\" in text and b"r" not in walk.prefix:
        text = _python_escapes(text, walk.prefix)
    return [walk.tables.markers[node.kind_id], walk.text(text)]


def _python_tuple_pattern(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """`(s) = x` is `s = x`: a parenthesized target without a comma is no tuple (`(s,) = x` is)."""
    if len(_named(node)) == 1 and not any(child.type == "," for child in node.children):
        return _TRANSPARENT_RESULT
    return None


def _python_group_pattern(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """`case (A | B):` is `case A | B:`: a pattern in parentheses without a comma is a group, which
    CPython's tree does not keep (black --preview adds one around a long pattern). tree-sitter-python
    reads it as a case pattern holding a one-element tuple pattern (transparent, above) holding the
    pattern, so the outer case pattern goes too."""
    named = _named(node)
    if len(named) != 1 or named[0].type != "tuple_pattern":
        return None
    inner = _named(named[0])
    if len(inner) != 1 or inner[0].type != "case_pattern" or any(child.type == "," for child in named[0].children):
        return None
    return _TRANSPARENT_RESULT


def _python_sole_generator(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """`f((x for x in y))` is `f(x for x in y)`: a call's only argument, a generator in parentheses of
    its own, is the generator the call's parentheses make (one GeneratorExp argument in CPython's tree
    either way; black --preview drops the inner pair). tree-sitter-python writes the first as an
    argument list holding the generator, the second as the generator alone."""
    if node.parent is None or node.parent.type != "call":
        return None
    named = _named(node)
    while len(named) == 1 and named[0].type == "parenthesized_expression":
        named = _named(named[0])
    if len(named) != 1 or named[0].type != "generator_expression":
        return None
    return _walk(named, walk)


def _extend_joining_texts(out: list[bytes], tokens: Sequence[bytes], content: bytes) -> None:
    """Append a string's body `tokens` to `out`, a text (`content` and its bytes) that follows another
    text joining it: the bodies of adjacent literals read as one string."""
    index = 0
    while index < len(tokens):
        if tokens[index] == content and len(out) >= 2 and out[-2] == content:
            out[-1] += tokens[index + 1]
            index += 2
        else:
            out.append(tokens[index])
            index += 1


_BRACES = re.compile(rb"\\\\|\\N\{[^}]*\}|[{}]")  # an escaped backslash and a `\N{name}` escape are no braces
_RAW_BRACES = re.compile(rb"[{}]")


def _double_brace(match: re.Match[bytes]) -> bytes:
    text = match.group()
    return text + text if text in (b"{", b"}") else text


def _python_concatenation(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """`'a' 'b'` is `'ab'` (ruff joins implicit concatenations that fit on a line), when all parts
    agree on raw and bytes prefixes; an f-string part makes the whole an f-string, in which the other
    parts' braces are text (`'{a}' f'{b}'` is `f'{{a}}{b}'`)."""
    parts = [_walk((part,), walk) for part in _named(node)]
    if not parts or any(len(part) < 2 for part in parts):
        return None
    string = walk.tables.kind_markers["string"]
    content = walk.tables.kind_markers["string_content"]
    prefixes = [part[2] if part[1] == _QUOTE_MARK else b"" for part in parts]
    if any(part[0] != string for part in parts) or len({(b"r" in p, b"b" in p) for p in prefixes}) != 1:
        return None
    prefix = bytes(sorted(set(b"".join(prefixes))))
    merged: list[bytes] = [string] + ([_QUOTE_MARK, prefix] if prefix else [])
    for part, own in zip(parts, prefixes, strict=True):
        tokens = part[3 if own else 1 : -1]
        if b"f" in prefix and b"f" not in own:  # its braces are text: an f-string writes them doubled
            braces = _RAW_BRACES if b"r" in own else _BRACES
            tokens = [braces.sub(_double_brace, tokens[i]) if i and tokens[i - 1] == content else tokens[i]
                      for i in range(len(tokens))]
        _extend_joining_texts(merged, tokens, content)
    merged.append(_CLOSE)
    return merged


def _python_union_operands(node: Node, src: bytes) -> list[Node]:
    """The operands of an unparenthesized chain of `|` in a type, left to right."""
    kind = node.type
    named = _named(node)
    if kind == "type" and len(named) == 1 and named[0].type in ("union_type", "binary_operator"):
        return _python_union_operands(named[0], src)
    operator = node.child_by_field_name("operator") if kind == "binary_operator" else None
    if kind == "union_type" or (operator is not None and src[operator.start_byte : operator.end_byte] == b"|"):
        return [*_python_union_operands(named[0], src), *_python_union_operands(named[-1], src)]
    return [node]


def _python_union(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """`A[X] | B | None` is `(A[X] | B) | None`, as in `(A[X] | B | None)`: tree-sitter-python reads the
    part after a generic type's `|` as one expression (`A[X] | (B | None)`), Python's `|` is left-associative."""
    named = _named(node)
    right = named[-1] if named else None
    if right is None or right.type != "type" or right.named_child_count != 1 or \
            right.named_children[0].type != "binary_operator":
        return None
    operands = _python_union_operands(node, walk.src)
    out = [walk.tables.kind_markers["binary_operator"]] * (len(operands) - 1)
    out += _walk(operands[:1], walk)
    for operand in operands[1:]:
        out.append(b"|")  # an operator token: its text, no field
        out += _walk((operand,), walk)
        out.append(_CLOSE)
    return out


def _python_docstring(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """A docstring's lines compare stripped, as black's own AST check does (an expression statement
    of one string, first in a module, class or function body)."""
    if node.named_child_count != 1 or node.named_child(0).type != "string":
        return None
    body = node.parent
    if body is None or (body.type != "module" and (body.type != "block" or body.parent is None
                                                     or body.parent.type not in _DOCSTRING_OWNERS)):
        return None
    first = next((child for child in body.named_children if not child.is_extra), None)
    if first is None or first.id != node.id:
        return None
    tokens = _walk((node,), walk, as_is=True)
    content = walk.tables.kind_markers["string_content"]
    for index in range(len(tokens) - 1):
        if tokens[index] == content:
            lines = tokens[index + 1].splitlines()
            tokens[index + 1] = b"\n".join(line.strip() for line in lines).strip()
    return tokens


def _python_uncovered_string(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """tree-sitter-python puts the text of `r"\\""` in its string_end token: it is the content all the same."""
    if node.child_count != 2:
        return None
    start, end = node.children
    quote = walk.src[start.start_byte : start.end_byte].lstrip(b"rRbBuUfFtT")
    text = walk.src[start.end_byte : end.end_byte - len(quote)]
    if not text:
        return None
    return [walk.tables.markers[node.kind_id], *_walk((start,), walk), walk.tables.kind_markers["string_content"],
            walk.text(text), _CLOSE]


def _lowercase(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """Python numbers are case-insensitive: 0XFF == 0xff, 1E5 == 1e5."""
    return [walk.tables.markers[node.kind_id], walk.src[node.start_byte : node.end_byte].lower()]


def _js_unicode_name(text: bytes) -> bool:
    """A key like `県` is a name too (JavaScript names are Unicode: ID_Start, then ID_Continue, and `$`)."""
    if text.isascii():
        return False
    try:
        return text.decode().replace("$", "_").isidentifier()
    except UnicodeDecodeError:
        return False


# members whose `name` (`property`) is a property name: `"a"() {}` == `a() {}` (not a `module` name)
_JS_NAMED_MEMBERS = frozenset({"method_definition", "method_signature", "abstract_method_signature",
                               "property_signature", "public_field_definition", "field_definition",
                               "enum_assignment", "enum_body"})


def _js_key(node: Node, text: bytes, field: int, walk: _Walk) -> list[bytes] | None:
    """An object key or member name written as a string or number that could be a bare name:
    `{'a': 1}` == `{a: 1}`, `class A { 'b'() {} }` == `class A { b() {} }`."""
    if not field:
        return None
    field_ids = walk.tables.field_ids
    if field != field_ids.get("key") and not (
        field in (field_ids.get("name"), field_ids.get("property"))
        and node.parent is not None and node.parent.type in _JS_NAMED_MEMBERS
    ):
        return None
    if _JS_IDENTIFIER.fullmatch(text) or _js_unicode_name(text):
        return [walk.tables.kind_markers["property_identifier"], text]
    return None


def _js_string(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """Quotes are style, so are escapes of quotes: `'it\\'s'` == `"it's"`."""
    text = walk.src[node.start_byte + 1 : node.end_byte - 1]
    if b"\\" in text:
        text = _ESCAPE.sub(lambda m: m.group(1) if m.group(1) in (b"'", b'"') else m.group(0), text)
    return (field and _js_key(node, text, field, walk)) or [walk.tables.markers[node.kind_id], walk.text(text), _CLOSE]


_JS_NUMBER_RULES = [  # prettier's own number printing (lower case, no redundant zeros, signs or dots)
    (re.compile(rb"^([+-]?[\d.]+e)(?:\+|(-))?0*(\d)"), rb"\1\2\3"),
    (re.compile(rb"^([+-]?[\d.]+)e[+-]?0+$"), rb"\1"),
    (re.compile(rb"^([+-])?\."), rb"\g<1>0."),
    (re.compile(rb"(\.\d+?)0+(?=e|$)"), rb"\1"),
    (re.compile(rb"\.(?=e|$)"), rb""),
]


def _js_number(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """Numbers as prettier prints them: `0XAB` == `0xab`, `1.50` == `1.5`, `.5` == `0.5`."""
    start, end = node.byte_range
    text = walk.src[start:end].lower()
    if not text.isdigit() and not text.startswith((b"0x", b"0b", b"0o")):
        for pattern, replacement in _JS_NUMBER_RULES:
            text = pattern.sub(replacement, text)
    return (field and _js_key(node, text, field, walk)) or [walk.tables.markers[node.kind_id], walk.text(text)]


_ASSOCIATIVE = frozenset({b"&&", b"||", b"??"})


def _js_logical(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """`(a || b) || c` == `a || (b || c)` == `a || b || c` (prettier drops such parentheses): `&&`,
    `||` and `??` chains are associative, evaluated left to right either way; written flat."""
    field_ids = walk.tables.field_ids
    operator_field = field_ids["operator"]
    operator = node.child_by_field_id(operator_field)
    text = walk.src[operator.start_byte : operator.end_byte] if operator is not None else b""
    if text not in _ASSOCIATIVE:
        return None
    left_field, right_field = field_ids["left"], field_ids["right"]
    operands = []
    stack = [node]
    while stack:
        current = stack.pop()
        while current.type == "parenthesized_expression" and current.named_child_count == 1:
            current = current.named_children[0]
        inner = current.child_by_field_id(operator_field) if current.type == "binary_expression" else None
        left, right = current.child_by_field_id(left_field), current.child_by_field_id(right_field)
        if inner is not None and walk.src[inner.start_byte : inner.end_byte] == text and left and right:
            stack += [right, left]
        else:
            operands.append(b"\x00".join(_walk((current,), walk)))
    return [walk.tables.markers[node.kind_id], text, *operands, _CLOSE]


def _single_parameter(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """`(x) => f(x)` == `x => f(x)`: a parameter list of one plain name is that name."""
    only = node.named_child(0) if node.named_child_count == 1 else None
    if only is None or only.is_extra:
        return None
    kind = only.type
    if kind == "required_parameter":  # TypeScript: a plain name has no type, default or modifier
        if only.child_by_field_id(walk.tables.field_ids.get("type", 0)) is not None:  # a type: known at once
            return None
        inner = _named(only)
        if len(inner) != 1 or inner[0].type != "identifier":
            return None
        only = inner[0]
    elif kind != "identifier":
        return None
    return [walk.tables.markers[only.kind_id], walk.text(walk.src[only.start_byte : only.end_byte])]


def _leading_pipe(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """`type A = | "a" | "b"` == `type A = "a" | "b"`: a leading `|` wraps the first member."""
    first = node.child(0)
    if first is None or first.is_named or first.type != "|":
        return None
    return _walk(_named(node), walk)


def _rust_block(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """A match arm's or closure's `{ expr }` is `expr`: a block of one tail expression is its value."""
    owner = node.parent
    if owner is None or owner.type not in ("match_arm", "closure_expression"):
        return None
    named = _named(node)
    if len(named) != 1:
        return None
    only = named[0]
    if only.type == "expression_statement" and only.child_count == 1:  # `if`/`match` ending a block, no `;`
        return _walk((only.children[0],), walk)
    if only.type in _RUST_STATEMENTS or only.type.endswith("_item"):
        return None
    return _TRANSPARENT_RESULT


def _rust_statement(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """`return x;` is `return x` (rustfmt adds the `;`): a diverging statement is its expression."""
    named = _named(node)
    return _TRANSPARENT_RESULT if len(named) == 1 and named[0].type in _RUST_DIVERGING else None


def _empty(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """A node with nothing in it means nothing (Java's `;` after the last enum constant)."""
    return [] if not _named(node) else None


# C and C++ preprocessing tokens: numbers, names, punctuators, then raw strings, strings, characters,
# comments and line splices (only looked for when the text holds a quote, a `/` or a `\`)
_C_PLAIN = (rb"\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.'])*|[A-Za-z_$][A-Za-z0-9_$]*"
            rb"|\.\.\.|<<=|>>=|->\*|<=>|##|::|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|\.\*")
_C_PLAIN_TOKEN = re.compile(_C_PLAIN + rb"|\S")
_C_TOKEN = re.compile(
    rb"""(?:u8|[uUL])?R"([^()\\\s]{0,16})\((?:.|\n)*?\)\1"|(?:u8|[uUL])?"(?:\\.|[^"\\\n])*"|(?:u8|[uUL])?'(?:\\.|[^'\\\n])*'"""
    rb"|/\*(?:.|\n)*?\*/|//[^\n]*|" + _C_PLAIN + rb"|\\\r?\n|\S"
)
_C_RARE_TOKEN = re.compile(rb"[\"'/\\]")
_C_ESCAPE_END = re.compile(rb"(?<!\\)(?:\\\\)*\\(?:x[0-9A-Fa-f]*|[0-7]{1,2})\"$")  # `"\\x1"`: joining would extend it


def _c_macro_tokens(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """A macro body is a list of preprocessing tokens: the whitespace between them (clang-format
    respaces and realigns macro bodies, and their `\\` line ends) is no part of it; comments neither."""
    text = walk.src[node.start_byte : node.end_byte]
    if not _C_RARE_TOKEN.search(text):  # no string, character, comment or line end: the tokens as found
        return [walk.tables.markers[node.kind_id], walk.text(b" ".join(_C_PLAIN_TOKEN.findall(text)))]
    tokens: list[bytes] = []
    for match in _C_TOKEN.finditer(text):
        token = match.group()
        if token.startswith((b"/*", b"//")) or token.rstrip(b"\r\n") == b"\\":
            continue
        if token.endswith(b'"') and tokens and tokens[-1].endswith(b'"') and b"R" not in token[: token.index(b'"')]:
            quote = token.index(b'"')
            if tokens[-1][: tokens[-1].index(b'"')] == token[:quote] and not _C_ESCAPE_END.search(tokens[-1]):
                tokens[-1] = tokens[-1][:-1] + token[quote + 1 :]  # `"a" "b"` is `"ab"`, as outside macros
                continue
        tokens.append(token)
    return [walk.tables.markers[node.kind_id], walk.text(b" ".join(tokens))]


def _c_plain_concatenation(node: Node, walk: _Walk) -> list[bytes] | None:
    """The tokens of a concatenation of string literals that hold only text and escapes under one
    prefix, read from the source as the general rule below would write them; None otherwise."""
    src, tables = walk.src, walk.tables
    content, escape = tables.kind_markers["string_content"], tables.kind_markers["escape_sequence"]
    out = [tables.kind_markers["string_literal"]]
    head = None
    for part in node.named_children:
        if part.type != "string_literal":
            return None
        quote = src.find(b'"', part.start_byte, part.end_byte) + 1
        if head is None:
            head = src[part.start_byte : quote]
            if head != b'"':
                out.append(walk.text(head))
        elif src[part.start_byte : quote] != head:
            return None
        for child in part.named_children:
            kind = child.type
            text = walk.text(src[child.start_byte : child.end_byte])
            if kind == "string_content":
                if len(out) > 1 and out[-2] is content:  # a text after a text: the next literal's, joined
                    out[-1] += text
                else:
                    out += (content, text)
            elif kind == "escape_sequence":
                out += (escape, text)
            else:
                return None
    out.append(_CLOSE)
    return out if head else None


def _c_concatenation(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """`"a" "b"` is `"ab"` (clang-format breaks long string literals in two): adjacent literals with the
    same prefix are one (a macro between them, `"a" __FILE__ "b"`, stays apart); escapes stay apart
    from the text, so `"\\x1" "2"` is not `"\\x12"`."""
    plain = _c_plain_concatenation(node, walk)
    if plain is not None:  # the common case: literals of text and escapes with one prefix, read from the source
        return plain
    tables = walk.tables
    literal, content = tables.kind_markers["string_literal"], tables.kind_markers["string_content"]
    bodies = (content, tables.kind_markers["escape_sequence"], _CLOSE)
    merged: list[list[bytes]] = []  # the parts, adjacent literals joined
    heads: list[bytes | None] = []  # a literal's prefix token (b"" for none), None for another part
    for part in _named(node):
        tokens = _walk((part,), walk)
        head = (tokens[1] if tokens[1] not in bodies else b"") if tokens[0] == literal and len(tokens) > 1 else None
        if head is None or not heads or heads[-1] != head:
            merged.append(tokens)
            heads.append(head)
            continue
        joined = merged[-1]
        joined.pop()  # its close marker
        _extend_joining_texts(joined, tokens[2 if head else 1 : -1], content)
        joined.append(_CLOSE)
    if len(merged) == 1:
        return merged[0]
    return [tables.markers[node.kind_id], *[token for part in merged for token in part], _CLOSE]


_PHP_SINGLE_ESCAPE = re.compile(rb"\\([\\'])")
_PHP_DOUBLE_ESCAPE = re.compile(rb'\\(?:([ntrvef\\$"])|([0-7]{1,3})|x([0-9A-Fa-f]{1,2})|u\{([0-9A-Fa-f]+)\})')
_PHP_ESCAPED = {b"n": b"\n", b"t": b"\t", b"r": b"\r", b"v": b"\v", b"e": b"\x1b", b"f": b"\f", b"\\": b"\\",
                b"$": b"$", b'"': b'"'}
_PHP_STRING_PARTS = frozenset({"string_content", "escape_sequence"})


def _php_double_escape(match: re.Match[bytes]) -> bytes:
    simple, octal, hexadecimal, code = match.groups()
    if simple:
        return _PHP_ESCAPED[simple]
    if octal:
        return bytes([int(octal, 8) & 0xFF])
    if hexadecimal:
        return bytes([int(hexadecimal, 16)])
    number = int(code, 16)
    return chr(number).encode("utf-8", "surrogatepass") if number < 0x110000 else match.group()


def _php_string(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """`'a'` == `"a"` (prettier's PHP plugin picks the quotes): a string without interpolation is
    written as its value, escapes decoded as PHP does for its quote kind (`'\\n'` is two characters,
    `"\\n"` one)."""
    text = walk.src[node.start_byte : node.end_byte]
    quote = text.find(b"'" if node.type == "string" else b'"')
    if quote < 0 or len(text) < quote + 2:
        return None
    body = text[quote + 1 : -1]
    if node.type == "string":
        value = _PHP_SINGLE_ESCAPE.sub(rb"\1", body)
    elif any(child.type not in _PHP_STRING_PARTS for child in _named(node)):
        return None  # interpolation: `"a $b"` has no single-quoted spelling
    else:
        value = _PHP_DOUBLE_ESCAPE.sub(_php_double_escape, body)
    markers = walk.tables.kind_markers
    return [markers["string"], *((_QUOTE_MARK, text[:quote].lower()) if quote else ()),
            markers["string_content"], _escape(value), _CLOSE]


def _php_heredoc(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """A heredoc's lines lose the closing marker's indentation (PHP 7.3's flexible heredoc, which
    prettier's PHP plugin uses to indent them): its text is written without that indentation."""
    owner = node.parent
    end = owner.child_by_field_id(walk.tables.field_ids["end_tag"]) if owner is not None else None
    if end is None:
        return None
    src = walk.src
    indent = src[src.rfind(b"\n", 0, end.start_byte) + 1 : end.start_byte]
    if not indent or not indent.isspace():
        return None
    replaced = {}
    for child in _named(node):
        if child.type in _PHP_HEREDOC_TEXTS:
            start = child.start_byte
            if src[start - 1 : start] == b"\n" and src.startswith(indent, start):
                start += len(indent)
            text = src[start : child.end_byte].replace(b"\n" + indent, b"\n")  # a text may span lines
            replaced[child.id] = [walk.tables.markers[child.kind_id], walk.text(text)]
    return _rebuilt(node, walk, replaced)


_PHP_HEREDOC_TEXTS = frozenset({"string_content", "nowdoc_string"})


def _php_array(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """`array(1, 2)` is `[1, 2]` (prettier's PHP plugin writes the short syntax): the same array."""
    tokens = _walk((node,), walk, as_is=True)
    if len(tokens) > 1 and tokens[1].lower() == b"array":
        del tokens[1]
    return tokens


def _php_new(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """`new Foo` is `new Foo()` (prettier's PHP plugin adds the parentheses): no argument list is an empty one."""
    if node.named_child_count != 1 or _named(node)[0].type in ("arguments", "declaration_list"):
        return None
    tokens = _walk((node,), walk, as_is=True)
    tokens[-1:-1] = [walk.tables.kind_markers["arguments"], _CLOSE]
    return tokens


def _strip(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """A token whose own text holds layout (PHP's `<<< EOT` heredoc start, C's `#  error` directive):
    written without it."""
    return [walk.tables.markers[node.kind_id], walk.text(b"".join(walk.src[node.start_byte : node.end_byte].split()))]


def _set(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """A list whose order has no meaning (`use a::{c, b}`): its members sorted."""
    members = sorted(b"\x00".join(_walk((child,), walk)) for child in _named(node))
    return [walk.tables.markers[node.kind_id], *members, _CLOSE]


# --- Mis-parses and token-level spellings: each handler writes what the language means.

def _rebuilt(node: Node, walk: _Walk, replaced: dict[int, list[bytes]]) -> list[bytes]:
    """`node`'s tokens as the walk writes them, with the children in `replaced` (by id) written as given."""
    fields = walk.tables.fields
    out = [walk.tables.markers[node.kind_id]]
    cursor = node.walk()
    if cursor.goto_first_child():
        while True:
            child: Node = cursor.node  # type: ignore[assignment]
            tokens = replaced[child.id] if child.id in replaced else _walk((child,), walk)
            field_id = cursor.field_id
            if tokens and child.is_named and field_id and fields[field_id]:
                out.append(fields[field_id])
            out.extend(tokens)
            if not cursor.goto_next_sibling():
                break
    out.append(_CLOSE)
    return out


# TypeScript binary operators that bind at least as tightly as `as` and `satisfies` (relational), by precedence
_TS_PRECEDENCE = {b"<": 9, b">": 9, b"<=": 9, b">=": 9, b"instanceof": 9, b"in": 9, b"<<": 10, b">>": 10,
                  b">>>": 10, b"+": 11, b"-": 11, b"*": 12, b"/": 12, b"%": 12, b"**": 13}
_TS_CAST_PRECEDENCE = 9
_TS_CASTS = frozenset({"as_expression", "satisfies_expression"})
_TS_PREFIXES = frozenset({"unary_expression", "await_expression"})


def _ts_flatten(node: Node, walk: _Walk, items: list[tuple[str, Node, int]]) -> bool:
    """The operators and operands of an expression of prefix operators, casts and binary operators at
    least as tight as `as`, in source order; true when an `await` has an unparenthesized cast operand."""
    kind = node.type
    if kind == "binary_expression":
        operator, left, right = (node.child_by_field_name(name) for name in ("operator", "left", "right"))
        precedence = _TS_PRECEDENCE.get(walk.src[operator.start_byte : operator.end_byte]) if operator else None
        if precedence and left is not None and right is not None:
            found = _ts_flatten(left, walk, items)
            items.append(("binary", node, precedence))
            return _ts_flatten(right, walk, items) or found
    elif kind in _TS_PREFIXES or kind in _TS_CASTS:
        named = _named(node)
        if named:
            operand = named[-1] if kind in _TS_PREFIXES else named[0]
            if kind in _TS_CASTS:
                found = _ts_flatten(operand, walk, items)
                items.append(("cast", node, _TS_CAST_PRECEDENCE))
                return found
            items.append(("prefix", node, operand.id))
            return _ts_flatten(operand, walk, items) or (kind == "await_expression" and operand.type in _TS_CASTS)
    items.append(("operand", node, 0))
    return False


def _ts_cast_precedence(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """tree-sitter-typescript parses `await x as T` as `await (x as T)`; TypeScript reads `(await x) as T`
    (`await` takes a unary operand, `as` and `satisfies` bind like `<`), and `a + await x as T` as
    `(a + await x) as T`. Such an expression is parsed again from its operators and operands with
    TypeScript's precedences and written as the tree of its parenthesized spelling."""
    if walk.src.find(b"await", node.start_byte, node.end_byte) < 0:
        return None
    items: list[tuple[str, Node, int]] = []
    if not _ts_flatten(node, walk, items):
        return None
    position = 0

    def unary() -> list[bytes]:
        nonlocal position
        kind, item, operand = items[position]
        position += 1
        if kind == "prefix":
            return _rebuilt(item, walk, {operand: unary()})
        return _walk((item,), walk)

    def binary(floor: int) -> list[bytes]:
        nonlocal position
        tokens = unary()
        while position < len(items):
            kind, item, precedence = items[position]
            if kind == "operand" or kind == "prefix":
                break
            right_associative = item.type == "binary_expression" and precedence == _TS_PRECEDENCE[b"**"]
            if precedence < floor or (precedence == floor and not right_associative):
                break
            position += 1
            first = _named(item)[0]
            if kind == "cast":
                tokens = _rebuilt(item, walk, {first.id: tokens})
            else:
                right = item.child_by_field_name("right")
                assert right is not None
                tokens = _rebuilt(item, walk, {first.id: tokens, right.id: binary(precedence)})
        return tokens

    tokens = binary(0)
    return tokens if position == len(items) else None


_TS_POSTFIX = {"call_expression": "function", "member_expression": "object", "subscript_expression": "object",
               "instantiation_expression": "", "non_null_expression": ""}  # node -> field of its leftmost operand
_TS_PREFIX_STARTS = (b"await", b"typeof", b"void", b"delete", b"!", b"~", b"+", b"-")


def _ts_prefixes(node: Node) -> tuple[list[Node], Node] | None:
    """The prefix operators `node` starts with (`!await g` -> [!, await]) and the operand under them."""
    prefixes = []
    while node.type in _TS_PREFIXES:
        named = _named(node)
        if not named:
            return None
        prefixes.append(node)
        node = named[-1]
    return (prefixes, node) if prefixes else None


def _ts_wrapped(prefixes: list[Node], tokens: list[bytes], walk: _Walk, operand: Node) -> list[bytes]:
    """`tokens` under the prefix operators (innermost last), in place of `operand`, the innermost's operand."""
    for prefix in reversed(prefixes):
        tokens = _rebuilt(prefix, walk, {operand.id: tokens})
        operand = prefix
    return tokens


def _ts_prefix_callee(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """tree-sitter-typescript parses `await g<T>(x)` as `(await g)<T>(x)` (also `-g<T>(x)`, `await g<T>`,
    and what follows: `await g<T>(x).y`); TypeScript reads `await (g<T>(x).y)`: a prefix operator takes
    the whole call and member chain. Written as that tree. (Only called on a node that starts with a
    prefix operator: _GUARDS.)"""
    chain = [node]
    while True:
        current = chain[-1]
        field_name = _TS_POSTFIX.get(current.type)
        if field_name is None:
            break
        named = _named(current)
        inner = current.child_by_field_name(field_name) if field_name else (named[0] if named else None)
        if inner is None:
            return None
        chain.append(inner)
    found = _ts_prefixes(chain.pop())
    if found is None or len(chain) < 1:
        return None
    prefixes, operand = found
    tokens = _walk((operand,), walk)
    replaced = prefixes[0]
    for owner in reversed(chain):
        tokens = _rebuilt(owner, walk, {replaced.id: tokens})
        replaced = owner
    return _ts_wrapped(prefixes, tokens, walk, operand)


_TS_NOT_UNARY = frozenset({"binary_expression", "as_expression", "satisfies_expression", "ternary_expression",
                           "assignment_expression", "augmented_assignment_expression", "sequence_expression"})


def _ts_generic_list(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """In a list (`f(...)`, `[...]`) tree-sitter-typescript parses `f(await g<A, B>(x))` as two
    comparisons, `await g < A` and `B > (x)`; TypeScript reads a generic call (type arguments followed
    by `(`), as tree-sitter does without the prefix operator. Parsed again with the prefix operators
    of such an element blanked out, then written with them around the operand they take."""
    start, end = node.start_byte, node.end_byte
    if walk.src.find(b"<", start, end) < 0 or walk.src.find(b">", start, end) < 0:
        return None
    found: dict[int, tuple[list[Node], Node]] = {}
    for child in _named(node):
        while child.type == "binary_expression":
            left = child.child_by_field_name("left")
            operator = child.child_by_field_name("operator")
            if left is None or operator is None:
                break
            if left.type in _TS_PREFIXES and walk.src[operator.start_byte : operator.end_byte] == b"<":
                taken = _ts_prefixes(left)
                if taken is not None:
                    found[taken[1].start_byte] = taken
                break
            child = left
    if not found:
        return None
    code = bytearray(walk.src[node.start_byte : node.end_byte])
    for prefixes, _ in found.values():
        for prefix in prefixes:
            keyword = prefix.child(0)
            if keyword is None or keyword.is_named:
                return None
            start, end = keyword.start_byte - node.start_byte, keyword.end_byte - node.start_byte
            code[start:end] = b" " * (end - start)
    before = b"f" if node.type == "arguments" else b"x="
    tree = parse(walk.tables.language, before + bytes(code))
    if tree.root_node.has_error:
        return None
    statement = tree.root_node.named_children[0].named_children[0]
    again = statement.child_by_field_name("arguments" if node.type == "arguments" else "right")
    if again is None or again.type != node.type:
        return None
    sub = _Walk(before + bytes(code), walk.escape, walk.tables)
    shift = node.start_byte - len(before)

    def write(current: Node) -> list[bytes]:
        at = [start for start in found if current.start_byte <= start - shift < current.end_byte]
        if not at:
            return _walk((current,), sub)
        if current.start_byte == at[0] - shift and current.type not in _TS_NOT_UNARY and current.id != again.id:
            prefixes, operand = found[at[0]]
            return _ts_wrapped(prefixes, _walk((current,), sub), walk, operand)
        return _rebuilt(current, sub, {child.id: write(child) for child in current.children
                                       if any(child.start_byte <= start - shift < child.end_byte for start in at)})

    return write(again)


def _ts_binary(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """TypeScript binary expressions: cast precedence first, then JavaScript's flat `&&`/`||`/`??` chains.
    Speed: the operator picks the one that can apply (casts only reorder operators tighter than `as`)."""
    operator = node.child_by_field_id(walk.tables.field_ids["operator"])
    text = walk.src[operator.start_byte : operator.end_byte] if operator is not None else b""
    if text in _TS_PRECEDENCE:
        return _ts_cast_precedence(node, field, walk) or None
    return _js_logical(node, field, walk) if text in _ASSOCIATIVE else None


def _js_regex_flags(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """`/a/ig` == `/a/gi` (prettier sorts them): flags are a set, each at most once."""
    return [walk.tables.markers[node.kind_id], bytes(sorted(walk.src[node.start_byte : node.end_byte]))]


def _js_new(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """`new X` == `new X()` (prettier adds the parentheses): no argument list is an empty one."""
    arguments = walk.tables.field_ids["arguments"]
    if node.child_by_field_id(arguments) is not None:
        return None
    tokens = _walk((node,), walk, as_is=True)
    tokens[-1:-1] = [walk.tables.fields[arguments], walk.tables.kind_markers["arguments"], _CLOSE]
    return tokens


_METAVARIABLE = re.compile(rb"\$(?=[A-Za-z_])")


def _rust_string(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """A `\\` ending a line skips the newline and the whitespace after it (rustfmt re-indents those
    lines): the text after such a continuation is written without its leading whitespace."""
    if walk.src.find(b"\\\n", node.start_byte, node.end_byte) < 0 and walk.src.find(
        b"\\\r\n", node.start_byte, node.end_byte
    ) < 0:
        return None
    tokens = _walk((node,), walk, as_is=True)
    escape, content = walk.tables.kind_markers["escape_sequence"], walk.tables.kind_markers["string_content"]
    out: list[bytes] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        out.append(token)
        index += 1
        if token == escape and index < len(tokens) and tokens[index].rstrip(b"\r\n") == b"\\":
            out.append(tokens[index])
            index += 1
            if index + 1 < len(tokens) and tokens[index] == content:
                text = tokens[index + 1].lstrip(b" \t\r\n")
                out.extend((content, text) if text else ())
                index += 2
    return out


# std macros whose arguments are expressions (`$e:expr`, format arguments): rustfmt formats them as a call's
_RUST_EXPRESSION_MACROS = frozenset({b"assert", b"assert_eq", b"assert_ne", b"debug_assert", b"debug_assert_eq",
                                     b"debug_assert_ne", b"vec", b"format", b"print", b"println", b"eprint",
                                     b"eprintln", b"write", b"writeln", b"panic", b"dbg", b"unreachable", b"todo",
                                     b"unimplemented"})


def _rust_token_code(node: Node, walk: _Walk, before: bytes, after: bytes, field: str) -> list[bytes] | None:
    """The tokens of a token tree's inside parsed as Rust code between `before` and `after`, the node in
    `field` of the first item written; each `$name` is parsed as a name of the same length (`_name`) and
    written as `$name`; None when another `$` (a repetition) is in it or it does not parse."""
    source = before + walk.src[node.start_byte + 1 : node.end_byte - 1] + after
    code = _METAVARIABLE.sub(b"_", source)
    if b"$" in code:
        return None
    tree = parse("rust", code)
    if tree.root_node.has_error:
        return None
    inside = tree.root_node.named_children[0].child_by_field_name("body")
    if field != "body" and inside is not None:  # the call `g(...)` ending the function body
        call = _named(inside)[0] if _named(inside) else None
        inside = call.child_by_field_name(field) if call is not None else None
    if inside is None:
        return None
    tokens = _walk(_named(inside), _Walk(source, walk.escape, walk.tables)) if _named(inside) else []
    return [walk.tables.markers[node.kind_id], *tokens, _CLOSE]


def _rust_token_tree(node: Node, field: int, walk: _Walk) -> list[bytes] | None:
    """Token trees rustfmt formats as code, written as that code so the canonical forms apply in them
    (`|s| { e }` == `|s| e`): a `macro_rules!` transcriber that parses as a function body, and the
    arguments of a std macro whose arguments are expressions (`assert_eq!`, `vec!`, `format!`, ...),
    the latter only when a `|` in them may make a closure."""
    if field and field == walk.tables.field_ids.get("right"):
        owner = node.parent
        if owner is not None and owner.type == "macro_rule":
            return _rust_token_code(node, walk, b"fn f(){", b"}", "body")
        return None
    if walk.src.find(b"|", node.start_byte, node.end_byte) < 0 or walk.src[node.start_byte] not in b"([":
        return None
    owner = node.parent
    name = owner.child_by_field_name("macro") if owner is not None and owner.type == "macro_invocation" else None
    if name is None:
        return None
    if name.type == "scoped_identifier":
        name = name.child_by_field_name("name")
    if name is None or walk.src[name.start_byte : name.end_byte] not in _RUST_EXPRESSION_MACROS:
        return None
    return _rust_token_code(node, walk, b"fn f(){g(", b")}", "arguments")


# handler name -> what the node's text must hold for the handler to apply (checked inline by _walk, to save
# the calls): one of the prefixes it must start with, or a pattern it must contain
_GUARDS: dict[str, tuple[bytes, ...] | re.Pattern[bytes]] = {
    "ts_prefix_callee": _TS_PREFIX_STARTS, "leading_pipe": (b"|",),
    # an `await` whose operand is a cast: the cast's `as` or `satisfies` keyword comes after the `await`
    "ts_cast_precedence": re.compile(rb"await[\s\S]*?(?:as|satisfies)"), "ts_generic_list": re.compile(rb"<"),
    "ts_binary": re.compile(rb"await|&&|\|\||\?\?"),
    "python_sole_generator": re.compile(rb"for"),  # a generator's own `for` (or `async for`)
    # a docstring statement starts with its string: a quote, or a prefix letter (tree-sitter-python's scanner
    # takes any run of these before the quote)
    "python_docstring": (b'"', b"'", b"`", *[bytes([letter]) for letter in b"rRbBuUfFtT"]),
}

# handler name -> the whole text of a node the handler writes as the walk does (numbers already in their
# canonical spelling), and the fields under which it still may not (a number as an object key or member
# name is written as a name): checked inline, the call is spared
_WRITTEN_AS_IS: dict[str, tuple[re.Pattern[bytes], tuple[str, ...]]] = {
    "js_number": (re.compile(rb"[0-9]+"), ("key", "name", "property")), "lowercase": (re.compile(rb"[^A-Z]+"), ()),
}

_HANDLERS: dict[str, Handler] = {
    "python_string": _python_string, "python_docstring": _python_docstring, "lowercase": _lowercase,
    "python_uncovered_string": _python_uncovered_string,
    "python_tuple_pattern": _python_tuple_pattern, "python_concatenation": _python_concatenation,
    "python_union": _python_union, "python_group_pattern": _python_group_pattern,
    "python_sole_generator": _python_sole_generator,
    "js_string": _js_string, "js_number": _js_number, "js_logical": _js_logical, "single_parameter": _single_parameter,
    "leading_pipe": _leading_pipe, "rust_block": _rust_block, "rust_statement": _rust_statement, "empty": _empty,
    "set": _set,
    # mis-parses and token-level spellings
    "ts_binary": _ts_binary, "ts_cast_precedence": _ts_cast_precedence, "ts_prefix_callee": _ts_prefix_callee,
    "ts_generic_list": _ts_generic_list, "js_regex_flags": _js_regex_flags, "js_new": _js_new,
    "rust_token_tree": _rust_token_tree, "rust_string": _rust_string,
    "c_macro_tokens": _c_macro_tokens, "c_concatenation": _c_concatenation, "php_string": _php_string,
    "strip": _strip, "php_heredoc": _php_heredoc, "php_array": _php_array, "php_new": _php_new,
}


def _lines(first: Node, last: Node) -> tuple[int, int]:
    start = first.start_point.row + 1
    end_row, end_column = last.end_point
    return start, max(start, end_row + 1 if end_column else end_row)


_DIGESTS: dict[tuple[object, ...], str] = {}
_MAX_DIGESTS = 50_000


def _forgotten(key: tuple[object, ...] | None, default: str) -> str:
    """A look-up in no memo."""
    return default


def _own_digests(walk: _Walk, frames: list[tuple[Sequence[Node], Sequence[Node], int]], missing: list[int],
                 own: list[str]) -> None:
    """The `missing` digests of `own`, by frame (its nodes, the member definitions it leaves out, the
    depth they sit at; frame 0 is the file): one walk of the file when its digest is missing, writing
    the other missing definitions' streams on its way (saves a walk per definition); a walk of its own
    for each missing one it did not pass through (inside a remembered definition, or a handler's)."""
    streams: dict[int, list[bytes]] = {}
    if missing[0] == 0:
        passing: dict[int, _Frame] = {}
        for frame in missing[1:]:
            nodes, skipped, depth = frames[frame]
            stream = streams[frame] = []
            entry = (stream, frozenset([n.id for n in skipped]) if skipped else _NO_SKIP, depth)
            for node in nodes:
                passing[node.id] = entry
        nodes, skipped, depth = frames[0]
        walk.prefix = b""
        streams[0] = _walk(nodes, walk, frozenset([n.id for n in skipped]), depth, frames=passing, memo=walk.memo)
        if passing:  # some not (wholly) passed through
            for frame in missing[1:]:
                if any(node.id in passing for node in frames[frame][0]):
                    del streams[frame]
    for frame in missing:
        written = streams.get(frame)
        if written is not None:
            own[frame] = _stream_digest(written)
        else:
            nodes, skipped, depth = frames[frame]
            own[frame] = _digest(nodes, walk, frozenset([n.id for n in skipped]) if skipped else _NO_SKIP, depth)


def _around_plain(tables: _Tables, frame: tuple[Sequence[Node], Sequence[Node], int]) -> bool:
    """Whether the own stream of `frame` is a function of the text around its members: no node holding
    a member (the frame's own node included) is one a handler may write whole or a run sorts, each
    of which reads the members' text. Then the stream leaves the members out wholly (it only ever
    has their place, the text around them and the tree there, which that text gives)."""
    nodes, skipped, _ = frame
    plain = tables.plain
    top = nodes[-1]
    if not plain[top.kind_id]:
        return False
    checked = {top.id}
    for node in skipped:
        holder = node.parent
        while holder is not None and holder.id not in checked:
            if holder.kind_id >= len(plain) or not plain[holder.kind_id]:
                return False
            checked.add(holder.id)
            holder = holder.parent
    return True


_NO_SKIP: frozenset[int] = frozenset()
_NO_MEMBERS: tuple[Node, ...] = ()
_IMPORTS = frozenset({"import_statement", "import_from_statement", "future_import_statement", "import_declaration",
                      "use_declaration", "extern_crate_declaration", "package_clause", "package_declaration"})


@dataclass(frozen=True)
class Statement:
    """Code outside definitions at top level: an import (`imports`) or another statement."""

    imports: bool
    digest: str
    lines: tuple[int, int]


def top_level_statements(language: str, data: bytes, tree: Tree | None = None,
                         found: Definitions | None = None) -> list[Statement]:
    """The file's top-level code outside definitions, one normal-form digest per statement; only
    for saying which part of a file changed, so it parses again (unless given the `tree` of `data`,
    and the definitions `found` in it) rather than cost every hash."""
    root = (tree or parse(language, data)).root_node
    tables = _tables(language)
    if tree is None or found is None:
        found = find_definitions(language, root)
    starts = sorted([node.start_byte for site in found.sites if site.parent == -1 for node in site.nodes])
    imports = _import_kinds(language)
    walk = _Walk(data, b"\x00" in data or b"\x01" in data, tables, None if root.has_error else _memo(language))
    statements = []
    for child in _named(root):
        start, end = child.byte_range
        index = bisect_left(starts, start)  # a definition's node starting at or inside `child`: not a statement
        if index < len(starts) and (starts[index] == start or starts[index] < end):
            continue
        digest = _digest((child,), walk, _NO_SKIP, -1)
        statements.append(Statement(child.kind_id in imports, digest, _lines(child, child)))
    return statements


@functools.cache
def _import_kinds(language: str) -> frozenset[int]:
    """The kind ids of `_IMPORTS` in the grammar of `language`."""
    lang = load_grammar(language).language
    return frozenset(kind for kind in range(lang.node_kind_count) if lang.node_kind_for_id(kind) in _IMPORTS)


def first_error_line(language: str, data: bytes) -> int | None:
    """The 1-based line of the first syntax error tree-sitter recovered from, if any."""
    cursor = parse(language, data).walk()
    while True:
        node = cursor.node
        if node is not None and (node.is_error or node.is_missing):
            return node.start_point.row + 1
        if node is not None and node.has_error and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return None


def parse(language: str, data: bytes) -> Tree:
    """Parse `data` with the grammar of `language` (a fresh parser per call: thread-safe)."""
    from tree_sitter import Parser

    return Parser(load_grammar(language).language).parse(data)


def hash_source(language: str, data: bytes) -> ParsedSource:
    """Parse `data` with the grammar of `language` and hash its normal form and definitions."""
    return hash_tree(language, data, parse(language, data))


class _Folded(NamedTuple):
    """A top-level definition with members hashed before, by its text (see `folding`):
    its own and tree hashes, the digest of its span (see `hash_tree`), its members' definitions,
    and the line it started at then (theirs move with it)."""

    own: str
    merkle: str
    span: bytes
    members: tuple[Definition, ...]
    line: int


_FOLDS: dict[tuple[object, ...], _Folded] = {}
_MAX_FOLDED_MEMBERS = 50_000  # members' definitions held by _FOLDS (about 0.5 KB each), at most
_folded_members = 0


def _fold_key(language: str, escape: bool, data: bytes, nodes: Sequence[Node]) -> tuple[object, ...] | None:
    """What a top-level definition's members and hashes are a function of: its text, kind and the
    state it was parsed from (as for `_Memo`), None without a state."""
    first = nodes[0]
    state = first.parse_state
    if state == _NO_STATE:
        return None
    start, end = first.start_byte, nodes[-1].end_byte
    return (language, escape, first.kind_id, state, len(nodes), end - start, hashlib.sha1(data[start:end]).digest())


def folding(language: str, data: bytes, root: Node) -> Callable[[Site], _Folded | None] | None:
    """`find_definitions`'s `fold` for `hash_tree`: in a tree without syntax errors, a top-level
    definition with members whose text was hashed before stands for its members, which are not
    looked for (a new version of a file mostly keeps its classes as they were: their members need
    no finding, keys nor digests again). None where nothing can be folded."""
    if root.has_error or not _FOLDS:
        return None
    escape = b"\x00" in data or b"\x01" in data

    def fold(site: Site) -> _Folded | None:
        key = _fold_key(language, escape, data, site.nodes)
        return _FOLDS.get(key) if key is not None else None

    return fold


def _keep_folds(language: str, escape: bool, data: bytes, sites: Sequence[Site], members: list[list[int]],
                own: list[str], merkle: list[str], spans: list[bytes], definitions: list[Definition],
                places: list[int]) -> None:
    """Remember each top-level definition with members that was not folded (see `folding`);
    `places`: where each site's definition is in `definitions`."""
    global _folded_members
    tops = [index for index, site in enumerate(sites) if site.parent == -1]
    for order, index in enumerate(tops):
        if not members[index + 1]:
            continue
        key = _fold_key(language, escape, data, sites[index].nodes)
        if key is None or key in _FOLDS:
            continue
        after = places[tops[order + 1]] if order + 1 < len(tops) else len(definitions)
        nested = tuple(definitions[places[index] + 1 : after])
        if _folded_members + len(nested) > _MAX_FOLDED_MEMBERS:  # all go, as in _Memo
            _FOLDS.clear()
            _folded_members = 0
        _folded_members += len(nested)
        frame = index + 1
        _FOLDS[key] = _Folded(own[frame], merkle[frame], spans[frame], nested, definitions[places[index]].lines[0])


def hash_tree(language: str, data: bytes, tree: Tree, found: Definitions | None = None) -> ParsedSource:
    """Hash the normal form and definitions of `tree`, already parsed from `data` (`found`: its
    definitions, when the caller found them, with `folding`)."""
    prefix = load_grammar(language).hash_prefix
    tables = _tables(language)
    root = tree.root_node
    escape = b"\x00" in data or b"\x01" in data
    walk = _Walk(data, escape, tables, None if root.has_error else _memo(language))
    if found is None:
        found = find_definitions(language, root, folding(language, data, root))
    sites = found.sites
    folded: dict[int, _Folded] = found.folded  # type: ignore[assignment]  # what `folding` folds
    members: list[list[int]] = [[] for _ in range(len(sites) + 1)]  # frame 0 is the file
    for index, site in enumerate(sites):
        members[site.parent + 1].append(index)
    frames: list[tuple[Sequence[Node], Sequence[Node], int]] = []  # by frame: frame 0 is the file, i + 1 site i
    # What a frame's digest is remembered by: the bytes its nodes span and where the definitions it leaves
    # out sit in them (the token stream of a span is a function of its text and of what is left out of it),
    # so a new version of a file re-hashes only the definitions whose text changed. The bytes are taken
    # by SHA-1: a frame without members of its whole span, one with members of the text around them and
    # of its members' (members first: each byte of the file is read once, not once per frame holding it).
    keys: list[tuple[object, ...]] = [()] * len(members)
    spans: list[bytes] = [b""] * len(members)
    # A frame with members is remembered by the text around them too (see `_around_plain`): a new version of
    # a class whose methods alone changed needs no walk of the class, nor the file's of the file.
    mended = not root.has_error
    around: list[tuple[object, ...] | None] = [None] * len(members)
    # In a tree with errors, error recovery may have parsed the same text apart otherwise than a clean
    # tree holds it: its digests are neither taken from the memo nor kept in it.
    remembered = _DIGESTS.get if mended else _forgotten
    own = [""] * len(members)
    missing: list[int] = []  # frames the memo lacks, last first
    containers: list[int] = []  # frames with members, last first (members before the frames holding them)
    sha1 = hashlib.sha1
    key: tuple[object, ...]
    outside: tuple[object, ...] | None
    for frame in range(len(members) - 1, -1, -1):
        inner = members[frame]
        nodes = sites[frame - 1].nodes if frame else (root,)
        first = nodes[0]
        start, end = first.start_byte, nodes[-1].end_byte
        reused = folded.get(frame - 1) if folded and frame else None
        if reused is not None:
            frames.append((nodes, _NO_MEMBERS, -1))
            spans[frame] = reused.span
            own[frame] = reused.own
            continue
        if inner:
            containers.append(frame)
            skipped = [n for i in inner for n in sites[i].nodes]
            depth = max([sites[i].depth for i in inner])
            frames.append((nodes, skipped, depth))
            offsets = tuple([(n.start_byte - start, n.end_byte - start) for n in skipped])
            digest = sha1()
            done = start
            gaps = []
            for node in skipped:
                digest.update(data[done : node.start_byte])
                gaps.append(node.start_byte - done)
                done = node.end_byte
            digest.update(data[done:end])
            gaps.append(end - done)
            outside = None
            if mended:  # the pieces' lengths, the members' kinds and depths taken by SHA-1 too (a key stays small)
                shape = digest.copy()
                shape.update(array("q", [len(skipped), len(inner), *gaps, *[n.kind_id for n in skipped],
                                         *[sites[i].depth for i in inner]]))
                around[frame] = outside = (language, escape, first.kind_id, first.parse_state, len(nodes), depth,
                                           shape.digest())
            for i in inner:
                digest.update(spans[i + 1])
            spans[frame] = span = digest.digest()
            keys[frame] = key = (language, escape, first.kind_id, len(nodes), depth, span, end - start, offsets)
            own[frame] = remembered(key, "") or (remembered(outside, "") if outside is not None else "")
        else:
            frames.append((nodes, _NO_MEMBERS, -1))
            spans[frame] = span = sha1(data[start:end]).digest()
            keys[frame] = key = (language, escape, first.kind_id, len(nodes), -1, span)
            own[frame] = remembered(key, "")
        if not own[frame]:
            missing.append(frame)
    frames.reverse()
    firsts: dict[tuple[object, ...], int] = {}  # the first frame of each key the memo lacks (a repeat is hashed once)
    repeats: list[tuple[int, int]] = []  # (frame, the first frame of its key)
    for frame in reversed(missing):
        earlier = firsts.setdefault(keys[frame], frame)
        if earlier != frame:
            repeats.append((frame, earlier))
    if firsts:
        _own_digests(walk, frames, list(firsts.values()), own)
        for key, frame in firsts.items() if mended else ():
            if len(_DIGESTS) >= _MAX_DIGESTS:
                _DIGESTS.clear()
            _DIGESTS[key] = own[frame]
            outside = around[frame]
            if outside is not None and _around_plain(tables, frames[frame]):
                _DIGESTS[outside] = own[frame]
        for frame, earlier in repeats:
            own[frame] = own[earlier]
    merkle = list(own)
    for index, reused in folded.items():
        merkle[index + 1] = reused.merkle
    for frame in containers:  # members come after their parents: theirs are done first
        nested = "".join(sorted([merkle[i + 1] for i in members[frame]]))
        merkle[frame] = hashlib.sha256(f"{own[frame]}{nested}".encode()).hexdigest()
    make = tuple.__new__  # a named tuple made from a tuple: no call of its Python-level __new__ per definition
    definitions = [
        make(Definition, (site.kind, site.name, prefix + own[frame], prefix + merkle[frame],
                          _lines(site.nodes[0], site.nodes[-1])))
        for frame, site in enumerate(sites, 1)
    ]
    if mended:
        places = list(range(len(sites)))
        if folded:  # the members of folded definitions go in after them, their lines moved with them
            unfolded, definitions = definitions, []
            for index, definition in enumerate(unfolded):
                places[index] = len(definitions)
                definitions.append(definition)
                reused = folded.get(index)
                if reused is not None:
                    shift = definition.lines[0] - reused.line
                    definitions += reused.members if not shift else [
                        make(Definition, (*member[:4], (member.lines[0] + shift, member.lines[1] + shift)))
                        for member in reused.members]
        _keep_folds(language, escape, data, sites, members, own, merkle, spans, definitions, places)
    return ParsedSource(
        language=language,
        hash=prefix + merkle[0],
        skeleton_hash=prefix + own[0],
        definitions=tuple(definitions),
        parse_error=root.has_error,
        bare=found.bare,
    )
