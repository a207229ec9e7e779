"""Findings of the review of 9078690..main, each shown by a run of the real hook (strict expected
failures: each passes once the finding is fixed, and must then lose its mark)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from testing.commands import GITAI, gitai_ok

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
