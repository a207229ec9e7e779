"""Canonical forms per grammar: declarative tables of what formatters change without changing meaning.

Formatters move code between node types that mean the same (`a, b = x, y` vs `a, b = (x, y)`),
add or drop wrappers (`x => f(x)` vs `(x) => f(x)`, Rust `=> expr,` vs `=> { expr }`), re-sort
lists whose order means nothing (Rust `use`, Go and Java imports) and respell literals (quotes,
escapes, number case). The normal form (normal_form.py) reads these tables; every rule has its
reason in docs/classification.md and a mutation test (tests/test_canonical_forms.py) proving that a
real change next to it is still a change.

Rules:
* `aliases`: node type -> the node type it is written as.
* `transparent`: wrappers written as their children (precedence is in the tree already).
* `dropped_fields`: field names left out; the children stay, in order, so nothing is lost where a
  field is fixed by position (Python `left`/`right`, the `value`/`subscript` of a subscript).
* `field_aliases`: field name -> the field name it is written as.
* `runs`: node types whose consecutive siblings are compared as a sorted list (declarations
  whose order has no meaning: Rust `use`, Go and Java imports).
* `distinct`: runs in which a repeated member counts once (C's `#include`, which clang-format dedupes).
* `sets`: node types whose children are compared as a sorted list (`use a::{b, c}`, Go `import (...)`).
* `dropped`: nodes with no meaning at all (a JS empty statement `;`).
* `squeezed`: keywords (anonymous tokens) written without the layout inside them (C's `# define`).
* `handlers`: node type -> name of a rule in normal_form that needs to look at the node (string
  spellings, a single-expression block, a parameter list of one plain name, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Canon:
    aliases: dict[str, str] = field(default_factory=dict)
    transparent: frozenset[str] = frozenset()
    dropped_fields: frozenset[str] = frozenset()
    field_aliases: dict[str, str] = field(default_factory=dict)
    runs: frozenset[str] = frozenset()
    sets: frozenset[str] = frozenset()
    distinct: frozenset[str] = frozenset()
    dropped: frozenset[str] = frozenset()
    squeezed: frozenset[str] = frozenset()
    handlers: dict[str, str] = field(default_factory=dict)


_JS = Canon(
    transparent=frozenset({"parenthesized_expression"}),
    field_aliases={"parameter": "parameters"},
    dropped=frozenset({"empty_statement"}),
    handlers={"string": "js_string", "number": "js_number", "formal_parameters": "single_parameter",
              "binary_expression": "js_logical", "regex_flags": "js_regex_flags", "new_expression": "js_new"},
)
_TS = Canon(
    transparent=frozenset({"parenthesized_expression", "parenthesized_type"}),
    field_aliases=_JS.field_aliases,
    dropped=frozenset({"empty_statement"}),
    handlers={**_JS.handlers, "union_type": "leading_pipe", "binary_expression": "ts_binary",
              "unary_expression": "ts_cast_precedence", "await_expression": "ts_cast_precedence",
              "as_expression": "ts_cast_precedence", "satisfies_expression": "ts_cast_precedence",
              **dict.fromkeys(("call_expression", "member_expression", "subscript_expression",
                               "instantiation_expression", "non_null_expression"), "ts_prefix_callee"),
              "arguments": "ts_generic_list", "array": "ts_generic_list"},
)

_C = Canon(
    # tree-sitter-cpp names a method `field_identifier` inside a class and `identifier` outside: the same
    # text must give the same stream wherever it stands (the digest memo is keyed by text)
    aliases={"field_identifier": "identifier"},
    runs=frozenset({"preproc_include"}),
    distinct=frozenset({"preproc_include"}),
    squeezed=frozenset({"#include", "#define", "#if", "#ifdef", "#ifndef", "#else", "#elif", "#elifdef", "#elifndef",
                        "#endif"}),
    handlers={"preproc_arg": "c_macro_tokens", "concatenated_string": "c_concatenation",
              "preproc_directive": "strip"},
)

CANONS: dict[str, Canon] = {
    "python": Canon(
        aliases={"expression_list": "tuple", "pattern_list": "tuple_pattern", "union_type": "binary_operator",
                 "generic_type": "subscript"},
        transparent=frozenset({"parenthesized_expression", "type", "type_parameter"}),
        dropped_fields=frozenset({"left", "right", "value", "subscript"}),
        handlers={"expression_statement": "python_docstring", "string": "python_uncovered_string",
                  "string_content": "python_string", "integer": "lowercase",
                  "float": "lowercase", "tuple_pattern": "python_tuple_pattern",
                  "concatenated_string": "python_concatenation", "union_type": "python_union",
                  "argument_list": "python_sole_generator", "case_pattern": "python_group_pattern"},
    ),
    "javascript": _JS,
    "typescript": _TS,
    "tsx": _TS,
    "go": Canon(
        transparent=frozenset({"parenthesized_expression"}),
        runs=frozenset({"import_declaration"}),
        sets=frozenset({"import_spec_list"}),
    ),
    "rust": Canon(
        transparent=frozenset({"parenthesized_expression"}),
        runs=frozenset({"use_declaration"}),
        sets=frozenset({"use_list"}),
        handlers={"block": "rust_block", "expression_statement": "rust_statement", "token_tree": "rust_token_tree",
                  "string_literal": "rust_string"},
    ),
    "java": Canon(
        transparent=frozenset({"parenthesized_expression"}),
        runs=frozenset({"import_declaration"}),
        handlers={"enum_body_declarations": "empty"},
    ),
    "c": _C,
    "cpp": _C,
    "php": Canon(
        transparent=frozenset({"parenthesized_expression"}),
        handlers={"string": "php_string", "encapsed_string": "php_string", "heredoc_start": "strip",
                  "heredoc_body": "php_heredoc", "nowdoc_body": "php_heredoc",
                  "array_creation_expression": "php_array", "object_creation_expression": "php_new"},
    ),
}
