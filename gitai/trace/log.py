"""`gitai show` and `gitai log`: read records back."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from gitai.git.runner import git_process, verify_commit
from gitai.layout import Layout
from gitai.trace.notes_reader import all_notes
from gitai.trace.record import (
    Range,
    Record,
    attribution_of,
    classification_of,
    contributors,
    conversation_contributor,
    conversation_session,
    deleted_paths,
    file_entries,
    file_intents,
    file_meta,
    file_ranges_of,
    intent_of,
    intent_of_any,
    intent_of_file,
    intent_source_of,
    intent_verified,
    is_inferred,
    own_records,
    range_lines,
    record_id,
    revision,
    rewritten_from,
)
from gitai.trace.store import read_note
from gitai.util.text import NO_INTENT, display_path


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
    intent_source: str | None = None
    intents: dict[str, str | None] | None = None  # per file, when the files serve different intents
    merge: bool = False
    lines: int = 0  # lines the commit itself adds or changes (a clean merge: 0)
    deleted: int = 0

    @property
    def empty_merge(self) -> bool:
        """A merge with no change of its own (no line that is new against every parent, nothing deleted)."""
        return self.merge and not self.lines and not self.deleted

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"commit": self.commit, "date": self.date, "subject": self.subject, "intent_id": self.intent_id,
                "intent_source": self.intent_source, "classification": self.classification, "files": self.files,
                "merge": self.merge, "lines": self.lines}
        if self.intents is not None:  # per-file results: a list of objects with a path
            data["intents"] = [{"path": path, "intent_id": intent} for path, intent in self.intents.items()]
        return data


@dataclass
class LogFilter:
    """What `gitai log` keeps: one intent's commits (then only the files serving it), touching a path,
    without merges, since a time, declared intents only."""

    intent_id: str | None = None
    path: str | None = None  # a file, or a directory (everything under it)
    no_merges: bool = False
    since: int | None = None  # commit time, seconds since the epoch
    limit: int | None = None  # at most this many entries, empty merges not counted when they are folded
    fold_merges: bool = False
    declared_only: bool = False  # leave out records whose intent backfill inferred

    def touches(self, files: list[str]) -> bool:
        if self.path is None:
            return True
        prefix = self.path.rstrip("/") + "/"
        return any(f == self.path or f.startswith(prefix) for f in files) or self.path in ("", ".")


def traced_log(layout: Layout, intent_id: str | None = None, rev: str = "HEAD", declared_only: bool = False,
               where: LogFilter | None = None) -> list[LogEntry]:
    """Traced commits reachable from `rev`, newest first, optionally filtered."""
    where = where or LogFilter(intent_id=intent_id, declared_only=declared_only)
    notes = all_notes(layout)
    if not notes:
        return []
    options = ["--no-merges"] if where.no_merges else []
    if where.since is not None:
        options.append(f"--max-age={where.since}")
    walk = git_process(["log", "-z", "--topo-order", "--format=%H%x01%ct%x01%P%x01%s", *options, "--end-of-options",
                        rev, "--"], layout.root)
    if walk.returncode != 0:
        return []  # unborn branch
    entries: list[LogEntry] = []
    shown = 0
    for item in walk.stdout.decode("utf-8", "replace").split("\0"):
        if where.limit is not None and shown >= where.limit:
            break
        sha, commit_time, parents, subject = (item.split("\x01", 3) + ["", "", ""])[:4]
        merge = len(parents.split()) > 1
        for record in own_records(notes.get(sha, []), sha):
            if where.declared_only and is_inferred(record):
                continue
            if where.intent_id is not None and where.intent_id not in intent_of_any(record):
                continue
            files = [entry["path"] for entry in file_entries(record)
                     if where.intent_id is None or intent_of_file(record, entry["path"]) == where.intent_id]
            if where.intent_id is None or intent_of(record) == where.intent_id:
                files += deleted_paths(record)
            if not where.touches(files):
                continue
            when = datetime.fromtimestamp(int(commit_time), timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            lines = sum(range_lines(r) for e in file_entries(record) for r in file_ranges_of(e))
            entry = LogEntry(sha, when, subject, intent_of(record), classification_of(record), files,
                             intent_source_of(record), file_intents(record), merge, lines, len(deleted_paths(record)))
            if where.limit is not None and shown >= where.limit:
                break
            entries.append(entry)
            shown += not (where.fold_merges and entry.empty_merge)
    return entries


def _spans(ranges: list[Range]) -> str:
    return ", ".join(f"{r['start_line']}-{r['end_line']}" if r["start_line"] != r["end_line"]
                     else str(r["start_line"]) for r in ranges)


def describe_record(record: Record) -> list[str]:
    """Human lines for `gitai show`."""
    source = intent_source_of(record)
    unverified = "" if intent_verified(record) else "  (unverified: the intent does not own every path of the commit)"
    lines = [f"commit {revision(record)}", f"intent:  {intent_of(record) or NO_INTENT}"
             + (f" ({source}{', inferred' if source == 'scope' else ''})" if source else "") + unverified]
    per_file = file_intents(record)
    if classification_of(record):
        lines.append(f"class:   {classification_of(record)}")
    who = contributors(record)
    if who:
        types = sorted({c.get("type", "") for c in who} - {""})
        models = sorted({c.get("model_id", "") for c in who} - {""})
        lines.append(f"by:      {', '.join(types)}" + (f" ({', '.join(models)})" if models else ""))
    if attribution_of(record):
        lines.append(f"lines:   attributed from {attribution_of(record)}")
    if rewritten_from(record):
        lines.append(f"from:    {', '.join(c[:12] for c in rewritten_from(record))} (rewritten)")
    lines.append(f"record:  {record_id(record)} at {record.get('timestamp', '')}")
    files = file_meta(record)
    for entry in file_entries(record):
        spans = _spans(file_ranges_of(entry))
        info = files.get(entry["path"], {})
        tags = [str(info[k]) for k in ("classification", "content") if info.get(k)]
        if info.get("renamed_from"):
            tags.append(f"renamed from {info['renamed_from']}")
        if per_file is not None:
            tags.insert(0, f"intent {per_file.get(entry['path']) or NO_INTENT}")
        suffix = f"  [{'; '.join(tags)}]" if tags else ""
        lines.append(f"  {display_path(entry['path'])}: {spans or 'no line ranges'}{suffix}")
        if len(entry["conversations"]) > 1:  # line-level provenance: the ranges of each contributor
            for conversation in entry["conversations"]:
                author = conversation_contributor(conversation)
                label = " ".join(filter(None, [author.get("type", "unknown"), author.get("model_id")]))
                session = conversation_session(conversation)
                label += f" session {session}" if session else ""
                lines.append(f"      {label}: {_spans(conversation.get('ranges', []))}")
        for definition in info.get("definitions", []):
            if definition.get("status") != "unchanged":
                lines.append(f"      {definition.get('status', ''):<9} {definition.get('kind', '')} {definition.get('name', '')}")
    for path in deleted_paths(record):
        lines.append(f"  {display_path(path)}: deleted")
    return lines
