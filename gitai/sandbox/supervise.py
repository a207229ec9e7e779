"""`gitai run` of a host that rewrites its own trust file as it runs (a registry fact: Copilot CLI keeps its
global state in the config.json that holds its trusted folders, and renames a new file onto it). Such a
file cannot be a read-only mount in the domain (the rename fails and the host exits), and an agent in the
domain must still not leave the next session ungoverned through it (docs/security.md, "The kernel domain").

So gitai stays outside the domain as the session's parent: it reads the file and holds its directory
open, starts the host in the domain as its child, forwards the signals a parent gets, and when the host
exits ends what the session left running, then puts the file back into that directory (never through
what took its place) but for what the host keeps there itself (its own keys, and the repository's own
folder trusted), saying in one line what it put back. The session cannot trace gitai (Landlock scopes
ptrace) nor signal it: it runs in a PID namespace of its own, which gitai is outside (and whose first
process's end ends every process in it), or, where none can be made, in Landlock's signal scope (ABI 6;
with neither, the host is not started).
"""

from __future__ import annotations

import errno
import os
import signal
import sys
import time

from gitai.util.lifetime import die_with_parent

TYPE_CHECKING = False
if TYPE_CHECKING:
    import ctypes
    from collections.abc import Callable, Mapping
    from typing import NoReturn

    from gitai.agents.hosts import Host
    from gitai.layout import Layout

_PR_SET_CHILD_SUBREAPER = 36
_CLONE_NEWNS = 0x00020000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REC, _MS_PRIVATE = 2, 4, 8, 16384, 1 << 18
FORWARDED = (signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2)
# SIGINT and SIGQUIT come from the terminal to the host too (one process group): the parent ignores them
IGNORED = (signal.SIGINT, signal.SIGQUIT)
LEFTOVER_GRACE = 2.0  # seconds a process the session left running has between SIGTERM and SIGKILL
MAX_TRUST_FILE = 1 << 20  # a larger trust file is not read: before the session refused, after it put back whole
_MISSING = object()
EMPTY_JSON = b"{}\n"  # what gitai makes where a user control it mounts read-only is missing (gitai/sandbox/domain.py)
_OWNER_READS = 0o400  # a mode without it: the host cannot read its trust (the host's own rename may change the rest)
COPY_MARK = ".gitai-original-"  # `.config.json.gitai-original-<random>`: the copy kept beside the file in a session


def host_rewriting_its_trust_file(command: list[str]) -> Host | None:
    """The host `command` starts (the registry's one rule: gitai/agents/hosts.py, host_of_command), where
    the registry says it rewrites its own trust file and the kernel gives a domain, else None: its trust
    file then stays a read-only mount, or, with no domain, nothing is mounted and the hooks alone hold.
    Raises GitaiError where the command names such a host in a way that rule cannot follow (`sh -c
    copilot`): started so, the host would meet its trust file read-only and could not start."""
    from gitai.agents.hosts import host_of_command
    from gitai.sandbox.landlock import LandlockUnavailable, abi_version

    host = host_of_command(command)
    named = host or _host_named_in(command)
    if not (named and named.trust_file_own_keys and named.trust_file):
        return None
    try:
        abi_version()
    except LandlockUnavailable:
        return None
    if host is None:
        from gitai.errors import GitaiError

        raise GitaiError(f"gitai run cannot tell which program `{' '.join(command)}` starts, and {named.title} "
                         f"cannot start with its {named.trust_file} read-only: start it as the program itself, "
                         f"or past env, timeout, nice, time, stdbuf, ionice, setsid, nohup, npx or node "
                         f"(gitai run INT-ID -- {named.executables[0]} ...)")
    return host


