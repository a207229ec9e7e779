"""Where git keeps a repository's parts (lean: hooks import this).

Found from the files where they answer for certain (the usual layouts: a `.git` directory or a
`.git` file pointing at a linked worktree's or a submodule's git dir), else with one `git rev-parse`.
The hooks run this on every commit and every agent tool call, where a git process and the
`subprocess` import cost more than the rest of the answer.
"""

from __future__ import annotations

import os

from gitai.errors import GitaiError

# gitai's own hooks, beneath the common dir (Layout.own_hooks_dir): where the kernel domain points git for
# an agent host's shell that turns hooks off. Never the repository's hooks directory.
OWN_HOOKS = ("gitai", "hooks")
# The line that marks the commit-msg hook written there (gitai/hooks/gitai-hook.sh): it runs the pre-commit
# gate too. One without it (an older gitai's) is never pointed at.
OWN_HOOK_MARK = "\nown_hooks='1'\n"
# Variables that change where git looks, or what it finds: with any of them set, git answers.
LOCATION_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES",
                      "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT")


class RepoPaths:
    """Where git keeps things for the current worktree (absolute paths as str)."""

    __slots__ = ("worktree", "git_dir", "common_dir", "_hooks_dir", "main_worktree")

    def __init__(self, worktree: str, git_dir: str, common_dir: str, hooks_dir: str | None) -> None:
        self.worktree = worktree  # top of the current worktree
        self.git_dir = git_dir  # this worktree's git dir (differs per linked worktree)
        self.common_dir = common_dir  # shared by all worktrees of the repository
        self._hooks_dir = hooks_dir  # None: asked of git when first needed (core.hooksPath may be set)
        # The main worktree, whose .orchestration/ holds the ledger shared by all worktrees: the
        # parent of a common dir named `.git`, or core.worktree (submodules). Otherwise (bare,
        # --separate-git-dir) linked worktrees cannot find it, so all worktrees use the common dir.
        self.main_worktree: str | None = None
        if git_dir == common_dir and os.path.dirname(common_dir) == worktree and os.path.basename(common_dir) == ".git":
            self.main_worktree = worktree  # the usual layout, in the main worktree
        elif git_dir != common_dir and os.path.basename(common_dir) == ".git":
            self.main_worktree = os.path.dirname(common_dir)  # a linked worktree of the usual layout
        else:
            import subprocess

            configured = subprocess.run(
                ["git", "config", "--file", os.path.join(common_dir, "config"), "--get", "core.worktree"],
                capture_output=True,
            ).stdout.decode("utf-8", "surrogateescape").strip()
            if configured:
                self.main_worktree = os.path.normpath(os.path.join(common_dir, configured))

    @property
    def hooks_dir(self) -> str:
        """Where git runs hooks from (honours core.hooksPath)."""
        if self._hooks_dir is None:
            found = _rev_parse(["--git-path", "hooks"], self.worktree)[0]
            if found == os.path.join(self.common_dir, *OWN_HOOKS):  # set in an agent's shell: not the repository's
                found = _rev_parse(["--git-path", "hooks"], self.worktree, overrides=False)[0]
            self._hooks_dir = found
        return self._hooks_dir


