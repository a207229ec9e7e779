"""`gitai gc`: keep gitai's local caches within a bound.

The caches under `<git common dir>/gitai/` are rebuilt on demand, so trimming them only costs
speed: line origins (`origins-v1`, one file per file version), normal-form hashes (`syntax-v5`,
one file per file content), and the notes index. Caches of other rule versions (`origins-v0`,
...) are deleted outright. Within the bound, the least recently written files go first (files
are rewritten when used by the hooks and blame). `gitai backfill` trims to the bound when it ends.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass

from gitai.blame.origin_cache import DIRECTORY as ORIGINS
from gitai.git.runner import config_get
from gitai.layout import Layout
from gitai.syntax.hash_cache import DIRECTORY as SYNTAX
from gitai.trace.summary_index import INDEX_NAME

DEFAULT_MAX_BYTES = 64 * 1024 * 1024
CONFIG = "gitai.cacheSize"


@dataclass
class GcResult:
    before: int
    after: int
    removed_files: int
    limit: int

    def to_json(self) -> dict[str, int]:
        return {"bytes_before": self.before, "bytes_after": self.after, "removed_files": self.removed_files,
                "limit": self.limit}


def parse_size(text: str) -> int:
    """`64M`, `1g`, `500k` or a byte count."""
    text = text.strip().lower().removesuffix("b")
    factor = {"k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}.get(text[-1:], 1)
    number = text[:-1] if text[-1:] in "kmg" else text
    if not number.isdigit():
        raise ValueError(text)
    return int(number) * factor


def cache_limit(layout: Layout) -> int:
    """The bound: `git config gitai.cacheSize` (e.g. 128M), else 64 MB."""
    values = config_get(CONFIG, layout.root)
    try:
        return parse_size(values[-1]) if values else DEFAULT_MAX_BYTES
    except ValueError:
        return DEFAULT_MAX_BYTES


def _files(directory: str) -> list[tuple[float, int, str]]:
    found = []
    for where, _, names in os.walk(directory):
        for name in names:
            path = os.path.join(where, name)
            try:
                info = os.stat(path)
            except OSError:
                continue
            found.append((info.st_mtime, info.st_blocks * 512, path))  # the disk they take, not their length
    return found


def gc(layout: Layout, limit: int | None = None) -> GcResult:
    """Delete outdated caches, then the oldest cache files until all of them fit in `limit` bytes."""
    limit = cache_limit(layout) if limit is None else limit
    state = layout.shared_state_dir
    if not os.path.isdir(state):
        return GcResult(0, 0, 0, limit)
    removed = 0
    before = 0
    for name in os.listdir(state):
        stem, _, version = name.rpartition("-v")
        if stem in (ORIGINS[:-3], SYNTAX[:-3]) and version.isdigit() and name not in (ORIGINS, SYNTAX):
            stale = _files(os.path.join(state, name))
            before += sum(size for _, size, _ in stale)
            removed += len(stale)
            shutil.rmtree(os.path.join(state, name), ignore_errors=True)
    files = _files(os.path.join(state, ORIGINS)) + _files(os.path.join(state, SYNTAX))
    index_files = [os.path.join(state, n) for n in (INDEX_NAME, INDEX_NAME + "-wal", INDEX_NAME + "-shm")
                   if os.path.isfile(os.path.join(state, n))]
    index_bytes = sum(os.stat(p).st_blocks * 512 for p in index_files)
    total = sum(size for _, size, _ in files) + index_bytes
    before += total
    files.sort()  # oldest first
    for _, size, path in files:
        if total <= limit:
            break
        try:
            os.unlink(path)
        except OSError:
            continue
        total -= size
        removed += 1
    if total > limit:  # the index alone is over the bound: it is rebuilt on next use
        for path in index_files:
            os.unlink(path)
            removed += 1
        total -= index_bytes
    return GcResult(before, total, removed, limit)
