"""Install, uninstall and inspect gitai's git hooks (docs/concepts.md, "The hooks").

Hooks go where git runs them: `git rev-parse --git-path hooks`, which follows linked
worktrees, submodules and `core.hooksPath`. A hook already there that is not ours is kept as
`HOOK.gitai-chained` and run first; uninstall moves it back unchanged. With `--force` a
foreign hook is not chained but set aside as `HOOK.gitai-replaced` (uninstall restores it too).

The pre-commit framework (pre-commit, prek) chains a hook it finds as `HOOK.legacy` and runs it
first. gitai meets it there in either order: where the framework's hook is installed, gitai's
goes to `HOOK.legacy` (a foreign `.legacy` becomes gitai's chained hook), so `gitai init` before
or after `pre-commit install` ends in the same layout, and again changes nothing.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import gitai
from gitai.errors import GitaiError
from gitai.git.repository import OWN_HOOK_MARK
from gitai.git.runner import config_get, run_git
from gitai.hooks.markers import LEGACY, framework_of
from gitai.hooks.markers import is_ours as _is_ours
from gitai.layout import NOTES_REF, Layout
from gitai.util.files import write_atomic

HOOK_NAMES = ("pre-commit", "commit-msg", "post-commit", "post-merge", "post-rewrite", "pre-push")
# The hooks in gitai's own hooks directory (Layout.own_hooks_dir), which git runs inside the kernel domain
# where an agent host's shell turns every hook off (gitai/sandbox/enter.py): the trailer, and the pre-commit
# gate under the intent the trailer names (the agent may name any in its command). The agent hook records
# the commit after the command (gitai/agents/commits.py); a post-commit here would record it twice.
OWN_HOOK_NAMES = ("commit-msg",)
CHAINED = ".gitai-chained"
REPLACED = ".gitai-replaced"


@dataclass(frozen=True)
class HookState:
    name: str
    path: Path
    # "installed", "missing", "foreign", "stale" (ours, but its gitai is gone), "framework" (the pre-commit
    # framework's hook, with no gitai hook in its .legacy: gitai runs there only if the framework's config lists it)
    state: str
    chained: bool  # a previous hook is kept and runs first
    framework: str | None = None  # "pre-commit" or "prek" when their hook is HOOK (gitai's then is HOOK.legacy)

    def to_json(self) -> dict[str, object]:
        return {"hook": self.name, "path": str(self.path), "state": self.state, "chained": self.chained,
                "framework": self.framework}


def render_hook(name: str, own: bool = False) -> str:
    """The hook script for `name`, bound to this Python and this gitai (`own`: the copy for gitai's own
    hooks directory, whose commit-msg also runs the pre-commit gate)."""
    template = resources.files("gitai.hooks").joinpath("gitai-hook.sh").read_text(encoding="utf-8")
    package = Path(gitai.__file__).resolve().parent
    import_path = [str(package.parent)] + [p for p in sys.path if p.endswith("-packages")]
    return (
        template.replace("@GITAI_PYTHON@", _shell_quoted(sys.executable))
        .replace("@GITAI_PATH@", _shell_quoted("\n".join(dict.fromkeys(import_path))))
        .replace("@GITAI_PACKAGE@", _shell_quoted(str(package)))
        .replace("@GITAI_HOOK@", name)
        .replace("\nown_hooks='@GITAI_OWN_HOOKS@'\n", OWN_HOOK_MARK if own else "\nown_hooks=''\n")
    )


def _shell_quoted(value: str) -> str:
    """Text to put inside single quotes in sh."""
    return value.replace("'", "'\"'\"'")


def gitai_hook_path(hooks_dir: Path, name: str) -> Path:
    """Where gitai's hook `name` goes: HOOK, or HOOK.legacy behind the pre-commit framework's hook."""
    target = hooks_dir / name
    return hooks_dir / (name + LEGACY) if framework_of(target) else target


def _write_executable(path: Path, text: str) -> None:
    write_atomic(str(path), text, 0o755)


def install_hooks(layout: Layout, force: bool = False) -> list[HookState]:
    """Install every gitai hook; idempotent. Also sets notes.rewriteRef to carry notes on rewrite.
    Refuses a core.hooksPath from the global or system config unless `force`: those hooks run in
    every repository of the machine."""
    scope = shared_hooks_scope(layout)
    if scope and not force:
        raise GitaiError(
            f"core.hooksPath comes from your {scope} git config ({layout.repo.hooks_dir}): hooks installed there run "
            "in every repository; to do that anyway: 'gitai hooks install --force' (after 'gitai init --no-hooks')"
        )
    hooks_dir = Path(layout.repo.hooks_dir)
    targets = {name: gitai_hook_path(hooks_dir, name) for name in HOOK_NAMES}
    foreign = [name for name, target in targets.items() if target.exists() and not _is_ours(target)]
    for name in foreign:  # refuse before touching anything
        kept = hooks_dir / (name + (REPLACED if force else CHAINED))
        if kept.exists() or (hooks_dir / (name + CHAINED)).exists():
            raise GitaiError(
                f"{targets[name]} is not gitai's and {kept.name if kept.exists() else name + CHAINED} already "
                "exists beside it; move one of them away, then run 'gitai hooks install' again"
            )
    hooks_dir.mkdir(parents=True, exist_ok=True)
    for name, target in targets.items():
        if name in foreign:
            os.replace(target, hooks_dir / (name + (REPLACED if force else CHAINED)))
        _write_executable(target, render_hook(name))
    own = Path(layout.own_hooks_dir)
    own.mkdir(parents=True, exist_ok=True)
    for name in OWN_HOOK_NAMES:
        _write_executable(own / name, render_hook(name, own=True))
    if NOTES_REF not in config_get("notes.rewriteRef", layout.root):
        run_git(["config", "--add", "notes.rewriteRef", NOTES_REF], layout.root)
    write_atomic(layout.installed_marker, "gitai hooks are installed for this repository\n")
    return hook_status(layout)


SERVER_HOOK = "pre-receive"


def server_hooks_dir(cwd: str) -> Path:
    """The hooks directory of the bare repository at `cwd`; GitaiError when it is not one."""
    bare = run_git(["rev-parse", "--is-bare-repository"], cwd, check=False).decode().strip()
    if bare != "true":
        raise GitaiError("--server installs the pre-receive gate in a bare repository (the one people push to); "
                         "this is not one")
    hooks = run_git(["rev-parse", "--path-format=absolute", "--git-path", "hooks"], cwd).decode().strip()
    return Path(hooks)


def install_server_hook(cwd: str, force: bool = False) -> HookState:
    """Install the pre-receive gate in a bare repository (a foreign pre-receive is chained, or set aside)."""
    hooks_dir = server_hooks_dir(cwd)
    target = hooks_dir / SERVER_HOOK
    if target.exists() and not _is_ours(target):
        kept = hooks_dir / (SERVER_HOOK + (REPLACED if force else CHAINED))
        if kept.exists():
            raise GitaiError(f"{target} is not gitai's and {kept.name} already exists beside it; move one of them away")
        os.replace(target, kept)
    hooks_dir.mkdir(parents=True, exist_ok=True)
    _write_executable(target, render_hook(SERVER_HOOK))
    return HookState(SERVER_HOOK, target, "installed", (hooks_dir / (SERVER_HOOK + CHAINED)).exists())


def uninstall_hooks(layout: Layout) -> list[HookState]:
    """Remove gitai's hooks and put back whatever was there before, byte for byte."""
    hooks_dir = Path(layout.repo.hooks_dir)
    for name in HOOK_NAMES:
        target = gitai_hook_path(hooks_dir, name)
        if target.exists() and _is_ours(target):
            target.unlink()
        for suffix in (CHAINED, REPLACED):
            kept = hooks_dir / (name + suffix)
            if kept.exists() and not target.exists():
                os.replace(kept, target)
    own = Path(layout.own_hooks_dir)
    for name in OWN_HOOK_NAMES:
        if (own / name).exists() and _is_ours(own / name):
            (own / name).unlink()
    if own.is_dir() and not any(own.iterdir()):
        own.rmdir()
    if NOTES_REF in config_get("notes.rewriteRef", layout.root):
        run_git(["config", "--unset-all", "--fixed-value", "notes.rewriteRef", NOTES_REF], layout.root)
    from gitai.trace.travel import disable

    disable(layout)
    if os.path.exists(layout.installed_marker):
        os.unlink(layout.installed_marker)
    return hook_status(layout)


