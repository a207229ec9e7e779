"""Trace one commit: resolve its intent, classify its changes, build and store its record, extend its
files' line origins. The one module (with backfill) that drives both the trace and blame."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gitai.blame.maintain import keep_origins, new_origins
from gitai.blame.origin_cache import OriginStore
from gitai.errors import GitaiError
from gitai.git.objects import ObjectReader, commit_parents
from gitai.git.trailers import commit_intent
from gitai.layout import Layout
from gitai.trace.attribution import (
    ATTRIBUTION_CARRIED,
    ATTRIBUTION_CHECKPOINTS,
    ATTRIBUTION_ENV,
    HUMAN,
    Labels,
    LineAuthor,
)
from gitai.trace.changes import CommitChanges, commit_changes
from gitai.trace.classify_commit import classify
from gitai.trace.record import (
    INFERRED,
    Contributor,
    TraceRecord,
    attributed_ranges,
    build_record,
)
from gitai.trace.store import store_record, store_records

if TYPE_CHECKING:
    from gitai.syntax.hash_cache import HashCache

Classified = tuple[str, dict[str, dict[str, Any]]]
"""What `classify` gives: the commit's class and each file's classification, as a record keeps them."""


def make_record(
    commit: str,
    changes: CommitChanges,
    *,
    intent_id: str | None,
    contributor: Contributor,
    extra_metadata: dict[str, Any] | None = None,
    cache_dir: str | None = None,
    intent_source: str | None = None,
    per_file: dict[str, str | None] | None = None,
    authors: dict[str, Labels] | None = None,
    cache: HashCache | None = None,
    classification: Classified | None = None,
) -> TraceRecord:
    """The one place a record is assembled from a commit's changes (`cache_dir`, `cache`: see
    `classify`, unless the `classification` is given; `authors`: each line's author per path, see
    gitai/trace/attribution.py)."""
    commit_class, file_metadata = classification or classify(changes, cache_dir, cache)
    extra = {"classification": commit_class, **(extra_metadata or {})}
    return build_record(commit, changes, intent_id=intent_id, contributor=contributor, extra_metadata=extra,
                        file_metadata=file_metadata, intent_source=intent_source, per_file=per_file, authors=authors)


def record_commit(
    layout: Layout,
    commit: str,
    parents: list[str],
    changes: CommitChanges,
    *,
    intent_id: str | None,
    contributor: Contributor,
    extra_metadata: dict[str, Any] | None = None,
    intent_source: str | None = None,
    per_file: dict[str, str | None] | None = None,
    authors: dict[str, Labels] | None = None,
    only_if_untraced: bool = False,
) -> TraceRecord | None:
    """Build and store the commit's record (note and ledger line), then keep its files' line origins.
    With `only_if_untraced`: None, and nothing stored, when the commit has a record of its own by then."""
    extra_metadata = _verified(layout, intent_id, intent_source, changes, extra_metadata)
    record = make_record(commit, changes, intent_id=intent_id, contributor=contributor, extra_metadata=extra_metadata,
                         cache_dir=layout.shared_state_dir, intent_source=intent_source, per_file=per_file,
                         authors=authors)
    try:
        origins = new_origins(layout, commit, parents, changes, record, follow=True)
    except Exception:  # noqa: BLE001 - a cache (and line_origins) is never worth the record itself
        from gitai.util.crash import log_traceback

        log_traceback(layout.shared_state_dir, f"line origins of {commit}")
        origins = {}
    if not store_record(layout, record, only_if_untraced):
        return None
    keep_origins(layout, commit, changes, origins)
    return record


def scope_verified(layout: Layout, intent_id: str, changes: CommitChanges) -> bool:
    """The pre-commit gate's rule, for the whole commit: the intent is in the catalogue and owns every
    non-exempt path the commit changes. An amend, a reword in `rebase -i`, a revert or a
    `--no-verify` commit can get an intent this way that no gate checked; its record then says
    `intent_verified: false`."""
    from gitai.gate.policy import load_policy

    try:
        policy = load_policy(layout)
    except GitaiError:
        return False  # no readable catalogue: nothing to verify against
    if intent_id not in policy.intents:
        return False
    paths = [f.path for f in changes.files] + [f.old_path for f in changes.files if f.old_path]
    paths += [path for path, _ in changes.deleted]
    return all(policy.is_exempt(p) or policy.in_scope(intent_id, p) for p in paths)


def _verified(layout: Layout, intent_id: str | None, intent_source: str | None, changes: CommitChanges,
              extra_metadata: dict[str, Any] | None) -> dict[str, Any] | None:
    """`intent_verified: false` when no scope check covered a declared intent. An intent inferred
    from scopes (backfill, per file) owns its files by construction: not checked again."""
    if intent_id is not None and intent_source != INFERRED and not scope_verified(layout, intent_id, changes):
        return {**(extra_metadata or {}), "intent_verified": False}
    return extra_metadata


class RecordBatch:
    """`record_commit(..., only_if_untraced=True)` for many commits (backfill; their classification
    may come from elsewhere, made beforehand by worker processes): records are stored
    by batches of `size` through one notes commit each, and whatever is pending when the batch
    closes (also on an interrupt) is stored, so an interrupted run loses nothing it built.
    `on_stored` sees each record stored (none are held: a history of 100,000 commits would be
    hundreds of megabytes of them); `dropped` lists the commits another run traced meanwhile.

    `tips`: the (path, blob) versions the caches keep (None: every version); the others are
    held in memory for the commits after them, and written only when the batch closes on an
    exception (an interrupt), so that the next run steps on from them."""

    def __init__(self, layout: Layout, size: int = 500,
                 last_change_of: Callable[[str, str], str | None] | None = None,
                 on_stored: Callable[[TraceRecord], None] | None = None,
                 tips: frozenset[tuple[str, str]] | None = None) -> None:
        self.layout = layout
        self.size = size
        self.last_change_of = last_change_of
        self.origins = OriginStore(layout, keep=512, written=tips)
        from gitai.syntax.hash_cache import HashCache

        self.hashes = HashCache(layout.shared_state_dir, recent=256, written=tip_blobs(tips))
        self.pending: list[TraceRecord] = []
        self.on_stored = on_stored
        self.dropped: list[str] = []

    def add(self, commit: str, parents: list[str], changes: CommitChanges, intent_id: str | None,
            contributor: Contributor, extra_metadata: dict[str, Any] | None = None,
            intent_source: str | None = None, per_file: dict[str, str | None] | None = None,
            classification: Classified | None = None) -> TraceRecord:
        extra_metadata = _verified(self.layout, intent_id, intent_source, changes, extra_metadata)
        record = make_record(commit, changes, intent_id=intent_id, contributor=contributor,
                             extra_metadata=extra_metadata, cache_dir=self.layout.shared_state_dir,
                             intent_source=intent_source, per_file=per_file, cache=self.hashes,
                             classification=classification)
        origins = new_origins(self.layout, commit, parents, changes, record, self.last_change_of, self.origins)
        self.pending.append(record)
        keep_origins(self.layout, commit, changes, origins, self.origins)
        if len(self.pending) >= self.size:
            self.flush()
        return record

    def flush(self) -> None:
        stored = store_records(self.layout, self.pending)
        kept = {r.revision for r in stored}
        self.dropped += [r.revision for r in self.pending if r.revision not in kept]
        if self.on_stored:
            for record in stored:
                self.on_stored(record)
        self.pending = []

    def __enter__(self) -> RecordBatch:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        try:
            self.flush()
        finally:
            if kind is not None:
                self.origins.write_held()


def tip_blobs(tips: frozenset[tuple[str, str]] | None) -> frozenset[str] | None:
    """The blobs of the tips' versions: the contents whose normal form is kept (None: every one)."""
    return None if tips is None else frozenset(blob for _, blob in tips)


