"""The environment every test runs in (git-revise's `hermetic_seal`): git with no user, global or system
config and no inherited repository, no gitai or agent variables, a HOME of the test's own, no editor, the
C locale in UTF-8, and commit dates from a clock that starts at the same second in every test."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

EPOCH = 1_735_689_600
"""2025-01-01T00:00:00Z, the date of each test's first commit."""
DATES = ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE")


def agent_variables() -> set[str]:
    """The variables by which gitai recognises an agent, from gitai's own list (a suite run inside
    an agent must not look like one)."""
    from gitai.agents.hosts import HOSTS
    from gitai.intents.approval import AGENT_VARIABLES

    hosts = {name for host in HOSTS for name in host.session_variables}  # and where each keeps its trust:
    hosts |= {host.trust_file_variable[0] for host in HOSTS if host.trust_file_variable}
    return set(AGENT_VARIABLES) | hosts


def seal(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """git with no user, global or system config and no inherited repository (GIT_DIR,
    GIT_WORK_TREE, GIT_INDEX_FILE ...), no gitai or agent variables, a fixed HOME, commits dated EPOCH,
    the C locale in UTF-8 and an editor that fails (a command that would wait for one fails instead)."""
    for name in list(os.environ):
        if name.startswith(("GIT_", "GITAI_")) or name in agent_variables():
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test Author")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "author@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test Committer")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "committer@example.com")
    for name in DATES:
        monkeypatch.setenv(name, f"{EPOCH} +0000")
    monkeypatch.setenv("GIT_EDITOR", "false")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")  # git's messages and sort order, Python's encodings: the same anywhere
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.delenv("LANGUAGE", raising=False)  # GNU gettext reads it before LC_ALL
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")


def clock() -> int:
    """The clock's time, in seconds since the epoch: "now" for a query over the tests' commits."""
    return int(os.environ.get(DATES[1], str(EPOCH)).split()[0])


def restart_clock() -> None:
    """Set the commit clock back to EPOCH (where the seal set one): each fixture wider than a test
    starts from it, so its commits carry the same dates whichever fixtures ran before it in the
    process (which, under xdist, depends on how the tests were shared out)."""
    if os.environ.get(DATES[1]):
        for name in DATES:
            os.environ[name] = f"{EPOCH} +0000"


def tick() -> None:
    """Move the commit clock on a second: each command a test runs commits later than the one before
    (the order of commits is the order they were made, as "newest first" needs), at the same dates in
    every run. A date a test sets itself is left alone."""
    current = os.environ.get(DATES[1], "").split()
    if len(current) == 2 and current[0].isdigit():
        for name in DATES:
            os.environ[name] = f"{int(current[0]) + 1} {current[1]}"


def set_clock(seconds: int) -> None:
    """Put the commit clock at `seconds` (where a copied repository's build left it)."""
    for name in DATES:
        os.environ[name] = f"{seconds} +0000"
