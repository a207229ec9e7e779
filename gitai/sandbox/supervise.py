"""`gitai run` of a host that rewrites its own trust file as it runs (a registry fact: Copilot CLI keeps its
global state in the config.json that holds its trusted folders, and renames a new file onto it). Such a
file cannot be a read-only mount in the domain (the rename fails and the host exits), and an agent in the
domain must still not leave the next session ungoverned through it (docs/security.md, "The kernel domain").

So gitai stays outside the domain as the session's parent: it reads the file, starts the host in the
domain as its child, forwards the signals a parent gets, and when the host exits ends what the session
left running, then puts the file back but for what the host keeps there itself (its own keys, and the
folders it trusted), saying in one line what it put back. The child cannot trace its parent (Landlock
scopes ptrace) nor signal it (Landlock's signal scope, ABI 6).
"""

from __future__ import annotations

import os
import signal
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from gitai.agents.hosts import Host
    from gitai.layout import Layout

_PR_SET_CHILD_SUBREAPER = 36
FORWARDED = (signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2)
# SIGINT and SIGQUIT come from the terminal to the host too (one process group): the parent ignores them
IGNORED = (signal.SIGINT, signal.SIGQUIT)
LEFTOVER_GRACE = 2.0  # seconds a process the session left running has between SIGTERM and SIGKILL
_MISSING = object()


def host_rewriting_its_trust_file(command: list[str]) -> Host | None:
    """The host `command` starts, where the registry says it rewrites its own trust file, else None.
    Known by its program's name: a host started through another program (`npx copilot`) is not, and its
    trust file stays a read-only mount (the host then cannot start: closed, not open)."""
    from gitai.agents.hosts import HOSTS

    name = os.path.basename(command[0]) if command else ""
    return next((h for h in HOSTS if h.trust_file_own_keys and h.trust_file and name in h.executables), None)


def trust_file_path(host: Host, home: str, environ: Mapping[str, str]) -> str:
    """Where `host` keeps its trust file, after the variable that moves it (COPILOT_HOME)."""
    from gitai.agents.hosts import home_path

    assert host.trust_file is not None
    return home_path(host.trust_file, home, environ)


class Kept:
    """A trust file as it was before the session: its bytes (None: missing) and its JSON object (None:
    not one gitai can read, so only the bytes count). (A plain class: see DomainPlan.)"""

    __slots__ = ("path", "data", "value")

    def __init__(self, path: str) -> None:
        self.path = path
        self.data, self.value = _read(path)


def _read(path: str) -> tuple[bytes | None, dict[str, object] | None]:
    """(bytes, JSON object) of the file at `path`; (None, {}) where there is none; the object is None
    where it is not a regular file or not a JSON object."""
    import stat

    from gitai.agents.trust import json_config

    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None, {}
    if not stat.S_ISREG(info.st_mode):
        return b"", None
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        value = json_config(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return data, None
    return data, value if isinstance(value, dict) else None


def put_back(kept: Kept, own_keys: tuple[str, ...]) -> str | None:
    """Put the trust file back as it was before the session, but for `own_keys` (as the host left them)
    and folders added to its trusted folders; returns one line saying what was put back, or None."""
    import json

    from gitai.agents.hosts import FOLDER_LIST_KEYS
    from gitai.util.files import write_atomic

    data, value = _read(kept.path)
    if kept.value is None or value is None or (data is None and kept.data is not None):
        # one side is not a JSON object, or the file is gone: the bytes decide
        if data == kept.data:
            return None
        _replace(kept.path, kept.data)
        return f"{kept.path} was removed or replaced by something that is not a JSON object: put back as it was"
    merged = dict(value)
    changed = []
    for key in sorted(set(kept.value) | set(value)):
        old, new = kept.value.get(key, _MISSING), value.get(key, _MISSING)
        if key in own_keys or old == new:
            continue
        if key in FOLDER_LIST_KEYS and isinstance(new, list):
            gone = [f for f in (old if isinstance(old, list) else []) if f not in new]
            if gone:
                merged[key] = new + gone
                changed.append(f"{key} ({', '.join(map(str, gone))})")
            continue  # folders only added: trust the host gave (a person's "remember" answer)
        if old is _MISSING:
            del merged[key]
        else:
            merged[key] = old
        changed.append(key)
    if not changed:
        return None
    write_atomic(kept.path, json.dumps(merged, indent=2) + "\n", mode=0o600)
    return f"put back in {kept.path} what the session changed there: {', '.join(changed)}"


def _replace(path: str, data: bytes | None) -> None:
    from gitai.util.files import write_atomic

    if os.path.isdir(path) and not os.path.islink(path):
        import shutil

        shutil.rmtree(path)
    if data is None:
        if os.path.lexists(path):
            os.unlink(path)
        return
    write_atomic(path, data, mode=0o600)


def run_supervised(layout: Layout, scope: tuple[str, ...], command: list[str], intent_id: str | None,
                   host: Host, path: str) -> int:
    """Start `command` in the domain as this process's child, with `path` (the host's trust file) left
    writable; when it exits, end what it left running, put the file back, and return its exit status."""
    from gitai.errors import EXIT_INTERNAL, EXIT_USAGE, GitaiError
    from gitai.intents.active import ENV_VAR
    from gitai.sandbox.enter import enter_domain, start

    kept = Kept(path)
    # HOME is closed in the domain: the host's state directory is made now (its own mode, as it makes it)
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    _become_subreaper()
    sys.stdout.flush()
    sys.stderr.flush()
    child = os.fork()
    if child == 0:
        code = EXIT_INTERNAL
        try:
            enter_domain(layout, scope, supervised=(path,))
            os.environ[ENV_VAR] = intent_id or ""
            start(command, intent_id)
        except GitaiError as exc:
            sys.stderr.write(f"gitai: error: {exc}\n")
            code = EXIT_USAGE
        except BaseException as exc:  # noqa: BLE001 - one line; the parent still puts the file back
            sys.stderr.write(f"gitai: internal error ({exc.__class__.__name__}: {exc})\n")
        finally:
            sys.stderr.flush()
            os._exit(code)
    for number in IGNORED:
        signal.signal(number, signal.SIG_IGN)
    for number in FORWARDED:
        signal.signal(number, lambda received, _frame: _forward(child, received))
    _, status = os.waitpid(child, 0)
    _end_leftovers()
    said = put_back(kept, host.trust_file_own_keys)
    if said:
        sys.stderr.write(f"gitai: {said}\n")
    return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


def _forward(child: int, number: int) -> None:
    try:
        os.kill(child, number)
    except ProcessLookupError:
        pass


def _become_subreaper() -> None:
    """Processes the session leaves behind (daemons, `nohup ... &`) become this process's children when
    their parents exit, so that they can be ended before the file is put back."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(ctypes.c_int(_PR_SET_CHILD_SUBREAPER), ctypes.c_ulong(1),
                                            ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))


def _children() -> list[int]:
    found = []
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return []
    for task in tasks:
        try:
            with open(f"/proc/self/task/{task}/children", encoding="ascii") as handle:
                found += [int(pid) for pid in handle.read().split()]
        except (OSError, ValueError):
            continue
    return found


def _end_leftovers() -> None:
    """End every process the session left running (SIGTERM, then SIGKILL after LEFTOVER_GRACE): one
    left behind could change the trust file after it was put back."""
    number = signal.SIGTERM
    deadline = time.monotonic() + LEFTOVER_GRACE
    while True:
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            return
        left = _children()
        if not left:
            return
        if time.monotonic() > deadline:
            number = signal.SIGKILL
        for pid in left:
            _forward(pid, number)
        time.sleep(0.05)
