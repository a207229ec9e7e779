"""`gitai carry A..B --to C`: records for commits a server made from others (squash and rebase merges).

A pull request's commits A..B have records; the server replaces them with new commits (one squash
commit, or rebased copies) that have none, and whose messages may have lost the `Intent:`
trailers. Each new commit gets a record built line by line from the records of A..B: a line it
adds takes the intent and contributor of the commit that last wrote that exact line (same path
first, else any path) in A..B, as that commit's record has them (per conversation, so per-line
contributors survive); a line no commit of A..B wrote is unknown (no intent, contributor
`unknown`). A new commit whose patch-id equals an original's (a rebase) is matched to that one
commit: exact (`carry: "rebase"`). Any other (a squash) is matched against all of A..B: best
effort (`carry: "squash"`). Commits that have a record of their own are left alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from gitai.blame.maintain import keep_origins, new_origins
from gitai.errors import GitaiError
from gitai.git.objects import ObjectReader, commit_parents
from gitai.git.runner import rev_list, run_git, verify_commit
from gitai.git.trailers import commit_intents
from gitai.layout import Layout
from gitai.recording import make_record
from gitai.trace.changes import ChangedFile, commit_changes
from gitai.trace.notes_reader import notes_of
from gitai.trace.record import (
    Contributor,
    Conversation,
    Related,
    TraceRecord,
    choose_record,
    conversation_intent,
    intent_related,
    least_declared,
    own_records,
    with_conversations,
)
from gitai.trace.store import store_record
from gitai.util.lines import content_hash, merge_ranges, split_lines

UNKNOWN: Contributor = {"type": "unknown"}


@dataclass(frozen=True)
class Origin:
    """Who wrote a line in A..B: the commit, its intent (and where that came from), the contributor."""

    commit: str
    intent_id: str | None
    source: str | None
    contributor_json: str  # the contributor object as in the source record, serialised (hashable)


@dataclass
class CarryResult:
    carried: list[dict[str, Any]] = field(default_factory=list)  # {"commit", "carry", "carried_from", "lines", "known"}
    skipped: list[str] = field(default_factory=list)  # target commits that had a record of their own

    def to_json(self) -> dict[str, Any]:
        return {"carried": self.carried, "skipped": self.skipped}


def _patch_ids(root: str, commits: list[str]) -> dict[str, str]:
    """commit -> stable patch-id (merges and empty commits have none)."""
    if not commits:
        return {}
    log = run_git(["log", "--no-walk=unsorted", "--stdin", "-p", "--no-color", "--format=commit %H"], root,
                  input="\n".join(commits).encode())
    out = run_git(["patch-id", "--stable"], root, input=log).decode()
    return {commit: patch for patch, commit in (line.split() for line in out.splitlines() if line.strip())}


class LineOrigins:
    """Per source commit, who wrote each line it added: (path, text) and text -> Origin."""

    def __init__(self) -> None:
        self.by_path: dict[tuple[str, bytes], Origin] = {}
        self.by_text: dict[bytes, Origin] = {}

    def add(self, changed: ChangedFile, lines: list[bytes], origin_of_line: Any) -> None:
        for number in changed.added_lines:
            origin = origin_of_line(number)
            text = lines[number - 1]
            self.by_path[changed.path, text] = origin
            if text.strip():  # a blank line is only matched in its own file
                self.by_text[text] = origin

    def find(self, path: str, text: bytes) -> Origin | None:
        return self.by_path.get((path, text)) or (self.by_text.get(text) if text.strip() else None)


def _origin_reader(commit: str, record: TraceRecord | None, trailer: str | None, path: str) -> Any:
    """line number (at `commit`) -> Origin, from the conversation of the record covering it."""
    if record is None:
        fallback = Origin(commit, trailer, "trailer" if trailer else None, json.dumps(UNKNOWN, sort_keys=True))
        return lambda number: fallback
    source = record.intent_source
    spans: list[tuple[int, int, Origin]] = []
    default = None
    for entry in record.file_entries:
        if entry["path"] != path:
            continue
        for conversation in entry["conversations"]:
            intent = conversation_intent(conversation)
            origin = Origin(commit, intent, source if intent else None,
                            json.dumps(conversation.get("contributor", UNKNOWN), sort_keys=True))
            default = default or origin
            spans += [(r["start_line"], r["end_line"], origin) for r in conversation.get("ranges", [])]
    unknown = default or Origin(commit, None, None, json.dumps(UNKNOWN, sort_keys=True))

    def origin_of(number: int) -> Origin:
        return next((o for start, end, o in spans if start <= number <= end), unknown)

    return origin_of


def _learn(layout: Layout, reader: ObjectReader, commits: list[str], notes: dict[str, list[TraceRecord]],
           into: LineOrigins) -> None:
    """Teach `into` the lines of `commits` (oldest first: a later writer of a line wins)."""
    trailers = commit_intents(layout.root, commits)
    for sha in commits:
        parents = commit_parents(reader, sha)
        if len(parents) > 1:
            continue  # a merge of the branch: its lines were written by the commits merged
        record = choose_record(own_records(notes.get(sha, []), sha))
        for changed in commit_changes(layout.root, reader, sha, parents).files:
            if changed.kind == "text" and changed.new_data is not None and changed.added_lines:
                into.add(changed, split_lines(changed.new_data),
                         _origin_reader(sha, record, trailers.get(sha), changed.path))


def _conversations(changed: ChangedFile, origins: LineOrigins) -> tuple[list[Conversation], int, list[str]]:
    """The file's conversations, one per (intent, contributor); known line count; source commits.
    A blank line takes the origin of the next non-blank line (the code it sits before), else the
    previous one: blank lines alone say nothing about who wrote them."""
    if changed.kind != "text" or changed.new_data is None or not changed.added_lines:
        return [{"contributor": Contributor(type="unknown"), "ranges": []}], 0, []
    lines = split_lines(changed.new_data)
    found = {n: origins.find(changed.path, lines[n - 1]) for n in changed.added_lines if lines[n - 1].strip()}
    groups: dict[tuple[str | None, str], list[int]] = {}
    known, used = 0, []
    for number in changed.added_lines:
        origin = found.get(number) if number in found else _near(lines, number, found)
        if origin is None:
            groups.setdefault((None, json.dumps(UNKNOWN, sort_keys=True)), []).append(number)
            continue
        known += 1
        used.append(origin.commit)
        groups.setdefault((origin.intent_id, origin.contributor_json), []).append(number)
    talks: list[Conversation] = []
    for (intent, contributor), numbers in sorted(groups.items(), key=lambda item: item[1][0]):
        conversation: Conversation = {"contributor": json.loads(contributor), "ranges": [
            {"start_line": s, "end_line": e, "content_hash": content_hash(lines, s, e)}
            for s, e in merge_ranges(numbers)]}
        related: list[Related] = intent_related(intent)
        if related:
            conversation["related"] = related
        talks.append(conversation)
    return talks, known, used


def _near(lines: list[bytes], number: int, found: dict[int, Origin | None]) -> Origin | None:
    """A blank line's origin: that of the next non-blank line, else of the previous one."""
    for step in (1, -1):
        other = number + step
        while 1 <= other <= len(lines) and not lines[other - 1].strip():
            other += step
        if found.get(other) is not None:
            return found[other]
    return None