def without_config_overrides() -> dict[str, str]:
    """This process's environment without the git config given through the environment
    (`GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, `GIT_CONFIG_PARAMETERS`): what a
    host sets for its agent's shell (Gemini CLI's empty core.hooksPath) is not the repository's."""
    return {key: value for key, value in os.environ.items()
            if key not in ("GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS")
            and not key.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"))}


def _rev_parse(queries: list[str], cwd: str | None, overrides: bool = True) -> list[str]:
    """`git rev-parse --path-format=absolute QUERIES` (one line each). Under config from the
    environment that git cannot use for the hooks path (an empty core.hooksPath: "not a valid
    path"), or without `overrides`, the repository's own config answers instead: its hooks are gitai's."""
    import subprocess

    args = ["git", "rev-parse", "--path-format=absolute", *queries]
    proc = subprocess.run(args, cwd=cwd, capture_output=True, env=None if overrides else without_config_overrides())
    if proc.returncode != 0 and overrides and ("GIT_CONFIG_COUNT" in os.environ
                                               or "GIT_CONFIG_PARAMETERS" in os.environ):
        proc = subprocess.run(args, cwd=cwd, capture_output=True, env=without_config_overrides())
    lines = proc.stdout.decode("utf-8", "surrogateescape").split("\n")
    answers = len(queries) - queries.count("--git-path")  # `--git-path NAME` answers once
    where = os.path.abspath(cwd or os.getcwd())
    if proc.returncode != 0 or len(lines) != answers + 1 or lines[-1]:
        from gitai.git.version import require_git  # only on failure: an old git explains either

        require_git()
    if proc.returncode != 0:
        raise GitaiError(f"not a git repository (or not inside its work tree): {where}")
    if len(lines) != answers + 1 or lines[-1]:
        raise GitaiError(f"the repository's path contains a newline, which gitai does not support: {where!r}")
    return lines[:-1]


def discover(cwd: str | None = None) -> RepoPaths:
    """Find the repository around `cwd`: from its files when they answer for certain, else with
    one `git rev-parse` call."""
    found = _from_files(cwd)
    if found is not None:
        return found
    worktree, git_dir, common_dir, hooks_dir = _rev_parse(
        ["--show-toplevel", "--git-dir", "--git-common-dir", "--git-path", "hooks"], cwd)
    own = hooks_dir == os.path.join(common_dir, *OWN_HOOKS)  # the repository's hooks are asked for when needed
    return RepoPaths(worktree, git_dir, common_dir, None if own else hooks_dir)


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            return handle.read()
    except OSError:
        return None


def _is_git_dir(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "HEAD")) and (
        os.path.isdir(os.path.join(path, "objects")) or os.path.isfile(os.path.join(path, "commondir")))


def _from_files(cwd: str | None) -> RepoPaths | None:
    """What `git rev-parse` would answer, read from the files; None wherever that is not certain
    (a variable that moves git, a bare repository, core.worktree, a mount point crossed, a
    repository another user owns: git decides those)."""
    if any(name in os.environ for name in LOCATION_VARIABLES) and not _only_a_hooks_path():
        return None
    try:
        here = os.path.realpath(cwd) if cwd else os.getcwd()  # git reports the physical path
        device = os.stat(here).st_dev
        while True:
            dotgit = os.path.join(here, ".git")
            if os.path.isdir(dotgit) and not os.path.islink(dotgit):
                git_dir = dotgit
                break
            if os.path.isfile(dotgit) and not os.path.islink(dotgit):
                text = _read(dotgit) or ""
                if not text.startswith("gitdir: ") or "\n" in text.rstrip("\n"):
                    return None
                git_dir = os.path.normpath(os.path.join(here, text[len("gitdir: "):].rstrip("\n")))
                break
            if os.path.lexists(dotgit) or _is_git_dir(here):
                return None  # a link, or a git dir itself (inside .git, or bare): git knows
            parent = os.path.dirname(here)
            if parent == here or os.stat(parent).st_dev != device:
                return None
            here = parent
        if not _is_git_dir(git_dir) or os.stat(here).st_uid != os.geteuid() or os.stat(git_dir).st_uid != os.geteuid():
            return None
        common = _read(os.path.join(git_dir, "commondir"))
        common_dir = os.path.normpath(os.path.join(git_dir, common.rstrip("\n"))) if common else git_dir
        if os.path.realpath(git_dir) != git_dir or os.path.realpath(common_dir) != common_dir:
            return None  # git names them resolved
        if "\n" in here + git_dir + common_dir:
            return None  # refused with git's answer, the one place that says why
        config = (_read(os.path.join(common_dir, "config")) or "").lower()
        worktree_config = (_read(os.path.join(git_dir, "config.worktree")) or "").lower()
    except OSError:
        return None
    settings = _settings(config) | _settings(worktree_config)
    if "worktree" in settings or "bare=true" in settings or "include" in settings or "includeif" in settings:
        return None  # core.worktree, core.bare, or an included file that might set them
    return RepoPaths(here, git_dir, common_dir, _default_hooks_dir(common_dir, settings))


