"""`gitai backfill`: trace commits that have no note (adopting gitai in an existing repository).

Intent: the commit's `Intent:` trailer; else the single intent whose scope owns every path the
commit touches; else unattributed (`intent_id: null`). Contributor: `unknown` (history does not
say). Each record is stored as soon as it is built, so an interrupted run resumes where it stopped.
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
from gitai.recording import record_commit
from gitai.trace.changes import commit_changes
from gitai.trace.notes_reader import all_notes
from gitai.trace.record import Contributor, own_records, revision

UNKNOWN_CONTRIBUTOR: Contributor = {"type": "unknown"}


@dataclass
class BackfillResult:
    traced: list[str] = field(default_factory=list)
    skipped: int = 0  # commits that already had a record
    by_source: dict[str, int] = field(default_factory=lambda: {"trailer": 0, "scope": 0, "unattributed": 0})

    def to_json(self) -> dict[str, Any]:
        return {"traced": len(self.traced), "skipped": self.skipped, "intent_from": self.by_source,
                "commits": self.traced}


def commits_in(layout: Layout, revision_range: str | None, every_ref: bool = False) -> list[str]:
    """Commits of the range (default: everything reachable from HEAD; `every_ref`: from every
    branch and tag), oldest first."""
    if every_ref:
        return run_git(["rev-list", "--topo-order", "--reverse", "--exclude=refs/notes/*", "--exclude=refs/gitai/*",
                        "--exclude=refs/stash", "--all", "--"], layout.root).decode().split()
    if revision_range is None and head_commit(layout.root) is None:
        return []  # empty repository
    return rev_list(layout.root, "HEAD" if revision_range is None else revision_range, "--topo-order", "--reverse")


def scope_owner(policy: Policy | None, paths: list[str]) -> str | None:
    """The one intent whose scope owns every (non-exempt) path, if exactly one does."""
    if policy is None:
        return None
    relevant = [p for p in paths if not policy.is_exempt(p)]
    if not relevant:
        return None
    owners = set(policy.owners(relevant[0]))
    for path in relevant[1:]:
        owners &= set(policy.owners(path))
    return owners.pop() if len(owners) == 1 else None


def backfill(
    layout: Layout,
    policy: Policy | None,
    revision_range: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    every_ref: bool = False,
) -> BackfillResult:
    """Record every commit of the range that has no record of its own. Each record is stored under
    the trace lock only if the commit is still untraced then, so concurrent runs never duplicate."""
    commits = commits_in(layout, revision_range, every_ref)
    notes = all_notes(layout)
    trailers = commit_intents(layout.root, [c for c in commits if not own_records(notes.get(c, []), c)])
    result = BackfillResult()
    with ObjectReader(layout.root) as reader:
        for number, sha in enumerate(commits, start=1):
            if own_records(notes.get(sha, []), sha):
                result.skipped += 1
            else:
                parents = commit_parents(reader, sha)
                changes = commit_changes(layout.root, reader, sha, parents)
                intent_id, source = trailers.get(sha), "trailer"
                if intent_id is None:
                    paths = [f.path for f in changes.files] + [p for p, _ in changes.deleted]
                    intent_id = scope_owner(policy, paths)
                    source = "scope" if intent_id else "unattributed"
                extra: dict[str, Any] = {"backfilled": True}
                if notes.get(sha):  # a note copied from a rewritten commit (notes.rewriteRef)
                    extra["rewritten_from"] = sorted({revision(r) for r in notes[sha]})
                if record_commit(layout, sha, parents, changes, intent_id, UNKNOWN_CONTRIBUTOR, extra,
                                 only_if_untraced=True) is None:
                    result.skipped += 1  # another run traced it meanwhile
                else:
                    result.traced.append(sha)
                    result.by_source[source] += 1
            if progress:
                progress(number, len(commits))
    return result


def terminal_progress(done: int, total: int) -> None:
    """A one-line progress bar on stderr (only used when stderr is a terminal)."""
    width = 30
    filled = width * done // max(total, 1)
    sys.stderr.write(f"\rbackfill [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()