def trace_commit(
    layout: Layout,
    reader: ObjectReader,
    commit: str,
    fallback_intent: str | None,
    contributor: Contributor,
    extra_metadata: dict[str, Any] | None = None,
    fallback_source: str = "active",
    old_records: list[TraceRecord] | None = None,
    use_checkpoints: bool = True,
) -> TraceRecord | None:
    """Trace `commit`; its intent is the `Intent:` trailer (source `trailer`), else `fallback_intent`
    (may be None) with `fallback_source` (the worktree's selection: `active`). Its lines' authors come
    from the agents' checkpoints (`use_checkpoints`: work of this worktree, not a replay) and, for a
    rewritten commit, from the `old_records` by line content."""
    parents = commit_parents(reader, commit)
    changes = commit_changes(layout.root, reader, commit, parents)
    trailer = commit_intent(layout.root, commit)
    intent_id, source = (trailer, "trailer") if trailer else (fallback_intent, fallback_source)
    if use_checkpoints:
        _settle_running_command(layout, changes)
    authors = checkpoint_authors(layout, reader, changes) if use_checkpoints else {}
    attribution = ATTRIBUTION_CHECKPOINTS if authors else ATTRIBUTION_ENV
    if old_records:
        carried = carried_authors(reader, changes, old_records)
        if carried:
            authors = {path: _merge(authors.get(path), labels) for path, labels in carried.items()} | {
                path: labels for path, labels in authors.items() if path not in carried}
            attribution = ATTRIBUTION_CARRIED if attribution == ATTRIBUTION_ENV else attribution
    extra = {**(extra_metadata or {}), "attribution": attribution}
    record = record_commit(layout, commit, parents, changes, intent_id=intent_id, contributor=contributor,
                           extra_metadata=extra, intent_source=source if intent_id else None, authors=authors or None)
    if use_checkpoints and record is not None:
        settle_checkpoints(layout, changes)
    return record