def _only_a_hooks_path() -> bool:
    """Whether the only location variable set is GIT_CONFIG_PARAMETERS with one core.hooksPath in it (what
    `gitai run` sets for a host whose shell turns hooks off): it moves no repository, so the files still answer."""
    if any(name in os.environ for name in LOCATION_VARIABLES if name != "GIT_CONFIG_PARAMETERS"):
        return False
    value = os.environ.get("GIT_CONFIG_PARAMETERS", "")
    return value.lower().startswith("'core.hookspath=") and value.endswith("'") and value.count("'") == 2


def _names_own_hooks(common_dir: str) -> bool:
    """Whether GIT_CONFIG_PARAMETERS sets nothing but core.hooksPath to gitai's own hooks directory (as `gitai
    run` does): the repository's own hooks directory is then the one its files name."""
    value = os.environ.get("GIT_CONFIG_PARAMETERS", "")
    key, _, rest = value.partition("=")
    return key.lower() == "'core.hookspath" and rest == os.path.join(common_dir, *OWN_HOOKS) + "'"


def _settings(config: str) -> set[str]:
    """The section names and keys a git config file's text sets (lowercase), and `bare=true` when
    it makes the repository bare: enough to tell that it sets nothing that moves a path."""
    found = set()
    for line in config.lower().splitlines():
        line = line.strip()
        if line.startswith("["):
            header, _, rest = line[1:].partition("]")
            found.add(header.split(" ", 1)[0].split(".", 1)[0].strip())
            if rest.strip() and rest.strip()[0] not in "#;":
                found.add("include")  # `[core] hooksPath = X`: a setting on the header line; ask git
        elif line and line[0] not in "#;":
            key, _, value = line.partition("=")
            found.add(key.strip())
            if key.strip() == "bare":
                setting = value.split("#", 1)[0].split(";", 1)[0].strip()  # without a trailing comment
                if setting in ("", "true", "yes", "on", "1"):
                    found.add("bare=true")
    return found


def _default_hooks_dir(common_dir: str, repo_settings: set[str]) -> str | None:
    """`common_dir/hooks` when no config file git reads can name another (core.hooksPath); None: ask git."""
    if "hookspath" in repo_settings or any(k.startswith("GIT_CONFIG") and k != "GIT_CONFIG_NOSYSTEM"
                                           and not (k == "GIT_CONFIG_PARAMETERS" and _names_own_hooks(common_dir))
                                           for k in os.environ):
        return None
    home = os.environ.get("HOME", "")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    files = [os.path.join(home, ".gitconfig"), os.path.join(xdg, "git", "config"), "/etc/gitconfig"]
    # git's system config is $(prefix)/etc/gitconfig of the git that runs: read every candidate on PATH
    files += [os.path.join(os.path.dirname(d.rstrip(os.sep)), "etc", "gitconfig")
              for d in os.environ.get("PATH", "").split(os.pathsep) if d]
    for path in dict.fromkeys(files):
        settings = _settings(_read(path) or "")
        if "hookspath" in settings or "include" in settings or "includeif" in settings:
            return None
    return os.path.join(common_dir, "hooks")


def head_from_files(repo: RepoPaths) -> str | None:
    """The commit id HEAD names, read from git's files (a branch's loose ref or packed-refs, or a
    detached HEAD): for caches keyed by HEAD. None where the files do not say for certain (an
    unborn branch, reftable, a ref that is itself symbolic)."""
    head = (_read(os.path.join(repo.git_dir, "HEAD")) or "").strip()
    if not head.startswith("ref: "):
        return head if _is_object_id(head) else None
    ref = head[len("ref: "):]
    if not ref.startswith("refs/heads/"):
        return None
    loose = (_read(os.path.join(repo.common_dir, ref)) or "").strip()
    if loose:
        return loose if _is_object_id(loose) else None
    for line in (_read(os.path.join(repo.common_dir, "packed-refs")) or "").splitlines():
        object_id, _, name = line.partition(" ")
        if name == ref:
            return object_id if _is_object_id(object_id) else None
    return None


def _is_object_id(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)
