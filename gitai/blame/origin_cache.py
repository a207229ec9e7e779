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

    def __init__(self, layout: Layout) -> None:
        self.directory = os.path.join(layout.shared_state_dir, DIRECTORY)
        self._read_cache: dict[tuple[str, str], dict[str, Any]] = {}

    def _file(self, path: str, blob: str) -> str:
        key = hashlib.sha1(f"{path}\0{blob}".encode("utf-8", "surrogateescape")).hexdigest()
        return os.path.join(self.directory, key[:2], key[2:] + ".json.z")

    def _read(self, path: str, blob: str) -> dict[str, Any]:
        if (path, blob) not in self._read_cache:
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
        try:
            return decode(kept) if kept else None
        except (KeyError, IndexError, TypeError, ValueError):
            return None  # a damaged entry is a cache miss

    def put(self, path: str, blob: str, commit: str, version: Version) -> None:
        if len(version.unrecorded) > MAX_UNRECORDED:
            return
        data = self._read(path, blob) or {"path": path, "blob": blob, "versions": {}}
        versions = data["versions"]
        versions.pop(commit, None)
        versions[commit] = encode(version)
        while len(versions) > MAX_VERSIONS:
            versions.pop(next(iter(versions)))
        self._read_cache[path, blob] = data
        try:
            write_atomic(self._file(path, blob), zlib.compress(json.dumps(data, separators=(",", ":")).encode(), 1))
        except OSError:
            pass  # a read-only git dir only costs speed
