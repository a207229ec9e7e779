"""The trace record: its shape, the one reader of its fields, its validation, and how one is built.

A record is an Agent Trace 0.1.0 object (strict form; docs/trace-format.md). `TraceRecord` wraps
its JSON data as it is, so a note body line and a ledger line are the same bytes they always were;
everything else in gitai reads a record through its properties (`revision`, `intent`,
`file_meta`, ...), never by reaching into nested dicts, and every record read from a note or the
ledger comes through `TraceRecord.parse` first: notes arrive from other clones, so their content
is untrusted. Records are built in compact form (`compact`: no value a reader can put back); the
properties read it and the verbose form of earlier versions alike.
"""

from __future__ import annotations

import json
import os
from typing import Any, TypedDict

from gitai import __version__
from gitai.trace.changes import ChangedFile, CommitChanges
from gitai.util.jsonl import dumps
from gitai.util.lines import content_hash, merge_ranges, range_hashes, split_lines, whole_file_hash
from gitai.util.time import utc_now


class Range(TypedDict):
    start_line: int
    end_line: int
    content_hash: str


class Contributor(TypedDict, total=False):
    type: str  # ai | human | mixed | unknown
    model_id: str


class Related(TypedDict):
    type: str
    url: str


class Conversation(TypedDict, total=False):
    url: str
    contributor: Contributor
    ranges: list[Range]
    related: list[Related]


class FileEntry(TypedDict):
    path: str
    conversations: list[Conversation]


class DefinitionMeta(TypedDict, total=False):
    kind: str
    name: str
    status: str
    hash: str
    old_lines: list[int] | None
    new_lines: list[int] | None
    moved_from: dict[str, str]
    moved_to: dict[str, str]


class FileMeta(TypedDict, total=False):
    classification: str
    language: str | None
    reason: str
    definitions: list[DefinitionMeta]
    content: str  # binary | symlink | submodule | large
    renamed_from: str
    line_origins: dict[str, Any]  # AST_REFACTOR files: where the lines in the file's ranges come from


INTENT_SOURCES = ("trailer", "session", "active", "scope")
"""Where a record's intent came from, most declared first: the commit's `Intent:` trailer, an agent
session's selection, the worktree's selection at commit, or inferred from scopes (backfill)."""
INFERRED = "scope"


class GitaiMeta(TypedDict, total=False):
    """gitai's part of a record. A new field goes here, with its check in `META_CHECKS` and, when
    readers need it, a property of `TraceRecord` (and its line in docs/trace-format.md)."""

    intent_id: str | None  # the commit's one intent; null when its files serve several (see `intents`)
    intent_source: str | None  # one of INTENT_SOURCES; null when no intent
    intents: dict[str, str | None]  # per file, only when the files do not all serve `intent_id`
    classification: str
    files: dict[str, FileMeta]
    deleted: list[str]
    backfilled: bool
    rewritten_from: list[str]
    attribution: str  # checkpoints | env | carried (docs/trace-format.md, "Attribution")
    model_source: str  # where the agent hooks found the committing session's model
    carried_from: list[str]  # `gitai carry`: the commits whose records this one was built from
    carry: str  # "rebase" (exact) | "squash" (best effort)
    intent_verified: bool  # present (false) only when no scope check covered the intent (amend, revert...)


RecordData = dict[str, Any]
"""A record as JSON data: {"version", "id", "timestamp", "vcs": {"type", "revision"}, "tool": {"name", "version"},
"files": [FileEntry], "metadata": {"dev.gitai": GitaiMeta}}. Read it through `TraceRecord`."""

GITAI_KEY = "dev.gitai"
INTENT_EVOLUTION = "INTENT_EVOLUTION"
DEFAULT_STATUS = "modified"  # a definition's status when the compact form leaves it out
UNKNOWN: Contributor = {"type": "unknown"}
MAX_NOTE_BYTES = 32 * 1024 * 1024  # a note larger than this is not read (a whole-repository commit is ~ MBs)