# Shells whose `-c` runs a command string (`sh -c 'copilot -p x'`), and their options that take the next word
SHELLS = ("sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "fish", "busybox")
_SHELL_VALUED = ("-o", "+o", "-O", "+O", "--rcfile", "--init-file")


def _host_named_in(command: list[str]) -> Host | None:
    """A host that rewrites its trust file, named in a command string a shell in `command` runs (`sh -c
    'copilot -p x'`, `bash -lc ...`); a host's name as any other word (`make copilot`) starts nothing."""
    import re

    from gitai.agents.hosts import HOSTS

    names = {part.split("@", 1)[0] for script in _shell_scripts(command)
             for part in re.split(r"[\s/'\";|&()<>`$=]+", script)}
    return next((host for host in HOSTS if host.trust_file_own_keys and names & set(host.executables)), None)


def _shell_scripts(command: list[str]) -> list[str]:
    """The command strings the shells in `command` run: after a shell and its options, the first other word
    where an option had `c` (`-c`, `-lc`, `-e -c`)."""
    scripts = []
    for at, word in enumerate(command):
        name = word.rsplit("/", 1)[-1]
        if name not in SHELLS:
            continue
        rest, runs_string = command[at + 1:], False
        if name == "busybox" and rest and rest[0].rsplit("/", 1)[-1] in SHELLS:
            rest = rest[1:]  # `busybox sh -c ...`
        while rest and rest[0][:1] in "-+" and rest[0] not in ("-", "--"):
            option = rest.pop(0)
            if option in _SHELL_VALUED and rest:
                rest.pop(0)
            elif not option.startswith("--") and "c" in option[1:]:
                runs_string = True
        if rest and rest[0] == "--":
            rest = rest[1:]
        if runs_string and rest:
            scripts.append(rest[0])
    return scripts


def trust_file_path(host: Host, home: str, environ: Mapping[str, str]) -> str:
    """Where `host` keeps its trust file, after the variable that moves it (COPILOT_HOME)."""
    from gitai.agents.hosts import home_path

    assert host.trust_file is not None
    return home_path(host.trust_file, home, environ)


class NotAFile(Exception):
    """The trust file is not a regular file of at most MAX_TRUST_FILE bytes gitai can read; says why."""


class Kept:
    """A trust file as it was before the session, and its directory held open: the bytes (None: missing),
    the JSON object (None: not one gitai can read, so only the bytes count), the file's mode, and the
    directory's identity, so that gitai writes only into that directory, never through what took its
    place, and a copy of the file held open beside it (what goes back where a full disk stops gitai
    writing). (A plain class: see DomainPlan.)"""

    __slots__ = ("path", "name", "directory", "dir_fd", "identity", "dir_mode", "data", "value", "mode",
                 "copy_name", "copy_fd")

    def __init__(self, path: str) -> None:
        """Raises GitaiError where the file is one gitai could not put back (a link, a directory, too
        large, unreadable): refused before the session, in one line."""
        import stat

        from gitai.errors import GitaiError

        self.path, self.name, self.directory = path, os.path.basename(path), os.path.dirname(path)
        try:
            # HOME is closed in the domain: the host's state directory is made now (its own mode, as it makes it)
            os.makedirs(self.directory, mode=0o700, exist_ok=True)
            self.dir_fd = os.open(os.path.realpath(self.directory),
                                  os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError as exc:
            raise GitaiError(f"cannot open {self.directory} ({exc.strerror}), where the host keeps its trust file "
                             "that gitai run puts back after the session") from None
        info = os.fstat(self.dir_fd)
        self.identity, self.dir_mode = (info.st_dev, info.st_ino), stat.S_IMODE(info.st_mode)
        try:
            self.data, self.mode = read_entry(self.dir_fd, self.name)
        except NotAFile as exc:
            os.close(self.dir_fd)
            raise GitaiError(f"{path} {exc}, so gitai run could not put it back after the session") from None
        self.value = _object(self.data) if self.data is not None else {}
        self.copy_name, self.copy_fd = "", -1
        _remove_stale_copies(self.dir_fd, self.name)
        if self.data is not None:
            try:
                self.copy_name, self.copy_fd = _keep_copy(self.dir_fd, self.name, self.data)
            except OSError as exc:
                os.close(self.dir_fd)
                raise GitaiError(f"cannot keep a copy of {path} beside it ({exc.strerror}), which gitai run puts "
                                 "back where it cannot write the file after the session (a full disk)") from None

    def close(self) -> None:
        """Close the directory; the copy kept beside the file goes (`restore_copy` may have used it)."""
        if self.copy_fd >= 0:
            try:
                os.unlink(self.copy_name, dir_fd=self.dir_fd)
            except OSError:
                pass  # already put in place, or the session removed it
            os.close(self.copy_fd)
        os.close(self.dir_fd)


def _keep_copy(dir_fd: int, name: str, data: bytes) -> tuple[str, int]:
    """A copy of `data` beside `name` (mode 0600, under a name the session cannot have taken beforehand),
    held open and locked (so that another gitai run knows it is in use): what a full disk cannot stop
    gitai from putting back, since a rename needs no new space. Returns its name and descriptor."""
    import fcntl

    copy_name = f".{name}{COPY_MARK}{os.urandom(8).hex()}"
    handle = os.open(copy_name, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                     dir_fd=dir_fd)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.fchmod(handle, 0o600)
        view = memoryview(data)
        while view:
            view = view[os.write(handle, view):]
        os.fsync(handle)
    except BaseException:
        os.close(handle)
        os.unlink(copy_name, dir_fd=dir_fd)
        raise
    return copy_name, handle


def _remove_stale_copies(dir_fd: int, name: str) -> None:
    """Remove the copies a gitai run that did not finish (killed) left beside `name`: those no running
    gitai holds locked."""
    import fcntl

    prefix = f".{name}{COPY_MARK}"
    for entry in os.listdir(dir_fd):
        if not entry.startswith(prefix):
            continue
        try:
            handle = os.open(entry, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
        except OSError:
            continue
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.unlink(entry, dir_fd=dir_fd)
        except OSError:
            pass  # in use by another gitai run
        finally:
            os.close(handle)


def read_entry(dir_fd: int, name: str) -> tuple[bytes | None, int]:
    """(bytes, mode) of the file `name` in the directory `dir_fd`, never through a link; (None, 0o600)
    where there is none. Raises NotAFile."""
    import stat

    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
    except FileNotFoundError:
        return None, 0o600
    except OSError as exc:  # ELOOP: a link
        raise NotAFile("is a link (make it a copy of what it links to)"
                       if exc.errno == errno.ELOOP else f"cannot be read ({exc.strerror})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotAFile("is not a regular file")
        chunks, size = [], 0
        while size <= MAX_TRUST_FILE and info.st_size <= MAX_TRUST_FILE:
            chunk = os.read(fd, MAX_TRUST_FILE + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > MAX_TRUST_FILE or info.st_size > MAX_TRUST_FILE:
            raise NotAFile(f"is larger than {MAX_TRUST_FILE} bytes")
        return b"".join(chunks), stat.S_IMODE(info.st_mode)
    except OSError as exc:
        raise NotAFile(f"cannot be read ({exc.strerror})") from None
    finally:
        os.close(fd)


def _object(data: bytes) -> dict[str, object] | None:
    from gitai.agents.trust import json_config

    try:
        value = json_config(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _header(data: bytes) -> str:
    """The `//` lines a host heads its JSON config with (Copilot CLI: two), kept above what gitai writes."""
    lines = data.decode("utf-8", "replace").splitlines(keepends=True)
    found = []
    while lines and lines[0].lstrip().startswith("//"):
        found.append(lines.pop(0))
    return "".join(found)


def put_back(kept: Kept, own_keys: tuple[str, ...], roots: tuple[str, ...]) -> str | None:
    """Put the trust file back as it was before the session, but for `own_keys` (as the host left them)
    and the folders added to its trusted folders that are `roots` (the session's repository: what the
    host trusts when the person says so); returns one line saying what was put back, or None. Always
    through the directory held open since before the session, whatever its path leads to now (the line
    says where that differs). Whatever fails here, the bytes kept before the session go back in place
    (where even that cannot be written, the file is removed)."""
    try:
        said = _put_back(kept, own_keys, roots)
    except Exception as exc:  # noqa: BLE001 - what the session left must never stop the put-back
        said = _as_it_was(kept, f"{exc.__class__.__name__}: {exc}")
    moved = _path_elsewhere(kept)
    return "; ".join(filter(None, (said, moved))) or None


def put_back_whole(kept: Kept) -> str | None:
    """Put back, byte for byte and with its mode, a user control the host never writes itself (its MCP
    servers: a registry fact) where the session changed it (a read-only mount holds it where mounts can
    be made; without, this is all that does); one line saying so, or None. The empty file gitai made where
    there was none (so that it could be mounted read-only) stays."""
    try:
        data, mode = read_entry(kept.dir_fd, kept.name)
    except NotAFile:
        data, mode = b"", -1  # a link, a directory ...: never what was there
    if data == kept.data and (data is None or mode == kept.mode) or (kept.data is None and data == EMPTY_JSON):
        return None
    try:
        _replace(kept, kept.data, kept.mode)
    except Exception as exc:  # noqa: BLE001 - one line, never a traceback
        return _as_it_was(kept, f"{exc.__class__.__name__}: {exc}", "starts none of the MCP servers it named")
    return f"put back {kept.path} as it was before the session, which changed it"


def _as_it_was(kept: Kept, why: str, without: str = "starts next as on its first launch (no folder trusted)") -> str:
    """Put the bytes kept before the session back, where the merge failed (`why`); where that fails too (a
    full disk), rename the copy kept beside the file since before the session into place; only where that
    copy was changed or cannot be renamed, remove the file rather than leave the session's content there:
    the host then does `without`."""
    try:
        _replace(kept, kept.data, kept.mode)
        return f"{kept.path} could not be put back as merged ({why}): put back as it was before the session"
    except Exception as exc:  # noqa: BLE001 - one line, never a traceback
        failed = f"{exc.__class__.__name__}: {exc}"
    try:
        if _restore_copy(kept):
            return (f"{kept.path} could not be written back ({why}; then {failed}): put back the copy kept beside it "
                    "since before the session, as it was")
    except Exception as exc:  # noqa: BLE001 - one line, never a traceback
        failed += f"; the copy kept beside it: {exc.__class__.__name__}: {exc}"
    try:
        _replace(kept, None, kept.mode)
    except Exception as exc:  # noqa: BLE001 - one line, never a traceback
        return (f"could not put {kept.path} back ({why}; then {failed}) nor remove it ({exc}): look at it before "
                "the next session")
    return (f"could not put {kept.path} back ({why}; then {failed}): removed it rather than leave what the session "
            f"wrote there, so the host {without}")


def _path_elsewhere(kept: Kept) -> str | None:
    """Where `kept.directory` no longer leads to the directory held open (and so written into), one line
    saying so: the host finds its trust file by that path."""
    try:
        info = os.stat(kept.directory)
    except OSError as exc:
        return (f"{kept.directory} cannot be reached by its path now ({exc.strerror}: a directory above it was "
                f"removed or closed to you), so the file was put back in the directory held open since before the "
                f"session; look at {kept.path} before the next session")
    if (info.st_dev, info.st_ino) == kept.identity:
        return None
    return (f"{kept.directory} is not the directory it was before the session (moved, or replaced by another or a "
            f"link): the file was put back in the directory held open since before the session, which the host "
            f"will not read there; look at {kept.path} before the next session")


def _put_back(kept: Kept, own_keys: tuple[str, ...], roots: tuple[str, ...]) -> str | None:
    import json

    from gitai.agents.hosts import FOLDER_LIST_KEYS

    replaced = f"{kept.path} was removed or replaced by something that is not a JSON object: put back as it was"
    try:
        data, mode = read_entry(kept.dir_fd, kept.name)
    except NotAFile:  # a link, a directory, too large, unreadable
        _replace(kept, kept.data, kept.mode)
        return replaced
    value = _object(data) if data is not None else {}
    if kept.value is None or value is None or data is None:
        # one side is not a JSON object, or the file is gone: the bytes decide, and the mode
        if data == kept.data and (data is None or mode & _OWNER_READS):
            return None
        _replace(kept, kept.data, kept.mode)
        return replaced if data != kept.data else f"{kept.path} had its mode changed: put back as it was"
    # as written, never through a link the session could have made (or may point elsewhere later)
    trusted = {os.path.normpath(root) for root in roots}
    merged = dict(value)
    changed = []
    for key in sorted(set(kept.value) | set(value)):
        old, new = kept.value.get(key, _MISSING), value.get(key, _MISSING)
        if key in own_keys or old == new:
            continue
        if key in FOLDER_LIST_KEYS and isinstance(new, list):
            before = old if isinstance(old, list) else []
            gone = [f for f in before if f not in new]
            taken = [f for f in new if f not in before
                     and not (isinstance(f, str) and os.path.normpath(f) in trusted)]
            if gone or taken:
                merged[key] = [f for f in new if f not in taken] + gone
                said = [f"put back: {', '.join(map(str, gone))}"] if gone else []
                said += [f"taken out: {', '.join(map(str, taken))}"] if taken else []
                changed.append(f"{key} ({'; '.join(said)})")
            continue  # the repository's own folder added: trust the host gave (a person's "remember" answer)
        if old is _MISSING:
            del merged[key]
        else:
            merged[key] = old
        changed.append(key)
    if changed:
        data = (_header(data) or _header(kept.data or b"")).encode("utf-8") + json.dumps(merged, indent=2).encode(
            "utf-8") + b"\n"
    if kept.data is not None and not mode & _OWNER_READS:  # (chmod 000: the host could not read its trust)
        changed.append(f"the file's mode ({mode:o})")
    if not changed:
        return None
    _replace(kept, data, kept.mode if kept.data is not None else mode)
    return f"put back in {kept.path} what the session changed there: {', '.join(changed)}"


def _restore_copy(kept: Kept) -> bool:
    """Rename the copy kept since before the session onto the trust file (no new space needed), where it is
    still the file gitai wrote, with the bytes kept; False where there is none or the session changed it."""
    import stat

    if kept.copy_fd < 0 or kept.data is None:
        return False
    info = os.fstat(kept.copy_fd)
    named = os.lstat(kept.copy_name, dir_fd=kept.dir_fd)
    if ((named.st_dev, named.st_ino) != (info.st_dev, info.st_ino) or not stat.S_ISREG(info.st_mode)
            or info.st_nlink != 1 or info.st_size != len(kept.data)
            or os.pread(kept.copy_fd, len(kept.data) + 1, 0) != kept.data):
        return False
    os.fchmod(kept.copy_fd, kept.mode)
    aside = _move_directory_aside(kept)
    os.rename(kept.copy_name, kept.name, src_dir_fd=kept.dir_fd, dst_dir_fd=kept.dir_fd)
    _remove_aside(kept, aside)
    return True


def _move_directory_aside(kept: Kept) -> str | None:
    """Where the session made the trust file a directory, move it aside (removed once the file is back)."""
    import stat

    try:
        if stat.S_ISDIR(os.lstat(kept.name, dir_fd=kept.dir_fd).st_mode):
            aside = f".{kept.name}.gitai-gone-{os.urandom(8).hex()}"
            os.rename(kept.name, aside, src_dir_fd=kept.dir_fd, dst_dir_fd=kept.dir_fd)
            return aside
    except FileNotFoundError:
        pass
    return None


def _remove_aside(kept: Kept, aside: str | None) -> None:
    if aside:
        try:
            _remove_tree(aside, kept.dir_fd)
        except (OSError, RecursionError):
            pass  # what the session made there stays beside the file, under a name no host reads


def _replace(kept: Kept, data: bytes | None, mode: int) -> None:
    """Put `data` (None: nothing) in place of the trust file, in the directory held open: a new file
    renamed onto it, whatever the session left there (a link is replaced, never written through)."""
    import stat

    fd = kept.dir_fd
    if stat.S_IMODE(os.fstat(fd).st_mode) != kept.dir_mode:
        os.fchmod(fd, kept.dir_mode)  # the session may have taken away gitai's right to write in it
    aside = _move_directory_aside(kept)
    if data is None:
        try:
            os.unlink(kept.name, dir_fd=fd)
        except FileNotFoundError:
            pass
    else:
        _write_new(fd, kept.name, data, mode)
    _remove_aside(kept, aside)


def _write_new(fd: int, name: str, data: bytes, mode: int) -> None:
    """A new file with `data` and `mode` renamed onto `name` in the directory `fd`."""
    temporary = f".{name}.gitai-{os.urandom(8).hex()}"  # a name the session could not have taken beforehand
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=fd)
    try:
        try:
            os.fchmod(handle, mode)  # as it was, whatever the umask
            view = memoryview(data)
            while view:
                view = view[os.write(handle, view):]
            os.fsync(handle)
        finally:
            os.close(handle)
        os.rename(temporary, name, src_dir_fd=fd, dst_dir_fd=fd)
    except BaseException:
        os.unlink(temporary, dir_fd=fd)
        raise


def _remove_tree(name: str, dir_fd: int) -> None:
    """Remove the directory `name` in `dir_fd` and all beneath it, never through a link."""
    fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    try:
        os.fchmod(fd, 0o700)
        for entry in os.listdir(fd):
            try:
                os.unlink(entry, dir_fd=fd)
            except IsADirectoryError:
                _remove_tree(entry, fd)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=dir_fd)


def run_supervised(layout: Layout, scope: tuple[str, ...], command: list[str], intent_id: str | None,
                   host: Host, path: str) -> int:
    """Start `command` in the domain as this process's child, with `path` (the host's trust file) left
    writable; when it exits, end what it left running, put the file back, and return its exit status.
    Raises GitaiError, before anything starts, where that could not be done."""
    from gitai.agents.hosts import home_path
    from gitai.errors import EXIT_INTERNAL

    own_namespace = pid_namespace_available()
    _become_subreaper(lists_children=not own_namespace)
    kept = Kept(path)
    try:  # beside it, the user controls the host never writes (its MCP servers): put back whole
        whole = [Kept(home_path(name, os.environ["HOME"], os.environ)) for name in host.user_mcp_configs]
    except BaseException:
        kept.close()
        raise
    roots = tuple(filter(None, (layout.root, layout.repo.main_worktree)))
    sys.stdout.flush()
    sys.stderr.flush()
    parent = os.getpid()
    child = os.fork()
    if child == 0:
        die_with_parent()  # a gitai killed (SIGKILL, the OOM killer) takes the session along, never left unsupervised
        if os.getppid() != parent:  # it died before that: the session does not start
            os._exit(EXIT_INTERNAL)
        _session(layout, scope, command, intent_id, path, own_namespace)
    status = _wait_forwarding(child)
    _end_leftovers()
    said = [put_back(kept, host.trust_file_own_keys, roots), *map(put_back_whole, whole)]
    for each in (kept, *whole):
        each.close()
    for line in filter(None, said):
        sys.stderr.write(f"gitai: {line}\n")
    return status


def _session(layout: Layout, scope: tuple[str, ...], command: list[str], intent_id: str | None, path: str,
             own_namespace: bool) -> NoReturn:
    """The child: with `own_namespace`, the session gets a PID namespace of its own, whose first process
    (a gitai outside the domain, which nothing inside can signal or trace) starts the host and, when it
    exits, ends every other process there (the kernel ends the rest with it); then the host in the domain."""
    from gitai.errors import EXIT_INTERNAL, EXIT_USAGE, GitaiError
    from gitai.intents.active import ENV_VAR
    from gitai.sandbox.enter import enter_domain, own_hooks_for_the_host, start

    code = EXIT_INTERNAL
    try:
        if own_namespace:
            _new_pid_namespace()
            alive, ended = os.pipe()  # at its end, read on `alive` no longer blocks: its parent is gone
            init = os.fork()
            if init:  # this process stays outside the namespace and passes its first process's status on
                os.close(alive)
                os._exit(_wait_forwarding(init))
            os.close(ended)
            die_with_parent()
            if _readable(alive):  # its parent (outside: no pid here) died before that
                os._exit(EXIT_INTERNAL)
            os.close(alive)
            _mount_proc()
            host = os.fork()
            if host:
                code = _wait_forwarding(host)
                _end_namespace()
                os._exit(code)
        enter_domain(layout, scope, supervised=(path,), unreachable=own_namespace)
        own_hooks_for_the_host(layout, command, os.environ)
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


def _wait_forwarding(child: int) -> int:
    """Wait for `child`, forwarding it the signals a parent gets (through a pidfd: once it is reaped they
    reach nothing, never a recycled pid) and ignoring the terminal's (they reach it from the terminal);
    its exit status, 128 + N where signal N ended it."""
    handle = os.pidfd_open(child)
    for number in IGNORED:
        signal.signal(number, signal.SIG_IGN)
    for number in FORWARDED:
        signal.signal(number, lambda received, _frame: _forward(handle, received))
    _, status = os.waitpid(child, 0)
    os.close(handle)
    return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


def _forward(handle: int, number: int) -> None:
    try:
        signal.pidfd_send_signal(handle, number)
    except OSError:
        pass


def _libc() -> ctypes.CDLL:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]
    return libc


def _failed(what: str) -> OSError:
    import ctypes

    error = ctypes.get_errno()
    return OSError(error, f"{what}: {os.strerror(error)}")


def _new_pid_namespace() -> None:
    """Make this process's next child the first process of a new PID namespace, in a new user namespace
    that maps this user to itself (no privilege is gained) and a private mount namespace; raises OSError."""
    import ctypes

    libc = _libc()
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(ctypes.c_int(_CLONE_NEWUSER | _CLONE_NEWPID | _CLONE_NEWNS)) < 0:
        raise _failed("unshare")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w", encoding="ascii") as handle:
            handle.write(text)
    if libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) < 0:
        raise _failed("private mounts")


def _mount_proc() -> None:
    """The namespace's own /proc: the hooks find the host above them by the pids they see."""
    if _libc().mount(b"proc", b"/proc", b"proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None) < 0:
        raise _failed("mount /proc")


def _readable(fd: int) -> bool:
    import select

    return bool(select.select([fd], [], [], 0)[0])


def pid_namespace_available() -> bool:
    """Whether the session can get a PID namespace of its own with its own /proc (unprivileged user
    namespaces, and a /proc a new one may be mounted beside), tried in a child process."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            _new_pid_namespace()
            init = os.fork()
            if init == 0:
                try:
                    _mount_proc()
                    os._exit(0)
                except BaseException:  # noqa: BLE001 - any failure means no
                    os._exit(1)
            code = os.waitstatus_to_exitcode(os.waitpid(init, 0)[1])
        except BaseException:  # noqa: BLE001 - any failure means no
            code = 1
        os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0


def _end_namespace() -> None:
    """In the namespace's first process, once the host exited: end every other process there; the
    kernel ends any left when this process exits."""
    if os.getpid() != 1:  # never outside one: there -1 is every process this user may signal
        return

    def signal_the_namespace(number: int) -> bool:
        try:
            os.kill(-1, number)  # from the first process of a PID namespace: every other process in it
        except ProcessLookupError:
            return False
        return True

    _end_all(signal_the_namespace)


def _end_all(signal_the_rest: Callable[[int], bool]) -> None:
    """Reap, then signal what is left (SIGTERM, SIGKILL after LEFTOVER_GRACE) until `signal_the_rest`
    finds none; orphans come to this process (the namespace's first, or a subreaper), so none left to
    reap means none left at all."""
    number = signal.SIGTERM
    deadline = time.monotonic() + LEFTOVER_GRACE
    while True:
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            return
        if time.monotonic() > deadline:
            number = signal.SIGKILL
        if not signal_the_rest(number):
            return
        time.sleep(0.05)


def _signal(pid: int, number: int) -> None:
    try:
        os.kill(pid, number)
    except ProcessLookupError:
        pass


def _become_subreaper(lists_children: bool) -> None:
    """Processes the session leaves behind (daemons, `nohup ... &`) become this process's children when
    their parents exit, so that they can be ended before the file is put back.
    Raises GitaiError where the kernel cannot make it their reaper or list its children (a leftover
    would then go unseen)."""
    import ctypes

    from gitai.errors import GitaiError

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(ctypes.c_int(_PR_SET_CHILD_SUBREAPER), ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0),
                  ctypes.c_ulong(0)) < 0:
        raise GitaiError(f"gitai cannot become the reaper of what the session leaves running "
                         f"({os.strerror(ctypes.get_errno())}), so it could not put the host's trust file back")
    if lists_children and not os.path.exists(f"/proc/self/task/{os.getpid()}/children"):
        raise GitaiError("this kernel does not list a process's children (/proc/PID/task/TID/children), so gitai "
                         "could not end what the session leaves running before it puts the host's trust file back")


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
    """End every process the session left running: one left behind could change the trust file after it
    was put back."""

    def signal_the_children(number: int) -> bool:
        left = _children()
        for pid in left:
            _signal(pid, number)
        return bool(left)

    _end_all(signal_the_children)
