"""Linux Landlock through ctypes: restrict this process and its children to write only beneath
given paths, then keep git's own files out of reach with read-only bind mounts.

Landlock is an allow-list: a rule on a directory grants its rights to everything beneath it, and
no rule can take a right back. Git's commit needs to create and rename files in the git dir's
root (`index.lock` over `index`), which would grant the same rights over `hooks/` and `config`
beneath it; so those (and any other path given as `readonly`) are bind-mounted read-only over
themselves in a private mount namespace of a new user namespace first. The Landlock domain then
forbids any further mount change, so the agent cannot undo them. A mount point cannot be renamed or
removed, but a writable directory that holds one can, taking the mount along; so each such directory
(`pinned`) is bind-mounted over itself too, writable as before, and stays where it is. The `hidden`
paths (command servers' sockets: gitai/sandbox/servers.py) get an empty read-only mount over them.

Nothing here knows about gitai: `restrict(rules, readonly, pinned, hidden)` is the whole interface.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# Linux syscall numbers (the same on every architecture's unified table since 5.13)
_SYS_CREATE_RULESET = 444
_SYS_ADD_RULE = 445
_SYS_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
_CLONE_NEWNS = 0x00020000
_CLONE_NEWUSER = 0x10000000
_MS_RDONLY = 1
_MS_NOSUID = 2
_MS_NODEV = 4
_MS_NOEXEC = 8
_MS_REMOUNT = 32
_MS_BIND = 4096
_MS_REC = 16384
_MS_PRIVATE = 1 << 18

WRITE_FILE = 1 << 1
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2: moving a file between directories
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5

# What a rule on a file (not a directory) may carry.
FILE_RIGHTS = WRITE_FILE | TRUNCATE | IOCTL_DEV
# The rights a program needs to write beneath a directory, by the ABI that introduced them.
_WRITE_RIGHTS_BY_ABI = {
    1: WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO
    | MAKE_BLOCK | MAKE_SYM,
    2: REFER, 3: TRUNCATE, 5: IOCTL_DEV,
}
# ABI 6: a scoped domain cannot signal a process outside it (ptrace is scoped in every ABI), nor connect
# to an abstract Unix socket made outside it (a command server listening there: gitai/sandbox/servers.py)
SIGNAL_SCOPE_ABI = 6
_SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
_SCOPE_SIGNAL = 1 << 1

# ABI 1 denies every move between directories, which git needs (objects, refs): too old to use.
MINIMUM_ABI = 2
DISABLE_VARIABLE = "GITAI_NO_LANDLOCK"  # set to 1: behave as where the kernel has no Landlock
OLDER_ABI_VARIABLE = "GITAI_LANDLOCK_ABI"  # a number: use at most that ABI, as an older kernel would


class LandlockUnavailable(Exception):
    """The kernel cannot give this process a Landlock domain; the message says why, in one line."""


class MountsUnavailable(LandlockUnavailable):
    """The read-only bind mounts cannot be made (no unprivileged user namespaces)."""


class CannotHide(Exception):
    """A path the plan hides could not be hidden though mounts can be made: the domain would be weaker
    than planned, so it is not entered (the message says which path and why, in one line)."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64)]


class _ScopedRulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def abi_version() -> int:
    """The kernel's Landlock ABI version (or the older one gitai was told to use); raises
    LandlockUnavailable when there is none (or gitai was told to act as if there were none)."""
    if os.environ.get(DISABLE_VARIABLE, "").strip() not in ("", "0"):
        raise LandlockUnavailable(f"{DISABLE_VARIABLE} is set")
    if not os.uname().sysname == "Linux":
        raise LandlockUnavailable(f"Landlock is a Linux feature (this is {os.uname().sysname})")
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    version = libc.syscall(ctypes.c_long(_SYS_CREATE_RULESET), None, ctypes.c_size_t(0),
                           ctypes.c_uint32(_CREATE_RULESET_VERSION))
    if version < 0:
        error = ctypes.get_errno()
        raise LandlockUnavailable(f"the kernel offers no Landlock ({os.strerror(error)})")
    try:
        version = min(version, int(os.environ.get(OLDER_ABI_VARIABLE) or version))
    except ValueError:
        pass
    if version < MINIMUM_ABI:
        raise LandlockUnavailable(f"the kernel's Landlock ABI {version} is older than {MINIMUM_ABI}")
    return int(version)


