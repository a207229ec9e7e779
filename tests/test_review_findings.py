"""Findings of the review of 9078690..main, each shown by a run of the real hook (strict expected
failures: each passes once the finding is fixed, and must then lose its mark)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from testing.commands import GITAI, git, gitai, gitai_ok
from testing.host_simulator import Agent, HostSimulator
from testing.repos import commit, write
from testing.sessions import line_counts, session
from testing.traces import note

from gitai.agents.install import install_host
from gitai.sandbox.wrap import domain_available


@pytest.mark.xfail(strict=True, reason="the bash -n check runs even where the wrap quotes the command whole (zsh)")
def test_under_zsh_a_zsh_command_is_wrapped_not_refused_by_bash(repo: Path) -> None:
    """Where the host's shell is zsh the wrap quotes the command whole (exec-in-domain.sh), so nothing of it
    can run outside the domain and bash's grammar has no say; zsh's own short `for` is refused all the same."""
    if not domain_available():
        pytest.skip("no Landlock domain here: the hook does not wrap")
    gitai_ok(repo, "hooks", "install")
    gitai_ok(repo, "select", "INT-001")
    command = "for f (src/auth/*.py) echo $f"
    payload = {"hook_event_name": "PreToolUse", "session_id": "zsh", "cwd": str(repo), "tool_name": "Bash",
               "tool_input": {"command": command}}
    proc = subprocess.run([GITAI, "hook", "claude-code"], input=json.dumps(payload), capture_output=True, text=True,
                          cwd=repo, env={**os.environ, "GITAI_EXEC_WRAP": "1", "SHELL": "/usr/bin/zsh"})
    specific = json.loads(proc.stdout)["hookSpecificOutput"] if proc.stdout.strip() else {}
    assert "exec-in-domain.sh" in str(specific.get("updatedInput", {}).get("command")), (proc.stdout, proc.stderr)


@pytest.mark.xfail(strict=True, reason="the commit announcement and the before-shell snapshot are the session's "
                                       "worktree's; the other worktree's post-commit finds neither")
def test_a_persons_edit_committed_by_the_agent_in_another_worktree_stays_the_persons(repo: Path,
                                                                                   tmp_path: Path) -> None:
    """A session seen in the main worktree may now commit in another (`git -C ../wt commit`). Its own
    lines there are the agent's, and a person's uncommitted line in that worktree stays the person's, as
    it does when the same command commits in the session's own worktree."""
    install_host("claude-code", str(repo))
    with open(repo / ".git/info/exclude", "a") as handle:
        handle.write(".claude/\n")
    write(repo, "src/auth/y.py", "a = 1\n")
    commit(repo, "base", env={"GITAI_INTENT": "INT-001"})
    other = tmp_path / "other"
    git(repo, "worktree", "add", "-q", "-b", "other", str(other))
    gitai_ok(other, "select", "INT-001")
    write(other, "src/auth/y.py", "a = 1\np = 'a person'\n")  # a person's edit, not committed
    agent = session(HostSimulator("claude-code", repo, dict(os.environ)), repo, "s-wt")
    command = f"printf 'b = 2\\n' >> {other}/src/auth/y.py && git -C {other} commit -qam 'in the other worktree'"
    assert agent.shell(command).decision == "allow"
    subprocess.run(["bash", "-c", command], cwd=repo, check=True, capture_output=True,
                   env={**os.environ, "CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s-wt"})
    agent.shell_done(command)
    record = note(other)
    assert line_counts(record, "src/auth/y.py") == {"human": 1, "ai": 1}
    (entry,) = [f for f in record["files"] if f["path"] == "src/auth/y.py"]
    assert any(c["contributor"].get("model_id") for c in entry["conversations"]), entry
