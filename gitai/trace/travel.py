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
    from gitai.trace.store import trace_lock
    from gitai.trace.sync import append_new_records, merge_notes

    if not is_on(layout):
        return 0
    listing = run_git(["for-each-ref", "--format=%(refname)", "refs/gitai/remotes/"], layout.root, check=False)
    fresh = [ref for ref in listing.decode("utf-8", "replace").split()
             if ref.endswith("/notes") and git_process(["merge-base", "--is-ancestor", ref, NOTES_REF],
                                                       layout.root).returncode != 0]
    if not fresh:
        return 0
    with trace_lock(layout):
        before = run_git(["rev-parse", "-q", "--verify", NOTES_REF], layout.root, check=False).decode().strip()
        for ref in fresh:
            merge_notes(layout, ref)
        return append_new_records(layout, before or None)
