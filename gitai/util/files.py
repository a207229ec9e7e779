"""File facts and writes shared across gitai (lean: the hooks import this).

A repository's content is untrusted: a clone may commit `.orchestration` (or a file gitai keeps
there) as a symbolic link to anywhere. gitai never writes through such a link: `refuse_links`
checks every component between the repository root and the file, and files are created with
O_NOFOLLOW.
"""

from __future__ import annotations

import os

from gitai.errors import GitaiError

BINARY_SNIFF = 8000  # git's own heuristic: a NUL byte in the first 8000 bytes means binary
LARGE_FILE = 10 * 1024 * 1024  # above this: no per-line work (one whole-file range, no parse)
TMP_SUFFIX = ".tmp"  # write_atomic's temporary files: `.<name>.<pid>.tmp` beside the target


def is_binary(data: bytes) -> bool:
    return b"\0" in data[:BINARY_SNIFF]


def realpaths(paths: list[str]) -> dict[str, str]:
    """`os.path.realpath` of each path, with the directories they share resolved once (the agent hooks
    resolve a dozen paths under HOME and under gitai's installation on every call). A clean absolute path's
    real path is its resolved parent's joined with its name, resolved again only where that is a link; any
    other path (relative, with `.` or `..`, a NUL) goes to `os.path.realpath` itself."""
    known = {"/": "/"}

    def resolve(path: str) -> str:
        found = known.get(path)
        if found is None:
            parent, _, name = path.rpartition("/")
            base = resolve(parent or "/")
            candidate = f"{base}{name}" if base == "/" else f"{base}/{name}"
            try:
                link = os.lstat(candidate).st_mode & 0o170000 == 0o120000  # S_ISLNK
            except OSError:
                link = False
            found = known[path] = os.path.realpath(candidate) if link else candidate
        return found

    return {path: resolve(path) if os.sep == "/" and path.startswith("/") and not path.startswith("//")
            and "\0" not in path and os.path.normpath(path) == path else os.path.realpath(path) for path in paths}


class UnsafePathError(GitaiError):
    """Writing a file would follow a symbolic link (possibly out of the repository)."""


def refuse_links(root: str, path: str) -> None:
    """Raise UnsafePathError when `path`, or a directory between `root` and it, is a symbolic link."""
    relative = os.path.relpath(path, root)
    if relative == ".." or relative.startswith(".." + os.sep):
        raise UnsafePathError(f"refusing to write {path}: it is outside the repository")
    current = root
    for part in relative.split(os.sep):
        current = os.path.join(current, part)
        if os.path.islink(current):
            shown = os.path.relpath(current, root)
            raise UnsafePathError(
                f"refusing to write through the symbolic link {shown} (gitai never writes through links, "
                f"so a clone cannot make it write outside the repository); replace {shown} with a real "
                f"{'file' if current == path else 'directory'}")
        if not os.path.exists(current):
            return


def write_atomic(path: str, data: str | bytes, mode: int | None = None) -> None:
    """Write a whole file so that readers see the old or the new content, never a mix.
    The temporary file is created exclusively without following links, and removed on failure."""
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, exist_ok=True)
    tmp = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}{TMP_SUFFIX}")
    try:
        os.unlink(tmp)  # a stale one from a crashed process with the same pid (or a planted link)
    except FileNotFoundError:
        pass
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644 if mode is None else mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data.encode("utf-8") if isinstance(data, str) else data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def remove_stale(directory: str, max_age: float, now: float) -> None:
    """Delete the files of `directory` not written for `max_age` seconds (state nobody closed:
    agent sessions that never ended, checkpoints never committed). Best effort."""
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        path = os.path.join(directory, name)
        try:
            if now - os.path.getmtime(path) >= max_age:
                os.unlink(path)
        except OSError:
            pass
