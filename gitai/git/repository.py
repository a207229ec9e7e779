"""Where git keeps a repository's parts, found with one `git rev-parse` (lean: hooks import this)."""

from __future__ import annotations

import os
import subprocess

from gitai.errors import GitaiError


class RepoPaths:
    """Where git keeps things for the current worktree (absolute paths as str)."""

    __slots__ = ("worktree", "git_dir", "common_dir", "hooks_dir", "main_worktree")

    def __init__(self, worktree: str, git_dir: str, common_dir: str, hooks_dir: str) -> None:
        self.worktree = worktree  # top of the current worktree
        self.git_dir = git_dir  # this worktree's git dir (differs per linked worktree)
        self.common_dir = common_dir  # shared by all worktrees of the repository
        self.hooks_dir = hooks_dir  # where git runs hooks from (honours core.hooksPath)
        # The main worktree, whose .orchestration/ holds the ledger shared by all worktrees: the
        # parent of a common dir named `.git`, or core.worktree (submodules). Otherwise (bare,
        # --separate-git-dir) linked worktrees cannot find it, so all worktrees use the common dir.
        self.main_worktree: str | None = None
        if git_dir == common_dir and os.path.dirname(common_dir) == worktree and os.path.basename(common_dir) == ".git":
            self.main_worktree = worktree  # the usual layout, in the main worktree
        elif git_dir != common_dir and os.path.basename(common_dir) == ".git":
            self.main_worktree = os.path.dirname(common_dir)  # a linked worktree of the usual layout
        else:
            configured = subprocess.run(
                ["git", "config", "--file", os.path.join(common_dir, "config"), "--get", "core.worktree"],
                capture_output=True,
            ).stdout.decode("utf-8", "surrogateescape").strip()
            if configured:
                self.main_worktree = os.path.normpath(os.path.join(common_dir, configured))


def without_config_overrides() -> dict[str, str]:
    """This process's environment without the git config given through the environment
    (`GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, `GIT_CONFIG_PARAMETERS`): what a
    host sets for its agent's shell (Gemini CLI's empty core.hooksPath) is not the repository's."""
    return {key: value for key, value in os.environ.items()
            if key not in ("GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS")
            and not key.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"))}


def discover(cwd: str | None = None) -> RepoPaths:
    """Find the repository around `cwd` with one `git rev-parse` call. Under config from the
    environment that git cannot use for the hooks path (an empty core.hooksPath: "not a valid
    path"), the repository's own config answers instead: its hooks are gitai's."""
    args = ["git", "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir",
            "--git-path", "hooks"]
    proc = subprocess.run(args, cwd=cwd, capture_output=True)
    if proc.returncode != 0 and ("GIT_CONFIG_COUNT" in os.environ or "GIT_CONFIG_PARAMETERS" in os.environ):
        proc = subprocess.run(args, cwd=cwd, capture_output=True, env=without_config_overrides())
    lines = proc.stdout.decode("utf-8", "surrogateescape").split("\n")
    where = os.path.abspath(cwd or os.getcwd())
    if proc.returncode != 0 or len(lines) != 5 or lines[4]:
        from gitai.git.version import require_git  # only on failure: an old git explains either

        require_git()
    if proc.returncode != 0:
        raise GitaiError(f"not a git repository (or not inside its work tree): {where}")
    if len(lines) != 5 or lines[4]:
        raise GitaiError(f"the repository's path contains a newline, which gitai does not support: {where!r}")
    return RepoPaths(lines[0], lines[1], lines[2], lines[3])
