"""A slow reference for the normal-form walk of gitai/syntax/normal_form.py, to check `_walk` against.

`_walk` is a speed-tuned iterative cursor loop over integer action tables. This is the same
normal form written the plain way: a recursive walk over `node.children` that decides what each
node is from its type name and the declarative tables (canonical.py's `CANONS` and the few token
sets of normal_form.py), with no guards, inlining or shared state between files. The rules that
look at a node (normal_form's handlers) are shared: while the reference runs, their own walks of
sub-nodes are the reference too (`reference_digests` puts it in `_walk`'s place).

The stream, node by node (a "gap" is source text no leaf covers, written unless it is layout,
before each leaf; the position only moves forward):
* a left-out node (a nested definition), punctuation, comments and dropped nodes: nothing but the gap;
* keywords and operators: their text; layout inside them squeezed out or collapsed as the tables say;
* quotes: only a string prefix (`b`, `r`, `f`), sorted and lower case, `u` dropped;
* a handler's kind: the handler's tokens (after the gap, its field first), or the node as a
  transparent wrapper, or, when it answers None, the node as any other;
* runs (consecutive siblings of a run kind, dropped nodes between them allowed): each member's
  stream joined into one token, sorted (once each for distinct kinds), after the gaps among them;
* named nodes: their field, then their marker, their children and a close marker (transparent
  wrappers: only the children), or, without children, the marker and the text (a close marker if empty).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from gitai.syntax import normal_form
from gitai.syntax.canonical import CANONS, Canon
from gitai.syntax.definitions import find_definitions
from gitai.syntax.languages import load_grammar
from gitai.syntax.normal_form import hash_source, parse

if TYPE_CHECKING:
    from tree_sitter import Language, Node

_NAMES_OF_ACTIONS = {normal_form._QUOTE: "quote", normal_form._DROP: "drop", normal_form._OPAQUE: "opaque",
                     normal_form._COLLAPSE: "collapse"}  # the actions normal_form's overrides use


class _Reference:
    """One call of the reference walk: the source, the grammar's tables, and the position reached."""

    def __init__(self, walk: normal_form._Walk, skip: frozenset[int]) -> None:
        self.walk = walk  # what the handlers see
        self.src, self.escape, self.skip = walk.src, walk.escape, skip
        self.language: Language = load_grammar(walk.tables.language).language
        self.canon: Canon = CANONS[walk.tables.language]
        self.overrides = {name: _NAMES_OF_ACTIONS[action]
                          for name, action in normal_form._OVERRIDES.get(walk.tables.language, {}).items()}
        self.out: list[bytes] = []
        self.pos = 0

    def kind(self, node: Node) -> str:
        """What the normal form does with a node, by its type name."""
        name, canon = node.type, self.canon
        if not node.is_named:
            if name in normal_form._PUNCTUATION or not name.strip():
                return "drop"
            if name in normal_form._QUOTES:
                return "quote"
            if name in canon.squeezed:
                return "squeeze"
            return "collapse" if len(name.split()) > 1 else "keyword"
        if name in canon.handlers or name in canon.sets:
            return "handler"
        if name in self.overrides:
            return self.overrides[name]
        if name in normal_form._EXTRAS or name in canon.dropped:
            return "drop"
        if name in canon.runs:
            return "run"
        return "transparent" if name in canon.transparent else "node"

    def text(self, text: bytes) -> bytes:
        return text.replace(b"\x01", b"\x01\x03").replace(b"\x00", b"\x01\x02") if self.escape else text

    def marker(self, node: Node) -> bytes:
        name = self.canon.aliases.get(node.type, node.type) if node.is_named else node.type
        written = self.language.id_for_node_kind(name, node.is_named)
        return b"\x01N%d" % (node.kind_id if written is None else written)

    def field(self, name: str | None) -> None:
        if name is not None and name not in self.canon.dropped_fields:
            self.out.append(b"\x01F%d" % (self.language.field_id_for_name(self.canon.field_aliases.get(name, name))
                                          or 0))

    def gap(self, start: int) -> None:
        """Write the source text between the position and `start`, unless it is layout."""
        if start > self.pos:
            text = self.src[self.pos : start].replace(b"\\\r\n", b" ").replace(b"\\\n", b" ")
            if text.split():
                self.out += [normal_form._GAP_MARK, self.text(b" ".join(text.split()))]
            self.pos = start

    def leaf(self, node: Node) -> bytes:
        """The gap before a leaf, then the position after it; the leaf's text."""
        self.gap(node.start_byte)
        self.pos = max(self.pos, node.end_byte)
        return self.src[node.start_byte : node.end_byte]

    def top(self, node: Node, as_is: bool) -> None:
        self.pos = node.start_byte
        if self.kind(node) == "run" and not as_is:
            self.run([node])
        else:
            self.node(node, None, handled=not as_is)
        self.gap(node.end_byte)

    def node(self, node: Node, field: str | None, handled: bool = True) -> None:
        """Write one node (`handled`: its handler, if any, applies)."""
        kind = self.kind(node)
        if node.id in self.skip:
            kind = "drop"
        if kind == "handler":
            kind = "node"
            if handled:
                name = node.type
                handler = normal_form._HANDLERS[self.canon.handlers.get(name) or "set"]
                field_id = self.language.field_id_for_name(field) if field is not None else None
                replaced = handler(node, field_id or 0, self.walk)
                if replaced is normal_form._TRANSPARENT_RESULT:
                    kind = "transparent"
                elif replaced is not None:
                    self.leaf(node)
                    if replaced:
                        self.field(field)
                    self.out += replaced
                    return
        if kind == "drop":
            self.leaf(node)
        elif kind == "keyword":
            self.out.append(self.text(self.leaf(node)))
        elif kind == "squeeze":
            self.out.append(b"".join(self.leaf(node).split()))
        elif kind == "quote":
            prefix = self.leaf(node).strip(b"\"'`")
            if prefix:
                prefix = bytes(sorted(prefix.lower().replace(b"u", b"")))
                if prefix:
                    self.out += [normal_form._QUOTE_MARK, self.text(prefix)]
            self.walk.prefix = prefix
        elif kind in ("opaque", "collapse"):
            self.field(field)
            text = self.leaf(node)
            self.out += [self.marker(node), self.text(b" ".join(text.split()) if kind == "collapse" else text)]
        elif node.child_count:  # a node, a transparent wrapper or a run written as a node
            self.field(field)
            if kind != "transparent":
                self.out.append(self.marker(node))
            self.children(node)
            if kind != "transparent":
                self.out.append(normal_form._CLOSE)
        else:
            self.field(field)
            text = self.leaf(node)
            self.out += [self.marker(node), self.text(text) if text else normal_form._CLOSE]

    def children(self, node: Node) -> None:
        children = node.children
        index = 0
        while index < len(children):
            child = children[index]
            if self.kind(child) == "run":
                end = index
                while end < len(children) and self.kind(children[end]) in ("run", "drop"):
                    end += 1
                self.run(children[index:end])
                index = end
            else:
                self.node(child, node.field_name_for_child(index))
                index += 1

    def run(self, nodes: Sequence[Node]) -> None:
        """A run of siblings: the gaps among them, then the members' streams sorted."""
        members = []
        for node in nodes:
            self.gap(node.start_byte)
            if self.kind(node) == "run":
                members.append(b"\x00".join(reference_walk((node,), self.walk, as_is=True)))
            self.pos = max(self.pos, node.end_byte)
        self.out += sorted(set(members)) if nodes[0].type in self.canon.distinct else sorted(members)


