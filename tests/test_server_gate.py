"""The server-side gate: a pre-receive hook in a real bare repository, exercised with `git push`."""

from __future__ import annotations

from pathlib import Path

from testing.commands import git, gitai, gitai_json
from testing.repos import CATALOGUE, commit, write


def test_pre_receive_refuses_out_of_scope_commits_and_accepts_the_rest(bare_repo: Path, tmp_path: Path) -> None:
    server = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(server))
    assert gitai(bare_repo, "hooks", "install", "--server").returncode == 2  # not a bare repository
    installed = gitai_json(server, "hooks", "install", "--server")
    assert installed["hooks"][0]["hook"] == "pre-receive" and installed["hooks"][0]["state"] == "installed"
    work = bare_repo  # a clone without gitai: only the server enforces
    git(work, "remote", "add", "origin", str(server))
    write(work, ".orchestration/active_intents.yaml", CATALOGUE)
    write(work, "src/auth/a.py", "a\n")
    commit(work, "catalogue and first work\n\nIntent: INT-001")
    assert git(work, "push", "-q", "origin", "main", check=False).returncode == 0  # no catalogue on the server yet

    write(work, "src/auth/b.py", "b\n")
    commit(work, "in scope\n\nIntent: INT-001")
    write(work, "src/billing/c.py", "c\n")
    commit(work, "out of scope\n\nIntent: INT-001")
    refused = git(work, "push", "origin", "main", check=False)
    assert refused.returncode != 0
    assert "gitai: push refused: 1 commit outside the scope" in refused.stderr
    assert "src/billing/c.py" in refused.stderr and "owned by: INT-003" in refused.stderr
    assert "How to fix" in refused.stderr and "Intent: INT-003" in refused.stderr
    assert git(server, "rev-parse", "main").stdout == git(work, "rev-parse", "HEAD~2").stdout  # nothing moved

    git(work, "commit", "-q", "--amend", "-m", "billing\n\nIntent: INT-003")  # self-corrected as told
    assert git(work, "push", "-q", "origin", "main", check=False).returncode == 0
    git(work, "checkout", "-q", "-b", "side")
    write(work, "docs/x.md", "x\n")
    commit(work, "no trailer")
    new_branch = git(work, "push", "origin", "side", check=False)  # a new branch: the default branch's scopes
    assert new_branch.returncode != 0 and "no Intent: trailer" in new_branch.stderr
    git(work, "commit", "-q", "--amend", "-m", "docs\n\nIntent: INT-002")
    assert git(work, "push", "-q", "origin", "side", check=False).returncode == 0
    assert git(work, "push", "-q", "origin", "side:refs/heads/copy", check=False).returncode == 0  # known commits
