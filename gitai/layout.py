"""Where gitai keeps its files (docs/concepts.md, "Where things live"). Paths are absolute str
(lean: hooks import this)."""

from __future__ import annotations

import os

from gitai.errors import GitaiError
from gitai.git.repository import OWN_HOOKS, RepoPaths, discover
from gitai.util.files import refuse_links

ORCHESTRATION = ".orchestration"
CATALOGUE = "active_intents.yaml"
INTENTIGNORE = ".intentignore"
LEDGER = "agent_trace.jsonl"
EVENTS = "events.jsonl"
INTENT_MAP = "intent_map.md"
SHARED_BRAIN = "AGENT.md"
NOTES_REF = "refs/notes/gitai"
LOCAL_FILES_GITIGNORE = """\
# Rebuildable from refs/notes/gitai ('gitai trace rebuild'); local logs.
agent_trace.jsonl
events.jsonl
approvals.jsonl
.*.tmp
"""
# Written when a hook has to create the directory itself (the checked-out branch has no
# .orchestration/): everything in it, this file included, is local. `gitai init` replaces it.
HOOK_MADE_GITIGNORE = "# Made by gitai for its local files (ledger, events); 'gitai init' replaces it.\n*\n"


def state_dir_of(git_dir: str) -> str:
    """A worktree's own gitai state directory, from its git dir (`git rev-parse --git-path gitai`)."""
    return os.path.join(git_dir, "gitai")


class Layout:
    """Every path gitai reads or writes, for one worktree."""

    def __init__(self, repo: RepoPaths) -> None:
        self.repo = repo
        self.root = repo.worktree
        self.orchestration = os.path.join(self.root, ORCHESTRATION)
        self.catalogue = os.path.join(self.orchestration, CATALOGUE)
        self.intentignore = os.path.join(self.orchestration, INTENTIGNORE)
        self.intent_map = os.path.join(self.orchestration, INTENT_MAP)
        # Per-worktree state: `git rev-parse --git-path gitai` (the active intent, caches).
        self.state_dir = state_dir_of(repo.git_dir)
        self.active_file = os.path.join(self.state_dir, "active")
        # State shared by all worktrees: locks, hook error log, the "hooks installed here" marker.
        self.shared_state_dir = os.path.join(repo.common_dir, "gitai")
        self.installed_marker = os.path.join(self.shared_state_dir, "installed")
        # gitai's own git hooks, and no other: where git is pointed inside the kernel domain when an agent
        # host's shell turns every hook off (Gemini CLI's empty core.hooksPath), so its commits get the trailer
        self.own_hooks_dir = os.path.join(repo.common_dir, *OWN_HOOKS)
        # The ledger and events are shared by all worktrees: the main worktree's .orchestration/,
        # or the common git dir for a bare repository.
        shared = (
            os.path.join(repo.main_worktree, ORCHESTRATION) if repo.main_worktree else self.shared_state_dir
        )
        self.ledger = os.path.join(shared, LEDGER)
        self.events = os.path.join(shared, EVENTS)

    def worktree_state_dirs(self) -> list[str]:
        """The gitai state directory of each of the repository's worktrees, this one's first."""
        common = self.repo.common_dir
        try:
            names = sorted(os.listdir(os.path.join(common, "worktrees")))
        except OSError:
            names = []
        found = [self.state_dir, state_dir_of(common)]
        found += [state_dir_of(os.path.join(common, "worktrees", name)) for name in names]
        return list(dict.fromkeys(os.path.normpath(d) for d in found))

    def uses_gitai(self) -> bool:
        """A repository uses gitai when its hooks were installed for it (a marker in the common git
        dir) or its checkout has `.orchestration/`. Hooks in a shared `core.hooksPath` (git's and the
        agent hosts' user-level ones) also run in repositories that never ran `gitai init`: there
        they do nothing. (gitai/hooks/gitai-hook.sh asks the same in shell for commit-msg.)"""
        return os.path.isdir(self.orchestration) or os.path.isfile(self.installed_marker)

    def guard(self, path: str) -> str:
        """`path` (a file gitai writes), after checking that writing it follows no symbolic link in a
        worktree: links there come from commits, and must never make gitai write outside the repository."""
        for git_dir in (self.repo.git_dir, self.repo.common_dir):
            if path.startswith(git_dir + os.sep):
                return path  # git's own directory: not checked out, so no committed link leads here
        for root in (self.repo.main_worktree, self.root):
            if root and path.startswith(root + os.sep):
                refuse_links(root, path)
        return path

    def ensure_local_dir(self) -> None:
        """Create the ledger's directory if needed, with a .gitignore so the ledger never shows as untracked."""
        directory = os.path.dirname(self.guard(self.ledger))
        if not os.path.isdir(directory):
            os.makedirs(directory, exist_ok=True)
            fd = os.open(os.path.join(directory, ".gitignore"), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                         0o644)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(HOOK_MADE_GITIGNORE)
        self.guard(self.ledger)
        self.guard(self.events)

    def relative(self, path: str) -> str:
        """`path` relative to the worktree root, for messages."""
        return os.path.relpath(path, self.root)

    def repo_path(self, user_path: str) -> str:
        """A path given by the user (relative to the current directory) as a path in the repository."""
        relative = os.path.relpath(os.path.abspath(user_path), self.root)
        if relative == ".." or relative.startswith(".." + os.sep) or os.path.isabs(relative):
            raise GitaiError(f"path is outside the repository: {user_path}")
        full = os.path.join(self.root, relative)
        for git_dir in (self.repo.git_dir, self.repo.common_dir):
            if full == git_dir or full.startswith(git_dir + os.sep) or relative.split(os.sep)[0] == ".git":
                raise GitaiError(f"path is inside git's own directory, not the work tree: {user_path}")
        return relative.replace(os.sep, "/")


def find_layout(cwd: str | None = None) -> Layout:
    """The layout of the repository around `cwd`."""
    return Layout(discover(cwd))
