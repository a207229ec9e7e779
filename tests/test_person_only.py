"""Person-only actions an agent cannot forge: each forged move runs for real, as an agent's tool call
runs it (no controlling terminal), and the test checks that nothing changed on disk."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import pytest
from testing.commands import GITAI, as_agent, as_person, git, gitai, gitai_ok
from testing.repos import CATALOGUE, commit, new_repo, write
from testing.templates import Templates

GUARDED = """\
  - id: INT-009
    name: Guarded
    status: IN_PROGRESS
    requires_approval: true
    owned_scope: ["guarded/**"]
"""
ACTIONS = [["approve", "INT-009"], ["done", "INT-001"], ["block", "INT-001", "--reason", "x"], ["hooks", "uninstall"],
           ["agents", "uninstall"]]
# How an agent's shell dresses up the call: every one without a terminal of its own.
FORMS = {
    "plain": lambda a: [GITAI, *a],
    "env -u": lambda a: ["env", "-u", "CLAUDECODE", "-u", "CLAUDE_CODE_ENTRYPOINT", GITAI, *a],
    "env -i": lambda a: ["env", "-i", f"PATH={os.environ['PATH']}", f"HOME={os.environ['HOME']}", GITAI, *a],
    "python -m": lambda a: ["env", "-u", "CLAUDECODE", sys.executable, "-m", "gitai", *a],
    "variable": lambda a: ["sh", "-c", 'unset CLAUDECODE; G="$0"; "$G" "$@"', GITAI, *a],
    "yes on stdin": lambda a: ["sh", "-c", 'unset CLAUDECODE; yes | "$0" "$@"', GITAI, *a],
}


def governed_repo(path: Path) -> Path:
    """The test catalogue and a guarded intent, gitai's git hooks and Claude Code's hooks installed."""
    repo = new_repo(path)
    gitai_ok(repo, "init")
    write(repo, ".orchestration/active_intents.yaml", CATALOGUE + GUARDED)
    commit(repo, "catalogue with a guarded intent")
    gitai_ok(repo, "hooks", "install")
    gitai_ok(repo, "agents", "install", "claude-code")
    return repo


@pytest.fixture
def governed(tmp_path: Path, templates: Templates) -> Path:
    """`governed_repo`, built once per test process; each test works in its own copy."""
    return templates.make("person-only", tmp_path / "repo", governed_repo)


def snapshot(repo: Path) -> dict[str, str]:
    """What a person-only action changes: the catalogue, approvals, events, hooks, host configs."""
    found = {}
    for rel in (".orchestration/active_intents.yaml", ".orchestration/approvals.jsonl", ".orchestration/events.jsonl",
                ".claude/settings.json"):
        path = repo / rel
        found[rel] = hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else "absent"
    for hook in sorted((repo / ".git/hooks").iterdir()):
        found[hook.name] = hashlib.sha256(hook.read_bytes()).hexdigest()
    return found


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("action", ACTIONS, ids=[" ".join(a[:2]) for a in ACTIONS])
def test_forged_person_only_actions_change_nothing(governed: Path, action: list[str], form: str) -> None:
    before = snapshot(governed)
    proc = as_agent(governed, command=FORMS[form](action), env={"CLAUDECODE": "1"})
    assert proc.returncode == 2, proc.stderr
    assert "gitai: error:" in proc.stderr
    assert snapshot(governed) == before


def test_a_person_on_a_terminal_confirms(governed: Path) -> None:
    refused = as_person(governed, "approve", "INT-009", answer="no", code=2)
    assert "not confirmed" in refused.stderr
    assert not (governed / ".orchestration/approvals.jsonl").exists()
    as_person(governed, "approve", "INT-009")
    gitai_ok(governed, "select", "INT-009")
    write(governed, "guarded/a.txt", "a\n")
    assert commit(governed, "guarded work", "guarded/a.txt", check=False).returncode == 0


def test_a_forged_approval_event_is_not_an_approval(governed: Path) -> None:
    """events.jsonl is writable where the hooks run (a kernel domain too): it is history, not authority."""
    with open(governed / ".orchestration/events.jsonl", "a", encoding="utf-8") as handle:
        handle.write('{"event":"approve","intent_id":"INT-009","approved_by":"user:ann"}\n')
    refused = gitai(governed, "select", "INT-009")
    assert refused.returncode == 2 and "approval" in refused.stderr
    assert not (governed / ".git/gitai/active").exists()


def test_an_unapproved_intent_cannot_be_named_by_environment_or_trailer(governed: Path) -> None:
    head = git(governed, "rev-parse", "HEAD").stdout.strip()
    write(governed, "guarded/a.txt", "a\n")
    git(governed, "add", "guarded/a.txt")
    by_env = git(governed, "commit", "-m", "under env", check=False, env={"GITAI_INTENT": "INT-009"})
    assert by_env.returncode != 0 and "requires a person's approval" in by_env.stderr
    gitai_ok(governed, "select", "INT-001")
    git(governed, "reset", "-q")
    write(governed, "src/auth/a.py", "a = 1\n")
    git(governed, "add", "src/auth/a.py")
    by_trailer = git(governed, "commit", "-m", "under trailer\n\nIntent: INT-009", check=False)
    assert by_trailer.returncode != 0 and "requires a person's approval" in by_trailer.stderr
    assert git(governed, "rev-parse", "HEAD").stdout.strip() == head


def test_a_pty_of_the_agents_own_cannot_approve_inside_the_domain(governed: Path) -> None:
    """Outside a domain an agent can make itself a terminal (script, expect); inside one the
    approvals file is read-only, so the approval still cannot be recorded."""
    from gitai.sandbox.landlock import LandlockUnavailable, abi_version

    try:
        abi_version()
    except LandlockUnavailable as exc:
        pytest.skip(f"no Landlock here: {exc}")
    before = snapshot(governed)
    # Answers enough for any question, typed in at once (an endless `yes` only floods the terminal).
    proc = as_agent(governed, command=[GITAI, "run", "INT-001", "--", "sh", "-c",
                                       f"yes | head -n 1000 | script -qec '{GITAI} approve INT-009' /dev/null"])
    assert "approved INT-009" not in proc.stdout
    after = snapshot(governed)
    assert after.pop(".orchestration/events.jsonl") in ("absent", hashlib.sha256(b"").hexdigest())  # made by the domain
    before.pop(".orchestration/events.jsonl")
    assert after == before