class TraceRecord:
    """One record: its JSON data (`data`, written to notes and the ledger as it is, so the bytes on
    disk are what they were) and typed properties that read it, the compact and the verbose form
    alike. Records from a note or the ledger come through `parse`/`load`, which check every field
    a reader relies on: notes arrive from other clones, so their content is untrusted."""

    __slots__ = ("data",)

    def __init__(self, data: RecordData) -> None:
        self.data = data  # built here, or checked by `parse`

    @classmethod
    def parse(cls, value: object) -> TraceRecord | None:
        """The record `value` holds, or None when a field a reader relies on has another type (the
        strict schema says more)."""
        return cls(value) if isinstance(value, dict) and _is_record(value) else None

    @classmethod
    def load(cls, line: str | bytes) -> TraceRecord | None:
        """The record of one JSON text (a note or ledger line), or None. The parser bounds nesting
        itself (RecursionError past the interpreter's recursion limit), so a crafted 100,000-deep
        value is refused here instead of crashing a reader."""
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            return None
        return cls.parse(value)

    def dumps(self) -> str:
        """The record's one serialisation (a note line and a ledger line are these bytes)."""
        return dumps(self.data)

    def __repr__(self) -> str:
        return f"TraceRecord({self.revision[:12]}, {self.id})"

    @property
    def revision(self) -> str:
        """The commit the record describes."""
        return str(self.data["vcs"]["revision"])

    @property
    def id(self) -> str:
        return str(self.data.get("id", ""))

    @property
    def recorded_at(self) -> str:
        """When the record was made (RFC 3339 UTC), empty when absent."""
        return str(self.data.get("timestamp", ""))

    @property
    def tool_version(self) -> str:
        """The version of the tool that wrote the record, empty when absent."""
        tool = self.data.get("tool")
        return str(tool.get("version", "")) if isinstance(tool, dict) else ""

    @property
    def meta(self) -> GitaiMeta:
        """gitai's own part of the record (`metadata["dev.gitai"]`), empty when absent."""
        meta = self.data.get("metadata", {}).get(GITAI_KEY, {})
        return meta if isinstance(meta, dict) else {}  # type: ignore[return-value]

    @property
    def intent(self) -> str | None:
        """The intent the record attributes its commit to (None: unattributed)."""
        intent = self.meta.get("intent_id")
        return intent if isinstance(intent, str) else None

    @property
    def intent_source(self) -> str | None:
        """Where the intent came from (INTENT_SOURCES); None for unattributed records and old records."""
        source = self.meta.get("intent_source")
        return source if isinstance(source, str) and self.intents else None

    @property
    def is_inferred(self) -> bool:
        """The intent was inferred (backfill by scope), not declared when the commit was made."""
        return self.intent_source == INFERRED

    @property
    def file_intents(self) -> dict[str, str | None] | None:
        """Per path, the intent its lines serve, when the record's files serve different intents
        (None: every file serves `intent`)."""
        intents = self.meta.get("intents")
        return dict(intents) if isinstance(intents, dict) else None

    def intent_of_file(self, path: str) -> str | None:
        """The intent the record gives the lines of `path`."""
        intents = self.file_intents
        return intents.get(path) if intents is not None else self.intent

    @property
    def intents(self) -> list[str]:
        """Every intent the record names (commit-level and per file), sorted."""
        found = {self.intent} | set((self.file_intents or {}).values())
        return sorted(i for i in found if i)

    @property
    def intent_spans(self) -> dict[str, list[list[Any]]]:
        """Per file whose conversations name different intents (a carried squash): its ranges as
        `[start, end, intent_id|null]`, so readers can attribute line by line."""
        spans: dict[str, list[list[Any]]] = {}
        for entry in self.file_entries:
            found = []
            for conversation in entry["conversations"]:
                intent = conversation_intent(conversation)
                found += [[r["start_line"], r["end_line"], intent] for r in conversation.get("ranges", [])]
            if len({span[2] for span in found}) > 1:
                spans[entry["path"]] = sorted(found)
        return spans

    @property
    def classification(self) -> str | None:
        return self.meta.get("classification")

    @property
    def file_meta(self) -> dict[str, FileMeta]:
        """Per path, every file of the record (deleted ones too): its classification, language, reason,
        definitions, content kind, former name, with what the compact form leaves out put back."""
        meta = self.meta
        stored: dict[str, FileMeta] = meta.get("files", {})
        commit_class = meta.get("classification")
        paths = {entry["path"] for entry in self.file_entries} | set(self.deleted) | set(stored)
        return {path: _expanded_file(stored.get(path, {}), commit_class) for path in sorted(paths)}

    @property
    def deleted(self) -> list[str]:
        return list(self.meta.get("deleted", []))

    @property
    def intent_verified(self) -> bool:
        """False when the record's intent did not pass the scope rule for the commit's paths."""
        return self.meta.get("intent_verified") is not False

    @property
    def is_backfilled(self) -> bool:
        return bool(self.meta.get("backfilled"))

    @property
    def rewritten_from(self) -> list[str]:
        return list(self.meta.get("rewritten_from", []))

    @property
    def carried_from(self) -> list[str]:
        return list(self.meta.get("carried_from", []))

    @property
    def attribution(self) -> str | None:
        """How the record's contributors were decided: "checkpoints" (per line, from agent hooks),
        "carried" (from the records of rewritten commits), "env" (per commit), None (older records)."""
        value = self.meta.get("attribution")
        return value if isinstance(value, str) else None

    @property
    def file_entries(self) -> list[FileEntry]:
        return list(self.data.get("files", []))

    @property
    def contributors(self) -> list[Contributor]:
        """The contributors of the record's conversations, in order, without repeats."""
        seen: list[Contributor] = []
        for entry in self.file_entries:
            for conversation in entry["conversations"]:
                contributor = conversation_contributor(conversation)
                if contributor not in seen:
                    seen.append(contributor)
        return seen

    def set_line_origins(self, path: str, line_origins: dict[str, Any]) -> None:
        """Keep in the record where the lines an AST_REFACTOR file's ranges cover come from
        (gitai/blame/origins.py `lines_form`), so a clone answers `blame-intent` without following them."""
        meta = self.data["metadata"][GITAI_KEY]
        files = meta.setdefault("files", {})
        files.setdefault(path, {})["line_origins"] = line_origins
        meta["files"] = dict(sorted(files.items()))


