"""Roots the kernel domain does not cover, each closed and shown by running the move for real: the
server gate smuggled past, the notes lock loop with no deadline, raw escape sequences on the
terminal, and an uninstall that removed more than install wrote."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from testing.commands import as_person, git, gitai, gitai_ok
from testing.repos import CATALOGUE, commit, write


@pytest.fixture
def server(tmp_path: Path, bare_repo: Path) -> tuple[Path, Path]:
    """A gated bare server holding the catalogue on main, and a clone without gitai that pushes to it."""
    server = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(server))
    gitai_ok(server, "hooks", "install", "--server")
    work = bare_repo
    git(work, "remote", "add", "origin", str(server))
    write(work, ".orchestration/active_intents.yaml", CATALOGUE)
    write(work, "src/auth/a.py", "a\n")
    commit(work, "catalogue\n\nIntent: INT-001")
    git(work, "push", "-q", "origin", "main")
    return server, work


def _smuggled(work: Path) -> str:
    write(work, "src/billing/evil.py", "evil\n")
    commit(work, "out of scope\n\nIntent: INT-001")
    return git(work, "rev-parse", "HEAD").stdout.strip()


@pytest.mark.parametrize("first_ref", ["refs/tags/v1", "refs/heads-not/x", "refs/pull/1/head"])
def test_server_gate_checks_commits_another_ref_brought_first(server: tuple[Path, Path], first_ref: str) -> None:
    server_dir, work = server
    main_before = git(server_dir, "rev-parse", "main").stdout
    evil = _smuggled(work)
    git(work, "push", "-q", "origin", f"{evil}:{first_ref}", check=False)  # not a branch: not gated itself
    refused = git(work, "push", "origin", "main", check=False)
    assert refused.returncode != 0 and "src/billing/evil.py" in refused.stderr
    assert git(server_dir, "rev-parse", "main").stdout == main_before


def test_server_gate_checks_the_parent_of_a_notes_commit(server: tuple[Path, Path]) -> None:
    server_dir, work = server
    main_before = git(server_dir, "rev-parse", "main").stdout
    evil = _smuggled(work)
    tree = git(work, "mktree", input="").stdout.strip()
    notes = git(work, "commit-tree", tree, "-p", evil, "-m", "Notes added by 'git notes add'").stdout.strip()
    git(work, "push", "-q", "origin", f"{notes}:refs/notes/gitai", check=False)
    refused = git(work, "push", "origin", "main", check=False)
    assert refused.returncode != 0 and "src/billing/evil.py" in refused.stderr
    assert git(server_dir, "rev-parse", "main").stdout == main_before


def test_server_gate_with_an_unborn_head_refuses_new_branches(server: tuple[Path, Path]) -> None:
    server_dir, work = server
    git(server_dir, "symbolic-ref", "HEAD", "refs/heads/nothing-here")
    _smuggled(work)
    refused = git(work, "push", "origin", "HEAD:refs/heads/side", check=False)
    assert refused.returncode != 0 and "HEAD names refs/heads/nothing-here" in refused.stderr
    assert git(server_dir, "rev-parse", "-q", "--verify", "refs/heads/side", check=False).returncode != 0


def test_server_gate_with_a_base_without_catalogue_accepts_only_the_catalogue(tmp_path: Path, bare_repo: Path) -> None:
    server_dir = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(server_dir))
    work = bare_repo
    git(work, "remote", "add", "origin", str(server_dir))
    write(work, "README.md", "r\n")
    commit(work, "before gitai")
    git(work, "push", "-q", "origin", "main")
    gitai_ok(server_dir, "hooks", "install", "--server")
    write(work, "src/billing/evil.py", "evil\n")
    commit(work, "anything\n\nIntent: INT-003")
    refused = git(work, "push", "origin", "main", check=False)
    assert refused.returncode != 0 and "src/billing/evil.py" in refused.stderr
    git(work, "reset", "-q", "--hard", "HEAD~1")
    write(work, ".orchestration/active_intents.yaml", CATALOGUE)
    commit(work, "the catalogue first")
    assert git(work, "push", "-q", "origin", "main", check=False).returncode == 0


def _unwritable(directory: Path) -> bool:
    """Make `directory` unwritable even for root (immutable), else by mode; False if neither holds."""
    if os.geteuid() == 0:
        if subprocess.run(["chattr", "+i", str(directory)], capture_output=True).returncode != 0:
            return False
    else:
        directory.chmod(0o555)
    try:
        (directory / "probe").touch()
    except OSError:
        return True
    (directory / "probe").unlink()
    return False


def test_commit_returns_with_a_warning_when_notes_are_unwritable(repo: Path) -> None:
    gitai_ok(repo, "hooks", "install")
    gitai_ok(repo, "select", "INT-001")
    notes = repo / ".git/refs/notes"
    notes.mkdir(parents=True, exist_ok=True)
    if not _unwritable(notes):
        pytest.skip("cannot make a directory unwritable here")
    try:
        write(repo, "src/auth/n.py", "n = 1\n")
        git(repo, "add", "src/auth/n.py")
        done = subprocess.run(["git", "commit", "-m", "notes cannot be written"], cwd=repo, capture_output=True,
                              text=True, timeout=120)  # a hang fails here instead of hanging the suite
    finally:
        subprocess.run(["chattr", "-i", str(notes)], capture_output=True)
        notes.chmod(0o755)
    assert done.returncode == 0, done.stderr
    assert "gitai: warning: post-commit hook failed (git notes add failed" in done.stderr
    assert git(repo, "log", "-1", "--format=%s").stdout.strip() == "notes cannot be written"


def test_human_output_escapes_control_characters(repo: Path) -> None:
    text = (repo / ".orchestration/active_intents.yaml").read_text()
    write(repo, ".orchestration/active_intents.yaml", text.replace("name: Billing", 'name: "Bill\\e[31ming\\u009b2J"'))
    commit(repo, "evil name")
    gitai_ok(repo, "hooks", "install")
    gitai_ok(repo, "select", "INT-003")
    write(repo, "src/billing/p.py", "p = 1\n")
    commit(repo, "subject \x1b]0;owned\x07 \x1b[2J here", "src/billing/p.py",
           env={"GITAI_AGENT": "claude", "GITAI_MODEL": "evil/\x1b[31mmodel"})
    outputs = {name: gitai(repo, *argv).stdout for name, argv in {
        "log": ["log", "--no-pager"], "show": ["show"], "intents": ["intents"], "status": ["status"],
        "context": ["context"], "blame-intent": ["blame-intent", "src/billing/p.py"],
        "blame-intent --summary": ["blame-intent", "--summary", "src/billing/p.py"]}.items()}
    for name, out in outputs.items():
        assert out, name
        assert not any(ch in out for ch in "\x1b\x07\x9b"), (name, out)
    assert "\\x1b[2J" in outputs["log"] and "\\x1b[31m" in outputs["intents"]
    assert "\\x1b[31mmodel" in outputs["show"]


def test_agents_uninstall_removes_exactly_what_install_wrote(repo: Path) -> None:
    settings = repo / ".claude/settings.json"
    mine = {"type": "command", "command": "gitai hook claude-code --my-own-logger"}
    write(repo, ".claude/settings.json", json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [mine]}]},
                                                     "model": "x"}, indent=4) + "\n")
    original = settings.read_text()
    gitai_ok(repo, "agents", "install", "claude-code")
    assert settings.read_text() != original
    as_person(repo, "agents", "uninstall", "claude-code")
    assert settings.read_text() == original  # the user's own hook and the 4-space indentation stay
