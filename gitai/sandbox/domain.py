"""The kernel domain an agent's commands run in (docs/security.md, "The kernel domain"): writes
only beneath the intent's scope, the host's own state and temporary directories, and the parts of
the git dir a commit needs; never the git hooks, git's config, `.orchestration/` (but the ledger
and events files the hooks append to), the hook configs of the agent hosts, or gitai itself.

A scope glob becomes its nearest fixed directory (`src/**/*.py` -> `src/`); the hook gate still
judges the fine pattern. A directory that holds a protected path is never allowed as a whole: its
other entries are allowed one by one (new entries directly in it cannot be made).
"""

from __future__ import annotations

import os

from gitai.agents.hosts import (
    GIT_HOOK_FRAMEWORK_CONFIGS,
    HOSTS,
    PROJECT_MCP_CONFIGS,
    moved_homes,
    user_control_dirs,
    user_controls,
)
from gitai.layout import ORCHESTRATION, Layout
from gitai.util.installation import installation_dirs, interpreter_programs, path_programs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# Hook configs of the agent hosts (their hooks are the agent's gate): in a worktree, the whole
# directory of each (`.claude/`, `.github/hooks/`); in HOME, the files themselves.
HOOK_CONFIG_DIRS = tuple(sorted({os.path.dirname(path) for host in HOSTS for path in host.project_configs}))
# The hosts' own state in HOME. Not ~/.cache: it holds programs that run later outside the domain
# (pre-commit's environments, browser drivers); the domain gets a cache of its own in TMPDIR.
HOST_STATE_DIRS = (".claude", ".codex", ".gemini", ".copilot", ".qwen", ".cursor")
HOST_STATE_FILES = (".claude.json", ".claude.json.backup")
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts", "/dev/shm")
GLOB_CHARACTERS = frozenset("*?[\\")
DOMAIN_VARIABLE = "GITAI_DOMAIN"  # set inside a domain to the intent it holds ("" for none)


class DomainPlan:
    """What a domain allows: directories and files to write beneath, paths made read-only. (A plain
    class: the agent hook imports this module, and `dataclasses` is slow to import.)"""

    __slots__ = ("writable", "readonly", "pinned", "hidden", "notes")

    def __init__(self, writable: list[str] | None = None) -> None:
        self.writable: list[str] = writable or []
        self.readonly: list[str] = []
        self.pinned: list[str] = []  # directories that hold a read-only path: they must stay where they are
        self.hidden: list[str] = []  # command servers' sockets (gitai/sandbox/servers.py): out of sight
        self.notes: list[str] = []  # what the person should know (one line each)


def scope_roots(root: str, patterns: tuple[str, ...]) -> list[str]:
    """The directories (or files) the scope's include patterns can match, each as the nearest fixed
    path: an unanchored pattern (`*.md`, `foo`) matches at any depth, so its root is the worktree."""
    found = []
    for pattern in patterns:
        if not pattern.strip() or pattern.startswith(("!", "#")):
            continue  # exclusions only narrow a scope; the hook gate applies them
        body = pattern.strip().rstrip("/")
        if "/" not in body.lstrip("/"):
            found.append(root)
            continue
        fixed = []
        for part in body.lstrip("/").split("/"):
            if GLOB_CHARACTERS & set(part):
                break
            fixed.append(part)
        found.append(os.path.join(root, *fixed) if fixed else root)
    return found


