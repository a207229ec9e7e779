"""The shell text an agent host runs in place of the agent's command, so that the command runs
inside `gitai exec`'s kernel domain for the session's current intent (docs/security.md, "The
second way in"), and whether that domain can be had here.

The agent's command stays verbatim after a short line, `. enter-domain.sh GITAI KEY NONCE; COMMAND`,
so that the host's own permission rules (a person's deny rule, Gemini CLI's block of `$(...)`)
still judge the agent's command: both hosts split a compound command and check each part. The line
re-runs the host shell's whole command string inside the domain with itself left out
(gitai/sandbox/enter-domain.sh), so everything the host keeps between calls still works: the
working directory (Claude Code's `pwd -P >| FILE` runs inside), the functions, aliases and options
of its shell snapshot, the environment, the exit status, stdout and stderr.

Where that form cannot be used (a zsh host shell, a path that needs quoting) the older form quotes
the command as one argument of gitai/sandbox/exec-in-domain.sh: confined all the same, but the
host's rules then see only the wrap. Lean: the agent hook imports this on every shell call.
"""

from __future__ import annotations

import os
import shlex

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "enter-domain.sh")
QUOTED_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "exec-in-domain.sh")
# Characters a word of the entering line may hold: none that a host's quoting of the command
# (Claude Code's `eval '...'`) would change, so the line is found again in the shell's string.
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+:@%=,-")

# Set to 1 where the person starts the host: its hook then wraps each shell command. Off by default: the
# line entering the domain is itself judged by the host's permission rules, which in their default modes
# ask for it (Claude Code never lets a rule allow `.`), see docs/security.md.
WRAP_VARIABLE = "GITAI_EXEC_WRAP"


def wrapping_wanted() -> bool:
    """Whether the person turned the wrapping on (GITAI_EXEC_WRAP=1 where the host starts)."""
    return os.environ.get(WRAP_VARIABLE) == "1"


def wrap(gitai: str, session_key: str, command: str, host_runs_bash: bool = False) -> str:
    """The command line that runs `command` inside `gitai exec --session session_key`; `gitai` is the
    shell-quoted absolute path of gitai. The agent's command stays verbatim where the host's shell is
    bash (`host_runs_bash`: always, as Gemini CLI's on Linux; else bash unless SHELL is zsh, as Claude
    Code chooses)."""
    nonce = os.urandom(8).hex()  # the entering line is found again in the shell's string by it
    words = (SCRIPT, gitai, session_key)
    if (host_runs_bash or _shell_is_bash()) and all(word and set(word) <= _PLAIN for word in words):
        return f". {SCRIPT} {gitai} {session_key} {nonce}; {command}"
    return f". {shlex.quote(QUOTED_SCRIPT)} {gitai} {shlex.quote(session_key)} {shlex.quote(command)}"


def _shell_is_bash() -> bool:
    """Whether the host's shell is bash: Claude Code runs the person's SHELL when it is zsh (Gemini CLI
    always runs bash on Linux)."""
    return "zsh" not in os.path.basename(os.environ.get("SHELL", ""))


def unwrap(text: str) -> str | None:
    """The agent's own command inside a line `wrap` made (what the host reports after the call), or None."""
    if text.startswith(f". {SCRIPT} "):
        head, separator, command = text.partition("; ")
        words = head.split(" ")
        if separator and len(words) == 5 and len(words[4]) == 16 and set(words[4]) <= set("0123456789abcdef"):
            return command
        return None
    if not text.startswith(f". {shlex.quote(QUOTED_SCRIPT)} "):
        return None
    try:
        words = shlex.split(text)
    except ValueError:
        return None
    return words[4] if len(words) == 5 else None


def incomplete(command: str) -> str | None:
    """Why bash would not parse `command` on its own as a whole program (bash's own words), or None.
    A host may put the verbatim command inside its own shell text (Gemini CLI: `( COMMAND\\n)`): only
    a command complete on its own stays inside it, so nothing of it can run after the domain's line."""
    read_fd, write_fd = os.pipe()
    try:
        actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                   (os.POSIX_SPAWN_DUP2, write_fd, 1), (os.POSIX_SPAWN_DUP2, write_fd, 2)]
        try:
            pid = os.posix_spawnp("bash", ["bash", "-n", "-c", command], dict(os.environ), file_actions=actions)
        except OSError as exc:
            return f"bash cannot be started ({exc.strerror})"
    finally:
        os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        said = pipe.read(4096).decode("utf-8", "replace")
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0 or said.strip():
        return " ".join(said.split())[:300] or "bash does not parse it"
    return None


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
