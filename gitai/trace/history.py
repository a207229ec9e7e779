"""`gitai show` and `gitai log`: read records back."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import pygit2

from gitai.layout import Layout
from gitai.check import display_path
from gitai.git import verify_commit
from gitai.trace.notes_index import all_notes, open_repository
from gitai.trace.store import Record, own_records, read_note


def commit_records(layout: Layout, rev: str) -> tuple[str, list[Record]]:
    """The commit id and its own records (a note copied from another commit does not count)."""
    sha = verify_commit(layout.root, rev)
    return sha, own_records(read_note(layout.root, sha), sha)


@dataclass
class LogEntry:
    commit: str
    date: str
    subject: str
    intent_id: str | None
    classification: str | None
    files: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"commit": self.commit, "date": self.date, "subject": self.subject, "intent_id": self.intent_id,
                "classification": self.classification, "files": self.files}


def traced_log(layout: Layout, intent_id: str | None = None, rev: str = "HEAD") -> list[LogEntry]:
    """Traced commits reachable from `rev`, newest first, optionally only one intent's."""
    repo = open_repository(layout)
    notes = all_notes(repo)
    if not notes:
        return []
    try:
        start = repo.revparse_single(rev).peel(pygit2.Commit)
    except (KeyError, pygit2.GitError):
        return []  # unborn branch
    entries = []
    for commit in repo.walk(start.id, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME):
        sha = str(commit.id)
        for record in notes.get(sha, []):
            meta = record.get("metadata", {}).get("dev.gitai", {})
            if record.get("vcs", {}).get("revision") != sha:
                continue
            if intent_id is not None and meta.get("intent_id") != intent_id:
                continue
            when = datetime.fromtimestamp(commit.commit_time, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            files = [f["path"] for f in record.get("files", [])] + list(meta.get("deleted", []))
            entries.append(LogEntry(sha, when, commit.message.split("\n", 1)[0], meta.get("intent_id"),
                                    meta.get("classification"), files))
    return entries


def describe_record(record: Record) -> list[str]:
    """Human lines for `gitai show`."""
    meta = record.get("metadata", {}).get("dev.gitai", {})
    lines = [f"commit {record['vcs']['revision']}",
             f"intent:  {meta.get('intent_id') or '(unattributed)'}"]
    if meta.get("classification"):
        lines.append(f"class:   {meta['classification']}")
    contributors = {c.get("contributor", {}).get("type") for f in record.get("files", []) for c in f["conversations"]}
    models = {c.get("contributor", {}).get("model_id") for f in record.get("files", []) for c in f["conversations"]}
    if contributors:
        lines.append(f"by:      {', '.join(sorted(t for t in contributors if t))}"
                     + (f" ({', '.join(sorted(m for m in models if m))})" if any(models) else ""))
    if meta.get("rewritten_from"):
        lines.append(f"from:    {', '.join(c[:12] for c in meta['rewritten_from'])} (rewritten)")
    lines.append(f"record:  {record['id']} at {record['timestamp']}")
    file_meta = meta.get("files", {})
    for entry in record.get("files", []):
        ranges = [r for c in entry["conversations"] for r in c["ranges"]]
        spans = ", ".join(f"{r['start_line']}-{r['end_line']}" if r["start_line"] != r["end_line"]
                          else str(r["start_line"]) for r in ranges)
        info = file_meta.get(entry["path"], {})
        tags = [info[k] for k in ("classification", "content") if info.get(k)]
        if info.get("renamed_from"):
            tags.append(f"renamed from {info['renamed_from']}")
        suffix = f"  [{'; '.join(tags)}]" if tags else ""
        lines.append(f"  {display_path(entry['path'])}: {spans or 'no line ranges'}{suffix}")
        for definition in info.get("definitions", []):
            if definition.get("status") != "unchanged":
                lines.append(f"      {definition['status']:<9} {definition['kind']} {definition['name']}")
    for path in meta.get("deleted", []):
        lines.append(f"  {display_path(path)}: deleted")
    return lines