def _expanded_file(info: FileMeta, commit_class: str | None) -> FileMeta:
    full: FileMeta = {**info}
    if commit_class is not None:
        full.setdefault("classification", commit_class)
    full.setdefault("language", None)
    full["definitions"] = [_expanded_definition(d) for d in info.get("definitions", [])]
    if "reason" not in full and full.get("classification") == INTENT_EVOLUTION:
        reason = _derived_reason(full["definitions"])
        if reason:
            full["reason"] = reason
    return full


def _expanded_definition(definition: DefinitionMeta) -> DefinitionMeta:
    full: DefinitionMeta = {**definition}
    full.setdefault("status", DEFAULT_STATUS)
    full.setdefault("old_lines", None)
    full.setdefault("new_lines", None)
    return full


def _derived_reason(definitions: list[DefinitionMeta]) -> str:
    """The reason the changed definitions give (gitai/syntax/reasons.py), "" when they give none."""
    from gitai.syntax.reasons import definitions_reason

    return "; ".join(definitions_reason(definitions))


# --- the parts of a record: file entries, conversations, ranges ------------------------------------


def conversation_intent(conversation: Conversation) -> str | None:
    """The intent a conversation's `related` names (`gitai:intent/ID`), if any."""
    related = conversation.get("related", [])
    for item in related if isinstance(related, list) else []:
        url = item.get("url") if isinstance(item, dict) else None
        if isinstance(url, str) and url.startswith("gitai:intent/"):
            return url.removeprefix("gitai:intent/")
    return None


