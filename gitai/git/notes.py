"""Git notes through plumbing: read, write and list the notes of one notes ref."""

from __future__ import annotations

import os
import re
import time

from gitai.git.runner import GitCommandError, git_process

LOCK_WAIT_SECONDS = 2.0  # `git notes add` fails while another process holds the ref's lock: retry this long
STALE_LOCK_SECONDS = 60  # git holds a ref lock for milliseconds: one this old was left by a killed process
_LOCK_FILE = re.compile(r"'([^']+\.lock)'")


def show_note(root: str, ref: str, commit: str) -> str | None:
    """The note `commit` has under `ref` (None: it has none)."""
    proc = git_process(["notes", "--ref", ref, "show", "--end-of-options", commit], root)
    return proc.stdout.decode("utf-8", "replace") if proc.returncode == 0 else None


def add_note(root: str, ref: str, commit: str, body: bytes) -> None:
    """Replace the note of `commit`; retries while another git process holds the notes ref lock.

    Callers hold gitai's trace lock, so no gitai process is updating the ref meanwhile; a ref lock
    file older than STALE_LOCK_SECONDS is then one a killed git process left behind, and is removed.
    """
    lock = None
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    while True:
        proc = git_process(["notes", "--ref", ref, "add", "-f", "-F", "-", "--end-of-options", commit], root, body)
        if proc.returncode == 0:
            return
        error = proc.stderr.decode("utf-8", "replace")
        found = _LOCK_FILE.search(error)
        # only a lock another process holds is worth waiting for; one that cannot be made (a
        # read-only or full disk, an immutable directory) will not get better by retrying
        lock = found.group(1) if found and "File exists" in error else None
        if lock is None or time.monotonic() > deadline:
            break
        try:
            if time.time() - os.stat(lock).st_mtime > STALE_LOCK_SECONDS:
                os.unlink(lock)
                continue
        except FileNotFoundError:
            continue  # released meanwhile: try again at once (the deadline above still holds)
        time.sleep(0.02)
    if lock is not None:
        raise GitCommandError(f"{ref} is locked by {lock} (a git process is updating it, or one was killed); "
                              f"if no git process is running, remove {lock}")
    message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    raise GitCommandError(f"git notes add failed: {message[-1] if message else proc.returncode}")


def list_notes(root: str, ref: str) -> list[tuple[str, str]]:
    """(note blob, annotated commit) for every note under `ref`."""
    listing = git_process(["notes", "--ref", ref, "list"], root).stdout.decode().split()
    return list(zip(listing[::2], listing[1::2], strict=True))


_HEX = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def changed_notes(root: str, old: str | None, new: str) -> list[tuple[str, str | None, str | None]] | None:
    """(commit, old note blob, new note blob; None where there is no note) for every note that
    differs between two commits of a notes ref: one `git diff-tree`, in proportion to the change,
    not to the notes. None when `old` is None or no longer a commit (the caller reads everything)."""
    if old is None:
        return None
    proc = git_process(["diff-tree", "-r", "-z", "--no-renames", "--end-of-options", old, new], root)
    if proc.returncode != 0:
        return None
    fields = proc.stdout.split(b"\0")[:-1]  # each field ends in a NUL
    before: dict[str, str] = {}
    after: dict[str, str] = {}
    for meta, path in zip(fields[0::2], fields[1::2], strict=True):
        parts = meta.decode("ascii", "replace").split()
        commit = path.decode("utf-8", "replace").replace("/", "")  # notes fan out as ab/cdef...
        if len(parts) < 5 or not _HEX.fullmatch(commit):
            continue  # not a note (a stray file a remote's notes tree may hold)
        if parts[4] != "A":
            before[commit] = parts[2]
        if parts[4] != "D":
            after[commit] = parts[3]
    # a note moved by the tree's fan-out shows as a deletion and an addition of the same blob
    return [(c, before.get(c), after.get(c)) for c in sorted(before.keys() | after.keys())
            if before.get(c) != after.get(c)]


def write_notes(root: str, ref: str, notes: list[tuple[str, bytes]],
                subject: str = "Notes added by 'gitai backfill'") -> None:
    """Replace the notes of many commits with one notes commit, through one `git fast-import`
    (it keeps git's note fan-out). The caller holds the lock that serialises writers of `ref`."""
    tip = git_process(["rev-parse", "-q", "--verify", ref], root).stdout.decode().strip()
    ident = git_process(["var", "GIT_COMMITTER_IDENT"], root).stdout.decode().strip()
    who = ident.rsplit(" ", 2)[0] if ident else "gitai <gitai@localhost>"
    message = f"{subject}\n".encode()
    stream = [f"commit {ref}\ncommitter {who} {int(time.time())} +0000\n".encode(),
              b"data %d\n" % len(message), message]
    if tip:
        stream.append(f"from {tip}\n".encode())
    for commit, body in notes:
        stream += [f"N inline {commit}\n".encode(), b"data %d\n" % len(body), body, b"\n"]
    proc = git_process(["fast-import", "--quiet", "--done"], root, b"".join(stream) + b"done\n")
    if proc.returncode != 0:
        message_lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitCommandError(f"git fast-import failed: {message_lines[0] if message_lines else proc.returncode}")
