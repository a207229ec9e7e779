"""Fixtures and hooks only; the helpers tests share are in tests/testing/."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from testing.hermetic import restart_clock, seal
from testing.host_simulator import HostSimulator
from testing.repos import catalogued, new_repo
from testing.templates import Templates, built_once


@pytest.fixture(scope="session", autouse=True)
def hermetic_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The same environment for fixtures wider than one test (set up before function fixtures)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        seal(monkeypatch, tmp_path_factory.mktemp("session-home"))
        yield


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef[object]) -> Iterator[object]:
    """A fixture wider than one test starts the commit clock afresh (a test's own seal restarts it too)."""
    if fixturedef.scope != "function":
        restart_clock()
    return (yield)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Each test gets its own HOME, so a test that writes global git config changes no other."""
    seal(monkeypatch, tmp_path_factory.mktemp("home"))


@pytest.fixture
def bare_repo(tmp_path: Path) -> Path:
    """A plain git repository with no gitai."""
    return new_repo(tmp_path / "repo")


@pytest.fixture(scope="session")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Templates:
    """Repositories many tests start from, built once in this process and copied for each test."""
    return Templates(tmp_path_factory.mktemp("templates"))


@pytest.fixture
def repo(tmp_path: Path, templates: Templates) -> Path:
    """A repository with gitai initialised, the test catalogue committed, no intent active."""
    return templates.make("repo", tmp_path / "repo", catalogued)


@pytest.fixture(scope="session")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A traced history shared by the export, report and log tests (tests/testing/history.py); read only."""
    from testing.history import history_repo

    return built_once(tmp_path_factory, "history", history_repo)


@pytest.fixture
def plain_repo(tmp_path: Path, templates: Templates) -> Path:
    """The plain test repository, for a module whose `repo` has an agent's hooks installed."""
    return templates.make("repo", tmp_path / "repo", catalogued)


@pytest.fixture
def sim(repo: Path) -> HostSimulator:
    """Claude Code, simulated, in the test's repository."""
    return HostSimulator("claude-code", repo, {**os.environ})
