"""File facts and writes shared across gitai (lean: the hooks import this)."""

from __future__ import annotations

import os

BINARY_SNIFF = 8000  # git's own heuristic: a NUL byte in the first 8000 bytes means binary
LARGE_FILE = 10 * 1024 * 1024  # above this: no per-line work (one whole-file range, no parse)


def is_binary(data: bytes) -> bool:
    return b"\0" in data[:BINARY_SNIFF]


def write_atomic(path: str, data: str | bytes, mode: int | None = None) -> None:
    """Write a whole file so that readers see the old or the new content, never a mix."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.{os.getpid()}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(data.encode("utf-8") if isinstance(data, str) else data)
    if mode is not None:
        os.chmod(tmp, mode)
    os.replace(tmp, path)
