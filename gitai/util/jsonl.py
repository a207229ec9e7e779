"""Append-only JSON Lines files, safe under concurrent writers.

Each append takes an exclusive `flock` on the file and writes the whole payload with
`write` on an O_APPEND descriptor, so lines from several processes never tear or interleave.
A partial last line (left by a crash) is never rewritten: the next append starts on a new
line, and readers report the partial line instead of guessing.
"""

from __future__ import annotations

import errno
import fcntl
import os

from gitai.util import hookjson
from gitai.util.files import UnsafePathError

TYPE_CHECKING = False  # no typing import on the hook path
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any


def dumps(record: object) -> str:
    """The one serialisation gitai uses for ledger lines, notes and events.

    UTF-8 JSON; a record holding a path that is not valid UTF-8 (kept by git as bytes, carried
    here as surrogate escapes) is written with ASCII escapes instead, so it stays valid JSON.
    """
    text = hookjson.dumps(record, ensure_ascii=False, separators=(",", ":"))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return hookjson.dumps(record, ensure_ascii=True, separators=(",", ":"))
    return text


def append_lines(path: str, lines: Iterable[str]) -> None:
    """Append lines (without their newline) atomically with respect to other gitai writers."""
    payload = "".join(line + "\n" for line in lines).encode("utf-8")
    if not payload:
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafePathError(f"refusing to append to {path}: it is a symbolic link") from None
        raise
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            payload = b"\n" + payload  # keep a crash's partial line for `gitai trace verify`
        view = memoryview(payload)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


class JsonlContents:
    """What a JSON Lines file holds: parsed records, and the lines that are not valid JSON."""

    def __init__(self) -> None:
        self.records: list[tuple[int, dict[str, Any]]] = []  # (1-based line number, record)
        self.bad_lines: list[tuple[int, str]] = []  # (1-based line number, reason)


def read_jsonl(path: str) -> JsonlContents:
    """Read every line; a torn or invalid line is reported, never dropped silently."""
    contents = JsonlContents()
    for number, value, reason in iter_jsonl(path):
        if value is not None:
            contents.records.append((number, value))
        else:
            contents.bad_lines.append((number, reason or ""))
    return contents


def iter_jsonl(path: str) -> Iterator[tuple[int, dict[str, Any] | None, str | None]]:
    """Each non-blank line as (line number, object, None) or (line number, None, why it is not one),
    read one line at a time (a ledger of a long history holds 100,000s of records)."""
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        return
    with handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                value = hookjson.loads(raw)
            except ValueError:
                problem = "not valid JSON" if raw.endswith(b"\n") else "partial last line (interrupted write?)"
                yield number, None, problem
                continue
            if isinstance(value, dict):
                yield number, value, None
            else:
                yield number, None, "not a JSON object"
