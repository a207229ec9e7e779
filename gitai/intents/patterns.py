"""Scope matching: gitignore-style patterns (via pathspec) compiled to plain regexes.

Compiled regexes are what the pre-commit hook caches, so its hot path needs neither
pathspec nor YAML: only `re`.
"""

from __future__ import annotations

EXEMPT_PREFIX = ".orchestration/"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    CompiledPattern = tuple[str, bool]  # (regex source, include?)


class PatternError(ValueError):
    """A scope or .intentignore pattern that gitai refuses."""


def compile_pattern(pattern: str, anchors: bool = False) -> CompiledPattern | None:
    """Compile one gitignore-style pattern; None for blank and comment lines.

    Refused: absolute patterns, patterns that climb out of the repository (`..`),
    and patterns pathspec cannot compile (e.g. an unclosed `[`). With `anchors` (the
    `.intentignore` file, plain gitignore syntax) a leading `/` anchors to the root instead.
    """
    import re

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


# The regex shapes pathspec gives literal patterns, around the literal's `re.escape`d text:
DIRECTORY = ("^", "/")  # `src/**`: the paths under src/
ANCHORED = ("^", "(?:(?P<ps_d>/)|$)")  # `/a/b.json`, `src/a.py`: that path, or under it
ANYWHERE = ("^(?:.+/)?", "(?:(?P<ps_d>/)|$)")  # `AGENTS.md`: any path component with that name
SUFFIX = ("^(?:.+/)?[^/]*", "(?:(?P<ps_d>/)|$)")  # `*.md`: any path component ending so
ESCAPED = frozenset("()[]{}?*+-|^$\\.&~# \t\n\r\v\f")  # what re.escape puts a backslash before


def _literal(regex: str, shape: tuple[str, str]) -> str | None:
    """The literal text `regex` is `shape` around, when it is exactly that (escaped as re.escape does)."""
    head, tail = shape
    if not (regex.startswith(head) and regex.endswith(tail)) or len(regex) < len(head) + len(tail):
        return None
    escaped = regex[len(head):len(regex) - len(tail)]
    literal = []
    index = 0
    while index < len(escaped):
        char = escaped[index]
        if char == "\\":
            if index + 1 == len(escaped) or escaped[index + 1] not in ESCAPED:
                return None
            literal.append(escaped[index + 1])
            index += 2
        elif char in ESCAPED:
            return None  # a regex operator: not a literal
        else:
            literal.append(char)
            index += 1
    return "".join(literal) or None


def string_test(regex: str) -> Callable[[str], bool] | None:
    """A test equal to `re.compile(regex, re.DOTALL).match` for the literal shapes; None for any other.
    (`$` also matches before a final newline, as in `re`.)"""
    found = _literal(regex, DIRECTORY)
    if found is not None:
        prefix = found + "/"
        return lambda path: path.startswith(prefix)
    found = _literal(regex, ANCHORED)
    if found is not None:
        literal = found
        return lambda path: path.startswith(literal) and _ends_component(path, len(literal))
    for shape, whole in ((ANYWHERE, True), (SUFFIX, False)):
        found = _literal(regex, shape)
        if found is not None and "/" not in found:
            literal, whole_name = found, whole
            return lambda path: _in_component(path, literal, whole_name)
    return None


def _ends_component(path: str, end: int) -> bool:
    """`(?:(?P<ps_d>/)|$)` at `end`."""
    return end == len(path) or path[end] == "/" or path[end:] == "\n"


def _in_component(path: str, literal: str, whole: bool) -> bool:
    """`^(?:.+/)?LITERAL` (`whole`) or `^(?:.+/)?[^/]*LITERAL`, then the component's end: the
    literal ends a path component that starts at the beginning or after a `/` not first in the path."""
    at = path.find(literal)
    while at != -1:
        start = at if whole else path.rfind("/", 0, at) + 1
        if (start == 0 or (start >= 2 and path[start - 1] == "/")) and _ends_component(path, at + len(literal)):
            return True
        at = path.find(literal, at + 1)
    return False


class Matcher:
    """Last-matching-pattern-wins matcher over compiled patterns (gitignore semantics)."""

    def __init__(self, patterns: Sequence[CompiledPattern]) -> None:
        self._compiled: list[tuple[Callable[[str], object], bool]] = []
        for regex, include in patterns:
            test: Callable[[str], object] | None = string_test(regex)
            if test is None:
                import re

                test = re.compile(regex, re.DOTALL).match
            self._compiled.append((test, include))

    def matches(self, path: str) -> bool:
        result = False
        for test, include in self._compiled:
            if test(path):
                result = include
        return result


def is_exempt(path: str) -> bool:
    """`.orchestration/**` is always outside scope checks."""
    return path.startswith(EXEMPT_PREFIX) or path == EXEMPT_PREFIX.rstrip("/")
