"""The trace as relational tables: what `gitai export` writes and what `gitai report` reads.

One row per traced commit (when two clones' records of a commit met, the one `choose_record`
keeps) and per record copied by a rewrite (flagged `stale`), with its
files, conversations (contributors) and ranges beneath it; the catalogue's intents and scopes; the
governance events; the files at HEAD with their owners. Every row carries `repo_id`, the id of the
repository's root commit, so exports of many repositories load into one database without clashes.
The schema (docs/export.md) is `TABLES`; change it only with `SCHEMA_VERSION`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from gitai import __version__
from gitai.errors import GitaiError
from gitai.git.objects import ObjectReader
from gitai.git.runner import git_process, head_commit, split_z
from gitai.layout import Layout
from gitai.trace.notes_reader import each_note
from gitai.trace.record import (
    TraceRecord,
    choose_record,
    conversation_contributor,
    conversation_ranges,
    conversation_url,
    conversations_of,
    own_records,
    range_lines,
)
from gitai.util.files import LARGE_FILE, is_binary
from gitai.util.jsonl import read_jsonl
from gitai.util.time import utc_now

SCHEMA_VERSION = 1

Column = tuple[str, str, str]  # name, SQL type, meaning

TABLES: dict[str, list[Column]] = {
    "repositories": [
        ("repo_id", "TEXT", "id of the repository: its root commit (the oldest of HEAD's root commits)"),
        ("name", "TEXT", "the worktree directory's name"),
        ("head", "TEXT", "HEAD's commit at export time (null: unborn)"),
        ("exported_at", "TEXT", "when the export was made, RFC 3339 UTC"),
        ("gitai_version", "TEXT", "the gitai that exported"),
        ("schema_version", "INTEGER", "version of this schema"),
    ],
    "commits": [
        ("repo_id", "TEXT", "repository"),
        ("commit_id", "TEXT", "the commit whose note holds the record (`commit` is an SQL keyword)"),
        ("record_id", "TEXT", "the record's id (UUID); with repo_id and commit, the row's key"),
        ("revision", "TEXT", "the commit the record describes (differs from commit_id only when stale)"),
        ("stale", "INTEGER", "1: a note copied by a history rewrite (`gitai backfill` replaces it)"),
        ("reachable", "INTEGER", "1: the commit is reachable from HEAD"),
        ("committed_at", "TEXT", "committer date, RFC 3339 UTC (null: the commit is gone)"),
        ("subject", "TEXT", "first line of the commit message"),
        ("is_merge", "INTEGER", "1: the commit has several parents"),
        ("intent_id", "TEXT",
         "the intent the record attributes the commit to (null: none, or its files serve several; see files)"),
        ("classification", "TEXT", "AST_REFACTOR or INTENT_EVOLUTION (null: not classified)"),
        ("backfilled", "INTEGER", "1: made by `gitai backfill` (attribution inferred); 0: by the hooks at commit time"),
        ("recorded_at", "TEXT", "when the record was made, RFC 3339 UTC"),
        ("tool_version", "TEXT", "version of the tool that made the record"),
        ("intent_source", "TEXT",
         "where the intent came from: trailer, session, active, scope (inferred by backfill); null: none"),
    ],
    "files": [
        ("repo_id", "TEXT", "repository"),
        ("commit_id", "TEXT", "the note's commit (see commits)"),
        ("record_id", "TEXT", "the record (see commits)"),
        ("path", "TEXT", "file path, relative to the repository root"),
        ("change", "TEXT", "changed or deleted"),
        ("classification", "TEXT", "the file's AST_REFACTOR or INTENT_EVOLUTION (null: not classified)"),
        ("language", "TEXT", "tree-sitter language used to classify (null: none)"),
        ("content", "TEXT", "binary, symlink, submodule or large (null: text)"),
        ("renamed_from", "TEXT", "former path of a renamed file"),
        ("lines", "INTEGER", "lines added or changed (sum of the file's ranges)"),
        ("intent_id", "TEXT",
         "the intent this file's lines serve (differs from the commit's when its files serve several)"),
    ],
    "contributors": [
        ("repo_id", "TEXT", "repository"),
        ("commit_id", "TEXT", "the note's commit"),
        ("record_id", "TEXT", "the record"),
        ("path", "TEXT", "the file"),
        ("conversation", "INTEGER", "position of the conversation in the file entry (0-based)"),
        ("contributor_type", "TEXT", "ai, human, mixed or unknown (null: not said)"),
        ("model_id", "TEXT", "the model of an ai contributor, when known"),
        ("url", "TEXT", "the conversation's url, when recorded"),
        ("lines", "INTEGER", "lines of the conversation's ranges"),
    ],
    "ranges": [
        ("repo_id", "TEXT", "repository"),
        ("commit_id", "TEXT", "the note's commit"),
        ("record_id", "TEXT", "the record"),
        ("path", "TEXT", "the file"),
        ("conversation", "INTEGER", "the conversation (see contributors)"),
        ("start_line", "INTEGER", "first line, 1-based, in the file at revision"),
        ("end_line", "INTEGER", "last line, inclusive"),
        ("lines", "INTEGER", "end_line - start_line + 1"),
        ("content_hash", "TEXT", "hash of the range's text (docs/trace-format.md)"),
    ],
    "intents": [
        ("repo_id", "TEXT", "repository"),
        ("intent_id", "TEXT", "the intent's id; with repo_id, the row's key"),
        ("name", "TEXT", "its name"),
        ("status", "TEXT", "DRAFT, IN_PROGRESS, DONE or BLOCKED"),
        ("parent_intent", "TEXT", "parent intent id"),
        ("requires_approval", "INTEGER", "1: the intent requires approval"),
        ("description", "TEXT", "its description"),
    ],
    "intent_scopes": [
        ("repo_id", "TEXT", "repository"),
        ("intent_id", "TEXT", "the intent"),
        ("position", "INTEGER", "order of the pattern in owned_scope (0-based)"),
        ("pattern", "TEXT", "a .gitignore-style pattern ('!' excludes)"),
    ],
    "events": [
        ("repo_id", "TEXT", "repository"),
        ("line", "INTEGER", "line number in .orchestration/events.jsonl; with repo_id, the row's key"),
        ("timestamp", "TEXT", "when, RFC 3339 UTC"),
        ("event", "TEXT", "select, clear, refusal, ..."),
        ("actor", "TEXT",
         "agent:NAME, user:LOGIN, or user:NAME <EMAIL> (git's identity when the environment names no login)"),
        ("intent_id", "TEXT", "the intent concerned (null: none)"),
        ("data", "TEXT", "the whole event as JSON"),
    ],
    "tree_files": [
        ("repo_id", "TEXT", "repository"),
        ("path", "TEXT", "a file at HEAD; with repo_id, the row's key"),
        ("lines", "INTEGER", "its lines (0: binary; null: larger than 10 MB, not counted)"),
        ("exempt", "INTEGER", "1: needs no scope (.orchestration/, .intentignore)"),
        ("owners", "TEXT", "JSON array of the intents whose scope owns it (catalogue order)"),
        ("owner_count", "INTEGER", "how many intents own it (0: nobody, 2+: shared)"),
    ],
}

Row = tuple[Any, ...]


@dataclass
class Tables:
    rows: dict[str, list[Row]] = field(default_factory=lambda: {name: [] for name in TABLES})

    def dicts(self, name: str) -> Iterator[dict[str, Any]]:
        """The rows of a table as dicts, made one at a time (a long trace has 100,000s of rows)."""
        columns = [c[0] for c in TABLES[name]]
        return (dict(zip(columns, row, strict=True)) for row in self.rows[name])


def _rfc3339(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


class CommitInfo:
    """What the tables need of a commit object: committer time, parent count, subject."""

    __slots__ = ("time", "parents", "subject")

    def __init__(self, time: int, parents: int, subject: str) -> None:
        self.time, self.parents, self.subject = time, parents, subject


def commit_info(reader: ObjectReader, sha: str) -> CommitInfo | None:
    """Parse a raw commit object (None: missing, or not a commit)."""
    try:
        data = reader.read(sha)
    except KeyError:
        return None
    head, _, message = data.partition(b"\n\n")
    parents, when = 0, 0
    for line in head.split(b"\n"):
        if line.startswith(b"parent "):
            parents += 1
        elif line.startswith(b"committer "):
            fields = line.rsplit(b" ", 2)
            when = int(fields[1]) if len(fields) == 3 and fields[1].isdigit() else 0
    if not head.startswith(b"tree "):
        return None
    return CommitInfo(when, parents, message.split(b"\n", 1)[0].decode("utf-8", "replace"))


def repository_id(root: str, head: str | None, reader: ObjectReader) -> str | None:
    """The root commit of HEAD's history (the oldest if several, then the smallest id): stable
    across clones and exports, so rows of many repositories never collide."""
    if head is None:
        return None
    roots = git_process(["rev-list", "--max-parents=0", head, "--"], root).stdout.decode().split()
    timed = [(info.time if (info := commit_info(reader, sha)) else 0, sha) for sha in roots]
    return min(timed)[1] if timed else None


def build_tables(layout: Layout, only: set[str] | None = None) -> Tables:
    """Every table, read from the notes, the catalogue, the events and HEAD's tree.
    `only`: keep the records of these commits (a `--range`)."""
    head = head_commit(layout.root)
    reachable = set(git_process(["rev-list", head, "--"], layout.root).stdout.decode().split()) if head else set()
    tables = Tables()
    with ObjectReader(layout.root) as reader:
        repo_id = repository_id(layout.root, head, reader) or "unborn"
        tables.rows["repositories"].append((repo_id, os.path.basename(layout.root.rstrip("/")), head, utc_now(),
                                             __version__, SCHEMA_VERSION))
        for commit, records in each_note(layout):
            if only is not None and commit not in only:
                continue
            info = commit_info(reader, commit)
            kept = choose_record(own_records(records, commit))  # one record per commit, as every reader counts
            for record in [r for r in records if r is kept or r.revision != commit]:
                _add_record(tables, repo_id, commit, record, commit in reachable,
                            _rfc3339(info.time) if info else None, info.subject if info else None,
                            int(info is not None and info.parents > 1))
        if head is not None:
            _add_tree(tables, layout, reader, head, repo_id)
    _add_intents(tables, layout, repo_id)
    _add_events(tables, layout, repo_id)
    return tables


def _add_record(tables: Tables, repo_id: str, commit: str, record: TraceRecord, reachable: bool,
                committed_at: str | None, subject: str | None, is_merge: int) -> None:
    rid = record.id
    tables.rows["commits"].append((
        repo_id, commit, rid, record.revision, int(record.revision != commit), int(reachable), committed_at,
        subject, is_merge, record.intent, _text(record.classification), int(record.is_backfilled),
        record.recorded_at, record.tool_version, record.intent_source))
    meta = record.file_meta
    for entry in record.file_entries:
        path = entry["path"]
        info = meta.get(path, {})
        total = 0
        for number, conversation in enumerate(conversations_of(entry)):
            who = conversation_contributor(conversation)
            lines = 0
            for r in conversation_ranges(conversation):
                count = range_lines(r)
                lines += count
                tables.rows["ranges"].append((repo_id, commit, rid, path, number, r["start_line"], r["end_line"],
                                              count, _text(r.get("content_hash"))))
            tables.rows["contributors"].append((repo_id, commit, rid, path, number, _text(who.get("type")),
                                                _text(who.get("model_id")), conversation_url(conversation), lines))
            total += lines
        tables.rows["files"].append((repo_id, commit, rid, path, "changed", _text(info.get("classification")),
                                     _text(info.get("language")), _text(info.get("content")),
                                     _text(info.get("renamed_from")), total, record.intent_of_file(path)))
    for path in record.deleted:
        tables.rows["files"].append((repo_id, commit, rid, path, "deleted", None, None, None, None, 0,
                                     record.intent))


def _add_intents(tables: Tables, layout: Layout, repo_id: str) -> None:
    from gitai.intents.catalogue import load_catalogue

    try:
        intents = load_catalogue(layout.catalogue, layout.root).intents
    except GitaiError:
        return  # no or broken catalogue: the records still export
    for intent in intents:
        tables.rows["intents"].append((repo_id, intent.id, intent.name, intent.status, intent.parent_intent,
                                       int(intent.requires_approval), intent.description))
        tables.rows["intent_scopes"].extend((repo_id, intent.id, n, p) for n, p in enumerate(intent.owned_scope))


def _add_events(tables: Tables, layout: Layout, repo_id: str) -> None:
    for line, event in read_jsonl(layout.events).records:
        if not isinstance(event, dict):
            continue
        tables.rows["events"].append((repo_id, line, _text(event.get("timestamp")), _text(event.get("event")),
                                      _text(event.get("actor")), _text(event.get("intent_id")),
                                      json.dumps(event, ensure_ascii=True, sort_keys=True)))


def _add_tree(tables: Tables, layout: Layout, reader: ObjectReader, head: str, repo_id: str) -> None:
    from gitai.gate.policy import load_policy
    from gitai.intents.patterns import is_exempt

    try:
        policy = load_policy(layout)
    except GitaiError:
        policy = None
    listing = git_process(["ls-tree", "-r", "-z", "--end-of-options", head], layout.root)
    for entry in split_z(listing.stdout) if listing.returncode == 0 else []:
        meta, _, path = entry.partition("\t")
        mode, kind, oid = (meta.split() + ["", "", ""])[:3]
        if kind != "blob" or mode == "120000":
            continue  # submodules and symlinks hold no lines
        try:
            data = reader.read_at_most(oid, LARGE_FILE)
        except KeyError:
            continue
        if data is None:
            lines = None  # larger than LARGE_FILE: not counted
        else:
            lines = 0 if is_binary(data) else data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
        exempt = policy.is_exempt(path) if policy is not None else is_exempt(path)
        owners = [] if exempt or policy is None else policy.owners(path)
        tables.rows["tree_files"].append((repo_id, path, lines, int(exempt), json.dumps(owners), len(owners)))
    tables.rows["tree_files"].sort(key=lambda row: row[1])
