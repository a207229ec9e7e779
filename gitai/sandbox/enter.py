"""Entering the kernel domain of an intent and starting a command in it: what `gitai exec` and
`gitai run` share (docs/security.md, "The kernel domain").

Lean: no click, and no YAML while the policy cache is fresh. `gitai exec` runs before every shell
command of an agent whose host lets gitai's hook wrap them, so gitai/entry.py reaches `exec_main`
without loading the click CLI.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, MutableMapping

    from gitai.layout import Layout

EXEC_USAGE = "usage: gitai exec --session KEY -- COMMAND [ARGS]..."


def usable_scope(layout: Layout, intent_id: str | None) -> tuple[tuple[str, ...], str | None]:
    """(the intent's owned scope, None) or ((), why there is none)."""
    from gitai.errors import GitaiError
    from gitai.gate.policy import load_policy
    from gitai.intents.approval import is_approved
    from gitai.intents.statuses import CLOSED

    if not intent_id:
        return (), "no intent is selected"
    try:
        policy = load_policy(layout)
    except GitaiError as exc:
        return (), str(exc)
    intent = policy.intents.get(intent_id)
    if intent is None:
        return (), f"unknown intent '{intent_id}' (known: {', '.join(policy.intents) or 'none'})"
    if intent.status in CLOSED:
        return (), f"intent {intent.id} is {intent.status}"
    if intent.requires_approval and not is_approved(layout, intent.id):
        return (), f"intent {intent.id} requires a person's approval (gitai approve {intent.id})"
    return tuple(intent.scope), None


def enter_domain(layout: Layout, scope: tuple[str, ...], host_inside: bool = True,
                 supervised: tuple[str, ...] = (), unreachable: bool = False) -> None:
    """Restrict this process to the domain, or say in one line why the kernel cannot hold it.
    `host_inside`: an agent host runs in it (`gitai run`), not one command of one (`gitai exec`).
    `supervised`: the user controls a gitai parent outside the domain puts back after the session
    (gitai/sandbox/supervise.py); nothing in the domain can then signal a process outside it, and where
    the kernel cannot say so (Landlock before SIGNAL_SCOPE_ABI) GitaiError is raised before the domain,
    unless that parent is `unreachable` already (outside the session's PID namespace)."""
    from gitai.errors import GitaiError
    from gitai.sandbox.domain import plan_domain, unpinned_holders
    from gitai.sandbox.landlock import (
        SIGNAL_SCOPE_ABI,
        CannotHide,
        LandlockUnavailable,
        MountsUnavailable,
        abi_version,
        restrict,
    )

    home = os.environ.get("HOME") or None
    try:
        version = abi_version()
        if supervised and not unreachable and version < SIGNAL_SCOPE_ABI:
            raise GitaiError(f"this kernel's Landlock (ABI {version}, before {SIGNAL_SCOPE_ABI}: Linux 6.12) cannot "
                             f"keep the session from killing the gitai that puts {', '.join(supervised)} back "
                             "after it, nor can the session get a PID namespace of its own here (unprivileged user "
                             "namespaces), so gitai run does not start this host")
        # ~/.cache is not writable in the domain (programs there run later outside it): a cache of
        # its own, made before the plan so that the plan sees it
        cache = _domain_cache()
        try:
            plan = plan_domain(layout, scope, home, mounts=True, host_inside=host_inside, supervised=supervised)
            restrict(plan.writable, plan.readonly, plan.pinned, scope_signals=bool(supervised), hidden=plan.hidden)
        except CannotHide as exc:
            raise GitaiError(f"{exc}: gitai does not start the command in a domain weaker than planned") from None
        except MountsUnavailable:
            plan = plan_domain(layout, scope, home, mounts=False, host_inside=host_inside, supervised=supervised)
            movable = unpinned_holders(plan, supervised)
            if movable:
                raise GitaiError(f"without user namespaces {', '.join(movable)} cannot be pinned, and the session "
                                 "could move it away (its parent is writable in the domain) and leave another in its "
                                 "place for the next session: gitai run does not start this host; keep its state in "
                                 "a directory whose parent the domain does not open (such as HOME)") from None
            restrict(plan.writable, [], scope_signals=bool(supervised))
    except LandlockUnavailable as exc:
        sys.stderr.write(f"gitai: warning: no kernel domain ({exc}); only the agent hooks and git hooks hold "
                         "the scope\n")
        return
    for note in plan.notes:
        sys.stderr.write(f"gitai: note: {note}\n")
    from gitai.sandbox.servers import SERVER_VARIABLES

    for name in SERVER_VARIABLES:  # their servers are hidden in the domain: no client is pointed at one
        os.environ.pop(name, None)
    if cache:
        os.environ["XDG_CACHE_HOME"] = cache


def _domain_cache() -> str | None:
    """This user's cache for programs inside domains, in the temporary directory (writable in every
    domain): made once and reused, never one another user made or a link. (No `tempfile`: slow to import.)"""
    base = os.environ.get("TMPDIR") or "/tmp"
    path = os.path.join(base, f"gitai-domain-cache-{os.getuid()}")
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        info = os.lstat(path)
    except OSError:
        return None
    import stat

    return path if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() else None


def start(command: list[str], intent_id: str | None, program: str | None = None) -> None:
    """Replace this process by `command` (started from `program`, else found as its first word), which
    inherits the domain; raises GitaiError when it cannot start."""
    from gitai.errors import GitaiError
    from gitai.sandbox.domain import DOMAIN_VARIABLE

    os.environ[DOMAIN_VARIABLE] = intent_id or ""
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        if program:
            os.execv(program, command)
        os.execvp(command[0], command)
    except OSError as exc:
        raise GitaiError(f"cannot run {command[0]}: {exc.strerror}") from None


def exec_in_session(layout: Layout, session_key: str, command: list[str], program: str | None = None) -> None:
    """`gitai exec`: start `command` in the domain of the session's current intent, found as the agent
    hook finds it: the session's selection, else GITAI_INTENT, else the worktree's (none: no writes in
    the work tree)."""
    from gitai.intents.active import active_intent
    from gitai.sandbox.domain import session_state

    intent_id = session_state(layout, session_key)
    if intent_id is None:
        active = active_intent(layout)
        intent_id = active.id if active else None
    scope, why = usable_scope(layout, intent_id)
    if why:
        sys.stderr.write(f"gitai: note: {why}: the domain allows no writes in the work tree\n")
    enter_domain(layout, scope, host_inside=False)
    own_hooks_where_hooks_are_off(layout, os.environ)
    start(command, intent_id if not why else None, program)


def hooks_turned_off(environ: Mapping[str, str]) -> int | None:
    """GIT_CONFIG_COUNT where the git config given through the environment ends with an empty
    core.hooksPath (git then runs no hook at all: Gemini CLI's shell, or a person who started a host
    so), else None. Of the entries `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` the last one that names a
    key wins, and keys are case-insensitive, as in git."""
    try:
        count = int(environ.get("GIT_CONFIG_COUNT", ""))
    except ValueError:
        return None
    value = None
    for index in range(count):
        if environ.get(f"GIT_CONFIG_KEY_{index}", "").lower() == "core.hookspath":
            value = environ.get(f"GIT_CONFIG_VALUE_{index}")
    return count if value == "" else None


def git_hooks_off(host: str, environ: Mapping[str, str]) -> bool:
    """Whether git runs no hooks for the commits of `host`'s shell: the host turns them off on purpose
    (a registry fact: Gemini CLI), or the environment it was started in (`environ`, which its hooks
    share) ends with an empty core.hooksPath."""
    from gitai.agents.hosts import BY_NAME

    spec = BY_NAME.get(host)
    return (spec is not None and not spec.git_hooks_in_shell) or hooks_turned_off(environ) is not None


def own_hooks_where_hooks_are_off(layout: Layout, environ: MutableMapping[str, str]) -> None:
    """Where the command's environment turns git's hooks off (an empty core.hooksPath last: Gemini
    CLI's shell on purpose, any host a person started so), point git at gitai's own hooks directory,
    which holds the commit-msg hook only: the agent's commit gets its `Intent:` trailer (after the
    pre-commit gate under the intent the trailer names), and the repository's other hooks, turned off,
    still do not run. One more entry after the others, so it wins; git reads `git -c`
    (GIT_CONFIG_PARAMETERS) after these, and the agent hook judges that. Anywhere else the environment,
    and so a person's core.hooksPath, is left as it is."""
    count = hooks_turned_off(environ)
    if count is None or not _own_hook_gates(layout):
        return
    environ[f"GIT_CONFIG_KEY_{count}"] = "core.hooksPath"
    environ[f"GIT_CONFIG_VALUE_{count}"] = layout.own_hooks_dir
    environ["GIT_CONFIG_COUNT"] = str(count + 1)


def own_hooks_for_the_host(layout: Layout, command: list[str], environ: MutableMapping[str, str]) -> None:
    """`gitai run`: where git will run no hooks for the commits of the host's shell (the host, known by
    its program's name (host_of_command), turns them off on purpose: Gemini CLI; or `environ` ends with an empty
    core.hooksPath), point git at gitai's own hooks directory for the whole session. Inside a domain the
    hook wraps no command in `gitai exec`, which would add it command by command; through
    GIT_CONFIG_PARAMETERS (`git -c`), which git reads after the GIT_CONFIG_COUNT entries a host adds for
    each shell command, so it wins there too. (Gemini CLI drops it for the git it runs itself.)"""
    from gitai.agents.hosts import host_of_command

    host = host_of_command(command)
    if not git_hooks_off(host.name if host else "", environ) or not _own_hook_gates(layout):
        return
    quoted = "'core.hooksPath=" + layout.own_hooks_dir.replace("'", "'\\''") + "'"
    environ["GIT_CONFIG_PARAMETERS"] = " ".join(filter(None, [environ.get("GIT_CONFIG_PARAMETERS"), quoted]))


def _own_hook_gates(layout: Layout) -> bool:
    """Whether gitai's own commit-msg hook is this gitai's, which runs the pre-commit gate under the
    intent it writes (an older gitai's adds the trailer without the gate: never pointed at)."""
    from gitai.git.repository import OWN_HOOK_MARK

    try:
        with open(os.path.join(layout.own_hooks_dir, "commit-msg"), encoding="utf-8", errors="replace") as handle:
            return OWN_HOOK_MARK in handle.read()
    except OSError:
        return False


def parse_exec_arguments(argv: list[str]) -> tuple[str, list[str]]:
    """(session key, command) from `--session KEY -- COMMAND...`; raises ValueError saying what is wrong."""
    key: str | None = None
    index = 0
    while index < len(argv) and argv[index] != "--":
        word = argv[index]
        if word == "--session" and index + 1 < len(argv):
            key, index = argv[index + 1], index + 2
        elif word.startswith("--session="):
            key, index = word.split("=", 1)[1], index + 1
        else:
            raise ValueError(f"unexpected argument {word!r}")
    if not key:
        raise ValueError("--session KEY is required")
    if index >= len(argv) - 1:
        raise ValueError("no command after '--'")
    return key, argv[index + 1:]


def exec_main(argv: list[str]) -> int:
    """`gitai exec` without click, in the one error handler: bad input is one line and exit 2, a bug
    one line, exit 3 and its traceback logged, as everywhere in gitai."""
    from gitai.errors import COMMAND, EXIT_USAGE, error_handler
    from gitai.layout import find_layout

    try:
        key, command = parse_exec_arguments(argv)
    except ValueError as exc:
        sys.stderr.write(f"gitai: error: {exc}\n{EXEC_USAGE}\n")
        return EXIT_USAGE
    handled = error_handler(COMMAND, "gitai exec")
    with handled:
        layout = find_layout()
        handled.state_dir = layout.shared_state_dir  # where a bug's traceback goes
        exec_in_session(layout, key, command)
    return handled.code  # reached only when it failed: the command replaced this process


AGAIN_USAGE = "usage: GITAI exec --again KEY NONCE; exit; COMMAND (the line gitai's agent hook writes)"


class Refused(Exception):
    """The host's shell cannot be run again inside the domain as the agent hook meant: nothing runs."""


def shell_again(argv0: str, session_key: str, nonce: str, parent: int) -> tuple[str, list[str]]:
    """(program, argv) of the shell `parent` (the host's, which ran the entering line) with that line
    replaced by `:`: found by its nonce, exactly once in the whole command line, and whole, `exit`
    included. Raises Refused saying why not."""
    try:
        with open(f"/proc/{parent}/cmdline", "rb") as handle:
            words = handle.read().split(b"\0")
        program = os.readlink(f"/proc/{parent}/exe")
    except OSError as exc:
        raise Refused(f"the host's shell cannot be read ({exc.strerror})") from None
    if words and not words[-1]:
        words.pop()
    try:
        argv = [word.decode() for word in words]
    except UnicodeDecodeError:
        raise Refused("the host's shell holds a command line that is not UTF-8") from None
    if sum(word.count(nonce) for word in argv) != 1:
        raise Refused("the line entering the kernel domain is not once in the host's command")
    from gitai.sandbox.wrap import entering_line

    line = entering_line(argv0, session_key, nonce)
    found = [index for index, word in enumerate(argv) if line in word]
    if len(found) != 1 or found[0] == 0:
        raise Refused("the host's shell does not run the command as gitai's hook wrote it")
    argv[found[0]] = argv[found[0]].replace(line, ":;", 1)
    return program, argv


def again_main(argv: list[str]) -> int:
    """`gitai exec --again KEY NONCE`, run by the host's shell as the line before the agent's command:
    runs that shell's whole command string again inside the domain of the session's intent, without
    this line, and so returns its status; where that cannot be done, exits 126 saying why, and the
    `exit` after this line ends the host's shell: the agent's command never runs outside the domain."""
    from gitai.errors import GitaiError
    from gitai.layout import find_layout

    if len(argv) != 3 or argv[0] != "--again" or not argv[1] or len(argv[2]) != 16 \
            or not set(argv[2]) <= set("0123456789abcdef"):
        sys.stderr.write(f"gitai: error: unexpected arguments\n{AGAIN_USAGE}\n")
        return 126
    layout = None
    try:
        layout = find_layout()
        program, command = shell_again(sys.argv[0], argv[1], argv[2], os.getppid())
        exec_in_session(layout, argv[1], command, program)
    except (Refused, GitaiError) as exc:
        why = str(exc)
    except Exception as exc:  # noqa: BLE001 - one line, never a traceback; the traceback is logged
        from gitai.util.crash import log_traceback

        logged = log_traceback(layout.shared_state_dir if layout else None, "gitai exec --again")
        why = f"internal error ({exc.__class__.__name__}: {exc}{f'; traceback in {logged}' if logged else ''})"
    sys.stderr.write(f"gitai: refused: {why}, so the command did not run "
                     "(docs/security.md, \"The second way in\")\n")
    return 126