def _contains(directory: str, path: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


class _Planner:
    """The protected paths (real) and every directory above one, as sets: `gitai exec` plans a domain
    before each wrapped command, and a walk of /tmp meets hundreds of entries."""

    def __init__(self, protected: list[str]) -> None:
        self.protected: set[str] = set()
        self.holding: set[str] = set()  # the directories that hold a protected path
        self.allowed: set[str] = set()
        self.protect(set(protected))

    def protect(self, paths: set[str]) -> None:
        for path in paths:
            above = os.path.realpath(path)
            self.protected.add(above)
            while above != (above := os.path.dirname(above)) and above not in self.holding:
                self.holding.add(above)

    def _inside_protected(self, path: str) -> bool:
        """Whether `path` (real) is protected, or beneath a protected directory."""
        while path not in self.protected:
            if path == (path := os.path.dirname(path)):
                return False
        return True

    def allow_beneath(self, path: str) -> None:
        """Allow `path` (real), or, when it holds a protected path, each of its other entries."""
        path = os.path.realpath(path)
        while not os.path.lexists(path):  # a scope not made yet: its nearest existing directory
            path = os.path.dirname(path)
        self._allow_real(path)

    def _allow_real(self, path: str) -> None:
        if self._inside_protected(path):
            return  # protected itself, or inside a protected directory
        if path not in self.holding or not os.path.isdir(path):
            self.allowed.add(path)
            return
        try:
            entries = sorted(os.scandir(path), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            if not entry.is_symlink():  # a link is allowed where its target is, never through itself
                self._allow_real(entry.path)  # real: in a real directory, and no link


def plan_domain(layout: Layout, scope: tuple[str, ...], home: str | None, mounts: bool,
                host_inside: bool = True, supervised: tuple[str, ...] = ()) -> DomainPlan:
    """Where the agent may write. With `mounts` (read-only bind mounts available), git's own
    directory is writable but its hooks and config are mounted read-only; without, only the parts
    beneath it a commit needs that hold no hook (a commit then cannot write the index).

    `host_inside`: the agent host itself runs in the domain (`gitai run`), so its state in HOME stays
    writable. Otherwise (`gitai exec`: one command of an agent whose host runs outside) the hosts'
    state is closed too: their MCP server lists (`~/.claude.json`, `~/.codex/config.toml` ...) name
    programs the host starts later outside any domain, and their transcripts are the session's record.

    `supervised`: user controls the host rewrites itself (its trust file: a registry fact), which gitai,
    staying outside the domain as its parent, puts back after the session (gitai/sandbox/supervise.py):
    neither mounted nor protected here, and their directory writable, as the host's state, and pinned."""
    repo = layout.repo
    worktree_roots = {layout.root} | ({repo.main_worktree} if repo.main_worktree else set())
    # gitai itself, and each `gitai` on PATH (the hooks run it by name): a missing one cannot be made
    protected = [repo.git_dir, repo.common_dir, repo.hooks_dir, *installation_dirs(),
                 *interpreter_programs(), *path_programs(os.environ)]
    for root in worktree_roots:
        protected += [os.path.join(root, ".git"), os.path.join(root, ORCHESTRATION)]
        protected += [os.path.join(root, name) for name in HOOK_CONFIG_DIRS + GIT_HOOK_FRAMEWORK_CONFIGS
                                                     + PROJECT_MCP_CONFIGS]
    kept = {os.path.realpath(path) for path in supervised}
    user_configs = [p for p in (user_controls(home, os.environ) if home else []) if os.path.realpath(p) not in kept]
    user_dirs = user_control_dirs(home, os.environ) if home else []
    if not mounts:  # their directories then stay closed to new files, the host's state too; but where gitai puts
        # a supervised file back, it puts back the user controls beside it too (the host's MCP servers)
        held = {os.path.dirname(path) for path in kept}
        protected += [p for p in user_configs if os.path.dirname(os.path.realpath(p)) not in held] + user_dirs
    planner = _Planner(protected)
    notes: list[str] = []
    real_root = os.path.realpath(layout.root)
    for path in scope_roots(layout.root, scope):
        real = os.path.realpath(path)
        if not _contains(real_root, real):  # a link a session left in the work tree: its target is elsewhere
            notes.append(f"{os.path.relpath(path, layout.root)} leads out of the work tree (to {real}): "
                         "the scope gets no write rule there")
            continue
        planner.allow_beneath(path)
    planner.protect(worktree_roots)  # below, a repository inside /tmp or HOME stays out of reach
    if home and not host_inside:
        planner.protect({os.path.join(home, name) for name in HOST_STATE_DIRS + HOST_STATE_FILES}
                        | set(moved_homes(os.environ).values()))
    for path in ("/tmp", "/var/tmp", os.environ.get("TMPDIR", "")):
        if path:
            planner.allow_beneath(path)
    if home and host_inside:
        for name in HOST_STATE_DIRS + HOST_STATE_FILES:
            if os.path.lexists(os.path.join(home, name)):
                planner.allow_beneath(os.path.join(home, name))
        for path in supervised:  # its directory, where a variable moved it (COPILOT_HOME), never HOME itself
            state = os.path.dirname(os.path.realpath(path))
            if os.path.isdir(state) and not _contains(state, os.path.realpath(home)):
                planner.allow_beneath(state)
    plan = DomainPlan(writable=sorted(planner.allowed))
    plan.notes += notes
    plan.writable += [d for d in DEVICES if os.path.exists(d)]
    plan.writable += _recording_files(layout)
    plan.writable += _git_parts(layout, mounts, plan)
    if mounts:
        plan.readonly += _user_hook_configs(user_configs, home or "") + _made_dirs(user_dirs)
        # the supervised file's directory too: gitai puts the file back there, so it must stay where it is
        plan.pinned = sorted(set(_holders(plan)) | {os.path.dirname(path) for path in kept
                                                    if os.path.isdir(os.path.dirname(path))})
    from gitai.sandbox.servers import hidden_paths

    if mounts:
        plan.hidden = hidden_paths(os.environ, os.getuid(), home,
                                   tuple(os.path.realpath(root) for root in worktree_roots))
    else:
        plan.notes.append("without read-only mounts, command servers (tmux, screen, systemd --user, dbus, "
                          "docker) stay reachable from the domain and can run commands outside it")
    plan.writable = sorted({os.path.realpath(path) for path in plan.writable})  # restrict refuses links
    return plan


def unpinned_holders(plan: DomainPlan, supervised: tuple[str, ...]) -> list[str]:
    """The directories of `supervised` files a plan without mounts leaves movable (their parent is writable):
    the session could put another directory, with a file of its own making, where gitai puts the file back."""
    writable = {w.rstrip(os.sep) or os.sep for w in plan.writable}
    return sorted({held for held in (os.path.dirname(os.path.realpath(path)) for path in supervised)
                   if _beneath(os.path.dirname(held), writable, os.path.isdir)})


def _holders(plan: DomainPlan) -> list[str]:
    """Each directory that holds a read-only path and could be renamed or removed inside the domain (its
    parent is writable): moved away, it takes the read-only mount along, and a new directory of the
    same name, with files of the agent's own making, takes its place (`mv .git/gitai .git/gitai-x`)."""
    writable = {w.rstrip(os.sep) or os.sep for w in plan.writable}
    readonly = {r.rstrip(os.sep) or os.sep for r in plan.readonly}
    found: set[str] = set()
    for path in plan.readonly:
        held = os.path.dirname(path)
        while held != os.path.dirname(held) and _beneath(os.path.dirname(held), writable, os.path.isdir):
            if not _beneath(held, readonly):  # beneath a read-only mount: fixed already
                found.add(held)
            held = os.path.dirname(held)
    return sorted(found)


def _beneath(path: str, directories: set[str], check: Callable[[str], bool] = bool) -> bool:
    """Whether `path` is one of `directories` (each passing `check`) or beneath one: `_contains` by
    walking up from `path` (a plan holds hundreds of paths where a walk of /tmp made them)."""
    while True:
        if path in directories and check(path):
            return True
        if path == (path := os.path.dirname(path)):
            return False


def _user_hook_configs(paths: list[str], home: str) -> list[str]:
    """The user-level hook configs, to be mounted read-only so the hosts' state directories that hold
    them stay writable (a host makes new files there). One that is missing where its directory exists
    is made empty first, so that the agent cannot create it inside the domain; so is one a variable
    moved out of HOME (its directories too: it may name one not made yet, in a writable /tmp). Where
    that cannot be made, its nearest existing directory is held read-only. (HOME itself is closed.)"""
    found = []
    for path in paths:
        moved = not _contains(home, path)
        if not os.path.lexists(path) and (moved or os.path.isdir(os.path.dirname(path))):
            try:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "x", encoding="utf-8") as handle:
                    handle.write("{}\n" if path.endswith(".json") else "")
            except OSError:
                while not os.path.lexists(path):
                    path = os.path.dirname(path)
        if os.path.lexists(path):
            found.append(path)
    return sorted(set(found))


def _made_dirs(paths: list[str]) -> list[str]:
    """The directories of user controls (~/.gemini/policies/), to be mounted read-only as a whole: one
    missing where its parent (the host's state directory) exists is made empty first, so that the agent
    cannot make it, and a file in it, inside the domain."""
    for path in paths:
        if not os.path.lexists(path) and os.path.isdir(os.path.dirname(path)):
            try:
                os.mkdir(path)
            except OSError:
                pass
    return [path for path in paths if os.path.isdir(path)]


def _recording_files(layout: Layout) -> list[str]:
    """The ledger and events files the hooks append to, made now so a file rule can hold them."""
    layout.ensure_local_dir()
    for path in (layout.ledger, layout.events):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o644))
    return [layout.ledger, layout.events]


