"""`gitai agents status` on gitai's own commit-msg hook: where git runs no hooks for a host's shell
(Gemini CLI's on purpose; any host started with an empty core.hooksPath), that hook is what gives the
agent's commits their Intent: trailer, so the status says whether it is there and this gitai's."""

from __future__ import annotations

from pathlib import Path

from testing.commands import gitai, gitai_json, gitai_ok

from gitai.git.repository import OWN_HOOK_MARK

HOOKS_OFF = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.hooksPath", "GIT_CONFIG_VALUE_0": ""}


def rows(repo: Path, env: dict[str, str] | None = None) -> dict[str, dict[str, object]]:
    return {row["host"]: row for row in gitai_json(repo, "agents", "status", "gemini", "claude-code", "codex",
                                                   env=env)}


def test_agents_status_says_whether_gitais_own_hook_is_there_where_a_hosts_shell_runs_no_hooks(repo: Path) -> None:
    gitai_ok(repo, "agents", "install", "gemini", "claude-code")
    own = repo / ".git" / "gitai" / "hooks" / "commit-msg"
    found = rows(repo)
    assert found["gemini"]["own_hook"] == {"hook": "commit-msg", "path": str(own), "state": "installed",
                                           "why": "Gemini CLI's shell turns git's hooks off", "fix": []}
    assert "own_hook" not in found["claude-code"] and "own_hook" not in found["codex"]  # git runs their hooks

    own.write_text(own.read_text().replace(OWN_HOOK_MARK, "\n"))  # an older gitai's: no gate, never pointed at
    assert rows(repo)["gemini"]["own_hook"]["state"] == "stale"  # type: ignore[index]
    own.unlink()
    gemini = rows(repo)["gemini"]["own_hook"]
    assert gemini["state"] == "missing" and gemini["fix"][0].startswith("gitai hooks install"), gemini  # type: ignore[index]
    text = gitai(repo, "agents", "status", "gemini").stdout
    assert f"gitai's own commit-msg hook (Gemini CLI's shell turns git's hooks off): missing  {own}" in text, text
    assert "    - gitai hooks install" in text

    off = rows(repo, env=HOOKS_OFF)  # a host started where the environment turns git's hooks off
    assert off["claude-code"]["own_hook"]["state"] == "missing"  # type: ignore[index]
    assert "empty core.hooksPath" in off["claude-code"]["own_hook"]["why"]  # type: ignore[index]
    assert "own_hook" not in off["codex"]  # not installed: nothing to say about it

    gitai_ok(repo, "hooks", "install")
    assert OWN_HOOK_MARK in own.read_text()
    assert rows(repo, env=HOOKS_OFF)["claude-code"]["own_hook"]["state"] == "installed"  # type: ignore[index]
    assert "how to fix" not in gitai(repo, "agents", "status", "gemini").stdout.split("gitai's own")[1]
