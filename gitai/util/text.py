"""Showing untrusted text (paths, ids) to a person on one line."""

from __future__ import annotations

import json


def display_path(path: str) -> str:
    """A path as a person should see it: quoted when it holds newlines or other control characters."""
    if any(ch < " " or ch == "\x7f" for ch in path) or path != path.strip():
        return json.dumps(path, ensure_ascii=False)
    return path


NO_INTENT = "(no intent)"
"""The one label people see for a line, commit or row that no intent is attributed to."""


def one_line(message: str) -> str:
    """A message as one line: control characters (a newline in an id, a NUL from a file) escaped,
    so that an error is always exactly one line of stderr."""
    if not any(ch < " " or ch == "\x7f" for ch in message):
        return message
    return "".join(ch if ch >= " " and ch != "\x7f" else repr(ch)[1:-1] for ch in message)