def _replacements(layout: Layout, merged: str, count: int, source_patches: dict[str, str]) -> list[str]:
    """What a merged commit C replaced the sources with, oldest first: the last commits up to C
    when each is a rebased copy of a different source and they cover every source (a rebase
    merge), else C alone (a squash; a single-commit squash is a copy too, hence exact)."""
    newest = rev_list(layout.root, merged, "--first-parent", f"--max-count={count}")
    patches = _patch_ids(layout.root, newest)
    matched: list[str] = []
    for sha in newest:
        original = source_patches.get(patches.get(sha, ""))
        if original is None or any(source_patches.get(patches.get(m, "")) == original for m in matched):
            break
        matched.append(sha)
    return matched[::-1] if matched and len(matched) == len(source_patches) else [merged]


def carry(layout: Layout, source_range: str, target: str) -> CarryResult:
    """Record each commit of `target` from the records of the commits of `source_range` that it
    replaced. `target`: a range X..C of commits, or the merged commit C (a rebase merge's copies
    before it are found by patch-id)."""
    if ".." not in source_range:
        raise GitaiError(f"expected a range A..B of the commits replaced, got {source_range}")
    sources = rev_list(layout.root, source_range, "--reverse", "--topo-order")
    if not sources:
        raise GitaiError(f"{source_range} has no commits")
    source_patches = {patch: sha for sha, patch in _patch_ids(layout.root, sources).items()}
    if ".." in target:
        targets = rev_list(layout.root, target, "--reverse", "--topo-order")
    else:
        targets = _replacements(layout, verify_commit(layout.root, target), len(sources), source_patches)
    notes = notes_of(layout, [*sources, *targets])
    target_patches = _patch_ids(layout.root, targets)
    result = CarryResult()
    source_records = {sha: choose_record(own_records(notes.get(sha, []), sha)) for sha in sources}
    with ObjectReader(layout.root) as reader:
        everything: LineOrigins | None = None
        for sha in targets:
            if own_records(notes.get(sha, []), sha):
                result.skipped.append(sha)
                continue
            original = source_patches.get(target_patches.get(sha, ""))
            if original is not None:
                kind, origins, replaced = "rebase", LineOrigins(), [original]
                _learn(layout, reader, [original], notes, origins)
            else:
                if everything is None:
                    everything = LineOrigins()
                    _learn(layout, reader, sources, notes, everything)
                kind, origins, replaced = "squash", everything, sources
            parents = commit_parents(reader, sha)
            changes = commit_changes(layout.root, reader, sha, parents)
            record = make_record(sha, changes, intent_id=None, contributor=Contributor(type="unknown"),
                                 cache_dir=layout.shared_state_dir)
            talks: dict[str, list[Conversation]] = {}
            total = known = 0
            used: set[str] = set()
            for changed in changes.files:
                talks[changed.path], found, writers = _conversations(changed, origins)
                total += len(changed.added_lines) if changed.kind == "text" else 0
                known += found
                used.update(writers)
            source = least_declared([r.intent_source for c, r in source_records.items() if c in used and r]
                                    + (["trailer"] if any(source_records.get(c) is None for c in used) else []))
            with_conversations(record, talks, intent_source=source,
                               extra_metadata={"carried_from": replaced, "carry": kind})
            origins_found = new_origins(layout, sha, parents, changes, record, follow=True)
            store_record(layout, record)
            keep_origins(layout, sha, changes, origins_found)
            result.carried.append({"commit": sha, "carry": kind, "carried_from": replaced, "lines": total,
                                   "known": known})
    return result