def write_rights(abi: int) -> int:
    """Every write-type right the running ABI knows."""
    return sum(rights for since, rights in _WRITE_RIGHTS_BY_ABI.items() if since <= abi)


def _check(result: int, what: str) -> int:
    if result < 0:
        raise LandlockUnavailable(f"{what} failed: {os.strerror(ctypes.get_errno())}")
    return result


def _protect_readonly(paths: list[str], pinned: list[str], hidden: list[str]) -> None:
    """Bind-mount each pinned directory over itself, then each path read-only over itself, then hide each
    `hidden` path under an empty read-only mount (a directory under a tmpfs, anything else under
    /dev/null), in a private mount namespace (of a new user namespace that maps this user to itself, so
    no privilege is needed or gained)."""
    if not paths and not pinned and not hidden:
        return
    libc = _libc()
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(ctypes.c_int(_CLONE_NEWUSER | _CLONE_NEWNS)) < 0:
        raise MountsUnavailable(f"no user namespace: {os.strerror(ctypes.get_errno())}")
    try:
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w", encoding="ascii") as handle:
                handle.write(text)
    except OSError as exc:
        raise MountsUnavailable(f"cannot map the user namespace: {exc.strerror}") from None
    mount = libc.mount
    mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]
    if mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) < 0:
        raise MountsUnavailable(f"cannot make mounts private: {os.strerror(ctypes.get_errno())}")
    for path in sorted(pinned):  # a directory before those beneath it, all before the read-only ones
        target = os.fsencode(path)
        if mount(target, target, None, _MS_BIND | _MS_REC, None) < 0:
            raise MountsUnavailable(f"cannot bind-mount {path}: {os.strerror(ctypes.get_errno())}")
    for path in paths:
        target = os.fsencode(path)
        if mount(target, target, None, _MS_BIND | _MS_REC, None) < 0:
            raise MountsUnavailable(f"cannot bind-mount {path}: {os.strerror(ctypes.get_errno())}")
        # a remount must keep the flags the kernel locked on the underlying mount
        flags = _MS_REMOUNT | _MS_BIND | _MS_RDONLY
        try:
            stat = os.statvfs(path)
            flags |= ((_MS_NOSUID if stat.f_flag & os.ST_NOSUID else 0)
                      | (_MS_NODEV if stat.f_flag & os.ST_NODEV else 0)
                      | (_MS_NOEXEC if stat.f_flag & os.ST_NOEXEC else 0))
        except OSError:
            pass
        _check(mount(None, target, None, flags, None), f"read-only remount of {path}")
    for path in hidden:
        _hide(mount, path)


def _hide(mount: Callable[..., int], path: str) -> None:
    """An empty read-only mount over `path`: what was there cannot be reached through it (a mount point
    cannot be renamed or removed either). A path gone since planning (its server exited) has nothing to
    hide; any other failure raises CannotHide."""
    target = os.fsencode(path)
    if os.path.isdir(path):
        done = mount(b"tmpfs", target, b"tmpfs", _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, b"mode=0500")
    else:
        done = mount(b"/dev/null", target, None, _MS_BIND, None)
        if done == 0:
            done = mount(None, target, None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID | _MS_NOEXEC, None)
    if done < 0:
        error = ctypes.get_errno()
        if error != errno.ENOENT:
            raise CannotHide(f"cannot hide {path}: {os.strerror(error)}")