def file_ranges_of(entry: FileEntry) -> list[Range]:
    """Every range of a file entry, over all its conversations."""
    return [r for conversation in entry["conversations"] for r in conversation.get("ranges", [])]


def conversations_of(entry: FileEntry) -> list[Conversation]:
    return list(entry["conversations"])


def conversation_contributor(conversation: Conversation) -> Contributor:
    """Who wrote the conversation's ranges (unknown when the record does not say)."""
    contributor = conversation.get("contributor")
    return contributor if isinstance(contributor, dict) else Contributor(type="unknown")


def conversation_ranges(conversation: Conversation) -> list[Range]:
    return list(conversation.get("ranges", []))


def conversation_url(conversation: Conversation) -> str | None:
    url = conversation.get("url")
    return url if isinstance(url, str) else None


def range_lines(r: Range) -> int:
    """How many lines the range covers (0 for a malformed, backwards range)."""
    return max(0, r["end_line"] - r["start_line"] + 1)


SESSION_PREFIX = "gitai:session/"


def conversation_session(conversation: Conversation) -> str | None:
    """The agent session a conversation names (a `related` entry of type "session")."""
    for related in conversation.get("related", []):
        if related.get("type") == "session" and str(related.get("url", "")).startswith(SESSION_PREFIX):
            return str(related["url"])[len(SESSION_PREFIX):]
    return None


def attributed_ranges(entry: FileEntry) -> list[tuple[Range, Contributor, str | None]]:
    """Every range of a file entry with its contributor (the range's override, else its
    conversation's, else unknown) and session."""
    found: list[tuple[Range, Contributor, str | None]] = []
    for conversation in entry["conversations"]:
        contributor = conversation_contributor(conversation)
        session = conversation_session(conversation)
        for r in conversation.get("ranges", []):
            override: Contributor | None = dict(r).get("contributor")  # type: ignore[assignment]
            found.append((r, override if isinstance(override, dict) else contributor, session))
    return found


# --- the records of a note ----------------------------------------------------------------------


def own_records(records: list[TraceRecord], commit: str) -> list[TraceRecord]:
    """The records describing this very commit (a note copied from a rewritten commit does not count)."""
    return [r for r in records if r.revision == commit]


def choose_record(records: list[TraceRecord]) -> TraceRecord | None:
    """The one record a commit keeps when it has several (two clones traced it, their notes met in
    a merge): one made when the commit was made before one backfilled or inferred later, then the
    earliest, then the smallest id (so every clone chooses the same)."""
    if not records:
        return None
    return min(records, key=lambda r: (r.is_backfilled or r.is_inferred, r.recorded_at, r.id))


def parse_note(body: str) -> list[TraceRecord]:
    """A note holds one record per line (two after `gitai sync` met two versions of one commit)."""
    return split_note(body)[0]


def split_note(body: str) -> tuple[list[TraceRecord], int]:
    """The valid records of a note, and how many lines were not (notes arrive by sync)."""
    if len(body) > MAX_NOTE_BYTES:
        return [], 1
    records, bad = [], 0
    for line in body.splitlines():
        if not line.strip():
            continue
        record = TraceRecord.load(line)
        if record is None:
            bad += 1
        else:
            records.append(record)
    return records, bad


# --- checking untrusted records ---------------------------------------------------------------


def _is_str_or_none(value: object) -> bool:
    return value is None or isinstance(value, str)


def _is_str_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(p, str) for p in value)


def _is_lines(value: object) -> bool:
    return value is None or (isinstance(value, list) and len(value) == 2
                             and all(isinstance(n, int) and not isinstance(n, bool) for n in value))


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_anything(value: object) -> bool:
    return True


