"""Findings of the review of 9078690..main, each shown by a run of the real hook (strict expected
failures: each passes once the finding is fixed, and must then lose its mark)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from testing.commands import gitai
from testing.host_simulator import Agent, HostSimulator

from gitai.agents.install import install_host


@pytest.mark.xfail(strict=True, reason="user_controls skips CLAUDE_CONFIG_DIR: its trust_file has no directory part")
def test_claude_code_user_settings_moved_by_claude_config_dir_are_protected(repo: Path, tmp_path: Path) -> None:
    """CLAUDE_CONFIG_DIR moves ~/.claude (settings.json: the user-level hooks, `disableAllHooks`) as
    CODEX_HOME moves ~/.codex; the registry names it as the host's trust_file_variable."""
    moved = tmp_path / "claude-config"
    moved.mkdir()
    settings = moved / "settings.json"
    settings.write_text("{}\n")
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(moved)}
    install_host("claude-code", str(repo))
    gitai(repo, "select", "INT-001")
    agent = Agent(HostSimulator("claude-code", repo, env), "s-claude-moved")
    agent.start()
    home_settings = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    assert agent.write(str(home_settings)).decision == "deny"  # where it is not moved: protected
    command = f"echo '{{\"disableAllHooks\": true}}' > {settings}"
    if agent.shell(command).decision == "allow":  # as the host would: run what the hook let through
        subprocess.run(["bash", "-c", command], cwd=repo, env=env, capture_output=True)
    assert settings.read_text() == "{}\n"
