"""A pager for long human output, chosen as git chooses its own: GIT_PAGER, then core.pager, then
PAGER, then `less`; `cat` or an empty value means none. Only when stdout is a terminal."""

from __future__ import annotations

import os
import subprocess
import sys

from gitai.git.runner import config_get


def pager_command(cwd: str) -> str | None:
    """The pager command to run, or None for no pager."""
    if "GIT_PAGER" in os.environ:
        command: str | None = os.environ["GIT_PAGER"]
    else:
        configured = config_get("core.pager", cwd)
        command = configured[-1] if configured else os.environ.get("PAGER", "less")
    if command is None or not command.strip() or command.strip() == "cat":
        return None
    return command


def show(text: str, cwd: str, use_pager: bool = True) -> None:
    """Write `text` to stdout, through the pager when stdout is a terminal (as git does, with
    LESS=FRX and LV=-c unless set, so a short text prints and exits like plain output)."""
    data = text.encode("utf-8", "surrogateescape")  # a path that is not UTF-8 goes out as git's bytes
    command = pager_command(cwd) if use_pager and sys.stdout.isatty() else None
    if command is None:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    env = dict(os.environ)
    env.setdefault("LESS", "FRX")
    env.setdefault("LV", "-c")
    sys.stdout.flush()
    try:
        proc: subprocess.Popen[bytes] = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, env=env)
    except OSError:
        sys.stdout.buffer.write(data)
        return
    try:
        proc.stdin.write(data)  # type: ignore[union-attr]  # stdin=PIPE
        proc.stdin.close()  # type: ignore[union-attr]
    except BrokenPipeError:
        pass  # the reader quit the pager early
    proc.wait()
