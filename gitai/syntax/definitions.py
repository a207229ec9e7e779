"""Which syntax nodes are definitions, per language, and their qualified names.

Definitions are found at module level and inside container bodies (classes, interfaces, impl and
trait blocks, namespaces and modules), never inside function bodies: a nested helper function is
part of the function that holds it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from gitai.syntax.languages import load_grammar

if TYPE_CHECKING:
    from tree_sitter import Node


class Site(NamedTuple):
    """A definition in a tree.

    `nodes` are the attached attributes (Rust `#[...]`) followed by the definition node itself;
    `depth` is the depth of the definition node below its frame root (the file root or the
    enclosing definition's node); `parent` is the index of the enclosing site, -1 at top level.
    """

    kind: str
    name: str
    nodes: tuple[Node, ...]
    depth: int
    parent: int


@dataclass(frozen=True)
class Definitions:
    """All definition sites in document order; `bare` when the rest of the file holds no code;
    `folded`: top-level containers whose members were not looked for, by site index, with what
    `find_definitions`'s `fold` gave for them (their members are not in `sites`)."""

    sites: list[Site]
    bare: bool
    folded: dict[int, object] = field(default_factory=dict)


class _Found(NamedTuple):
    kind: str
    name: str
    body: Node | None = None  # whose named children are member definitions
    body_depth: int = 1  # depth of `body` below the definition node


_Resolver = Callable[["Node", "dict[str, int]"], "_Found | None"]
"""(node, the grammar's field ids by name) -> the definition it is, if any."""


@dataclass(frozen=True)
class _Spec:
    separator: str
    kinds: dict[str, str]  # node type -> definition kind (the name is the "name" field)
    containers: frozenset[str] = frozenset()  # kinds whose "body" field holds member definitions
    wrappers: dict[str, str | None] = field(default_factory=dict)  # type -> wrapped field (None: 1st named child)
    custom: dict[str, _Resolver] = field(default_factory=dict)  # type -> resolver for special names
    passthrough: frozenset[str] = frozenset()  # non-definition nodes whose children are members too
    attributes: frozenset[str] = frozenset()  # sibling nodes attached to the next definition
    boilerplate: frozenset[str] = frozenset()  # top-level nodes that do not make a file meaningful


_NAMESPACE_KINDS = frozenset({"module", "namespace"})
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})


def _text(node: Node | None) -> str:
    text = node.text if node is not None else None
    if not text:
        return ""
    name = text.decode("utf-8", "replace")
    return name if name.isidentifier() else " ".join(name.split())  # a plain name has no layout in it


def _named(node: Node) -> list[Node]:
    return [child for child in node.named_children if not child.is_extra]


def _js_variable(node: Node, fields: dict[str, int]) -> _Found | None:
    """`const f = () => ...` or `const C = class {...}` with a single declarator."""
    declarators = [c for c in node.named_children if c.type == "variable_declarator"]
    if len(declarators) != 1:
        return None
    name = declarators[0].child_by_field_id(fields["name"])
    value = declarators[0].child_by_field_id(fields["value"])
    if name is None or value is None or name.type != "identifier":
        return None
    if value.type in _FUNCTION_VALUES:
        return _Found("function", _text(name))
    if value.type == "class":
        return _Found("class", _text(name), value.child_by_field_id(fields["body"]), 3)
    return None


def _js_field(node: Node, fields: dict[str, int]) -> _Found | None:
    """A class field holding a function (`handle = () => ...`) is a method."""
    name = node.child_by_field_id(fields.get("property", 0)) or node.child_by_field_id(fields["name"])
    value = node.child_by_field_id(fields["value"])
    if name is None or value is None or value.type not in _FUNCTION_VALUES:
        return None
    return _Found("method", _text(name))


def _go_method(node: Node, fields: dict[str, int]) -> _Found | None:
    """`func (s *Server[T]) Start()` is "Server.Start"."""
    name = _text(node.child_by_field_id(fields["name"]))
    receiver = node.child_by_field_id(fields["receiver"])
    params = [c for c in receiver.named_children if c.type == "parameter_declaration"] if receiver else []
    rtype = params[0].child_by_field_id(fields["type"]) if params else None
    while rtype is not None and rtype.type in ("pointer_type", "parenthesized_type", "generic_type"):
        rtype = rtype.child_by_field_id(fields["type"]) if rtype.type == "generic_type" else _named(rtype)[-1]
    return _Found("method", f"{_text(rtype)}.{name}" if rtype is not None else name) if name else None


