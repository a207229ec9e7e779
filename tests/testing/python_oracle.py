"""CPython's verdict on a Python reformat, as black checks it: equal `ast.dump`s, with docstrings'
lines stripped, the `u` string prefix dropped and `del (a, b)` read as `del a, b` (black --preview
writes the parentheses). Shared by the oracle tests and the formatter benchmark."""

from __future__ import annotations

import ast


def ast_dump(source: str | bytes) -> str:
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Delete):  # the same targets: black's own AST check flattens them too
            node.targets = [t for target in node.targets
                            for t in (target.elts if isinstance(target, ast.Tuple) else [target])]
        if isinstance(node, ast.Constant):
            node.kind = None  # u'' is '' (black drops the prefix)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                lines = first.value.value.splitlines()
                first.value.value = "\n".join(line.strip() for line in lines).strip()
    return ast.dump(tree)
