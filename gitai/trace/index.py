"""A compact, cached index of the trace for fast readers (blame-intent, the intent map).

Per traced commit: its intent, its commit-level classification, and per file the classification
and (for AST_REFACTOR files) the definitions' line mappings. Cached in
`<common git dir>/gitai/notes-index.json`, keyed by the notes ref, refreshed incrementally
by note blob id; plumbing only, so a reader pays neither pygit2's import nor a full parse of
every record on each run.
"""

from __future__ import annotations

import json
import os
from typing import Any

from gitai import __version__
from gitai.git import git_process, run_git
from gitai.layout import NOTES_REF, Layout
from gitai.trace.gitdata import ObjectReader
from gitai.trace.store import Record, own_records, parse_note

INDEX_NAME = "notes-index.json"
VERSION = f"{__version__}/1"  # bump the suffix when summarize() changes
CommitInfo = dict[str, Any]  # {"intent": str|None, "class": str|None, "files": {path: {"class": str, "defs": [...]}}}


def choose_record(records: list[Record]) -> Record | None:
    """One record per commit: a hook-made record before a backfilled one, then the earliest."""
    if not records:
        return None
    return sorted(records, key=lambda r: (bool(r.get("metadata", {}).get("dev.gitai", {}).get("backfilled")),
                                          r.get("timestamp", ""), r.get("id", "")))[0]


def summarize(record: Record) -> CommitInfo:
    """What fast readers need of a record."""
    meta = record.get("metadata", {}).get("dev.gitai", {})
    all_files = meta.get("files", {})
    files = {}
    for path, info in all_files.items():
        entry: dict[str, Any] = {"class": info.get("classification")}
        if info.get("classification") == "AST_REFACTOR":
            defs = []
            for d in info.get("definitions", []):
                old_lines = d.get("old_lines") or _moved_source_lines(all_files, path, d)
                if d.get("new_lines") and old_lines:
                    defs.append({"name": d.get("name"), "status": d.get("status"), "old_lines": old_lines,
                                 "new_lines": d["new_lines"], "moved_from": d.get("moved_from")})
            entry["defs"] = defs
        if info.get("renamed_from"):
            entry["renamed_from"] = info["renamed_from"]
        files[path] = entry
    return {"intent": meta.get("intent_id"), "class": meta.get("classification"), "files": files}


def _moved_source_lines(files: dict[str, Any], path: str, definition: dict[str, Any]) -> list[int] | None:
    """A definition moved in from another file: its old lines, from the source file's entry."""
    source = definition.get("moved_from")
    if not source:
        return None
    for d in files.get(source.get("path"), {}).get("definitions", []):
        if d.get("moved_to") == {"path": path, "name": definition.get("name")} and d.get("old_lines"):
            return list(d["old_lines"])
    return None


def load_index(layout: Layout) -> dict[str, CommitInfo]:
    """commit -> CommitInfo for every traced commit, from the cache when the notes did not change."""
    head = run_git(["rev-parse", "-q", "--verify", NOTES_REF], layout.root, check=False).decode().strip()
    if not head:
        return {}
    path = os.path.join(layout.shared_state_dir, INDEX_NAME)
    cached: dict[str, Any] = {}
    try:
        with open(path, encoding="utf-8") as handle:
            cached = json.load(handle)
    except (OSError, ValueError):
        pass
    if cached.get("version") == VERSION and cached.get("notes") == head:
        return {sha: entry["info"] for sha, entry in cached["commits"].items()}
    old = cached.get("commits", {}) if cached.get("version") == VERSION else {}
    listing = git_process(["notes", "--ref", NOTES_REF, "list"], layout.root).stdout.decode().split()
    commits: dict[str, dict[str, Any]] = {}
    with ObjectReader(layout.root) as reader:
        for blob, sha in zip(listing[::2], listing[1::2]):
            if sha in old and old[sha]["blob"] == blob:
                commits[sha] = old[sha]
                continue
            record = choose_record(own_records(parse_note(reader.read(blob).decode("utf-8", "replace")), sha))
            if record is not None:
                commits[sha] = {"blob": blob, "info": summarize(record)}
    try:
        os.makedirs(layout.shared_state_dir, exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump({"version": VERSION, "notes": head, "commits": commits}, handle)
        os.replace(tmp, path)
    except OSError:
        pass
    return {sha: entry["info"] for sha, entry in commits.items()}
