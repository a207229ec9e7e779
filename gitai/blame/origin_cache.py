"""The origins cache: `<common git dir>/gitai/origins-v1/`, one zlib-compressed JSON file per (path, blob).

A file holds the line origins of that version of the file as of the commits that made it (a
revert or a cherry-pick can make the same blob again, with other origins). It is a cache: safe
to delete, rebuilt on demand; the `-v1` names the step's rules, so changing them starts afresh.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from gitai.blame.origins import MAX_UNRECORDED, Version, decode, encode
from gitai.layout import Layout
from gitai.util.files import write_atomic

DIRECTORY = "origins-v1"
MAX_VERSIONS = 8  # per (path, blob): the newest are kept
HAND_OFF = 64  # files changed before a store with a `writer` hands them off

FileItem = tuple[str, list[tuple[str, Any]]]
"""A cache file to write: its name and its fields in order, `versions` as a list of (commit, version)
pairs, oldest first (a Version where not encoded yet)."""
Writer = Callable[[list[FileItem]], "Future[None]"]
"""Writes cache files elsewhere (`write_files` in another process); done when its future is."""


class OriginStore:
    """Read and write line origins keyed by (path, blob, commit that made the blob)."""

    def __init__(self, layout: Layout, keep: int | None = None, writer: Writer | None = None) -> None:
        """`keep`: how many files a long-lived store (backfill's) holds in memory, with their
        versions decoded, so the next commit finds its parent's origins without a read (None: every
        file read, not decoded again: one command's store). `writer`: files are encoded and written
        by it (backfill's worker processes, while this one goes on), HAND_OFF at a time; until
        written they are read from memory, and a file is handed off again only once its last write
        is done, so writes of one file never race. `close` writes what is left."""
        self.directory = os.path.join(layout.shared_state_dir, DIRECTORY)
        self.keep = keep
        self.writer = writer
        self._read_cache: dict[tuple[str, str], dict[str, Any]] = {}
        self._decoded: dict[tuple[str, str, str], Version] = {}
        self._dirty: dict[tuple[str, str], dict[str, Any]] = {}  # changed, not handed off yet
        self._writing: dict[tuple[str, str], tuple[Future[None], dict[str, Any]]] = {}  # handed off, maybe unwritten

    def _file(self, path: str, blob: str) -> str:
        key = hashlib.sha1(f"{path}\0{blob}".encode("utf-8", "surrogateescape")).hexdigest()
        return os.path.join(self.directory, key[:2], key[2:] + ".json.z")

    def _read(self, path: str, blob: str) -> dict[str, Any]:
        if (path, blob) not in self._read_cache:
            if self.keep is not None and len(self._read_cache) >= self.keep:
                self._read_cache.clear()
                self._decoded.clear()
            unwritten = self._dirty.get((path, blob)) or self._writing.get((path, blob), (None, None))[1]
            self._read_cache[path, blob] = unwritten or self._load(path, blob)
        return self._read_cache[path, blob]

    def _load(self, path: str, blob: str) -> dict[str, Any]:
        try:
            with open(self._file(path, blob), "rb") as handle:
                data = json.loads(zlib.decompress(handle.read()))
        except (OSError, ValueError, zlib.error):
            return {}
        if not isinstance(data, dict) or data.get("path") != path or data.get("blob") != blob \
                or not isinstance(data.get("versions"), dict):
            return {}
        return data

    def commits(self, path: str, blob: str) -> list[str]:
        """The commits for which origins of this version are kept."""
        return list(self._read(path, blob).get("versions", {}))

    def get(self, path: str, blob: str, commit: str) -> Version | None:
        kept = self._read(path, blob).get("versions", {}).get(commit)
        if not kept:
            return None
        if isinstance(kept, Version):  # put here, not written yet
            return kept
        version = self._decoded.get((path, blob, commit))
        if version is None:
            try:
                version = decode(kept)
            except (KeyError, IndexError, TypeError, ValueError):
                return None  # a damaged entry is a cache miss
            if self.keep is not None:
                self._decoded[path, blob, commit] = version
        return version

    def put(self, path: str, blob: str, commit: str, version: Version) -> None:
        if len(version.unrecorded) > MAX_UNRECORDED:
            return
        data = self._read(path, blob) or {"path": path, "blob": blob, "versions": {}}
        versions = data["versions"]
        versions.pop(commit, None)
        versions[commit] = version if self.writer else encode(version)
        while len(versions) > MAX_VERSIONS:
            oldest = next(iter(versions))
            del versions[oldest]
            self._decoded.pop((path, blob, oldest), None)
        self._read_cache[path, blob] = data
        if self.keep is not None:
            self._decoded[path, blob, commit] = version
        if self.writer is None:
            try:
                write_atomic(self._file(path, blob), zlib.compress(json.dumps(data, separators=(",", ":")).encode(), 1))
            except OSError:
                pass  # a read-only git dir only costs speed
            return
        self._dirty[path, blob] = data
        if len(self._dirty) >= HAND_OFF:
            self._hand_off()

    def _item(self, key: tuple[str, str], data: dict[str, Any]) -> FileItem:
        """The file as it stands (its versions as a list: `data` goes on changing here)."""
        return self._file(*key), [(k, list(v.items()) if k == "versions" else v) for k, v in data.items()]

    def _hand_off(self) -> None:
        """Give the writer the changed files whose last write is done (one that failed, a worker
        having died, is written here)."""
        assert self.writer is not None
        for key in [key for key, (future, _) in self._writing.items() if future.done()]:
            future, data = self._writing.pop(key)
            if future.cancelled() or future.exception() is not None:
                write_files([self._item(key, data)])
        ready = {key: data for key, data in self._dirty.items() if key not in self._writing}
        if not ready:
            return
        items = [self._item(key, data) for key, data in ready.items()]
        try:
            future = self.writer(items)
        except Exception:  # noqa: BLE001 - the writer is gone (a broken pool): written here
            write_files(items)
            future = Future()
            future.set_result(None)
        for key, data in ready.items():
            del self._dirty[key]
            self._writing[key] = (future, data)

    def write_here(self, most: int) -> bool:
        """Write up to `most` of the changed files not handed off yet here (backfill, while it waits
        for its workers); False when there were none."""
        ready = [key for key in self._dirty if key not in self._writing][:most]
        if ready:
            write_files([self._item(key, self._dirty.pop(key)) for key in ready])
        return bool(ready)

    def close(self) -> None:
        """Write what is not written yet, and wait for what is being written."""
        while self._dirty or self._writing:
            for future, _ in list(self._writing.values()):
                try:
                    future.result()
                except Exception:  # noqa: BLE001 - a failed write is done again by _hand_off
                    pass
            self._hand_off()


def write_files(items: list[FileItem]) -> None:
    """Write cache files, their versions encoded where they are not yet."""
    for name, fields in items:
        data = {key: {commit: encode(v) if isinstance(v, Version) else v for commit, v in value}
                if key == "versions" else value for key, value in fields}
        try:
            write_atomic(name, zlib.compress(json.dumps(data, separators=(",", ":")).encode(), 1))
        except OSError:
            pass  # a read-only git dir only costs speed