def _is_intents(value: object) -> bool:
    return isinstance(value, dict) and all(_is_str_or_none(v) for v in value.values())


def _is_definition(definition: object) -> bool:
    if not (isinstance(definition, dict) and _is_lines(definition.get("old_lines"))
            and _is_lines(definition.get("new_lines"))
            and all(_is_str_or_none(definition.get(k)) for k in ("kind", "name", "status"))):
        return False
    return all(where is None or (isinstance(where, dict) and isinstance(where.get("path"), str))
               for where in (definition.get("moved_from"), definition.get("moved_to")))


def _is_files_meta(files: object) -> bool:
    if not isinstance(files, dict):
        return False
    for info in files.values():
        if not isinstance(info, dict):
            return False
        if not all(_is_str_or_none(info.get(key)) for key in ("classification", "renamed_from", "content", "reason")):
            return False
        definitions = info.get("definitions", [])
        if not (isinstance(definitions, list) and all(_is_definition(d) for d in definitions)):
            return False
    return True


META_CHECKS = {
    "intent_id": _is_str_or_none,
    "intent_source": _is_str_or_none,
    "intents": _is_intents,
    "classification": _is_str_or_none,
    "files": _is_files_meta,
    "deleted": _is_str_list,
    "backfilled": _is_anything,
    "rewritten_from": _is_str_list,
    "attribution": _is_str_or_none,
    "model_source": _is_str_or_none,
    "carried_from": _is_str_list,
    "carry": _is_str_or_none,
    "intent_verified": _is_anything,
}
"""How `parse` checks each field of `GitaiMeta` when present (tests/test_units.py holds the two to
the same keys): a new field goes in both."""


def _is_record(value: dict[str, Any]) -> bool:
    """Everything a reader of records relies on has the type it expects."""
    vcs, files, meta = value.get("vcs"), value.get("files"), value.get("metadata", {})
    if not (isinstance(vcs, dict) and isinstance(vcs.get("revision"), str) and isinstance(files, list)):
        return False
    if not (isinstance(value.get("id", ""), str) and isinstance(value.get("timestamp", ""), str)):
        return False
    if not isinstance(meta, dict):
        return False
    for entry in files:
        if not (isinstance(entry, dict) and isinstance(entry.get("path"), str)
                and isinstance(entry.get("conversations"), list)):
            return False
        for conversation in entry["conversations"]:
            if not isinstance(conversation, dict):
                return False
            ranges = conversation.get("ranges", [])
            if not isinstance(ranges, list) or not all(
                isinstance(r, dict) and _is_int(r.get("start_line")) and _is_int(r.get("end_line"))
                and isinstance(r.get("content_hash", ""), str)
                for r in ranges
            ):
                return False
            if not isinstance(conversation.get("contributor", {}), dict):
                return False
            related = conversation.get("related", [])
            if not (isinstance(related, list) and all(isinstance(x, dict) for x in related)):
                return False
    gitai = meta.get(GITAI_KEY, {})
    return isinstance(gitai, dict) and all(key not in gitai or check(gitai[key]) for key, check in META_CHECKS.items())


# --- building ---------------------------------------------------------------------------------


def file_ranges(changed: ChangedFile) -> list[Range]:
    """The file's Agent Trace ranges with content hashes."""
    if changed.kind == "large" and changed.new_data is not None:
        count, digest = whole_file_hash(changed.new_data)
        return [{"start_line": 1, "end_line": count, "content_hash": digest}] if count else []
    if changed.kind != "text" or changed.new_data is None or not changed.added_lines:
        return []
    ranges = merge_ranges(changed.added_lines)
    return [{"start_line": start, "end_line": end, "content_hash": digest}
            for (start, end), digest in zip(ranges, range_hashes(changed.new_data, ranges), strict=True)]


def intent_related(intent_id: str | None) -> list[Related]:
    """A conversation's link to its intent (Agent Trace `related`); none when unattributed."""
    return [{"type": "intent", "url": f"gitai:intent/{intent_id}"}] if intent_id else []


