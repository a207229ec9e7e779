"""`gitai backfill`: trace commits that have no note (adopting gitai in an existing repository).

Intent: the commit's `Intent:` trailer (source `trailer`); else, with `--infer scope`, per file:
each file goes to the one intent whose scope owns it (source `scope`, so readers can tell an
inference from a declaration), and a commit spanning intents carries one per file; else
unattributed (`intent_id: null`). Contributor: `unknown` (history does not say). Records are stored by batches (one notes commit each) and on any exit, so an interrupted run
resumes where it stopped.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gitai.gate.policy import Policy
from gitai.git.objects import ObjectReader, commit_parents
from gitai.git.runner import head_commit, rev_list, run_git
from gitai.git.trailers import commit_intents
from gitai.layout import Layout
from gitai.recording import RecordBatch
from gitai.trace.changes import commit_changes
from gitai.trace.notes_reader import notes_of
from gitai.trace.record import Contributor, intent_of_any, own_records, revision

UNKNOWN_CONTRIBUTOR: Contributor = {"type": "unknown"}


@dataclass
class BackfillResult:
    traced: list[str] = field(default_factory=list)
    skipped: int = 0  # commits that already had a record
    by_source: dict[str, int] = field(default_factory=lambda: {"trailer": 0, "scope": 0, "unattributed": 0})
    several: int = 0  # commits inferred to serve several intents (one per file)

    def to_json(self) -> dict[str, Any]:
        return {"traced": len(self.traced), "skipped": self.skipped, "intent_from": self.by_source,
                "several_intents": self.several, "commits": self.traced}


def commits_in(layout: Layout, revision_range: str | None, every_ref: bool = False) -> list[str]:
    """Commits of the range (default: everything reachable from HEAD; `every_ref`: from every
    branch and tag), oldest first."""
    if every_ref:
        return run_git(["rev-list", "--topo-order", "--reverse", "--exclude=refs/notes/*", "--exclude=refs/gitai/*",
                        "--exclude=refs/stash", "--all", "--"], layout.root).decode().split()
    if revision_range is None and head_commit(layout.root) is None:
        return []  # empty repository
    return rev_list(layout.root, "HEAD" if revision_range is None else revision_range, "--topo-order", "--reverse")


def file_owner(policy: Policy, path: str) -> str | None:
    """The one intent whose scope owns `path` (None: exempt, unowned, or owned by several)."""
    if policy.is_exempt(path):
        return None
    owners = policy.owners(path)
    return owners[0] if len(owners) == 1 else None


def infer_by_scope(policy: Policy, files: list[str], deleted: list[str]) -> tuple[str | None, dict[str, str | None]]:
    """Per changed file its owner, and the commit's intent: the one intent owning its paths
    (deleted ones too), or None when they serve several or none."""
    per_file = {path: file_owner(policy, path) for path in files}
    owners = {i for i in per_file.values() if i} | {i for i in (file_owner(policy, p) for p in deleted) if i}
    return (owners.pop() if len(owners) == 1 else None), per_file


def backfill(
    layout: Layout,
    policy: Policy | None,
    revision_range: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    every_ref: bool = False,
    infer: str = "scope",
) -> BackfillResult:
    """Record every commit of the range that has no record of its own (`infer`: "scope" or "none").
    A record is stored only if its commit is still untraced when its batch is written (under the
    trace lock), so concurrent runs never duplicate."""
    commits = commits_in(layout, revision_range, every_ref)
    notes = notes_of(layout, commits)
    trailers = commit_intents(layout.root, [c for c in commits if not own_records(notes.get(c, []), c)])
    result = BackfillResult()
    sources: dict[str, str] = {}
    with ObjectReader(layout.root) as reader, RecordBatch(layout) as batch:
        for number, sha in enumerate(commits, start=1):
            if own_records(notes.get(sha, []), sha):
                result.skipped += 1
            else:
                parents = commit_parents(reader, sha)
                changes = commit_changes(layout.root, reader, sha, parents)
                intent_id, source = trailers.get(sha), "trailer"
                per_file: dict[str, str | None] | None = None
                if intent_id is None and infer == "scope" and policy is not None:
                    intent_id, per_file = infer_by_scope(policy, [f.path for f in changes.files],
                                                         [p for p, _ in changes.deleted])
                    source = "scope"
                    if not (intent_id or any(per_file.values())):
                        per_file, source = None, "unattributed"
                elif intent_id is None:
                    source = "unattributed"
                extra: dict[str, Any] = {"backfilled": True}
                if notes.get(sha):  # a note copied from a rewritten commit (notes.rewriteRef)
                    extra["rewritten_from"] = sorted({revision(r) for r in notes[sha]})
                batch.add(sha, parents, changes, intent_id, UNKNOWN_CONTRIBUTOR, extra,
                          None if source == "unattributed" else source, per_file)
                sources[sha] = source
            if progress:
                progress(number, len(commits))
    for record in batch.stored:
        result.traced.append(revision(record))
        result.by_source[sources[revision(record)]] += 1
    result.skipped += len(batch.dropped)  # another run traced them meanwhile
    result.several = sum(1 for r in batch.stored if len(intent_of_any(r)) > 1)
    return result


def terminal_progress(done: int, total: int) -> None:
    """A one-line progress bar on stderr (only used when stderr is a terminal)."""
    width = 30
    filled = width * done // max(total, 1)
    sys.stderr.write(f"\rbackfill [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()
