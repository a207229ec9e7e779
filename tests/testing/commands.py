"""The real commands a test runs: git, and gitai as a script, a person at a terminal or an agent's tool call.

`gitai()` runs most commands in this process (click's CliRunner, through the same `main` as the script:
the same error handling and exit codes), as a check of output and exit code needs; commands that the
entry sends past the CLI, that fork workers or that replace the process still run as the script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from testing.hermetic import tick

GITAI = str(Path(sys.executable).parent / "gitai")

OWN_PROCESS = frozenset({"hook", "exec", "run", "backfill"})
"""The first words of the commands run as the script: `hook` and `exec` go past the CLI (gitai/entry.py),
`backfill` forks workers, `run` replaces the process. `blame-intent` answers the same in process; the
`git blame` the script starts ahead of the CLI (gitai/blame/early.py) is checked through `script()`."""


def git(cwd: Path, *args: str, check: bool = True, env: dict[str, str] | None = None,
        input: str | None = None) -> subprocess.CompletedProcess[str]:
    tick()
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, input=input)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def gitai(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """gitai in `cwd`, stdin empty and not a terminal, stdout and stderr captured."""
    tick()
    if args and args[0] not in OWN_PROCESS and list(args[:2]) != ["hooks", "run"]:
        return in_process(cwd, *args, env=env)
    return subprocess.run([GITAI, *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL)


def script(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """gitai as the script, always (what it does before the CLI loads is part of what is checked)."""
    tick()
    return subprocess.run([GITAI, *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL)


def in_process(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """gitai's `main` in this process, in `cwd` with `env` added, as the script would run it."""
    import click.formatting
    from click.testing import CliRunner

    from gitai.cli import main

    code: int | str | None = 0
    previous = os.getcwd()
    with CliRunner().isolation(env=env) as (stdout, stderr, _):
        click.formatting.FORCED_WIDTH = None  # the runner forces 80 columns; the script takes the terminal's
        os.chdir(cwd)
        try:
            main(list(args))
        except SystemExit as exc:
            code = exc.code
        finally:
            sys.stdout.flush()  # what a command wrote with sys.stdout.write, as the script's exit flushes it
            sys.stderr.flush()
            os.chdir(previous)
    returncode = code if isinstance(code, int) else (0 if code is None else 1)
    return subprocess.CompletedProcess([GITAI, *args], returncode, _text(stdout.getvalue()), _text(stderr.getvalue()))


def _text(output: bytes) -> str:
    """What `subprocess.run(text=True)` would have read: decoded, with universal newlines."""
    return output.decode().replace("\r\n", "\n").replace("\r", "\n")


def as_person(cwd: Path, *args: str, answer: str = "yes", env: dict[str, str] | None = None,
              code: int | None = 0, unset: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    """gitai run as a person in a terminal: a new session whose controlling terminal is a real pty,
    on which `answer` is typed (person-only commands ask there); stdin and stdout stay pipes.
    `unset`: variables taken out of the environment."""
    tick()
    master, slave = os.openpty()
    name = os.ttyname(slave)
    try:
        os.write(master, (answer + "\n").encode())
        environment = {k: v for k, v in {**os.environ, **(env or {})}.items() if k not in unset}
        proc = subprocess.run([GITAI, *args], cwd=cwd, capture_output=True, text=True, env=environment,
                              stdin=subprocess.DEVNULL, start_new_session=True,
                              preexec_fn=lambda: os.close(os.open(name, os.O_RDWR)))  # becomes the controlling tty
    finally:
        os.close(master)
        os.close(slave)
    if code is not None and proc.returncode != code:
        raise AssertionError(f"gitai {' '.join(args)} as a person: {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


def as_agent(cwd: Path, *args: str, env: dict[str, str] | None = None,
             command: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    """A command as an agent's tool call runs it: no controlling terminal, stdin not a terminal."""
    tick()
    return subprocess.run(command or [GITAI, *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL, start_new_session=True)


def gitai_ok(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """A setup step through gitai: it must succeed."""
    proc = gitai(cwd, *args, env=env)
    if proc.returncode != 0:
        raise AssertionError(f"gitai {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def gitai_json(cwd: Path, *args: str, env: dict[str, str] | None = None, code: int = 0) -> Any:
    proc = gitai(cwd, *args, "--json", env=env)
    assert proc.returncode == code, proc.stderr
    return json.loads(proc.stdout)