def new_record_id() -> str:
    """A random (version 4) UUID, without importing `uuid` on the hook path."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _author_conversations(changed: ChangedFile, labels: list[Any], fallback: Contributor,
                          related: list[Related]) -> list[Conversation]:
    """One conversation per author (contributor, model, session) with the author's ranges;
    `labels[n - 1]` is line n's `LineAuthor` (gitai/trace/attribution.py), None: `fallback`."""
    assert changed.new_data is not None
    lines = split_lines(changed.new_data)
    by_author: dict[tuple[str, str | None, str | None, str | None], list[int]] = {}
    for number in changed.added_lines:
        label = labels[number - 1] if number - 1 < len(labels) else None
        key = ((fallback.get("type", "unknown"), fallback.get("model_id"), None, None) if label is None
               else (label.type, label.model_id, label.session, label.transcript))
        by_author.setdefault(key, []).append(number)
    conversations: list[Conversation] = []
    for (kind, model, session, transcript), numbers in sorted(by_author.items(), key=lambda item: item[1][0]):
        contributor = Contributor(type=kind)
        if model:
            contributor["model_id"] = model[:250]
        session_related: list[Related] = [{"type": "session", "url": SESSION_PREFIX + session}] if session else []
        conversation: Conversation = {"contributor": contributor, "ranges": [
            {"start_line": start, "end_line": end, "content_hash": content_hash(lines, start, end)}
            for start, end in merge_ranges(numbers)]}
        if related or session_related:
            conversation["related"] = related + session_related
        if transcript:
            from urllib.parse import quote

            conversation["url"] = "file://" + quote(transcript)
        conversations.append(conversation)
    return conversations


def build_record(
    commit: str,
    changes: CommitChanges,
    *,
    intent_id: str | None,
    contributor: Contributor,
    extra_metadata: dict[str, Any] | None = None,
    file_metadata: dict[str, dict[str, Any]] | None = None,
    intent_source: str | None = None,
    per_file: dict[str, str | None] | None = None,
    authors: dict[str, list[Any]] | None = None,
) -> TraceRecord:
    """The record for `commit` (schema: Agent Trace 0.1.0, strict form). `per_file`: the intent of
    each changed file when they may differ (backfill by scope); then `intent_id` is the commit's one
    intent if there is one, and `intents` lists the files' own when they do not all serve it."""
    files_json: list[FileEntry] = []
    files_meta: dict[str, dict[str, Any]] = {k: dict(v) for k, v in (file_metadata or {}).items()}
    paths = sorted(f.path for f in changes.files)
    intents = {path: per_file.get(path) for path in paths} if per_file is not None else None
    if intents is not None and all(i == intent_id for i in intents.values()):
        intents = None  # every file serves the commit's intent: nothing to say per file
    for changed in sorted(changes.files, key=lambda f: f.path):
        related = intent_related(intents[changed.path] if intents is not None else intent_id)
        labels = (authors or {}).get(changed.path)
        if labels is not None and changed.kind == "text" and changed.new_data is not None and changed.added_lines:
            files_json.append({"path": changed.path,
                               "conversations": _author_conversations(changed, labels, contributor, related)})
        else:
            conversation: Conversation = {"contributor": Contributor(**contributor), "ranges": file_ranges(changed)}
            if related:
                conversation["related"] = related
            files_json.append({"path": changed.path, "conversations": [conversation]})
        meta = files_meta.setdefault(changed.path, {})
        if changed.kind != "text":
            meta["content"] = changed.kind
        if changed.old_path and changed.old_path != changed.path:
            meta["renamed_from"] = changed.old_path
    meta_out: dict[str, Any] = {"intent_id": intent_id,
                                "intent_source": intent_source if (intent_id or intents) else None}
    if intents is not None:
        meta_out["intents"] = intents
    meta_out.update(extra_metadata or {})
    meta_out["files"] = dict(sorted(files_meta.items()))
    meta_out["deleted"] = sorted(path for path, _ in changes.deleted)
    return TraceRecord(compact({
        "version": "0.1.0",
        "id": new_record_id(),
        "timestamp": utc_now(),
        "vcs": {"type": "git", "revision": commit},
        "tool": {"name": "gitai", "version": __version__},
        "files": files_json,
        "metadata": {GITAI_KEY: meta_out},
    }))


