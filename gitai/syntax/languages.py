"""Which tree-sitter grammar handles a path, and lazy loading of grammars.

`language_for_path` is a plain table lookup: importing this module never imports tree_sitter or
other heavy modules (the pre-commit hook path stays light). `load_grammar` imports tree_sitter and
the grammar package on first use and caches the result per language.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Language

LANGUAGE_BY_EXTENSION: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "cpp",  # C++ headers use `.h` as often as C ones, and the C++ grammar reads C too
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".c++": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".h++": "cpp",
    ".php": "php",
}

# language -> (distribution name, module, factory function)
_GRAMMAR_SOURCES: dict[str, tuple[str, str, str]] = {
    "python": ("tree-sitter-python", "tree_sitter_python", "language"),
    "javascript": ("tree-sitter-javascript", "tree_sitter_javascript", "language"),
    "typescript": ("tree-sitter-typescript", "tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree-sitter-typescript", "tree_sitter_typescript", "language_tsx"),
    "go": ("tree-sitter-go", "tree_sitter_go", "language"),
    "rust": ("tree-sitter-rust", "tree_sitter_rust", "language"),
    "java": ("tree-sitter-java", "tree_sitter_java", "language"),
    "c": ("tree-sitter-c", "tree_sitter_c", "language"),
    "cpp": ("tree-sitter-cpp", "tree_sitter_cpp", "language"),
    "php": ("tree-sitter-php", "tree_sitter_php", "language_php"),
}

def language_for_path(path: str) -> str | None:
    """The language name for `path` by its extension (case-insensitive), or None."""
    return LANGUAGE_BY_EXTENSION.get(os.path.splitext(path)[1].lower())


class Grammar:
    """A loaded grammar; `hash_prefix` names it and its package version, e.g. "ts2:python@0.25.0:"."""

    __slots__ = ("hash_prefix", "language", "name", "version")

    def __init__(self, name: str, version: str, language: Language) -> None:
        self.name = name
        self.version = version
        self.language = language
        self.hash_prefix = f"ts2:{name}@{version}:"


_LOADED: dict[str, Grammar] = {}


def load_grammar(name: str) -> Grammar:
    """Import (once) the grammar for a language returned by `language_for_path`."""
    grammar = _LOADED.get(name)
    if grammar is None:
        import importlib

        from tree_sitter import Language

        distribution, module_name, factory = _GRAMMAR_SOURCES[name]
        module = importlib.import_module(module_name)
        capsule = getattr(module, factory)()
        grammar = _LOADED[name] = Grammar(name, _package_version(distribution, module), Language(capsule))
    return grammar


def _package_version(distribution: str, module: object) -> str:
    """The installed version of a grammar package, read from its dist-info directory name
    (importlib.metadata costs the post-commit hook about 20 ms of imports)."""
    site = os.path.dirname(os.path.dirname(str(getattr(module, "__file__", ""))))
    prefix = distribution.replace("-", "_").lower() + "-"
    try:
        for entry in os.listdir(site):
            if entry.lower().startswith(prefix) and entry.endswith(".dist-info"):
                return entry[len(prefix) : -len(".dist-info")]
    except OSError:
        pass
    import importlib.metadata

    return importlib.metadata.version(distribution)
