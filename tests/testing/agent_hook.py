"""`gitai hook HOST [EVENT]`, the command every host's hook configuration calls, as the tests run it.

The host simulator and the hostile moves test the hook's answer and its effect, so they run it in this
process: `run_in_process` calls the lean entry's `main(argv)` as the script would, with the payload on
stdin, the environment exactly the one given, the working directory given, and stdout and stderr caught
at the file descriptors too (where a child the hook starts writes them). Afterwards the test's process is
as it was, and the caches the hook keeps for its one process are emptied, so each call starts as a fresh
process does. tests/test_hook_in_process.py checks its answers against the script's.

`run_script` runs the real process, to check the in-process answers against. The tests about the
process itself (exit codes as a host sees them, a crash, a timeout, what a child inherits, the imports
on the hook path) run the script as their own processes. Nothing that can enter a kernel domain (Landlock binds the
process that enters it for good) runs in this process: `gitai hook` never does, and each call checks it.
"""

from __future__ import annotations

import io
import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from testing.commands import GITAI

PER_PROCESS_CACHES = (("gitai.agents.checkpoints", "_SHA256"),)
"""The module-level caches on the hook's path that hold what a file said (a real hook process starts
with them empty). The others hold what no file changes: parsers, grammars, digests of given text."""


def hook_arguments(command: str) -> list[str] | None:
    """The words after `gitai hook` when a host configuration's `command` is gitai's hook (by name or by
    path, as `gitai agents install` writes it), else None: another command runs as it is written."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if len(words) < 2 or os.path.basename(words[0]) != "gitai" or words[1] != "hook":
        return None
    return words[2:]


def run_script(args: list[str], payload: bytes, env: Mapping[str, str] | None = None,
               cwd: Path | str | None = None) -> subprocess.CompletedProcess[str]:
    """`gitai hook ARGS` as a real process, the payload on stdin."""
    proc = subprocess.run([GITAI, "hook", *args], input=payload, capture_output=True, cwd=cwd, timeout=60,
                          env=dict(os.environ if env is None else env))
    return subprocess.CompletedProcess(proc.args, proc.returncode, _text(proc.stdout), _text(proc.stderr))


def run_in_process(args: list[str], payload: bytes, env: Mapping[str, str] | None = None,
                   cwd: Path | str | None = None) -> subprocess.CompletedProcess[str]:
    """`gitai hook ARGS` in this process, answering as `run_script` would."""
    from gitai.agents.hook_entry import main

    environment = dict(os.environ if env is None else env)
    privileges = _no_new_privileges()
    saved_environ, saved_cwd = dict(os.environ), os.getcwd()
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    for stream in saved_streams[1:]:
        stream.flush()
    saved_fds = [os.dup(fd) for fd in (0, 1, 2)]
    out, err = io.BytesIO(), io.BytesIO()
    code: int | str | None = 0
    with tempfile.TemporaryFile() as child_out, tempfile.TemporaryFile() as child_err:
        try:
            null = os.open(os.devnull, os.O_RDONLY)  # the real hook's stdin is at its end once it has read it
            os.dup2(null, 0)
            os.close(null)
            os.dup2(child_out.fileno(), 1)
            os.dup2(child_err.fileno(), 2)
            os.environ.clear()
            os.environ.update(environment)
            os.chdir(cwd if cwd is not None else saved_cwd)
            streams = (io.TextIOWrapper(io.BytesIO(payload), encoding="utf-8", errors="surrogateescape"),
                       _like(sys.__stdout__, out), _like(sys.__stderr__, err))
            sys.stdin, sys.stdout, sys.stderr = streams
            try:
                code = main(list(args))
            except SystemExit as exc:
                code = exc.code
            for stream in streams:
                stream.flush()
                stream.detach()  # else closing it would close the buffer read below
        finally:
            sys.stdin, sys.stdout, sys.stderr = saved_streams
            for fd, saved in enumerate(saved_fds):
                os.dup2(saved, fd)
                os.close(saved)
            os.chdir(saved_cwd)
            os.environ.clear()
            os.environ.update(saved_environ)
            _forget_caches()
        assert _no_new_privileges() == privileges, "an in-process hook set no_new_privs: it may have entered a domain"
        child_out.seek(0)
        child_err.seek(0)
        stdout, stderr = child_out.read() + out.getvalue(), child_err.read() + err.getvalue()
    returncode = code if isinstance(code, int) else (0 if code is None else 1)
    return subprocess.CompletedProcess([GITAI, "hook", *args], returncode, _text(stdout), _text(stderr))


def _like(stream: object, buffer: io.BytesIO) -> io.TextIOWrapper:
    """A text stream over `buffer` that encodes as the interpreter's own stream (`sys.__stdout__`) does."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    errors = getattr(stream, "errors", None) or "strict"
    return io.TextIOWrapper(buffer, encoding=encoding, errors=errors, write_through=True)


def _forget_caches() -> None:
    for module, name in PER_PROCESS_CACHES:
        if module in sys.modules:
            getattr(sys.modules[module], name).clear()


def _no_new_privileges() -> str:
    """This process's no_new_privs flag, which entering a Landlock domain sets first
    (gitai/sandbox/landlock.py): while a call leaves it as it was, the call entered no domain."""
    with open("/proc/self/status", encoding="ascii") as status:
        return next((line.split(":", 1)[1].strip() for line in status if line.startswith("NoNewPrivs:")), "?")


def _text(output: bytes) -> str:
    """What `subprocess.run(text=True)` would have read: decoded, with universal newlines; a byte that
    is not UTF-8 (a path's, sent back) kept as the hook's own stdin decoding keeps it."""
    return output.decode("utf-8", "surrogateescape").replace("\r\n", "\n").replace("\r", "\n")
