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
from collections.abc import Container
from typing import Any

from gitai.blame.origins import MAX_UNRECORDED, Version, decode, encode
from gitai.layout import Layout
from gitai.util.files import write_atomic

DIRECTORY = "origins-v1"
MAX_VERSIONS = 8  # per (path, blob): the newest are kept
HELD_LINES = 8 << 20  # line origins held in memory, at most, of the versions not written (about 8 bytes a line)


class OriginStore:
    """Read and write line origins keyed by (path, blob, commit that made the blob)."""

    def __init__(self, layout: Layout, keep: int | None = None,
                 written: Container[tuple[str, str]] | None = None) -> None:
        """`keep`: how many files a long-lived store (backfill's) holds in memory, with their
        versions decoded, so the next commit finds its parent's origins without a read (None: every
        file read, not decoded again: one command's store). `written`: the (path, blob) versions
        written to disk (None: all); the others are held in memory only, for the steps of the same
        run (backfill: later readers need only the versions at the tips of what it traced), see
        `_hold`."""
        self.directory = os.path.join(layout.shared_state_dir, DIRECTORY)
        self.keep = keep
        self.written = written
        self._read_cache: dict[tuple[str, str], dict[str, Any]] = {}
        self._decoded: dict[tuple[str, str, str], Version] = {}
        self._held: dict[tuple[str, str], dict[str, Version]] = {}  # as put, the newest MAX_VERSIONS
        self._fresh: dict[tuple[str, str, str], int] = {}  # held versions no step read yet -> their lines
        self._stepped: dict[tuple[str, str, str], int] = {}  # held versions a step read, in the order read
        self._held_lines = 0
        self._on_disk = self._listing() if written is not None else None

    def _listing(self) -> set[str]:
        """The cache's files, listed once (backfill asks for thousands of versions, most of them
        never written: a failed open each costs more than the listing). A file another process
        writes meanwhile is not seen: a cache miss."""
        found: set[str] = set()
        try:
            parts = os.listdir(self.directory)
        except OSError:
            return found
        for part in parts:
            try:
                found.update(os.path.join(self.directory, part, name) for name in os.listdir(
                    os.path.join(self.directory, part)))
            except OSError:
                continue
        return found

    def _file(self, path: str, blob: str) -> str:
        key = hashlib.sha1(f"{path}\0{blob}".encode("utf-8", "surrogateescape")).hexdigest()
        return os.path.join(self.directory, key[:2], key[2:] + ".json.z")

    def _read(self, path: str, blob: str) -> dict[str, Any]:
        if (path, blob) not in self._read_cache:
            if self.keep is not None and len(self._read_cache) >= self.keep:
                self._read_cache.clear()
                self._decoded.clear()
            self._read_cache[path, blob] = self._load(path, blob)
        return self._read_cache[path, blob]

    def _load(self, path: str, blob: str) -> dict[str, Any]:
        file = self._file(path, blob)
        if self._on_disk is not None and file not in self._on_disk:
            return {}
        try:
            with open(file, "rb") as handle:
                data = json.loads(zlib.decompress(handle.read()))
        except (OSError, ValueError, zlib.error):
            return {}
        if not isinstance(data, dict) or data.get("path") != path or data.get("blob") != blob \
                or not isinstance(data.get("versions"), dict):
            return {}
        return data

    def commits(self, path: str, blob: str) -> list[str]:
        """The commits for which origins of this version are kept."""
        on_disk = list(self._read(path, blob).get("versions", {}))
        held = self._held.get((path, blob))
        if not held:
            return on_disk
        return ([c for c in on_disk if c not in held] + list(held))[-MAX_VERSIONS:]  # as if written

    def get(self, path: str, blob: str, commit: str) -> Version | None:
        held = self._held.get((path, blob))
        if held:
            if commit in held:
                lines = self._fresh.pop((path, blob, commit), None)
                if lines is not None:
                    self._stepped[path, blob, commit] = lines
                return held[commit]
            if commit not in self.commits(path, blob):
                return None  # as if written: pushed out by the held ones
        kept = self._read(path, blob).get("versions", {}).get(commit)
        if not kept:
            return None
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
        if self.written is not None and (path, blob) not in self.written:
            self._hold(path, blob, commit, version)
            return
        data = self._added(path, blob, {commit: version})
        self._read_cache[path, blob] = data
        if self.keep is not None:
            self._decoded[path, blob, commit] = version
        self._write(path, blob, data)

    def _added(self, path: str, blob: str, added: dict[str, Version]) -> dict[str, Any]:
        """The file of (path, blob) with `added` as its newest versions, the oldest beyond MAX_VERSIONS gone."""
        data = self._read(path, blob) or {"path": path, "blob": blob, "versions": {}}
        versions = data["versions"]
        for commit, version in added.items():
            versions.pop(commit, None)
            versions[commit] = encode(version)
        while len(versions) > MAX_VERSIONS:
            oldest = next(iter(versions))
            del versions[oldest]
            self._decoded.pop((path, blob, oldest), None)
        return data

    def _write(self, path: str, blob: str, data: dict[str, Any]) -> None:
        file = self._file(path, blob)
        try:
            write_atomic(file, zlib.compress(json.dumps(data, separators=(",", ":")).encode(), 1))
        except OSError:
            return  # a read-only git dir only costs speed
        if self._on_disk is not None:
            self._on_disk.add(file)

    def _hold(self, path: str, blob: str, commit: str, version: Version) -> None:
        """Keep a version in memory only, as `put` would keep it on disk. Beyond HELD_LINES, the
        versions a step already read go first, the oldest read first (on a linear history no step
        reads one again; a branch's first commit reads the version its fork point had), then the
        oldest held. A step that needs one let go finds nothing, as for any cache miss: that file's
        origins are left to blame-intent, and a record keeps `line_origins` only where they are known."""
        self._forget(path, blob, commit)  # made again: the newest
        held = self._held.setdefault((path, blob), {})
        held[commit] = version
        self._fresh[path, blob, commit] = len(version.origins)
        self._held_lines += len(version.origins)
        while len(held) > MAX_VERSIONS:
            self._forget(path, blob, next(iter(held)))
        while self._held_lines > HELD_LINES and (self._stepped or self._fresh):
            oldest_path, oldest_blob, oldest = next(iter(self._stepped or self._fresh))
            self._forget(oldest_path, oldest_blob, oldest)

    def _forget(self, path: str, blob: str, commit: str) -> None:
        held = self._held.get((path, blob))
        if held is None or held.pop(commit, None) is None:
            return
        key = (path, blob, commit)
        self._held_lines -= self._fresh.pop(key, 0) + self._stepped.pop(key, 0)
        if not held:
            del self._held[path, blob]

    def write_held(self) -> None:
        """Write the versions held in memory, each file as `put` would have made it (an interrupted
        backfill: the next run steps on from them)."""
        for (path, blob), held in self._held.items():
            self._write(path, blob, self._added(path, blob, held))
        self._held.clear()
        self._fresh.clear()
        self._stepped.clear()
        self._held_lines = 0