def _reader_blob(reader: ObjectReader) -> Callable[[str], bytes | None]:
    def read(oid: str) -> bytes | None:
        try:
            return reader.read(oid)
        except KeyError:
            return None
    return read


def _settle_running_command(layout: Layout, changes: CommitChanges) -> None:
    """A commit made by an agent's shell command that also edits (`sed -i F && git commit -am msg`): git
    runs this hook before the host's after-shell hook, so that command's edits are checkpointed here.
    A failure here costs only those lines' authors (logged), never the commit's record."""
    from gitai.agents.sessions import committing_session

    try:
        running = committing_session(layout)
        if running is not None:
            from gitai.agents.shell_changes import settle_running_command

            settle_running_command(layout, running, [(f.path, f.old_path, f.new_data) for f in changes.files
                                                      if f.kind == "text"])
    except (OSError, ValueError):
        from gitai.util.crash import log_traceback

        log_traceback(layout.shared_state_dir, f"settling the running command in {layout.root}")


def checkpoint_authors(layout: Layout, reader: ObjectReader, changes: CommitChanges) -> dict[str, Labels]:
    """Per changed text file with live agent checkpoints: each committed line's author."""
    from gitai.agents.checkpoints import has_checkpoints, read_checkpoints

    if not has_checkpoints(layout):
        return {}
    from gitai.trace.attribution import attribute_file

    transcripts: bool | None = None
    authors: dict[str, Labels] = {}
    for changed in changes.files:
        if changed.kind != "text" or changed.new_data is None or not changed.added_lines:
            continue
        found = read_checkpoints(layout, changed.path)
        if changed.old_path and changed.old_path != changed.path:
            found = sorted(read_checkpoints(layout, changed.old_path) + found, key=lambda c: float(c["time"]))
        if not found:
            continue
        if transcripts is None:
            transcripts = _transcripts_opted_in(layout)
        authors[changed.path] = attribute_file(changed.path, changed.old_data, changed.new_data, found,
                                               _reader_blob(reader), transcripts)
    return authors


def _transcripts_opted_in(layout: Layout) -> bool:
    """`git config gitai.recordTranscriptPath true`: records name the session's transcript file."""
    from gitai.git.runner import run_git

    value = run_git(["config", "--bool", "gitai.recordTranscriptPath"], layout.root, check=False)
    return value.strip() == b"true"


def settle_checkpoints(layout: Layout, changes: CommitChanges) -> None:
    """A file's checkpoints are done with once its agent version or its working-tree content is
    committed; what is left (a partial `git add -p`) waits for the next commit."""
    import os

    from gitai.agents.checkpoints import (
        drop,
        has_checkpoints,
        prune_stale,
        read_checkpoints,
    )

    if not has_checkpoints(layout):
        return
    for changed in changes.files:
        for path in {changed.path, changed.old_path or changed.path}:
            found = read_checkpoints(layout, path)
            if not found:
                continue
            done = found[-1]["blob"] == changed.new_oid
            if not done:
                try:
                    with open(os.path.join(layout.root, changed.path), "rb") as handle:
                        done = handle.read() == changed.new_data
                except OSError:
                    done = False
            if done:
                drop(layout, path)
    prune_stale(layout)


def carried_authors(reader: ObjectReader, changes: CommitChanges, old_records: list[TraceRecord]) -> dict[str, Labels]:
    """Each line's author from the records of the commits this one rewrote, by the line's content
    (at the old revision): a rebase, squash or amend keeps who wrote what."""
    from gitai.trace.attribution import carry_labels, line_key
    from gitai.util.lines import split_lines

    known: dict[str, LineAuthor] = {}
    for record in old_records:
        old = record.revision
        for entry in record.file_entries:
            try:
                lines = split_lines(reader.read(f"{old}:{entry['path']}"))
            except KeyError:
                continue
            for rng, contributor, session in attributed_ranges(entry):
                author = LineAuthor(str(contributor.get("type", "unknown")), contributor.get("model_id"), session)
                for line in lines[rng["start_line"] - 1: rng["end_line"]]:
                    known[line_key(line)] = author
    if not known:
        return {}
    carried: dict[str, Labels] = {}
    for changed in changes.files:
        if changed.kind == "text" and changed.new_data is not None and changed.added_lines:
            carried[changed.path] = carry_labels(split_lines(changed.new_data), known)
    return carried


def _merge(from_checkpoints: Labels | None, carried: Labels) -> Labels:
    """A checkpoint's agent label wins; a line no checkpoint gave an agent keeps its old author."""
    if from_checkpoints is None:
        return carried
    return [c if c is not None and c != HUMAN else (k or c) for c, k in zip(from_checkpoints, carried, strict=True)]
