"""Notes that travel with ordinary `git push` and `git pull` (`gitai init`; config `gitai.notesTravel`).

Push: the pre-push hook runs `gitai sync`'s exchange with the remote being pushed to (fetch its
notes into gitai's namespace, merge with cat_sort_uniq, push without force, retry when the remote
moved), so two people pushing at once lose nothing. Its own notes push uses `--no-verify`, the
re-entry guard: the hook does not run again for it. A failure only warns: the user's push goes on.
Pull: each remote gets a fetch refspec `+refs/notes/gitai:refs/gitai/remotes/REMOTE/notes` (forced
only into gitai's private tracking ref, like a remote-tracking branch, never into refs/notes/gitai),
so every fetch brings the notes; the post-merge and post-rewrite hooks (the end of `git pull`,
merging or rebasing) merge each tracking ref that has news into refs/notes/gitai.
"""

from __future__ import annotations

import sys

from gitai.git.runner import config_get, git_process, run_git
from gitai.layout import NOTES_REF, Layout

CONFIG = "gitai.notesTravel"


def tracking_ref(remote: str) -> str:
    return f"refs/gitai/remotes/{remote}/notes"


def fetch_refspec(remote: str) -> str:
    return f"+{NOTES_REF}:{tracking_ref(remote)}"


def is_on(layout: Layout) -> bool:
    values = config_get(CONFIG, layout.root)
    return bool(values) and values[-1].lower() in ("true", "yes", "on", "1")


def remotes(layout: Layout) -> list[str]:
    return run_git(["remote"], layout.root, check=False).decode("utf-8", "replace").split()


def add_fetch_refspec(layout: Layout, remote: str) -> None:
    """Make `git fetch REMOTE` (and `git pull`) bring REMOTE's notes into gitai's tracking ref."""
    key = f"remote.{remote}.fetch"
    if fetch_refspec(remote) not in config_get(key, layout.root):
        run_git(["config", "--add", key, fetch_refspec(remote)], layout.root)


def enable(layout: Layout) -> list[str]:
    """Turn travel on for this repository and every remote it has; returns those remotes."""
    run_git(["config", CONFIG, "true"], layout.root)
    found = remotes(layout)
    for remote in found:
        add_fetch_refspec(layout, remote)
    return found


def disable(layout: Layout) -> None:
    run_git(["config", CONFIG, "false"], layout.root)
    for remote in remotes(layout):
        key = f"remote.{remote}.fetch"
        if fetch_refspec(remote) in config_get(key, layout.root):
            run_git(["config", "--unset-all", "--fixed-value", key, fetch_refspec(remote)], layout.root)


def before_push(layout: Layout, remote: str) -> None:
    """pre-push: exchange notes with the remote being pushed to; never blocks the push."""
    from gitai.errors import GitaiError
    from gitai.trace.sync import sync

    if not is_on(layout) or remote not in remotes(layout):
        return  # a push to a URL: no tracking ref to keep; `gitai sync URL` does it by hand
    add_fetch_refspec(layout, remote)
    try:
        sync(layout, remote)
    except GitaiError as exc:
        print(f"gitai: warning: the notes did not travel to {remote} ({exc}); later: gitai sync {remote}",
              file=sys.stderr)


def after_pull(layout: Layout) -> int:
    """post-merge / post-rewrite: merge every fetched tracking ref with news; returns records received."""
    return merge_fetched(layout) if is_on(layout) else 0


def fetched_refs(layout: Layout) -> list[str]:
    """The tracking refs holding notes fetched from remotes (one per remote whose notes were fetched)."""
    listing = run_git(["for-each-ref", "--format=%(refname)", "refs/gitai/remotes/"], layout.root, check=False)
    return [ref for ref in listing.decode("utf-8", "replace").split() if ref.endswith("/notes")]


def unmerged_refs(layout: Layout) -> list[str]:
    """The fetched tracking refs whose notes refs/notes/gitai does not hold yet."""
    return [ref for ref in fetched_refs(layout)
            if git_process(["merge-base", "--is-ancestor", ref, NOTES_REF], layout.root).returncode != 0]


def remote_of(ref: str) -> str:
    """The remote a tracking ref was fetched from (`url-...` for a URL given to `gitai sync`)."""
    return ref.removeprefix("refs/gitai/remotes/").removesuffix("/notes")


def sync_command(ref: str) -> str:
    """The `gitai sync` that brings a tracking ref up to date (a URL's ref keeps only its digest)."""
    remote = remote_of(ref)
    return "gitai sync URL (the address synced with before)" if remote.startswith("url-") else f"gitai sync {remote}"


def merge_fetched(layout: Layout) -> int:
    """Merge every fetched tracking ref with news into refs/notes/gitai (nothing is lost: both
    records are kept where both sides annotated a commit, then one is chosen, see
    `audit.remove_duplicates`) and append what arrived to the ledger; returns records received."""
    from gitai.git.notes import changed_notes
    from gitai.trace.audit import remove_duplicates
    from gitai.trace.store import trace_lock
    from gitai.trace.sync import append_new_records, merge_notes

    fresh = unmerged_refs(layout)
    if not fresh:
        return 0
    with trace_lock(layout):
        before = run_git(["rev-parse", "-q", "--verify", NOTES_REF], layout.root, check=False).decode().strip()
        for ref in fresh:
            merge_notes(layout, ref)
        head = run_git(["rev-parse", "-q", "--verify", NOTES_REF], layout.root, check=False).decode().strip()
        changed = changed_notes(layout.root, before or None, head)
        remove_duplicates(layout, None if changed is None else {commit for commit, _, _ in changed})
        return append_new_records(layout, before or None)


def catch_up(layout: Layout) -> None:
    """Before a reader answers: merge the notes a `git fetch` or `git pull` brought but no hook
    merged (a pull with nothing new runs no post-merge), so a teammate's records are seen. A
    failure (a read-only repository) only warns: the reader answers from what is merged."""
    from gitai.errors import GitaiError

    try:
        merge_fetched(layout)
    except (GitaiError, OSError) as exc:
        print(f"gitai: warning: the fetched notes are not merged ({exc}); the team's records may be missing",
              file=sys.stderr)


def fetch_team_notes(layout: Layout) -> int:
    """`gitai init` in a clone: fetch every remote's notes into its tracking ref and merge them;
    returns the records received. A remote that cannot be reached only warns."""
    from gitai.errors import GitaiError
    from gitai.trace.sync import fetch_notes

    for remote in remotes(layout):
        try:
            fetch_notes(layout, remote, remote)
        except GitaiError as exc:
            print(f"gitai: warning: {exc}; later: gitai sync {remote}", file=sys.stderr)
    return merge_fetched(layout)


def missing_record_advice(layout: Layout) -> str:
    """What to do about commits that have no record. Backfill is advised only while no remote is
    known to hold records: otherwise its records would duplicate the team's (a teammate may not
    have pushed theirs yet)."""
    unmerged = unmerged_refs(layout)
    if unmerged:
        return (f"the records fetched from {remote_of(unmerged[0])} are not merged yet: "
                f"run '{sync_command(unmerged[0])}'")
    fetched = fetched_refs(layout)
    if fetched:
        return (f"{remote_of(fetched[0])} holds the team's records and not this one: '{sync_command(fetched[0])}' "
                "fetches records pushed since")
    configured = remotes(layout)
    if configured:
        return f"run 'gitai sync {configured[0]}' to fetch the team's records; if no remote holds any, 'gitai backfill'"
    return "run 'gitai backfill'"
