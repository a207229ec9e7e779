"""The shell text an agent host runs in place of the agent's command, so that the command runs
inside `gitai exec`'s kernel domain for the session's current intent (docs/security.md, "The
second way in"), and whether that domain can be had here.

The text sources gitai/sandbox/exec-in-domain.sh with the command as one argument, so the command's
quoting is untouched, and the host's shell keeps what it keeps between calls: the working directory
(Claude Code runs `eval COMMAND && pwd -P >| FILE` and reads the directory back), the functions,
aliases and options of its shell snapshot, the environment; the exit status, stdout and stderr pass
through. Lean: the agent hook imports this on every shell call of a host that wraps.
"""

from __future__ import annotations

import os
import shlex

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "exec-in-domain.sh")


def wrap(gitai: str, session_key: str, command: str) -> str:
    """The command line that runs `command` inside `gitai exec --session session_key`; `gitai` is the
    shell-quoted absolute path of gitai."""
    return f". {shlex.quote(SCRIPT)} {gitai} {shlex.quote(session_key)} {shlex.quote(command)}"


def unwrap(text: str) -> str | None:
    """The agent's own command inside a line `wrap` made (what the host reports after the call), or None."""
    if not text.startswith(f". {shlex.quote(SCRIPT)} "):
        return None
    try:
        words = shlex.split(text)
    except ValueError:
        return None
    return words[4] if len(words) == 5 else None


# Set to 1 where the person starts the host: its hook then wraps each shell command (off by default: a
# wrapped command no longer matches the host's own permission rules, see docs/security.md).
WRAP_VARIABLE = "GITAI_EXEC_WRAP"


def domain_available() -> bool:
    """Whether `gitai exec` would get a kernel domain here: Landlock in the kernel, not turned off by
    the person (GITAI_NO_LANDLOCK where the host started), and not already inside one (`gitai run`:
    domains stack, and inside one no new mounts can be made)."""
    from gitai.sandbox.domain import DOMAIN_VARIABLE
    from gitai.sandbox.landlock import LandlockUnavailable, abi_version

    if DOMAIN_VARIABLE in os.environ:
        return False
    try:
        abi_version()
    except LandlockUnavailable:
        return False
    return True
