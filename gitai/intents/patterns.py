"""Scope matching: gitignore-style patterns (via pathspec) compiled to plain regexes.

Compiled regexes are what the pre-commit hook caches, so its hot path needs neither
pathspec nor YAML: only `re`.
"""

from __future__ import annotations

import re

EXEMPT_PREFIX = ".orchestration/"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    CompiledPattern = tuple[str, bool]  # (regex source, include?)


class PatternError(ValueError):
    """A scope or .intentignore pattern that gitai refuses."""


def compile_pattern(pattern: str, anchors: bool = False) -> CompiledPattern | None:
    """Compile one gitignore-style pattern; None for blank and comment lines.

    Refused: absolute patterns, patterns that climb out of the repository (`..`),
    and patterns pathspec cannot compile (e.g. an unclosed `[`). With `anchors` (the
    `.intentignore` file, plain gitignore syntax) a leading `/` anchors to the root instead.
    """
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    if not pattern.strip() or pattern.startswith("#"):
        return None
    body = pattern[1:] if pattern.startswith("!") else pattern
    if anchors and body.startswith("/") and not body.startswith("//"):
        body = body[1:]
    if body.startswith(("/", "~")) or re.match(r"^[A-Za-z]:[\\/]", body):
        raise PatternError(
            f"{pattern!r} is absolute; patterns are relative to the repository root (write it without the leading '/')"
        )
    if ".." in body.replace("\\", "/").split("/"):
        raise PatternError(f"{pattern!r} climbs out of the repository ('..' is not allowed)")
    try:
        regex, include = GitIgnoreSpecPattern.pattern_to_regex(pattern)
    except Exception as exc:  # noqa: BLE001 - pathspec raises its own error types per version
        raise PatternError(f"{pattern!r} is not a valid glob ({exc})") from None
    if regex is None:
        raise PatternError(f"{pattern!r} is not a valid glob (unbalanced '[' or similar)")
    try:
        re.compile(regex)
    except re.error as exc:
        raise PatternError(f"{pattern!r} is not a valid glob ({exc})") from None
    return regex, bool(include)


def compile_patterns(patterns: Iterable[str]) -> list[CompiledPattern]:
    """Compile several patterns, skipping blanks and comments."""
    return [c for c in (compile_pattern(p) for p in patterns) if c is not None]


class Matcher:
    """Last-matching-pattern-wins matcher over compiled patterns (gitignore semantics)."""

    def __init__(self, patterns: Sequence[CompiledPattern]) -> None:
        self._compiled = [(re.compile(regex, re.DOTALL), include) for regex, include in patterns]

    def matches(self, path: str) -> bool:
        result = False
        for regex, include in self._compiled:
            if regex.match(path):
                result = include
        return result


def is_exempt(path: str) -> bool:
    """`.orchestration/**` is always outside scope checks."""
    return path.startswith(EXEMPT_PREFIX) or path == EXEMPT_PREFIX.rstrip("/")
