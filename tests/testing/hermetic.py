"""The environment every test runs in: git with no user, global or system config and no inherited
repository, no gitai or agent variables, a HOME of the test's own."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest


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
    GIT_WORK_TREE, GIT_INDEX_FILE ...), no gitai or agent variables, a fixed HOME."""
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
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
