"""Shared fixtures: real git repositories in temporary directories, the real `gitai` command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

GITAI = str(Path(sys.executable).parent / "gitai")

CATALOGUE = """\
# team catalogue
active_intents:
  - id: INT-001
    name: JWT auth migration
    status: IN_PROGRESS
    owned_scope:
      - "src/auth/**"
      - "!src/auth/vendor/**"
    constraints: ["keep login() <stable> & documented"]
    acceptance_criteria: ["tests pass"]
  - id: INT-002
    name: Docs refresh
    status: DRAFT   # not started
    owned_scope: ["docs/**", "README.md"]
  - id: INT-003
    name: Billing
    status: IN_PROGRESS
    owned_scope: ["src/billing/**", "src/shared/**"]
  - id: INT-004
    name: Old work
    status: DONE
    owned_scope: ["old/**"]
  - id: INT-005
    name: Waiting
    status: BLOCKED
    blocked_reason: waiting for the security review
    owned_scope: ["blocked/**"]
"""


def _agent_variables() -> set[str]:
    """The variables by which gitai recognises an agent, from gitai's own list (a suite run inside
    an agent must not look like one)."""
    from gitai.agents.hosts import HOSTS
    from gitai.intents.approval import AGENT_VARIABLES

    hosts = {name for host in HOSTS for name in host.session_variables}  # and where each keeps its trust:
    hosts |= {host.trust_file_variable[0] for host in HOSTS if host.trust_file_variable}
    return set(AGENT_VARIABLES) | hosts


def _hermetic(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """git with no user, global or system config and no inherited repository (GIT_DIR,
    GIT_WORK_TREE, GIT_INDEX_FILE ...), no gitai or agent variables, a fixed HOME."""
    for name in list(os.environ):
        if name.startswith(("GIT_", "GITAI_")) or name in _agent_variables():
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test Author")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "author@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test Committer")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "committer@example.com")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")


@pytest.fixture(scope="session", autouse=True)
def hermetic_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The same environment for fixtures wider than one test (set up before function fixtures)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        _hermetic(monkeypatch, tmp_path_factory.mktemp("session-home"))
        yield


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Each test gets its own HOME, so a test that writes global git config changes no other."""
    _hermetic(monkeypatch, tmp_path_factory.mktemp("home"))


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


def write(repo: Path, rel: str, text: str | bytes) -> Path:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def commit(repo: Path, message: str, *paths: str, env: dict[str, str] | None = None,
           check: bool = True, extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    git(repo, "add", "-A", *(["--", *paths] if paths else []))
    return git(repo, "commit", "-m", message, *extra, check=check, env=env)


def head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").stdout.strip()


def new_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    return path


@pytest.fixture
def bare_repo(tmp_path: Path) -> Path:
    """A plain git repository with no gitai."""
    return new_repo(tmp_path / "repo")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with gitai initialised, the test catalogue committed, no intent active."""
    path = new_repo(tmp_path / "repo")
    gitai_ok(path, "init")
    write(path, ".orchestration/active_intents.yaml", CATALOGUE)
    commit(path, "add catalogue")
    return path


@pytest.fixture(scope="session")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A traced history shared by the export, report and log tests (tests/report_helpers.py); read only."""
    from report_helpers import history_repo

    return history_repo(tmp_path_factory)


def records_by_commit(repo: Path) -> dict[str, dict[str, Any]]:
    """Each commit's record from the notes, without what differs between runs (its id and time)."""
    found = {}
    for line in git(repo, "notes", "--ref", "gitai", "list").stdout.splitlines():
        _, commit_id = line.split()
        record = json.loads(git(repo, "notes", "--ref", "gitai", "show", commit_id).stdout)
        del record["id"], record["timestamp"]
        found[commit_id] = record
    return found


def kept_origins(repo: Path) -> list[bytes]:
    """The line-origins cache's entries, decompressed and sorted."""
    import zlib

    kept = repo / ".git" / "gitai" / "origins-v1"
    return sorted(zlib.decompress(path.read_bytes()) for path in kept.rglob("*.json.z"))
