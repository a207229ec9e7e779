"""The active intent: per worktree in `$(git rev-parse --git-path gitai)/active`,
overridden for one process by `GITAI_INTENT`. Lean: imported by hooks.

gitai/hooks/gitai-hook.sh resolves it the same way in shell for the commit-msg hook.
"""

from __future__ import annotations

import os

from gitai.layout import Layout
from gitai.util.files import write_atomic

ENV_VAR = "GITAI_INTENT"
# What of an intent an agent is given to work under it (`gitai select --json`, the session context)
CONTEXT_FIELDS = ("intent_id", "name", "status", "description", "owned_scope", "constraints", "acceptance_criteria",
                  "related_specs")

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class ActiveIntent:
    """The active intent's id and where it came from."""

    __slots__ = ("id", "source")

    def __init__(self, intent_id: str, source: str) -> None:
        self.id = intent_id
        self.source = source  # "env" (GITAI_INTENT) or "worktree" (gitai select)


def active_intent(layout: Layout) -> ActiveIntent | None:
    """The intent this process works under, if any."""
    from_env = os.environ.get(ENV_VAR, "").strip()
    if from_env:
        return ActiveIntent(from_env, "env")
    return selected_intent(layout)


def selected_intent(layout: Layout) -> ActiveIntent | None:
    """This worktree's `gitai select` choice, ignoring GITAI_INTENT."""
    try:
        with open(layout.active_file, "rb") as handle:
            # damaged bytes become U+FFFD: an unknown intent the gate refuses and `select` replaces
            stored = handle.read(4096).decode("utf-8", "replace").strip()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    return ActiveIntent(stored, "worktree") if stored else None


def write_active(layout: Layout, intent_id: str | None) -> None:
    """Set (or, with None, clear) this worktree's active intent atomically; in place where no new
    file can be made beside it (a kernel domain without mounts: gitai/sandbox/domain.py), and an
    empty file is no selection."""
    try:
        if intent_id is None:
            if os.path.exists(layout.active_file):
                os.unlink(layout.active_file)
            return
        write_atomic(layout.active_file, intent_id + "\n")
    except PermissionError:
        fd = os.open(layout.active_file, os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW)  # no O_CREAT: it exists
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(intent_id + "\n" if intent_id else "")


def intent_context(details: dict[str, Any]) -> dict[str, Any]:
    """The context an agent puts in its prompt, as data, from an intent's catalogue entry
    (`Intent.to_json()`, which the policy cache keeps: the hooks need no YAML for it)."""
    return {key: details[key] for key in CONTEXT_FIELDS}
