"""`gitai sync [REMOTE]`: exchange refs/notes/gitai with a remote without losing either side.

The remote's notes are fetched into gitai's own namespace (refs/gitai/remotes/REMOTE/notes),
never forced into refs/notes/gitai. They are merged with `git notes merge -s cat_sort_uniq`:
when both sides annotated the same commit, the note keeps both records, one per line, sorted
(deterministic) and without duplicates. Records that arrived are appended to the ledger.
Then the merged ref is pushed without force; if the remote moved meanwhile, the whole
exchange is retried.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass

from gitai.errors import GitaiError
from gitai.git.notes import changed_notes
from gitai.git.objects import ObjectReader
from gitai.git.runner import git_process, run_git
from gitai.layout import NOTES_REF, Layout
from gitai.trace.audit import remove_duplicates
from gitai.trace.notes_reader import each_note, read_records
from gitai.trace.record import TraceRecord
from gitai.trace.store import trace_lock
from gitai.util.jsonl import append_lines

ATTEMPTS = 3


@dataclass
class SyncResult:
    remote: str
    fetched: bool  # the remote had notes
    received: int  # records new to this clone
    pushed: bool

    def to_json(self) -> dict[str, object]:
        return {"remote": self.remote, "fetched": self.fetched, "received": self.received, "pushed": self.pushed}


def _has_ref(layout: Layout, ref: str) -> bool:
    return bool(run_git(["rev-parse", "-q", "--verify", ref], layout.root, check=False).strip())


def _identity_args(layout: Layout) -> list[str]:
    """`git notes merge` makes a commit: give it an identity when the user has none configured."""
    if run_git(["var", "GIT_COMMITTER_IDENT"], layout.root, check=False).strip():
        return []
    return ["-c", "user.name=gitai", "-c", "user.email=gitai@localhost"]


SAFE_SCHEMES = ("https://", "http://", "ssh://", "git://", "file://")


def check_remote(layout: Layout, remote: str) -> tuple[str, str]:
    """(what to give git, the name under refs/gitai/remotes/) for `remote`: a configured remote, a
    URL or a path (relative to the current directory). Anything else (an option such as
    `--upload-pack=CMD`, a `transport::` address) is refused before it reaches git."""
    if not remote or remote.startswith("-") or any(ch < " " for ch in remote):
        raise GitaiError(f"not a remote: {remote!r}")
    configured = run_git(["remote"], layout.root, check=False).decode("utf-8", "replace").split()
    if remote in configured:
        return remote, remote
    if "::" in remote:
        raise GitaiError(f"not a remote gitai syncs with: {remote!r} (transport:: addresses are refused)")
    if remote.startswith(SAFE_SCHEMES) or re.match(r"^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:", remote):
        address = remote
    elif os.path.isdir(remote):
        address = os.path.abspath(remote)
    else:
        names = ", ".join(configured) or "none"
        raise GitaiError(f"unknown remote {remote!r}: give a configured remote name ({names}), "
                         "a URL (https, ssh, git, file) or the path of a repository")
    return address, "url-" + hashlib.sha1(address.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def fetch_notes(layout: Layout, remote: str, name: str) -> bool:
    """Fetch the remote's notes into gitai's tracking ref for `name`; False when it has none."""
    tracking = f"refs/gitai/remotes/{name}/notes"
    run_git(["update-ref", "-d", tracking], layout.root, check=False)
    fetch = git_process(["fetch", "-q", "--", remote, f"+{NOTES_REF}:{tracking}"], layout.root)
    if fetch.returncode != 0:
        message = fetch.stderr.decode("utf-8", "replace")
        if "couldn't find remote ref" in message:
            return False
        lines = [line for line in message.strip().splitlines() if line.strip()]
        first = next((line for line in lines if line.startswith("fatal:")),
                     lines[0] if lines else f"exit {fetch.returncode}")
        raise GitaiError(f"cannot fetch from {remote}: {first}")
    return True


def _fetch_and_merge(layout: Layout, remote: str, name: str) -> bool:
    """Fetch the remote's notes into gitai's namespace and merge them; False when it has none."""
    if not fetch_notes(layout, remote, name):
        return False
    merge_notes(layout, f"refs/gitai/remotes/{name}/notes")
    return True


def merge_notes(layout: Layout, tracking: str) -> None:
    """Merge fetched notes into refs/notes/gitai (both records kept when both sides annotated a commit)."""
    if not _has_ref(layout, NOTES_REF):
        run_git(["update-ref", NOTES_REF, tracking], layout.root)
    else:
        run_git([*_identity_args(layout), "notes", "--ref", NOTES_REF, "merge", "-q", "-s", "cat_sort_uniq", tracking],
                layout.root)


def append_new_records(layout: Layout, before: str | None = None) -> int:
    """Append to the ledger the records of the notes that it lacks. `before`: the notes commit
    before a merge of fetched notes; then only the notes changed since are read, and only their
    records that were not there before count (a pull costs in proportion to what it brought).
    None: every note (`gitai sync` also repairs a ledger that fell behind)."""
    head = run_git(["rev-parse", "-q", "--verify", NOTES_REF], layout.root, check=False).decode().strip()
    changed = changed_notes(layout.root, before, head) if before and head else None
    unique: dict[str, TraceRecord] = {}
    known: set[str] | None = None
    if changed is None:
        known = _ledger_ids(layout)  # first: only the records the ledger lacks are kept in memory
        for commit_id, records in each_note(layout):
            for record in records:
                if record.revision == commit_id and record.id not in known:
                    unique.setdefault(record.id, record)
    else:
        with ObjectReader(layout.root) as reader:
            for commit_id, old_blob, new_blob in changed:
                old = {r.id for r in read_records(reader, old_blob)[0]} if old_blob else set()
                for record in read_records(reader, new_blob)[0] if new_blob else []:
                    if record.revision == commit_id and record.id not in old:
                        unique.setdefault(record.id, record)
    if not unique:
        return 0
    known = _ledger_ids(layout) if known is None else known
    new = [record for rid, record in unique.items() if rid not in known]
    new.sort(key=lambda r: (r.recorded_at, r.id))
    append_lines(layout.ledger, [r.dumps() for r in new])
    return len(new)


_ID = re.compile(rb'"id"\s*:\s*"([^"\\]*)"')


def _ledger_ids(layout: Layout) -> set[str]:
    """The record ids the ledger holds, by a scan of its lines (no record is parsed: the ledger
    of a long history holds 100,000s). Every "id" key counts, which can only add ids that hold
    no record: a record id is a UUID, never the id of something else."""
    known: set[str] = set()
    try:
        with open(layout.ledger, "rb") as handle:
            for line in handle:
                known.update(match.decode("utf-8", "replace") for match in _ID.findall(line))
    except FileNotFoundError:
        pass
    return known


def sync(layout: Layout, remote: str = "origin") -> SyncResult:
    """Fetch, merge and push the notes; raise GitaiError when the remote keeps refusing."""
    address, name = check_remote(layout, remote)
    layout.guard(layout.ledger)
    for _ in range(ATTEMPTS):
        with trace_lock(layout):
            fetched = _fetch_and_merge(layout, address, name)
            remove_duplicates(layout)
            received = append_new_records(layout)
        if not _has_ref(layout, NOTES_REF):
            return SyncResult(remote, fetched, received, False)
        # --no-verify: the pre-push hook that makes notes travel (gitai.trace.travel) is not run again
        push = git_process(["push", "-q", "--no-verify", "--", address, f"{NOTES_REF}:{NOTES_REF}"], layout.root)
        if push.returncode == 0:
            return SyncResult(remote, fetched, received, True)
    raise GitaiError(f"could not push {NOTES_REF} to {remote}: the remote kept changing or refused")