def mounts_available() -> bool:
    """Whether read-only bind mounts can be made here (an unprivileged user namespace that may mount),
    tried in a child process so that this one is left as it was."""
    pid = os.fork()
    if pid == 0:  # the child: the same steps as the mounts take, then gone
        code = 1
        try:
            libc = _libc()
            uid, gid = os.getuid(), os.getgid()
            if libc.unshare(ctypes.c_int(_CLONE_NEWUSER | _CLONE_NEWNS)) == 0:
                for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
                    with open(f"/proc/self/{name}", "w", encoding="ascii") as handle:
                        handle.write(text)
                mount = libc.mount
                mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]
                code = 0 if mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) == 0 else 1
        except BaseException:  # noqa: BLE001 - any failure means no
            code = 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def restrict(writable: list[str], readonly: list[str], pinned: list[str] | None = None,
             scope_signals: bool = False, hidden: list[str] | None = None) -> int:
    """Confine this process (and everything it starts) for good: writes are allowed only beneath
    the `writable` paths (every write right the ABI knows; on a file, those a file can carry), the
    `readonly` paths become read-only, the `pinned` directories cannot be renamed or removed, the
    `hidden` paths are out of sight, and from ABI 6 no abstract Unix socket made outside the domain can be
    reached. Each writable path must be real (no link in it, as planned): one that became a link, or has
    one above it, since then gets no rule, so a link swapped in never gains one.
    `scope_signals`: nothing in the domain can signal a process outside it, where the ABI can say so
    (SIGNAL_SCOPE_ABI). Returns the ABI used.

    Raises LandlockUnavailable (MountsUnavailable for the mounts, CannotHide for a hidden path) before the
    domain is entered:
    the mounts only ever take rights away, so a failure leaves the process no less confined.
    """
    abi = abi_version()
    handled = write_rights(abi)
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    attr: ctypes.Structure = _RulesetAttr(handled)
    if abi >= SIGNAL_SCOPE_ABI:
        attr = _ScopedRulesetAttr(handled, 0, _SCOPE_ABSTRACT_UNIX_SOCKET | (_SCOPE_SIGNAL if scope_signals else 0))
    ruleset = _check(libc.syscall(ctypes.c_long(_SYS_CREATE_RULESET), ctypes.byref(attr),
                                  ctypes.c_size_t(ctypes.sizeof(attr)), ctypes.c_uint32(0)), "landlock_create_ruleset")
    try:
        for path in writable:
            try:
                fd = os.open(path, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
            except OSError:
                continue  # gone since the rules were made: nothing to allow there
            try:
                mode = os.fstat(fd).st_mode
                allowed = handled if stat.S_ISDIR(mode) else handled & FILE_RIGHTS
                if stat.S_ISLNK(mode) or not allowed or not _opened_as(fd, path):
                    continue
                beneath = _PathBeneathAttr(allowed, fd)
                _check(libc.syscall(ctypes.c_long(_SYS_ADD_RULE), ctypes.c_int(ruleset),
                                    ctypes.c_int(_RULE_PATH_BENEATH), ctypes.byref(beneath), ctypes.c_uint32(0)),
                       f"landlock_add_rule for {path}")
            finally:
                os.close(fd)
        _protect_readonly(readonly, pinned or [], hidden or [])
        _check(libc.prctl(ctypes.c_int(_PR_SET_NO_NEW_PRIVS), ctypes.c_ulong(1), ctypes.c_ulong(0),
                          ctypes.c_ulong(0), ctypes.c_ulong(0)), "prctl(PR_SET_NO_NEW_PRIVS)")
        _check(libc.syscall(ctypes.c_long(_SYS_RESTRICT_SELF), ctypes.c_int(ruleset), ctypes.c_uint32(0)),
               "landlock_restrict_self")
    finally:
        os.close(ruleset)
    return abi


def _opened_as(fd: int, path: str) -> bool:
    """Whether the file `fd` holds is reached by `path` with no link on the way (the path the kernel
    gives for it is `path` itself); where /proc cannot say, O_NOFOLLOW alone has checked the last part."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}") == os.path.normpath(path)
    except OSError:
        return True