def _go_type_spec(node: Node, fields: dict[str, int]) -> _Found | None:
    name = _text(node.child_by_field_id(fields["name"]))
    value = node.child_by_field_id(fields["type"])
    kind = {"struct_type": "struct", "interface_type": "interface"}.get(value.type if value else "", "type")
    return _Found(kind, name) if name else None


def _go_type_declaration(node: Node, fields: dict[str, int]) -> _Found | None:
    """`type X ...` with one spec is that definition; a `type (...)` group is a passthrough."""
    specs = [c for c in node.named_children if c.type in ("type_spec", "type_alias")]
    if len(specs) != 1:
        return None
    found = _go_type_spec(specs[0], fields)
    return found._replace(body_depth=found.body_depth + 1) if found else None


def _rust_impl(node: Node, fields: dict[str, int]) -> _Found | None:
    """`impl Server` is "Server"; `impl fmt::Display for Server` is "<Server as fmt::Display>"."""
    typ = _text(node.child_by_field_id(fields["type"]))
    trait = node.child_by_field_id(fields["trait"])
    name = f"<{typ} as {_text(trait)}>" if trait is not None else typ
    return _Found("impl", name, node.child_by_field_id(fields["body"])) if typ else None


_C_DECLARATOR_WRAPPERS = frozenset({"pointer_declarator", "reference_declarator", "function_declarator",
                                     "parenthesized_declarator", "attributed_declarator"})


def _c_function(node: Node, fields: dict[str, int]) -> _Found | None:
    """A C or C++ function is named by the innermost declarator: `int *f(int)` is "f", `int A::g()`
    is "A::g", `~A()` is "~A", `operator==` is "operator==" (pointers and parameters dropped)."""
    declarator = node.child_by_field_id(fields["declarator"])
    while declarator is not None and declarator.type in _C_DECLARATOR_WRAPPERS:
        inner = declarator.child_by_field_id(fields["declarator"])
        declarator = inner if inner is not None else next(iter(_named(declarator)), None)
    name = _text(declarator)
    return _Found("function", "".join(name.split())) if name and declarator is not None else None


def _c_tagged(node: Node, fields: dict[str, int]) -> _Found | None:
    """`struct S {...}` (also union, enum, C++ class) with its body; a forward declaration is no definition."""
    body = node.child_by_field_id(fields["body"])
    name = _text(node.child_by_field_id(fields["name"]))
    if body is None or not name:
        return None
    kind = node.type.split("_")[0]
    return _Found(kind, name, body if kind in ("class", "struct", "union") else None)


def _c_typedef(node: Node, fields: dict[str, int]) -> _Found | None:
    """`typedef struct {...} T;` (one declarator) is the type T."""
    declarator = node.child_by_field_id(fields["declarator"])
    if declarator is None or declarator.type != "type_identifier" or declarator.next_named_sibling is not None:
        return None
    return _Found("type", _text(declarator))


def _cpp_template(node: Node, fields: dict[str, int]) -> _Found | None:
    """`template <...>` wraps the definition it declares (its last named child)."""
    inner = _named(node)[-1] if _named(node) else None
    resolver = _CPP_CUSTOM.get(inner.type) if inner is not None else None
    found = resolver(inner, fields) if resolver is not None and inner is not None else None
    return found._replace(body_depth=found.body_depth + 1) if found is not None else None


def _cpp_namespace(node: Node, fields: dict[str, int]) -> _Found | None:
    """`namespace a::b {...}`; an anonymous namespace is a passthrough."""
    name = _text(node.child_by_field_id(fields["name"]))
    return _Found("namespace", "".join(name.split()), node.child_by_field_id(fields["body"])) if name else None


def _php_namespace(node: Node, fields: dict[str, int]) -> _Found | None:
    """`namespace A\\B { ... }`; `namespace A\\B;` is a statement (what follows is at top level)."""
    body = node.child_by_field_id(fields["body"])
    name = _text(node.child_by_field_id(fields["name"]))
    return _Found("namespace", name, body) if body is not None and name else None


