"""The real commands a test runs: git, and gitai as a script, a person at a terminal or an agent's tool call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

GITAI = str(Path(sys.executable).parent / "gitai")


def git(cwd: Path, *args: str, check: bool = True, env: dict[str, str] | None = None,
        input: str | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, input=input)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def gitai(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([GITAI, *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL)


def as_person(cwd: Path, *args: str, answer: str = "yes", env: dict[str, str] | None = None,
              code: int | None = 0, unset: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    """gitai run as a person in a terminal: a new session whose controlling terminal is a real pty,
    on which `answer` is typed (person-only commands ask there); stdin and stdout stay pipes.
    `unset`: variables taken out of the environment."""
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

