"""Names of people: with no login name in the environment (a container, a CI job), lessons,
approvals and events name the person git commits as, not `user:unknown`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from testing.commands import as_person, git


def _gitai_without_login(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """As a person at a terminal (approve asks there), with no login name in the environment."""
    return as_person(repo, *args, unset=("USER", "LOGNAME"))


def test_lessons_approvals_and_events_name_the_git_person(repo: Path) -> None:
    git(repo, "config", "user.name", "Ada Lovelace")
    git(repo, "config", "user.email", "ada@example.com")
    person = "user:Ada Lovelace <ada@example.com>"
    lesson = json.loads(_gitai_without_login(repo, "lesson", "Run make gen first", "--intent", "INT-001",
                                             "--json").stdout)
    assert f"{person}: Run make gen first" in lesson["line"]
    assert f"{person}: Run make gen first" in (repo / ".orchestration/AGENT.md").read_text()
    approval = json.loads(_gitai_without_login(repo, "approve", "INT-004", "--json").stdout)
    assert approval["approved_by"] == person
    _gitai_without_login(repo, "select", "INT-001")
    events = [json.loads(line) for line in (repo / ".orchestration/events.jsonl").read_text().splitlines()]
    assert {e["actor"] for e in events} == {person}
    assert "unknown" not in (repo / ".orchestration/events.jsonl").read_text()

    git(repo, "config", "--unset", "user.name")  # only an email: the email names them
    assert json.loads(_gitai_without_login(repo, "approve", "INT-001", "--json").stdout)["approved_by"] == \
        "user:ada@example.com"
    login = as_person(repo, "approve", "INT-001", "--json", env={"USER": "ada"})
    assert json.loads(login.stdout)["approved_by"] == "user:ada"  # the login name still comes first
