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
    return _normal(data).split(b"\n")


def _normal(data: bytes) -> bytes:
    """The file's text with LF line ends and without its final newline (a lone CR is kept). The
    search for a CR first: `replace` finds no CRLF in a file of LF lines far slower than a CR."""
    normal = data.replace(b"\r\n", b"\n") if b"\r" in data else data
    return normal[:-1] if normal.endswith(b"\n") else normal


def content_hash(lines: list[bytes], start: int, end: int) -> str:
    """`"sha256:" + sha256("\\n".join(L[start-1:end]))`, 1-based inclusive."""
    import hashlib  # here, not at the top: blame-intent imports this module and needs no hashing

    return "sha256:" + hashlib.sha256(b"\n".join(lines[start - 1 : end])).hexdigest()


def range_hashes(data: bytes, ranges: list[tuple[int, int]]) -> list[str]:
    """`content_hash` of each (first, last) range of the file's lines: only the lines up to the
    last one wanted are split apart, and a range of every line hashes the text as it is."""
    import hashlib

    if not ranges:
        return []
    normal = _normal(data)
    lines = normal.split(b"\n", max(end for _, end in ranges))  # the lines wanted, then the rest in one piece
    hashes = []
    for start, end in ranges:
        text = normal if start == 1 and end == len(lines) else b"\n".join(lines[start - 1:end])
        hashes.append("sha256:" + hashlib.sha256(text).hexdigest())
    return hashes


def whole_file_hash(data: bytes) -> tuple[int, str]:
    """Line count and content hash of a whole file without splitting it (for huge files)."""
    import hashlib

    normal = _normal(data)
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