def compact(record: RecordData) -> RecordData:
    """`record` in compact form (docs/trace-format.md, "Compact form"): without the values a reader
    puts back, so a note says only what the commit changed. `TraceRecord` reads both forms."""
    for entry in record["files"]:
        for conversation in entry["conversations"]:
            if conversation.get("contributor") == UNKNOWN:
                del conversation["contributor"]
    meta = record["metadata"][GITAI_KEY]
    for key in ("intent_id", "intent_source", "deleted"):
        if not meta.get(key):
            meta.pop(key, None)
    commit_class = meta.get("classification")
    files = {path: kept for path, info in meta.pop("files", {}).items() if (kept := _compact_file(info, commit_class))}
    if files:
        meta["files"] = files
    return record


def _compact_file(info: dict[str, Any], commit_class: str | None) -> dict[str, Any]:
    """A file's metadata without the commit's classification, a null language, an empty list of
    definitions, and a reason its definitions already give."""
    kept = {key: value for key, value in info.items()
            if not (key == "classification" and value == commit_class)
            and not (key in ("language", "definitions") and not value)}
    definitions = kept.get("definitions", [])
    if (definitions and "reason" in kept and kept.get("classification", commit_class) == INTENT_EVOLUTION
            and kept["reason"] == _derived_reason([_expanded_definition(d) for d in definitions])):
        del kept["reason"]
    if definitions:
        kept["definitions"] = [{key: value for key, value in d.items() if not _is_default(key, value)}
                               for d in definitions]
    return kept


def _is_default(key: str, value: Any) -> bool:
    """A definition's value the compact form leaves out (`_expanded_definition` puts it back)."""
    return (key == "status" and value == DEFAULT_STATUS) or (key in ("old_lines", "new_lines") and value is None)


def least_declared(sources: list[str | None]) -> str | None:
    """Of several intent sources, the one that claims least (a record mixing a declaration and an
    inference says `scope`): a carried record never sounds surer than its least sure line."""
    known = [s for s in sources if s in INTENT_SOURCES]
    return max(known, key=INTENT_SOURCES.index) if known else None


def with_conversations(
    record: TraceRecord,
    conversations: dict[str, list[Conversation]],
    *,
    intent_source: str | None,
    extra_metadata: dict[str, Any],
) -> TraceRecord:
    """`record` with each listed file's conversations replaced (a carried record: per line, the
    intent and contributor of the commit that wrote it). A file's intent is the one all its
    conversations name (else null); the commit's the one intent any line serves (else null)."""
    per_file: dict[str, str | None] = {}
    owners: set[str] = set()
    for entry in record.data["files"]:
        talks = conversations.get(entry["path"])
        if talks is None:
            continue
        entry["conversations"] = talks
        named = {conversation_intent(c) for c in talks if c.get("ranges")}
        unnamed = None in named
        named.discard(None)
        owners |= named  # type: ignore[arg-type]
        per_file[entry["path"]] = next(iter(named)) if len(named) == 1 and not unnamed else None
    meta = record.data["metadata"][GITAI_KEY]
    intent_id = owners.pop() if len(owners) == 1 else None
    meta["intent_id"] = intent_id
    meta.pop("intents", None)
    if any(i != intent_id for i in per_file.values()):
        meta["intents"] = dict(sorted(per_file.items()))
    meta["intent_source"] = intent_source if (intent_id or any(per_file.values())) else None
    meta.update(extra_metadata)
    compact(record.data)
    return record
