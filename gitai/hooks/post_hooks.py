"""What the post-commit, post-merge and post-rewrite hooks do. They never fail a commit
(gitai.hook_main catches and logs); each writes at most one record per new commit."""

from __future__ import annotations

import os

from gitai.agents.sessions import committing_host, committing_model, model_metadata
from gitai.git.objects import ObjectReader, commit_parents
from gitai.git.runner import head_commit, rev_list
from gitai.intents.active import active_intent
from gitai.layout import Layout
from gitai.recording import trace_commit
from gitai.trace.contributor import detect_contributor
from gitai.trace.record import Contributor, TraceRecord, own_records
from gitai.trace.store import read_note


def _contributor(layout: Layout) -> Contributor:
    """Who wrote the commit: the environment's agent, or the agent session whose commit command is running."""
    return detect_contributor(session_model=committing_model(layout), session_host=committing_host(layout))

def _rebase_in_progress(layout: Layout) -> bool:
    git_dir = layout.repo.git_dir
    return os.path.isdir(os.path.join(git_dir, "rebase-merge")) or os.path.isdir(os.path.join(git_dir, "rebase-apply"))


def _amending(layout: Layout) -> bool:
    """The newest HEAD reflog entry says `commit (amend)`."""
    try:
        with open(os.path.join(layout.repo.git_dir, "logs", "HEAD"), "rb") as handle:
            handle.seek(max(0, os.fstat(handle.fileno()).st_size - 4096))
            last = handle.read().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    except OSError:
        return False
    return b"\tcommit (amend)" in last


def rewritten_from_state(layout: Layout, kind: str) -> str:
    """The post-rewrite list ("OLD NEW" lines) when git's standard input did not reach the hook (the
    pre-commit framework gives its hooks, and the hook it keeps as HOOK.legacy, none): a rebase's
    own list, still in the git dir while post-rewrite runs; an amend's two newest HEAD reflog entries."""
    git_dir = layout.repo.git_dir
    if kind == "rebase":
        for name in (os.path.join("rebase-merge", "rewritten-list"), os.path.join("rebase-apply", "rewritten")):
            try:
                with open(os.path.join(git_dir, name), encoding="ascii") as handle:
                    return handle.read()
            except (OSError, UnicodeDecodeError):
                continue
        return ""
    if kind == "amend" and _amending(layout):
        try:
            with open(os.path.join(git_dir, "logs", "HEAD"), "rb") as handle:
                handle.seek(max(0, os.fstat(handle.fileno()).st_size - 4096))
                old, new = handle.read().rstrip(b"\n").rsplit(b"\n", 1)[-1].split()[:2]
        except (OSError, ValueError):
            return ""
        return f"{old.decode('ascii', 'replace')} {new.decode('ascii', 'replace')}\n"
    return ""


def _active_id(layout: Layout) -> str | None:
    active = active_intent(layout)
    return active.id if active else None


def after_commit(layout: Layout) -> None:
    """post-commit: trace HEAD, unless post-rewrite will (amend, rebase) or it is traced already."""
    if _rebase_in_progress(layout) or _amending(layout):
        return
    commit = head_commit(layout.root)
    if commit is None or own_records(read_note(layout.root, commit), commit):
        return
    picked = _cherry_picked_from(layout)
    # A cherry-pick replays another commit's lines: they keep their authors, by content, from its record.
    old_records = own_records(read_note(layout.root, picked), picked) if picked else None
    contributor = _contributor(layout)
    with ObjectReader(layout.root) as reader:
        trace_commit(layout, reader, commit, _active_id(layout), contributor, model_metadata(layout, contributor),
                     old_records=old_records)


def after_unhooked_commits(layout: Layout, since: str) -> list[str]:
    """Each commit of `since..HEAD` (of HEAD where `since` is "": the branch was unborn) without a
    record, oldest first: commits an agent made where git ran no hooks (gitai/agents/commits.py starts
    this with the agent's marks in the environment). The commits it recorded: those with a record
    already (a person's, recorded by their own hooks meanwhile) are not the agent's."""
    contributor = _contributor(layout)
    recorded = []
    with ObjectReader(layout.root) as reader:
        for commit in rev_list(layout.root, f"{since}..HEAD" if since else "HEAD", "--reverse"):
            if not own_records(read_note(layout.root, commit), commit):
                trace_commit(layout, reader, commit, _active_id(layout), contributor,
                             model_metadata(layout, contributor))
                recorded.append(commit)
    return recorded


def _cherry_picked_from(layout: Layout) -> str | None:
    """The commit being cherry-picked: git keeps CHERRY_PICK_HEAD while its post-commit hook runs."""
    try:
        with open(os.path.join(layout.repo.git_dir, "CHERRY_PICK_HEAD"), encoding="ascii") as handle:
            sha = handle.read().strip()
    except (OSError, UnicodeDecodeError):
        return None
    return sha if len(sha) in (40, 64) and all(c in "0123456789abcdef" for c in sha) else None


def after_merge(layout: Layout, squash: str) -> None:
    """post-merge: `git merge` makes merge commits without running post-commit."""
    commit = head_commit(layout.root)
    if squash == "1" or commit is None or own_records(read_note(layout.root, commit), commit):
        return
    with ObjectReader(layout.root) as reader:
        if len(commit_parents(reader, commit)) < 2:
            return  # a fast-forward: the commits are someone else's, traced (or not) where made
        trace_commit(layout, reader, commit, _active_id(layout), _contributor(layout))


def after_rewrite(layout: Layout, kind: str, rewritten: str) -> None:
    """post-rewrite: each new commit gets a record at its own revision naming the old ones."""
    if kind == "amend" and _rebase_in_progress(layout):
        return  # a squash or fixup inside a rebase: the rebase's own post-rewrite covers it
    mapping: dict[str, list[str]] = {}
    for line in rewritten.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] != parts[1]:  # a rebase lists commits it kept as they were
            mapping.setdefault(parts[1], []).append(parts[0])
    with ObjectReader(layout.root) as reader:
        for new, olds in mapping.items():
            if own_records(read_note(layout.root, new), new):
                continue  # traced already (e.g. by post-commit when no reflog told it of the amend)
            old_records = [r for old in olds for r in own_records(read_note(layout.root, old), old)]
            old = next((r for r in old_records if r.intent), None)
            # A rebase replays the old commits' lines: they keep their contributor (per line, by content,
            # when the old records have line-level attribution). An amend is new work: this worktree's
            # checkpoints still apply to it.
            line_level = any(r.attribution in ("checkpoints", "carried") for r in old_records)
            contributor = ((kind == "rebase" and not line_level and _recorded_contributor(old_records))
                           or _contributor(layout))
            carry = {"old_records": old_records, "use_checkpoints": kind == "amend"}
            if old is not None:  # the old record's intent, as declared (or inferred) there
                trace_commit(layout, reader, new, old.intent, contributor, {"rewritten_from": olds},
                             old.intent_source or "active", **carry)  # type: ignore[arg-type]
            else:
                trace_commit(layout, reader, new, _active_id(layout), contributor, {"rewritten_from": olds},
                             **carry)  # type: ignore[arg-type]


def _recorded_contributor(records: list[TraceRecord]) -> Contributor | None:
    found = [c for record in records for c in record.contributors]
    return dict(found[0]) if found else None  # type: ignore[return-value]