_C_CUSTOM: dict[str, _Resolver] = {
    "function_definition": _c_function,
    "struct_specifier": _c_tagged,
    "union_specifier": _c_tagged,
    "enum_specifier": _c_tagged,
    "type_definition": _c_typedef,
}
_CPP_CUSTOM: dict[str, _Resolver] = {
    **_C_CUSTOM,
    "class_specifier": _c_tagged,
    "namespace_definition": _cpp_namespace,
}
_CPP_CUSTOM["template_declaration"] = _cpp_template
_C_PASSTHROUGH = frozenset({"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef"})
_C_MACROS = {"preproc_def": "macro", "preproc_function_def": "macro"}


_JS_KINDS = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "class_declaration": "class",
    "method_definition": "method",
}
_JS_CUSTOM: dict[str, _Resolver] = {
    "lexical_declaration": _js_variable,
    "variable_declaration": _js_variable,
    "field_definition": _js_field,
}
_TS_KINDS = {
    **_JS_KINDS,
    "function_signature": "function",
    "abstract_class_declaration": "class",
    "method_signature": "method",
    "abstract_method_signature": "method",
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
    "internal_module": "namespace",
    "module": "namespace",
}
_TS_SPEC = _Spec(
    ".",
    _TS_KINDS,
    containers=frozenset({"class_declaration", "abstract_class_declaration", "interface_declaration",
                          "internal_module", "module"}),
    wrappers={"export_statement": "declaration", "ambient_declaration": None, "expression_statement": None},
    custom={**_JS_CUSTOM, "public_field_definition": _js_field},
)

SPECS: dict[str, _Spec] = {
    "python": _Spec(
        ".",
        {"function_definition": "function", "class_definition": "class"},
        containers=frozenset({"class_definition"}),
        wrappers={"decorated_definition": "definition"},
    ),
    "javascript": _Spec(
        ".",
        _JS_KINDS,
        containers=frozenset({"class_declaration"}),
        wrappers={"export_statement": "declaration"},
        custom=_JS_CUSTOM,
    ),
    "typescript": _TS_SPEC,
    "tsx": _TS_SPEC,
    "go": _Spec(
        ".",
        {"function_declaration": "function", "type_alias": "type"},
        custom={"method_declaration": _go_method, "type_spec": _go_type_spec,
                "type_declaration": _go_type_declaration},
        passthrough=frozenset({"type_declaration"}),
        boilerplate=frozenset({"package_clause"}),
    ),
    "rust": _Spec(
        "::",
        {
            "function_item": "function",
            "function_signature_item": "function",
            "struct_item": "struct",
            "enum_item": "enum",
            "union_item": "union",
            "type_item": "type",
            "trait_item": "trait",
            "mod_item": "module",
            "macro_definition": "macro",
        },
        containers=frozenset({"trait_item", "mod_item", "impl_item"}),
        custom={"impl_item": _rust_impl},
        attributes=frozenset({"attribute_item"}),
    ),
    "java": _Spec(
        ".",
        {
            "class_declaration": "class",
            "interface_declaration": "interface",
            "enum_declaration": "enum",
            "record_declaration": "record",
            "annotation_type_declaration": "annotation",
            "method_declaration": "method",
            "constructor_declaration": "constructor",
            "compact_constructor_declaration": "constructor",
        },
        containers=frozenset({"class_declaration", "interface_declaration", "enum_declaration",
                              "record_declaration", "annotation_type_declaration"}),
        passthrough=frozenset({"enum_body_declarations"}),
    ),
}


SPECS["c"] = _Spec("::", _C_MACROS, custom=_C_CUSTOM, passthrough=_C_PASSTHROUGH)
SPECS["cpp"] = _Spec(
    "::",
    _C_MACROS,
    custom=_CPP_CUSTOM,
    passthrough=_C_PASSTHROUGH | {"linkage_specification", "declaration_list", "namespace_definition"},
)
SPECS["php"] = _Spec(
    "::",
    {
        "function_definition": "function",
        "class_declaration": "class",
        "interface_declaration": "interface",
        "trait_declaration": "trait",
        "enum_declaration": "enum",
        "method_declaration": "method",
    },
    containers=frozenset({"class_declaration", "interface_declaration", "trait_declaration", "enum_declaration"}),
    custom={"namespace_definition": _php_namespace},
    boilerplate=frozenset({"php_tag"}),
)


@functools.cache
def _field_ids(language: str) -> dict[str, int]:
    """Field name -> id in the grammar of `language` (a child looked up by id saves a search by name)."""
    grammar = load_grammar(language).language
    return {name: field for field in range(1, grammar.field_count + 1)
            if (name := grammar.field_name_for_id(field)) is not None}


