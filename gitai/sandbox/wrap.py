"""The shell text an agent host runs in place of the agent's command, so that the command runs
inside `gitai exec`'s kernel domain for the session's current intent (docs/security.md, "The
second way in"), and whether that domain can be had here.

The agent's command stays verbatim after a short line, `GITAI exec --again KEY NONCE; exit; COMMAND`,
so that the host's own permission rules (a person's deny rule, Gemini CLI's block of `$(...)`)
still judge the agent's command: both hosts split a compound command and check each part. The line
is a program, not a shell builtin (which Claude Code always asks for), so an allow rule for it alone
lets it run in the hosts' default permission modes (`host_allow_rules`, written by `gitai agents
install`). It re-runs the host shell's whole command string inside the domain with itself left out
(gitai/sandbox/enter.py, `again_main`), so everything the host keeps between calls still works: the
working directory (Claude Code's `pwd -P >| FILE` runs inside), the functions, aliases and options
of its shell snapshot, the environment, the exit status, stdout and stderr; then `exit` ends the
host's own shell with that status before COMMAND can run there.

Where that form cannot be used (a path that needs quoting) the older form quotes the command as one
argument of gitai/sandbox/exec-in-domain.sh: confined all the same, but the host's rules then see
only the wrap. Lean: the agent hook imports this on every shell call, and `gitai exec --again` before
each wrapped command (`shlex`, which imports `re`, only for the older form).
"""

from __future__ import annotations

import os

QUOTED_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "exec-in-domain.sh")
# Characters a word of the entering line may hold: none that a host's quoting of the command
# (Claude Code's `eval '...'`) would change, so the line is found again in the shell's string.
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+:@%=,-")

# Set to 0 where the person starts the host to turn the wrapping off (on by default: the line entering
# the domain runs unasked under the allow rules `gitai agents install` writes, see docs/security.md).
WRAP_VARIABLE = "GITAI_EXEC_WRAP"
AGAIN = "--again"  # `gitai exec --again KEY NONCE`: the entering line


def wrapping_wanted() -> bool:
    """Whether the person left the wrapping on (not GITAI_EXEC_WRAP=0 where the host starts)."""
    return os.environ.get(WRAP_VARIABLE) != "0"


def entering_line(gitai: str, session_key: str, nonce: str) -> str:
    """The line before the agent's command, up to and including the `exit` that ends the host's shell."""
    return f"{gitai} exec {AGAIN} {session_key} {nonce}; exit;"


def wrap(gitai: str, session_key: str, command: str) -> str:
    """The command line that runs `command` inside `gitai exec --session session_key`; `gitai` is the
    shell-quoted absolute path of gitai. The agent's command stays verbatim where every word of the
    entering line is plain."""
    nonce = os.urandom(8).hex()  # the entering line is found again in the shell's string by it
    if gitai.startswith("/") and all(word and set(word) <= _PLAIN for word in (gitai, session_key)):
        return f"{entering_line(gitai, session_key, nonce)} {command}"
    import shlex

    return f". {shlex.quote(QUOTED_SCRIPT)} {gitai} {shlex.quote(session_key)} {shlex.quote(command)}"


def host_allow_rules(gitai: str) -> tuple[str, str]:
    """The two command prefixes a host's allow rules must name for the wrapped command to run in its
    default permission mode: the entering line (which runs nothing but the host's own, already judged,
    command string) and the bare `exit`. The agent's command is judged by the person's own rules."""
    return f"{gitai} exec {AGAIN}", "exit"


def unwrap(text: str) -> str | None:
    """The agent's own command inside a line `wrap` made (what the host reports after the call), or None."""
    words = text.split(" ", 6)
    if len(words) == 7 and os.path.basename(words[0]) == "gitai" and words[1:3] == ["exec", AGAIN] \
            and words[5] == "exit;":
        nonce = words[4][:-1]
        if words[4].endswith(";") and len(nonce) == 16 and set(nonce) <= set("0123456789abcdef"):
            return words[6]
        return None
    if not text.startswith(". "):
        return None
    import shlex

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
