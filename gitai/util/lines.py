"""Line arithmetic shared by the record builder, verify and blame: the hash rule of
docs/trace-format.md, "Ranges and hashes"."""

from __future__ import annotations


def split_lines(data: bytes) -> list[bytes]:
    """The file's lines without terminators (CRLF and LF alike); no phantom line after a final newline.

    Works on bytes so that non-UTF-8 files hash their own bytes; for UTF-8 text this is exactly
    `text.split` on line ends followed by `.encode("utf-8")`.
    """
    if not data:
        return []
    normal = data.replace(b"\r\n", b"\n")
    if normal.endswith(b"\n"):
        normal = normal[:-1]
    return normal.split(b"\n")


def content_hash(lines: list[bytes], start: int, end: int) -> str:
    """`"sha256:" + sha256("\\n".join(L[start-1:end]))`, 1-based inclusive."""
    import hashlib  # here, not at the top: blame-intent imports this module and needs no hashing

    return "sha256:" + hashlib.sha256(b"\n".join(lines[start - 1 : end])).hexdigest()


def whole_file_hash(data: bytes) -> tuple[int, str]:
    """Line count and content hash of a whole file without splitting it (for huge files)."""
    import hashlib

    normal = data.replace(b"\r\n", b"\n")
    if normal.endswith(b"\n"):
        normal = normal[:-1]
    return normal.count(b"\n") + 1 if data else 0, "sha256:" + hashlib.sha256(normal).hexdigest()


def merge_ranges(lines: list[int]) -> list[tuple[int, int]]:
    """Sorted line numbers -> inclusive (start, end) runs."""
    runs: list[tuple[int, int]] = []
    for number in lines:
        if runs and number == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    return runs
