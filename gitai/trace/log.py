"""`gitai show` and `gitai log`: read records back."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from gitai.git.notes import list_notes
from gitai.git.objects import ObjectReader
from gitai.git.runner import git_stream, verify_commit
from gitai.layout import NOTES_REF, Layout
from gitai.trace.notes_reader import read_records
from gitai.trace.record import (
    Range,
    TraceRecord,
    conversation_contributor,
    conversation_session,
    file_ranges_of,
    own_records,
    range_lines,
)
from gitai.trace.store import read_note
from gitai.util.text import NO_INTENT, display_path


def commit_records(layout: Layout, rev: str) -> tuple[str, list[TraceRecord]]:
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
        data: dict[str, Any] = {"commit": self.commit, "date": self.date, "subject": self.subject,
                                "intent_id": self.intent_id, "intent_source": self.intent_source,
                                "classification": self.classification, "files": self.files,
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
    blobs = {commit: blob for blob, commit in list_notes(layout.root, NOTES_REF)}
    if not blobs:
        return []
    options = ["--no-merges"] if where.no_merges else []
    if where.since is not None:
        options.append(f"--max-age={where.since}")
    walk = git_stream(["log", "-z", "--topo-order", "--format=%H%x01%ct%x01%P%x01%s", *options, "--end-of-options",
                       rev, "--"], layout.root, b"\0")  # no output on an unborn branch
    entries: list[LogEntry] = []
    shown = 0
    with ObjectReader(layout.root) as reader:  # a note is read when the walk reaches its commit
        for item in walk:
            if where.limit is not None and shown >= where.limit:
                break
            sha, commit_time, parents, subject = (item.decode("utf-8", "replace").split("\x01", 3) + ["", "", ""])[:4]
            if sha not in blobs:
                continue
            for record in own_records(read_records(reader, blobs[sha])[0], sha):
                entry = _entry(record, sha, commit_time, subject, len(parents.split()) > 1, where)
                if entry is None:
                    continue
                if where.limit is not None and shown >= where.limit:
                    break
                entries.append(entry)
                shown += not (where.fold_merges and entry.empty_merge)
    walk.close()  # ends git when the limit stopped the walk early
    return entries


def _entry(
    record: TraceRecord, sha: str, commit_time: str, subject: str, merge: bool, where: LogFilter
) -> LogEntry | None:
    """The log entry of one record, or None when the filter leaves it out."""
    if where.declared_only and record.is_inferred:
        return None
    if where.intent_id is not None and where.intent_id not in record.intents:
        return None
    files = [entry["path"] for entry in record.file_entries
             if where.intent_id is None or record.intent_of_file(entry["path"]) == where.intent_id]
    if where.intent_id is None or record.intent == where.intent_id:
        files += record.deleted
    if not where.touches(files):
        return None
    when = datetime.fromtimestamp(int(commit_time), timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    lines = sum(range_lines(r) for e in record.file_entries for r in file_ranges_of(e))
    return LogEntry(sha, when, subject, record.intent, record.classification, files,
                    record.intent_source, record.file_intents, merge, lines, len(record.deleted))


def _spans(ranges: list[Range]) -> str:
    return ", ".join(f"{r['start_line']}-{r['end_line']}" if r["start_line"] != r["end_line"]
                     else str(r["start_line"]) for r in ranges)


def describe_record(record: TraceRecord) -> list[str]:
    """Human lines for `gitai show`."""
    source = record.intent_source
    unverified = "" if record.intent_verified else "  (unverified: the intent does not own every path of the commit)"
    lines = [f"commit {record.revision}", f"intent:  {record.intent or NO_INTENT}"
             + (f" ({source}{', inferred' if source == 'scope' else ''})" if source else "") + unverified]
    per_file = record.file_intents
    if record.classification:
        lines.append(f"class:   {record.classification}")
    who = record.contributors
    if who:
        types = sorted({c.get("type", "") for c in who} - {""})
        models = sorted({c.get("model_id", "") for c in who} - {""})
        lines.append(f"by:      {', '.join(types)}" + (f" ({', '.join(models)})" if models else ""))
    if record.attribution:
        lines.append(f"lines:   attributed from {record.attribution}")
    if record.rewritten_from:
        lines.append(f"from:    {', '.join(c[:12] for c in record.rewritten_from)} (rewritten)")
    lines.append(f"record:  {record.id} at {record.recorded_at}")
    files = record.file_meta
    for entry in record.file_entries:
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
                lines.append(f"      {definition.get('status', ''):<9} {definition.get('kind', '')} "
                             f"{definition.get('name', '')}")
    for path in record.deleted:
        lines.append(f"  {display_path(path)}: deleted")
    return lines
