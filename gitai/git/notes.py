"""Git notes through plumbing: read, write and list the notes of one notes ref."""

from __future__ import annotations

import time

from gitai.git.runner import GitCommandError, git_process

LOCK_ATTEMPTS = 50  # `git notes add` fails while another process holds the ref's lock: retry


def show_note(root: str, ref: str, commit: str) -> str | None:
    """The note `commit` has under `ref` (None: it has none)."""
    proc = git_process(["notes", "--ref", ref, "show", commit], root)
    return proc.stdout.decode("utf-8", "replace") if proc.returncode == 0 else None


def add_note(root: str, ref: str, commit: str, body: bytes) -> None:
    """Replace the note of `commit`; retries while another git process holds the notes ref lock."""
    for _ in range(LOCK_ATTEMPTS):
        proc = git_process(["notes", "--ref", ref, "add", "-f", "-F", "-", commit], root, body)
        if proc.returncode == 0:
            return
        time.sleep(0.02)
    message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    raise GitCommandError(f"git notes add failed: {message[-1] if message else proc.returncode}")


def list_notes(root: str, ref: str) -> list[tuple[str, str]]:
    """(note blob, annotated commit) for every note under `ref`."""
    listing = git_process(["notes", "--ref", ref, "list"], root).stdout.decode().split()
    return list(zip(listing[::2], listing[1::2]))