def reference_walk(nodes: Sequence[Node], walk: normal_form._Walk, skip: frozenset[int] = frozenset(),
                   skip_depth: int = -1, as_is: bool = False,
                   frames: dict[int, normal_form._Frame] | None = None) -> list[bytes]:
    """The normal-form token stream of `nodes`, leaving out the nodes whose id is in `skip` (at any
    depth: `skip_depth` is the fast walk's bound and unused here); `as_is`: no handler for `nodes`
    themselves. Takes `_walk`'s parameters so that it can stand in for it (`frames` never given)."""
    assert frames is None
    reference = _Reference(walk, skip)
    for node in nodes:
        reference.top(node, as_is)
    return reference.out


@contextmanager
def _in_place_of_walk() -> Iterator[None]:
    """The handlers' own walks of sub-nodes use the reference too."""
    fast = normal_form._walk
    normal_form._walk = reference_walk
    try:
        yield
    finally:
        normal_form._walk = fast


def frames(language: str, root: Node) -> list[tuple[tuple[Node, ...], frozenset[int], int]]:
    """What is hashed on its own: the file, then each definition; each with the nodes it leaves out
    (its member definitions, by id) and the depth the fast walk looks for them down to."""
    sites = find_definitions(language, root).sites
    found: list[tuple[tuple[Node, ...], frozenset[int], int]] = []
    for frame, nodes in enumerate([(root,), *[site.nodes for site in sites]]):
        members = [site for site in sites if site.parent == frame - 1]
        found.append((nodes, frozenset(node.id for site in members for node in site.nodes),
                      max([site.depth for site in members], default=-1)))
    return found


def reference_digests(language: str, data: bytes, root: Node) -> list[str]:
    """The own digest of the file (its skeleton) and of each definition, as the reference writes them."""
    tables = normal_form._tables(language)
    walk = normal_form._Walk(data, b"\x00" in data or b"\x01" in data, tables)
    digests = []
    with _in_place_of_walk():
        for nodes, skip, _ in frames(language, root):
            walk.prefix = b""
            digests.append(hashlib.sha256(b"\x00".join(reference_walk(nodes, walk, skip))).hexdigest())
    return digests


def frame_count_difference(fast: list[str], reference: list[str]) -> str:
    """The walks found different numbers of frames (the skeleton, then each definition)."""
    return (f"{len(fast)} frames in the fast walk, {len(reference)} in the reference "
            f"(a definition one walk sees and the other does not)")


def differences(language: str, data: bytes) -> str | None:
    """Where the fast walk (through `hash_source`, the memo cleared) and the reference disagree: the
    first frame (the file, then each definition) whose own digest differs, and its first token that does."""
    normal_form._DIGESTS.clear()
    normal_form._FOLDS.clear()
    parsed = hash_source(language, data)
    fast = [parsed.skeleton_hash.rsplit(":", 1)[-1], *[d.hash.rsplit(":", 1)[-1] for d in parsed.definitions]]
    root = parse(language, data).root_node
    reference = reference_digests(language, data, root)
    if fast == reference:
        return None
    if len(fast) != len(reference):
        return frame_count_difference(fast, reference)
    frame = next(i for i, (ours, theirs) in enumerate(zip(fast, reference, strict=True)) if ours != theirs)
    nodes, skip, depth = frames(language, root)[frame]
    walk = normal_form._Walk(data, b"\x00" in data or b"\x01" in data, normal_form._tables(language))
    ours = normal_form._walk(nodes, walk, skip, depth)
    walk.prefix = b""
    theirs = reference_walk(nodes, walk, skip)
    at = next((i for i, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b), min(len(ours), len(theirs)))
    around = slice(max(0, at - 3), at + 3)
    return f"frame {frame}, token {at}: fast {ours[around]}, reference {theirs[around]}"
