"""Every refusal's advice works as printed, before the first commit too: each command the gate
prints is run as it stands (PATH replaced by the refused path) and the commit then passes."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from conftest import git, gitai_ok, head, new_repo, write

from gitai.refusal import HINTS_HEADING, Refusal

CATALOGUE = """\
active_intents:
  - {id: INT-001, name: Auth, status: IN_PROGRESS, owned_scope: ["src/auth/**"]}
  - {id: INT-002, name: Docs, status: IN_PROGRESS, owned_scope: ["docs/**"]}
"""


def advice(refusal: str, label: str) -> str:
    """The command after `label` in the refusal's "How to fix" lines."""
    found = re.search(rf"^\s*{re.escape(label)}\s+(.+?)(?:\s{{3}}\(.*\))?$", refusal, re.MULTILINE)
    assert found, refusal
    return found.group(1)


def sh(repo: Path, command: str) -> None:
    proc = subprocess.run(["sh", "-c", command], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 0, f"{command}: {proc.stderr}"


def refused(repo: Path, message: str) -> str:
    proc = git(repo, "commit", "-q", "-m", message, check=False)
    assert proc.returncode == 1, proc.stderr
    return proc.stderr


def test_unstage_advice_works_before_and_after_the_first_commit(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    gitai_ok(repo, "init")
    write(repo, ".orchestration/active_intents.yaml", CATALOGUE)
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/a.py", "A = 1\n")
    write(repo, "docs/a.md", "# A\n")
    git(repo, "add", "-A")
    first = refused(repo, "first")
    unstage = advice(first, "unstage them:")
    assert unstage == "git rm --cached -- PATH"  # `git restore --staged` has no HEAD to restore from yet
    sh(repo, unstage.replace("PATH", "docs/a.md"))
    git(repo, "commit", "-q", "-m", "first")
    assert git(repo, "ls-files").stdout.split() == [".orchestration/.gitignore", ".orchestration/.intentignore",
                                                     ".orchestration/AGENT.md", ".orchestration/active_intents.yaml",
                                                     "AGENTS.md", "src/auth/a.py"]
    write(repo, "src/auth/a.py", "A = 2\n")
    git(repo, "add", "-A")
    second = refused(repo, "second")
    unstage = advice(second, "unstage them:")
    assert unstage == "git restore --staged -- PATH"
    sh(repo, unstage.replace("PATH", "docs/a.md"))
    before = head(repo)
    git(repo, "commit", "-q", "-m", "second")
    assert head(repo) != before and git(repo, "status", "--porcelain").stdout == "?? docs/\n"
    git(repo, "add", "docs/a.md")
    third = refused(repo, "docs")
    sh(repo, advice(third, "or commit them under their intent:"))
    git(repo, "commit", "-q", "-m", "docs")
    assert git(repo, "log", "-1", "--format=%(trailers:key=Intent,valueonly)").stdout.strip() == "INT-002"


def test_no_active_intent_advice_works_as_printed(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    gitai_ok(repo, "init")
    write(repo, ".orchestration/active_intents.yaml", CATALOGUE)
    write(repo, "docs/a.md", "# A\n")
    git(repo, "add", "-A")
    refusal = refused(repo, "docs first")
    fix = refusal.split("How to fix:\n", 1)[1].splitlines()[0]
    assert fix == "  gitai select INT-002   (see 'gitai intents')"
    sh(repo, fix.split("   (")[0])
    git(repo, "commit", "-q", "-m", "docs first")
    assert git(repo, "rev-list", "--count", "HEAD").stdout.strip() == "1"


def test_a_refusal_reads_the_same_for_a_person_and_an_agent() -> None:
    refusal = Refusal("write refused: 1 path outside the scope of INT-001 (Auth\x1b[2J):",
                      ["docs/a.md  owned by: INT-002"], ["stay in scope", "or switch: gitai select INT-002"])
    agent = refusal.for_agent()
    assert agent == ("gitai: write refused: 1 path outside the scope of INT-001 (Auth\x1b[2J):\n"
                     "  docs/a.md  owned by: INT-002\n"
                     f"{HINTS_HEADING}\n  stay in scope\n  or switch: gitai select INT-002")
    assert refusal.for_terminal() == agent.replace("\x1b", "\\x1b") + "\n"  # a terminal never gets the escape
    assert Refusal("commit refused: no hints").for_terminal() == "gitai: commit refused: no hints\n"
    with pytest.raises(AttributeError):
        refusal.summary = "allowed"  # type: ignore[misc]
    assert refusal.with_rows("command: x") == Refusal(refusal.summary, [*refusal.rows, "command: x"], refusal.hints)