class _KindNames(dict[int, str]):
    """Node type name by kind id, made once (a node's `type` makes a new string on every call)."""

    def __init__(self, language: str) -> None:
        self.grammar = load_grammar(language).language
        super().__init__(
            (kind, self.grammar.node_kind_for_id(kind) or "") for kind in range(self.grammar.node_kind_count))

    def __missing__(self, kind: int) -> str:  # tree-sitter's ERROR, past the grammar's kinds
        name = self[kind] = self.grammar.node_kind_for_id(kind) or ""
        return name


@functools.cache
def _kind_names(language: str) -> _KindNames:
    return _KindNames(language)


def _resolve(spec: _Spec, node: Node, fields: dict[str, int], names: dict[int, str]) -> _Found | None:
    """The definition `node` starts, looking through wrappers (decorators, `export`, `declare`)."""
    extra_depth = 0
    kind = names[node.kind_id]
    while kind in spec.wrappers:
        wrapped = spec.wrappers[kind]
        inner = node.child_by_field_id(fields.get(wrapped, 0)) if wrapped else next(iter(_named(node)), None)
        if inner is None:
            return None
        node, kind, extra_depth = inner, names[inner.kind_id], extra_depth + 1
    custom = spec.custom.get(kind)
    if custom is not None:
        found = custom(node, fields)
        if found is None or not extra_depth:
            return found
        return _Found(found.kind, found.name, found.body, found.body_depth + extra_depth)
    definition_kind = spec.kinds.get(kind)
    if definition_kind is None:
        return None
    name = _text(node.child_by_field_id(fields.get("name", 0)))
    if not name:
        return None
    body = node.child_by_field_id(fields.get("body", 0)) if kind in spec.containers else None
    return tuple.__new__(_Found, (definition_kind, name, body, 1 + extra_depth))  # no Python-level __new__ call


def _members(spec: _Spec, body: Node, depth: int, fields: dict[str, int],
             names: dict[int, str]) -> list[tuple[Node, int, _Found | None]]:
    """Named children of a body with their depth, expanding passthrough nodes (a list: a
    generator's resumptions cost more than the list)."""
    members = []
    for child in _named(body):
        found = _resolve(spec, child, fields, names)
        if found is None and names[child.kind_id] in spec.passthrough:
            members += _members(spec, child, depth + 1, fields, names)
        else:
            members.append((child, depth, found))
    return members


def find_definitions(language: str, root: Node, fold: Callable[[Site], object] | None = None) -> Definitions:
    """Definition sites of a parsed file, in document order (parents before their members).
    `fold`: asked of each top-level definition with a body; what it gives, unless None, stands
    for the members, which are not looked for (see `Definitions.folded`)."""
    spec = SPECS[language]
    fields = _field_ids(language)
    names = _kind_names(language)
    make = tuple.__new__  # a named tuple made from a tuple: no call of its Python-level __new__ per site
    sites: list[Site] = []
    folded: dict[int, object] = {}
    bare = True
    # (member iterator, parent site index, qualified prefix, parent kind)
    stack = [(iter(_members(spec, root, 1, fields, names)), -1, "", "module")]
    while stack:
        members, parent, prefix, parent_kind = stack[-1]
        pending: list[Node] = []
        for node, depth, found in members:
            if found is None:
                if names[node.kind_id] in spec.attributes:
                    pending.append(node)
                    continue
                if parent == -1 and (pending or names[node.kind_id] not in spec.boilerplate):
                    bare = False
                pending = []
                continue
            kind = found.kind
            if kind == "function" and parent_kind not in _NAMESPACE_KINDS:
                kind = "method"
            name = prefix + found.name
            site = make(Site, (kind, name, (*pending, node), depth, parent))
            sites.append(site)
            pending = []
            if found.body is not None and parent == -1 and fold is not None:
                instead = fold(site)
                if instead is not None:
                    folded[len(sites) - 1] = instead
                    continue
            if found.body is not None:
                stack.append((iter(_members(spec, found.body, found.body_depth + 1, fields, names)), len(sites) - 1,
                              name + spec.separator, kind))
                break
        else:
            if parent == -1 and pending:
                bare = False
            stack.pop()
    return Definitions(sites, bare, folded)
