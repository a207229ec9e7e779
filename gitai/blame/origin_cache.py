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
from typing import Any

from gitai.blame.origins import MAX_UNRECORDED, Version, decode, encode
from gitai.layout import Layout
from gitai.util.files import write_atomic

DIRECTORY = "origins-v1"
MAX_VERSIONS = 8  # per (path, blob): the newest are kept


class OriginStore:
    """Read and write line origins keyed by (path, blob, commit that made the blob)."""

    def __init__(self, layout: Layout, keep: int | None = None) -> None:
        """`keep`: how many files a long-lived store (backfill's) holds in memory, with their
        versions decoded, so the next commit finds its parent's origins without a read (None: every
        file read, not decoded again: one command's store)."""
        self.directory = os.path.join(layout.shared_state_dir, DIRECTORY)
        self.keep = keep
        self._read_cache: dict[tuple[str, str], dict[str, Any]] = {}
        self._decoded: dict[tuple[str, str, str], Version] = {}

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
        versions[commit] = encode(version)
        while len(versions) > MAX_VERSIONS:
            oldest = next(iter(versions))
            del versions[oldest]
            self._decoded.pop((path, blob, oldest), None)
        self._read_cache[path, blob] = data
        if self.keep is not None:
            self._decoded[path, blob, commit] = version
        try:
            write_atomic(self._file(path, blob), zlib.compress(json.dumps(data, separators=(",", ":")).encode(), 1))
        except OSError:
            pass  # a read-only git dir only costs speed
