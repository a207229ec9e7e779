"""`gitai trace verify` and `gitai trace rebuild`: the notes are the source of truth.

verify: every note's records against git's content (each range hash recomputed from the blob at
the record's revision) and against the ledger (same records, byte-for-byte equal JSON), plus the
ledger's own health (a partial last line left by a crash is reported, never rewritten).
rebuild: write the ledger the hooks would have written, from the notes, in the order the
records were made (record timestamp, then commit order).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pygit2

from gitai.layout import Layout
from gitai.trace.notes_reader import all_notes, all_notes_checked, open_repository
from gitai.trace.record import (
    Record,
    file_entries,
    file_ranges_of,
    is_record,
    record_id,
    revision,
)
from gitai.trace.store import trace_lock
from gitai.util.files import LARGE_FILE, write_atomic
from gitai.util.jsonl import dumps, read_jsonl
from gitai.util.lines import content_hash, split_lines, whole_file_hash


@dataclass
class Problem:
    kind: str
    message: str
    commit: str | None = None
    line: int | None = None  # ledger line

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "commit": self.commit, "line": self.line}


@dataclass
class VerifyResult:
    notes: int = 0
    records: int = 0
    ranges: int = 0
    ledger_lines: int = 0
    orphaned: list[str] = field(default_factory=list)  # notes on commits git no longer has (after gc)
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "notes": self.notes, "records": self.records, "ranges": self.ranges,
                "ledger_lines": self.ledger_lines, "orphaned": self.orphaned, "problems": [p.to_json() for p in self.problems]}


def _check_ranges(repo: pygit2.Repository, commit_id: str, record: Record, result: VerifyResult) -> None:
    try:
        tree = repo[commit_id].peel(pygit2.Tree)
    except (KeyError, ValueError):
        result.orphaned.append(commit_id)  # `git notes --ref gitai prune` removes these
        return
    for entry in file_entries(record):
        path = entry["path"]
        ranges = file_ranges_of(entry)
        if not ranges:
            continue
        try:
            data = repo[tree[path].id].read_raw()
        except KeyError:
            result.problems.append(Problem("missing_file", f"{path} is not in the commit", commit_id))
            continue
        if len(data) > LARGE_FILE:
            count, digest = whole_file_hash(data)
            expected = {(1, count): digest}
        else:
            lines = split_lines(data)
            expected = {(r["start_line"], r["end_line"]): content_hash(lines, r["start_line"], r["end_line"])
                        for r in ranges if 1 <= r["start_line"] <= r["end_line"] <= len(lines)}
        for r in ranges:
            result.ranges += 1
            span = (r["start_line"], r["end_line"])
            if span not in expected:
                result.problems.append(Problem("bad_range", f"{path}:{span[0]}-{span[1]} is outside the file", commit_id))
            elif r.get("content_hash") != expected[span]:
                result.problems.append(Problem("hash_mismatch", f"{path}:{span[0]}-{span[1]} content hash differs", commit_id))


def verify(layout: Layout) -> VerifyResult:
    """Recompute everything the trace claims; problems make `gitai trace verify` exit 1."""
    repo = open_repository(layout)
    result = VerifyResult()
    note_records: dict[str, str] = {}
    for commit_id, (records, malformed) in all_notes_checked(repo).items():
        result.notes += 1
        if malformed:
            result.problems.append(Problem("bad_record", f"{malformed} malformed record line(s) in the note", commit_id))
        for record in records:
            result.records += 1
            if revision(record) != commit_id:
                result.problems.append(Problem(
                    "stale_note",
                    f"note holds the record of {revision(record)} (copied by a rewrite); run 'gitai backfill'",
                    commit_id))
                continue
            note_records[record_id(record)] = dumps(record)
            _check_ranges(repo, commit_id, record, result)
    ledger = read_jsonl(layout.ledger)
    for number, reason in ledger.bad_lines:
        result.problems.append(Problem("ledger_line", f"ledger line {number}: {reason}", line=number))
    seen: set[str] = set()
    for number, record in ledger.records:
        result.ledger_lines += 1
        if not is_record(record):
            result.problems.append(Problem("ledger_line", f"ledger line {number}: not a valid record", line=number))
            continue
        rid = record_id(record)
        if rid in seen:
            result.problems.append(Problem("ledger_duplicate", f"record {rid} appears twice", line=number))
        seen.add(rid)
        if rid not in note_records:
            result.problems.append(Problem("ledger_only", f"record {rid} is in the ledger but in no note",
                                           revision(record), number))
        elif dumps(record) != note_records[rid]:
            result.problems.append(Problem("ledger_differs", f"record {rid} differs from its note",
                                           revision(record), number))
    for rid in note_records.keys() - seen:
        result.problems.append(Problem("note_only", f"record {rid} is missing from the ledger; run 'gitai trace rebuild'"))
    return result


def rebuild(layout: Layout) -> int:
    """Replace the ledger with the notes' records; returns the number of lines written."""
    repo = open_repository(layout)
    order = {sha: n for n, sha in enumerate(_commit_order(repo))}
    records = [
        record
        for commit_id, recs in all_notes(repo).items()
        for record in recs
        if revision(record) == commit_id
    ]
    records.sort(key=lambda r: (r.get("timestamp", ""), order.get(revision(r), len(order)), record_id(r)))
    with trace_lock(layout):
        write_atomic(layout.ledger, "".join(dumps(r) + "\n" for r in records))
    return len(records)


def _commit_order(repo: pygit2.Repository) -> list[str]:
    """All commits reachable from any reference, oldest first (topological)."""
    walker = repo.walk(None, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
    for ref in repo.references:
        if ref.startswith("refs/notes/"):
            continue
        try:
            walker.push(repo.references[ref].peel(pygit2.Commit).id)
        except (pygit2.InvalidSpecError, ValueError, KeyError, pygit2.GitError):
            continue
    try:
        walker.push(repo.head.peel(pygit2.Commit).id)
    except (pygit2.GitError, KeyError):
        pass
    return [str(c.id) for c in walker]
