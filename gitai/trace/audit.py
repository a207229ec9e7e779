"""`gitai trace verify` and `gitai trace rebuild`: the notes are the source of truth.

verify: every note's records against git's content (each range hash recomputed from the blob at
the record's revision) and against the ledger (same records, byte-for-byte equal JSON), plus the
ledger's own health (a partial last line left by a crash is reported, never rewritten).
rebuild: keep one record per commit in the notes (`remove_duplicates`), then write the ledger the
hooks would have written, from the notes, in the order the records were made (record timestamp,
then commit order). It never drops a ledger record that no
note holds: it refuses (unless --force) and points to recover.
recover: put back into the notes every record that only the ledger or the reflog of
refs/notes/gitai still holds (after a forced fetch or push replaced the notes), then append to
the ledger the notes' records it lacks. Nothing is removed.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from typing import Any

from gitai.errors import GitaiError
from gitai.git.notes import add_note, write_notes
from gitai.git.objects import ObjectReader
from gitai.git.runner import git_process
from gitai.layout import NOTES_REF, Layout
from gitai.trace.notes_reader import (
    all_notes,
    each_note,
    each_note_checked,
    notes_at,
    notes_of,
)
from gitai.trace.record import (
    TraceRecord,
    choose_record,
    file_ranges_of,
    own_records,
)
from gitai.trace.store import note_body, trace_lock
from gitai.util.files import LARGE_FILE, write_atomic
from gitai.util.jsonl import append_lines, iter_jsonl, read_jsonl
from gitai.util.lines import content_hash, split_lines, whole_file_hash

COMMIT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


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
    missing: list[str] = field(default_factory=list)  # commits reachable from HEAD that have no record
    orphaned: list[str] = field(default_factory=list)  # notes on commits git no longer has (after gc)
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "notes": self.notes, "records": self.records, "ranges": self.ranges,
                "ledger_lines": self.ledger_lines, "missing": len(self.missing),
                "missing_commits": self.missing, "orphaned": self.orphaned,
                "problems": [p.to_json() for p in self.problems]}


def _check_ranges(reader: ObjectReader, commit_id: str, record: TraceRecord, result: VerifyResult) -> None:
    for entry in record.file_entries:
        path = entry["path"]
        ranges = file_ranges_of(entry)
        if not ranges:
            continue
        try:
            blob = reader.tree_entry(commit_id, path)
            data = reader.read(blob) if blob else None
        except KeyError:
            data = None
        if data is None:
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
                result.problems.append(Problem("bad_range", f"{path}:{span[0]}-{span[1]} is outside the file",
                                               commit_id))
            elif r.get("content_hash") != expected[span]:
                result.problems.append(Problem("hash_mismatch", f"{path}:{span[0]}-{span[1]} content hash differs",
                                               commit_id))


def verify(layout: Layout) -> VerifyResult:
    """Recompute everything the trace claims; problems make `gitai trace verify` exit 1.
    Commits without a record are counted (`missing`), not problems: `gitai backfill` traces them."""
    result = VerifyResult()
    note_records: dict[str, bytes] = {}  # record id -> digest of its serialisation (a long trace: 100,000s)
    traced: set[str] = set()
    with ObjectReader(layout.root) as reader:
        for commit_id, records, malformed in each_note_checked(layout):
            result.notes += 1
            if own_records(records, commit_id):
                traced.add(commit_id)
            try:
                reader.read_at_most(commit_id, 0)
                exists = True
            except KeyError:
                exists = False
                result.orphaned.append(commit_id)  # `git notes --ref gitai prune` removes these
            if malformed:
                result.problems.append(Problem(
                    "bad_record", f"{malformed} malformed record line(s) in the note (not read; "
                    "'gitai trace recover' restores records the ledger or the notes reflog still hold)", commit_id))
            own = own_records(records, commit_id)
            if len({r.id for r in own}) > 1:
                result.problems.append(Problem(
                    "duplicate_record", f"{len(own)} records for one commit (two clones traced it); "
                    "'gitai trace rebuild' or 'gitai sync' keeps one", commit_id))
            for record in records:
                result.records += 1
                if record.revision != commit_id:
                    result.problems.append(Problem(
                        "stale_note",
                        f"note holds the record of {record.revision} (copied by a rewrite); run 'gitai backfill'",
                        commit_id))
                    continue
                note_records[record.id] = _digest(record)
                if exists:
                    _check_ranges(reader, commit_id, record, result)
    _check_ledger(layout, note_records, result)
    result.missing = [sha for sha in _reachable(layout) if sha not in traced]
    return result


def _digest(record: TraceRecord) -> bytes:
    return hashlib.sha256(record.dumps().encode("utf-8", "surrogatepass")).digest()


def _check_ledger(layout: Layout, note_records: dict[str, bytes], result: VerifyResult) -> None:
    """The ledger against the notes, byte for byte: each line one record, `\\n`-terminated, no blank
    or CRLF lines, no duplicates, every record in a note and every note's record in the ledger.
    Read one line at a time."""
    try:
        with open(layout.ledger, "rb") as handle:
            for number, raw in enumerate(handle, start=1):
                if not raw.endswith(b"\n"):
                    continue  # a partial last line: iter_jsonl reports it
                if not raw.strip():
                    result.problems.append(Problem("ledger_line", f"ledger line {number}: blank line", line=number))
                elif raw.endswith(b"\r\n"):
                    result.problems.append(Problem("ledger_line", f"ledger line {number}: ends with CR (CRLF)",
                                                   line=number))
    except FileNotFoundError:
        pass
    seen: set[str] = set()
    for number, value, reason in iter_jsonl(layout.ledger):
        if value is None:
            result.problems.append(Problem("ledger_line", f"ledger line {number}: {reason}", line=number))
            continue
        result.ledger_lines += 1
        record = TraceRecord.parse(value)
        if record is None:
            result.problems.append(Problem("ledger_line", f"ledger line {number}: not a valid record", line=number))
            continue
        rid = record.id
        if rid in seen:
            result.problems.append(Problem("ledger_duplicate", f"record {rid} appears twice; run 'gitai trace rebuild'",
                                           line=number))
        seen.add(rid)
        if rid not in note_records:
            result.problems.append(Problem("ledger_only", f"record {rid} is in the ledger but in no note; "
                                           "run 'gitai trace recover' to put it back", record.revision, number))
        elif _digest(record) != note_records[rid]:
            result.problems.append(Problem("ledger_differs", f"record {rid} differs from its note; "
                                           "run 'gitai trace rebuild'", record.revision, number))
    for rid in note_records.keys() - seen:
        result.problems.append(Problem("note_only",
                                       f"record {rid} is missing from the ledger; run 'gitai trace recover'"))


def _reachable(layout: Layout) -> list[str]:
    """Commits reachable from HEAD, newest first (empty on an unborn branch)."""
    proc = git_process(["rev-list", "HEAD", "--"], layout.root)
    return proc.stdout.decode().split() if proc.returncode == 0 else []


def _note_records(layout: Layout) -> list[TraceRecord]:
    """Each distinct record of the notes at its own revision (a duplicated note line counts once)."""
    unique: dict[str, TraceRecord] = {}
    for commit_id, records in all_notes(layout).items():
        for record in records:
            if record.revision == commit_id:
                unique.setdefault(record.id, record)
    return list(unique.values())


def ledger_only_records(layout: Layout, note_ids: set[str]) -> list[TraceRecord]:
    """Valid ledger records that no note holds (each once)."""
    found: dict[str, TraceRecord] = {}
    for _, value in read_jsonl(layout.ledger).records:
        record = TraceRecord.parse(value)
        if record is not None and record.id not in note_ids:
            found.setdefault(record.id, record)
    return list(found.values())


def rebuild(layout: Layout, force: bool = False) -> int:
    """Replace the ledger with the notes' records; returns the number of lines written. Refuses when
    the ledger holds records no note has (their last copy), unless `force`."""
    layout.guard(layout.ledger)
    with trace_lock(layout):
        duplicates = {r.id for r in remove_duplicates(layout, ledger=False)}
        records = _note_records(layout)
        lost = [r for r in ledger_only_records(layout, {r.id for r in records})
                if r.id not in duplicates]
        if lost and not force:
            raise GitaiError(f"the ledger holds {len(lost)} record(s) that no note has (e.g. {lost[0].id}); "
                             "run 'gitai trace recover' to put them back into the notes first, or "
                             "'gitai trace rebuild --force' to drop them")
        order = {sha: n for n, sha in enumerate(_commit_order(layout))}
        records.sort(key=lambda r: (r.recorded_at, order.get(r.revision, len(order)), r.id))
        write_atomic(layout.ledger, "".join(r.dumps() + "\n" for r in records))
    return len(records)


def remove_duplicates(layout: Layout, commits: set[str] | None = None, ledger: bool = True) -> list[TraceRecord]:
    """Keep one record per commit (`record.choose_record`: the one made at commit time over a
    backfilled or inferred one, then the earliest) in the notes of `commits` (None: every note);
    a note's copies of other commits' records stay. The others leave the notes in one notes
    commit and, with `ledger`, the ledger. Returns the records removed. The caller holds the
    trace lock."""
    notes = each_note(layout) if commits is None else iter(sorted(notes_of(layout, sorted(commits)).items()))
    rewritten: list[tuple[str, bytes]] = []
    removed: list[TraceRecord] = []
    kept_ids: set[str] = set()
    for commit_id, records in notes:
        own = own_records(records, commit_id)
        keep = choose_record(own)
        if keep is None or len({r.id for r in own}) < 2:
            continue
        kept_ids.add(keep.id)
        removed += [r for r in own if r.id != keep.id]
        body = [r for r in records if r.revision != commit_id] + [keep]
        rewritten.append((commit_id, note_body(body).encode("utf-8")))
    if rewritten:
        write_notes(layout.root, NOTES_REF, rewritten, "Duplicate records removed by gitai (one record per commit)")
        if ledger:
            _drop_from_ledger(layout, {r.id for r in removed} - kept_ids)
    return removed


def _drop_from_ledger(layout: Layout, ids: set[str]) -> None:
    """Rewrite the ledger without the records of `ids` (a line that is no record stays as it is)."""
    if not ids or not os.path.exists(layout.ledger):
        return
    layout.guard(layout.ledger)
    kept: list[str] = []
    with open(layout.ledger, encoding="utf-8", errors="surrogateescape", newline="") as handle:
        for line in handle:
            record = TraceRecord.load(line)
            if record is None or record.id not in ids:
                kept.append(line)
    write_atomic(layout.ledger, "".join(kept))


def _commit_order(layout: Layout) -> list[str]:
    """All commits reachable from any reference but the notes, oldest first (topological)."""
    proc = git_process(["rev-list", "--topo-order", "--reverse", "--exclude=refs/notes/*", "--exclude=refs/gitai/*",
                        "--all", "--"], layout.root)
    return proc.stdout.decode().split() if proc.returncode == 0 else []


@dataclass
class RecoverResult:
    to_notes: list[str] = field(default_factory=list)  # record ids put back into notes
    from_reflog: int = 0  # of which only the notes reflog held a copy
    to_ledger: int = 0  # note records appended to the ledger
    unrestorable: int = 0  # ledger records whose commit git no longer has (kept in the ledger)

    def to_json(self) -> dict[str, Any]:
        return {"restored_to_notes": len(self.to_notes), "from_reflog": self.from_reflog,
                "appended_to_ledger": self.to_ledger, "unrestorable": self.unrestorable, "records": self.to_notes}


def recover(layout: Layout) -> RecoverResult:
    """Restore records that only the ledger or the reflog of refs/notes/gitai still hold."""
    layout.guard(layout.ledger)
    result = RecoverResult()
    with trace_lock(layout):
        current = all_notes(layout)
        note_ids = {r.id for records in current.values() for r in records}
        candidates: dict[str, TraceRecord] = {}
        for record in ledger_only_records(layout, note_ids):
            candidates[record.id] = record
        traced = {commit_id for commit_id, records in current.items() if own_records(records, commit_id)}
        in_ledger_only = set(candidates)
        for notes_commit in _notes_reflog(layout):
            for commit_id, records in notes_at(layout, notes_commit).items():
                for record in own_records(records, commit_id):
                    if record.id not in note_ids:
                        candidates.setdefault(record.id, record)
        restore: dict[str, list[TraceRecord]] = {}
        with ObjectReader(layout.root) as reader:
            for record in candidates.values():
                if not COMMIT_ID.fullmatch(record.revision):
                    continue  # a ledger line's revision is text: never let it reach cat-file as an expression
                if record.revision in traced:
                    continue  # the commit has its record (one per commit: a removed duplicate stays removed)
                try:
                    reader.read_at_most(record.revision, 0)  # the commit must still exist
                except KeyError:
                    result.unrestorable += record.id in in_ledger_only
                    continue
                restore.setdefault(record.revision, []).append(record)
                result.from_reflog += record.id not in in_ledger_only
        for commit_id, records in restore.items():
            kept = current.get(commit_id, [])
            records.sort(key=lambda r: (r.recorded_at, r.id))
            add_note(layout.root, NOTES_REF, commit_id, note_body(kept + records).encode("utf-8"))
            result.to_notes.extend(r.id for r in records)
        in_ledger = {value.get("id") for _, value in read_jsonl(layout.ledger).records if isinstance(value, dict)}
        missing = [r for r in _note_records(layout) if r.id not in in_ledger]
        missing.sort(key=lambda r: (r.recorded_at, r.id))
        if missing:
            layout.ensure_local_dir()
            append_lines(layout.ledger, [r.dumps() for r in missing])
        result.to_ledger = len(missing)
    return result


def _notes_reflog(layout: Layout) -> list[str]:
    """The past values of refs/notes/gitai, newest first (its reflog)."""
    proc = git_process(["reflog", "show", "--format=%H", NOTES_REF, "--"], layout.root)
    seen: list[str] = []
    for sha in proc.stdout.decode().split() if proc.returncode == 0 else []:
        if sha not in seen:
            seen.append(sha)
    return seen
