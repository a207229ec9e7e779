"""The real-host suite: every test here is marked `realhosts`; a host that is not installed skips with
the reason, or fails under CI=true (CI must never pass by skipping them)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from testing.repos import CATALOGUE

from .harness import EXECUTABLE, Session, available

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.realhosts)


def make_session(host: str, tmp: Path, trusted: bool = True) -> Session:
    """A fresh repository and HOME in `tmp` with gitai's hooks installed for `host` (`trusted`: and the
    host told to run them)."""
    if not available(host):
        reason = (f"{EXECUTABLE[host]} is not installed in {HERE / 'node_modules'}: "
                  f"run `make realhosts` (npm install in tests/realhosts)")
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(reason)
        pytest.skip(reason)
    return Session(host, tmp, CATALOGUE, trusted=trusted)


@pytest.fixture
def session(tmp_path: Path) -> Callable[[str], Session]:
    return lambda host: make_session(host, tmp_path)
