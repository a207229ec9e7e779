"""An agent that runs without gitai's hooks is noticed at its first commit.

A host that was never told to trust the hooks (Codex without approval, an untrusted folder in Copilot CLI,
`disableAllHooks` in Claude Code) runs the agent silently without them: no intent, no scope check. Its
commits still run git's pre-commit hook, inside the host's environment: its agent variables are set, or
the host's program is above the commit. When no session of that host ever reached gitai's hooks in this
repository, the commit is refused with the host's own way to trust them. A person's commit (no agent
variable) never gets here: the pre-commit hook imports this module only when one is set.
"""

from __future__ import annotations

import os

from gitai.agents.hosts import BY_NAME, HOSTS, Host

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from gitai.layout import Layout

ANCESTORS = 12  # git, the hook's shell, a script or two, the agent's shell, the host


def agent_host(environ: Mapping[str, str]) -> Host | None:
    """The host this process runs inside: one whose shell variables are set, or one whose hook variables
    are set with its program above this process (those may also be exported in a person's terminal)."""
    for host in HOSTS:
        if any(environ.get(name) for name in host.shell_variables):
            return host
    marked = [host for host in HOSTS if any(environ.get(name) for name in host.hook_variables)]
    if marked:
        above = _programs_above()
        for host in marked:
            if above & set(host.executables):
                return host
    return None


def runs_inside(host_name: str, environ: Mapping[str, str]) -> bool:
    """Whether this process runs inside the host `host_name`: its variables say so, or, where a command
    took them away, its program is above this process."""
    found = agent_host(environ)
    if found is not None:
        return found.name == host_name
    host = BY_NAME.get(host_name)
    return host is not None and bool(_programs_above() & set(host.executables))


def _programs_above() -> set[str]:
    """The program names of this process's ancestors (each one's argv[0], and argv[1] under node)."""
    found: set[str] = set()
    pid = os.getppid()
    for _ in range(ANCESTORS):
        if pid <= 1:
            break
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                argv = handle.read().decode("utf-8", "replace").split("\0")
            with open(f"/proc/{pid}/stat", "rb") as handle:
                pid = int(handle.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            break
        found.update(os.path.basename(arg) for arg in argv[:2] if arg)
    return found


def seen_by_hooks(layout: Layout, host: Host, environ: Mapping[str, str]) -> bool:
    """Whether gitai's hooks saw this session: in this worktree its own session (where its shell names
    the session id) or, where it does not, any live session of the host; in any of the repository's
    worktrees, its announced commit (a session there that commits here, `git -C ../wt commit`: this
    worktree's catalogue and scope gate still judge the commit). Where the shell names a session id,
    the announcement must be that session's."""
    from gitai.agents.sessions import COMMIT_RUNNING, announcement, is_live, live_sessions, session_key

    session_id = next((environ[name] for name in host.session_variables if environ.get(name)), None)
    if session_id is not None and is_live(layout, session_key(host.name, session_id)):
        return True
    if session_id is None and any(data.get("host") == host.name for data in live_sessions(layout)):
        return True
    for state_dir in layout.worktree_state_dirs():
        announced = announcement(state_dir, COMMIT_RUNNING) or {}
        if announced.get("host") == host.name and (session_id is None or announced.get("session_id") == session_id):
            return True
    return False


def ungoverned_refusal(layout: Layout, environ: Mapping[str, str]) -> str | None:
    """The pre-commit refusal of a commit made inside a host whose session gitai's hooks never saw."""
    host = agent_host(environ)
    if host is None or seen_by_hooks(layout, host, environ):
        return None
    from gitai.agents.install import host_status
    from gitai.intents.events import record_event

    status = host_status(host.name, layout.root)
    steps = list(host.trust)
    if status.state != "installed":
        steps.insert(0, f"gitai agents install {host.name}, and commit the file it writes")
    from gitai.refusal import Refusal

    trust = f"; {status.trust.detail}" if status.trust and status.trust.will_run is not True else ""
    refusal = Refusal(f"commit refused: it was made inside {host.title}, in a session gitai's hooks never saw "
                      f"(its hooks are {status.state}{trust}): the agent is working without an intent or a scope "
                      f"check. A person makes {host.title} run gitai's hooks:",
                      hints=[*steps, "then start a new session (`gitai agents status` says whether each host will "
                                     "run them)"])
    record_event(layout, "refusal", reason="ungoverned_agent", host=host.name, hooks=status.state)
    return refusal.for_terminal()
