"""Showing untrusted text (paths, ids) to a person on one line."""

from __future__ import annotations


def display_path(path: str) -> str:
    """A path as a person should see it: quoted when it holds newlines or other control characters."""
    if any(ch < " " or ch == "\x7f" for ch in path) or path != path.strip():
        import json  # only then: the pre-commit gate imports this module, and json costs it

        return json.dumps(path, ensure_ascii=False)
    return path


def _is_control(ch: str) -> bool:
    """C0, DEL and C1 (0x80-0x9f: a terminal reads 0x9b as CSI): what can move a cursor or recolour."""
    return ch < " " or "\x7f" <= ch <= "\x9f"


def printable(text: str) -> str:
    """Human output built from untrusted fields (commit subjects, intent names, model ids) with every
    control character escaped (`\x1b` as the four characters `\x1b`), but the newlines and tabs
    gitai itself lays the output out with."""
    if not any(_is_control(ch) and ch not in "\n\t" for ch in text):
        return text
    return "".join(ch if not _is_control(ch) or ch in "\n\t" else repr(ch)[1:-1] for ch in text)


NO_INTENT = "(no intent)"
"""The one label people see for a line, commit or row that no intent is attributed to."""


def one_line(message: str) -> str:
    """A message as one line: control characters (a newline in an id, a NUL from a file) escaped,
    so that an error is always exactly one line of stderr."""
    if not any(_is_control(ch) for ch in message):
        return message
    return "".join(repr(ch)[1:-1] if _is_control(ch) else ch for ch in message)