def hook_status(layout: Layout) -> list[HookState]:
    """The state of each gitai hook in the hooks directory git uses."""
    states = []
    hooks_dir = Path(layout.repo.hooks_dir)
    for name in HOOK_NAMES:
        framework = framework_of(hooks_dir / name)
        path = gitai_hook_path(hooks_dir, name)
        chained = (hooks_dir / (name + CHAINED)).exists()
        if framework and not _is_ours(path):
            path, state = hooks_dir / name, "framework"
        else:
            state = _file_state(path, name)
        states.append(HookState(name, path, state, chained, framework))
    return states


def own_hook_status(layout: Layout) -> list[HookState]:
    """The state of each hook in gitai's own hooks directory: a repository installed before it existed has none,
    and a host that turns git's hooks off then commits without the trailer."""
    own = Path(layout.own_hooks_dir)
    return [HookState(name, own / name, _file_state(own / name, name, own=True), False) for name in OWN_HOOK_NAMES]


def own_hook_for_host(layout: Layout, host: str, environ: Mapping[str, str]) -> dict[str, object] | None:
    """Where git runs no hooks for the commits of `host`'s shell (gitai/sandbox/enter.py, `git_hooks_off`:
    the host turns them off, or `environ` does), gitai's own commit-msg hook, which git runs there instead
    (the agent's commit gets its trailer, and the gate under the intent it names): its path and state, why it
    is needed, and the fix when it is not this gitai's. None where git runs the repository's hooks."""
    from gitai.agents.hosts import BY_NAME
    from gitai.sandbox.enter import git_hooks_off

    if not git_hooks_off(host, environ):
        return None
    (state,) = own_hook_status(layout)
    why = (f"{BY_NAME[host].title}'s shell turns git's hooks off" if not BY_NAME[host].git_hooks_in_shell
           else "this environment turns git's hooks off: an empty core.hooksPath in GIT_CONFIG_*")
    fix = [] if state.state == "installed" else [
        "gitai hooks install (without it the agent's commits get no Intent: trailer; the agent hook still gates "
        "and records them)"]
    return {"hook": state.name, "path": str(state.path), "state": state.state, "why": why, "fix": fix}


def _file_state(path: Path, name: str, own: bool = False) -> str:
    """"missing", "foreign", "stale" or "installed" for the hook file `path` that should hold gitai's `name`
    (`own`: its copy for gitai's own hooks directory)."""
    if not path.exists():
        return "missing"
    if not _is_ours(path):
        return "foreign"
    if path.read_text(encoding="utf-8", errors="replace") != render_hook(name, own):
        return "stale"
    return "installed"


def hooks_path_setting(layout: Layout) -> str | None:
    """The value of core.hooksPath when set (hooks then live there, possibly shared)."""
    values = config_get("core.hooksPath", layout.root)
    return values[-1] if values else None


def shared_hooks_scope(layout: Layout) -> str | None:
    """"global" or "system" when core.hooksPath comes from there: the hooks then run in every repository."""
    out = run_git(["config", "--show-scope", "--get", "core.hooksPath"], layout.root, check=False).decode()
    scope = out.split("\t", 1)[0].strip()
    return scope if scope in ("global", "system") else None