def _git_parts(layout: Layout, mounts: bool, plan: DomainPlan) -> list[str]:
    repo = layout.repo
    if mounts:
        plan.readonly += [p for p in _git_controls(layout) if os.path.lexists(p)]
        return sorted({repo.git_dir, repo.common_dir} - {repo.hooks_dir})
    plan.notes.append("no user namespaces for read-only mounts: git's own directory stays closed, "
                      "so a commit inside the domain cannot write the index")
    parts = [os.path.join(repo.common_dir, name) for name in ("objects", "refs", "logs")]
    parts += [os.path.join(repo.git_dir, name) for name in ("refs", "logs")]
    return sorted({p for p in parts if os.path.isdir(p)} | _state_entries(layout))


def _state_entries(layout: Layout) -> set[str]:
    """Without mounts, gitai's state directories entry by entry, never the files the gates trust (the
    compiled scopes, the installed marker, gitai's own hooks): Landlock cannot take them back from a
    writable directory. No new entries can be made directly in them then, so the selection file is made
    now (empty: none)."""
    from gitai.gate.policy import CACHE_NAME

    trusted = [os.path.join(layout.state_dir, CACHE_NAME), layout.installed_marker, layout.own_hooks_dir]
    if os.path.isdir(layout.state_dir) and not os.path.lexists(layout.active_file):
        with open(layout.active_file, "x", encoding="utf-8"):
            pass
    planner = _Planner(trusted)
    for directory in (layout.state_dir, layout.shared_state_dir):
        if os.path.isdir(directory):
            planner.allow_beneath(directory)
    return planner.allowed


def _git_controls(layout: Layout) -> list[str]:
    """What in git's own directories decides what git runs and how: never writable in a domain."""
    repo = layout.repo
    from gitai.errors import GitaiError
    from gitai.gate.policy import CACHE_NAME, load_policy
    from gitai.intents.approval import approvals_path

    controls = [repo.hooks_dir, os.path.join(repo.common_dir, "hooks"), layout.own_hooks_dir,
                os.path.join(repo.common_dir, "config"),
                os.path.join(repo.git_dir, "config.worktree"), os.path.join(repo.common_dir, "info"),
                os.path.join(layout.shared_state_dir, "installed"), approvals_path(layout),
                # a linked worktree's pointers: another common dir would bring other hooks and config
                os.path.join(repo.git_dir, "commondir"), os.path.join(repo.git_dir, "gitdir")]
    own = os.path.join(repo.git_dir, "config.worktree")
    if not os.path.lexists(own):  # read when extensions.worktreeConfig is on: made empty, then read-only
        with open(own, "x", encoding="utf-8"):
            pass
    # git runs what is in it where the host turns hooks off (gitai/sandbox/enter.py): made, then read-only
    os.makedirs(layout.own_hooks_dir, exist_ok=True)
    controls += _nested_git_controls(repo.common_dir)
    try:
        load_policy(layout)  # the compiled scopes the pre-commit gate trusts: made now, then read-only
        controls.append(os.path.join(layout.state_dir, CACHE_NAME))
    except (GitaiError, OSError):
        pass  # a catalogue the gate cannot read: the gate refuses every commit anyway
    return sorted(set(controls))


def _nested_git_controls(common_dir: str) -> list[str]:
    """The same controls for the submodules' git dirs (`modules/**`) and the other linked worktrees
    (`worktrees/*`) kept in the common dir: a submodule's `core.fsmonitor` or another worktree's
    `config.worktree` would run a program in the person's next git command, outside the domain."""
    found = []
    modules = os.path.join(common_dir, "modules")
    for top, directories, _ in os.walk(modules):
        if os.path.isfile(os.path.join(top, "HEAD")):  # a submodule's git dir (may hold nested ones)
            found += [os.path.join(top, name) for name in ("config", "hooks", "info", "config.worktree")]
        directories[:] = [d for d in directories if d not in ("objects", "refs", "logs", "hooks", "info")]
    worktrees = os.path.join(common_dir, "worktrees")
    if os.path.isdir(worktrees):
        for name in os.listdir(worktrees):
            base = os.path.join(worktrees, name)
            found += [os.path.join(base, n) for n in ("config.worktree", "commondir", "gitdir")]
            if not os.path.lexists(os.path.join(base, "config.worktree")):
                # made empty, so it can be mounted read-only rather than created inside the domain
                with open(os.path.join(base, "config.worktree"), "x", encoding="utf-8"):
                    pass
    return [p for p in found if os.path.lexists(p)]


def session_state(layout: Layout, session_key: str) -> str | None:
    """The intent the agent session `session_key` (its state file's name) has selected."""
    from gitai.agents.sessions import SAFE_ID_CHARS, sessions_dir
    from gitai.util import hookjson  # not `json`: `gitai exec --again` reads this before every wrapped command

    if not session_key or not SAFE_ID_CHARS.issuperset(session_key):
        return None
    try:
        with open(os.path.join(sessions_dir(layout), session_key + ".json"), encoding="utf-8") as handle:
            data = hookjson.loads(handle.read())
    except (OSError, ValueError):
        return None
    intent = data.get("intent_id") if isinstance(data, dict) else None
    return intent if isinstance(intent, str) and intent else None
