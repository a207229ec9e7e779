"""An agent running without gitai's hooks is refused at its first commit (real git, the real hooks), and
`gitai agents status` reads whether each host will run the hooks from the host's own trust files."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest
from testing.commands import GITAI, git, gitai, gitai_json, gitai_ok
from testing.host_simulator import Agent, HostSimulator
from testing.repos import commit, head, write

from gitai.agents.hosts import BY_NAME
from gitai.agents.install import install_host
from gitai.agents.trust import codex_hook_hash


def _start_session(repo: Path, host: str, session: str) -> None:
    install_host(host, str(repo))
    Agent(HostSimulator(host, repo, dict(os.environ)), session).start()  # the host's real SessionStart hook


def _seen_session_and_another_worktree(repo: Path, tmp_path: Path) -> tuple[Agent, Path]:
    """Claude Code session "seen-1" started by the hooks in the main worktree, and a second worktree of
    the repository, both with INT-001 selected."""
    install_host("claude-code", str(repo))
    gitai_ok(repo, "select", "INT-001")
    agent = Agent(HostSimulator("claude-code", repo, dict(os.environ)), "seen-1")
    agent.start()
    other = tmp_path / "other"
    git(repo, "worktree", "add", "-q", "-b", "other", str(other))
    gitai_ok(other, "select", "INT-001")
    return agent, other


def _refused(repo: Path, env: dict[str, str]) -> str:
    before = head(repo)
    write(repo, "src/auth/x.py", "x = 1\n")
    proc = commit(repo, "agent work", "src/auth", env=env, check=False)
    assert proc.returncode != 0 and head(repo) == before
    return proc.stderr


def test_a_commit_inside_a_host_no_hook_saw_is_refused_with_its_trust_steps(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    told = _refused(repo, {"CLAUDECODE": "1"})
    assert "inside Claude Code, in a session gitai's hooks never saw" in told
    assert "gitai agents install claude-code" in told  # not installed: that comes first
    for step in BY_NAME["claude-code"].trust:
        assert f"\n  {step}\n" in told  # one line per step, from the registry
    events = (repo / ".orchestration" / "events.jsonl").read_text()
    assert '"reason":"ungoverned_agent"' in events.replace(" ", "")
    commit(repo, "a person's commit")  # no agent variable: never affected
    assert "src/auth/x.py" in git(repo, "show", "--name-only", "--format=").stdout


def test_a_session_the_hooks_saw_commits(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    _start_session(repo, "claude-code", "seen-1")
    write(repo, "src/auth/x.py", "x = 1\n")
    commit(repo, "agent work", "src/auth", env={"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "seen-1"})
    write(repo, "src/auth/x.py", "x = 2\n")  # the shell names another session: that one was never seen
    told = _refused(repo, {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "never-seen"})
    assert "never saw (its hooks are installed" in told
    write(repo, "src/auth/x.py", "x = 3\n")  # a shell that names no session: any live session of the host
    commit(repo, "agent work", "src/auth", env={"CLAUDECODE": "1"})


def test_a_hook_variable_counts_only_under_the_hosts_program(repo: Path, tmp_path: Path) -> None:
    """Copilot CLI sets COPILOT_CLI, a variable a person may export too: with copilot above the commit
    it is the agent's, without it a person's."""
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/x.py", "x = 1\n")
    commit(repo, "a person with the variable exported", env={"COPILOT_CLI": "1"})
    program = tmp_path / "bin" / "copilot"
    program.parent.mkdir()
    program.write_text("#!/bin/sh\ngit commit -q -m 'from the host' \"$@\"\n")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    before = head(repo)
    write(repo, "src/auth/x.py", "x = 2\n")
    git(repo, "add", "-A")
    proc = subprocess.run([str(program)], cwd=repo, env={**os.environ, "COPILOT_CLI": "1"},
                          capture_output=True, text=True)
    assert proc.returncode != 0 and head(repo) == before
    assert "inside Copilot CLI" in proc.stderr and "--trust-folder" in proc.stderr
    proc = subprocess.run([str(program)], cwd=repo, env=dict(os.environ), capture_output=True, text=True)
    assert proc.returncode == 0 and head(repo) != before  # the host's program without its variable: a person


def test_status_reads_codex_hook_approvals(repo: Path, tmp_path: Path) -> None:
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    env = {"CODEX_HOME": str(codex_home)}
    gitai_ok(repo, "agents", "install", "codex")
    user = codex_home / "config.toml"
    user.write_text("")
    (row,) = gitai_json(repo, "agents", "status", "codex", env=env)
    assert row["will_run"] is False and "does not trust this project" in row["trust_detail"]
    user.write_text(f'[projects."{repo}"]\ntrust_level = "trusted"\n')
    (row,) = gitai_json(repo, "agents", "status", "codex", env=env)
    assert row["will_run"] is False and "4 of gitai's 4 hooks are not approved" in row["trust_detail"]
    text = gitai(repo, "agents", "status", "codex", env=env).stdout
    assert "installed but will not run" in text and "--dangerously-bypass-hook-trust" in text
    import tomlkit

    config = repo / ".codex" / "config.toml"
    hooks = tomlkit.parse(config.read_text()).unwrap()["hooks"]
    approvals = ""
    for event, groups in hooks.items():
        snake = {"PreToolUse": "pre_tool_use", "PostToolUse": "post_tool_use", "SessionStart": "session_start",
                 "UserPromptSubmit": "user_prompt_submit"}[event]
        for g, group in enumerate(groups):
            for h, handler in enumerate(group["hooks"]):
                approvals += (f'[hooks.state."{os.path.realpath(config)}:{snake}:{g}:{h}"]\n'
                              f'trusted_hash = "{codex_hook_hash(event, group.get("matcher"), handler)}"\n')
    user.write_text(user.read_text() + approvals)
    (row,) = gitai_json(repo, "agents", "status", "codex", env=env)
    assert row["will_run"] is True and row["trust"] == "trusted", row
    user.write_text(user.read_text().replace('trusted_hash = "sha256:', 'trusted_hash = "sha256:0', 1))
    (row,) = gitai_json(repo, "agents", "status", "codex", env=env)  # one hook changed since its approval
    assert row["will_run"] is False and "1 of gitai's 4 hooks" in row["trust_detail"]


@pytest.mark.parametrize("host", ["gemini", "qwen"])
def test_status_reads_trusted_folders(repo: Path, host: str) -> None:
    home = Path(os.environ["HOME"])
    folder = home / f".{host}"
    folder.mkdir()
    gitai_ok(repo, "agents", "install", host)
    (row,) = gitai_json(repo, "agents", "status", host)
    if host == "qwen":  # Qwen Code's folder trust is off unless switched on
        assert row["will_run"] is True and "folder trust is off" in row["trust_detail"]
        (folder / "settings.json").write_text(json.dumps({"security": {"folderTrust": {"enabled": True}}}))
        (row,) = gitai_json(repo, "agents", "status", host)
    assert row["trust"] == "undecided" and row["will_run"] is None
    (folder / "trustedFolders.json").write_text(json.dumps({str(repo): "DO_NOT_TRUST"}))
    (row,) = gitai_json(repo, "agents", "status", host)
    assert row["trust"] == "untrusted" and row["will_run"] is False and row["fix"] == list(BY_NAME[host].trust)
    assert "installed but will not run" in gitai(repo, "agents", "status", host).stdout
    (folder / "trustedFolders.json").write_text(json.dumps({str(repo / "src"): "TRUST_PARENT",
                                                            str(repo.parent / "elsewhere"): "TRUST_FOLDER"}))
    (row,) = gitai_json(repo, "agents", "status", host)
    assert row["trust"] == "trusted" and row["will_run"] is True


def test_status_reads_copilot_and_claude_code(repo: Path) -> None:
    home = Path(os.environ["HOME"])
    gitai_ok(repo, "agents", "install", "copilot", "claude-code")
    rows = {r["host"]: r for r in gitai_json(repo, "agents", "status", "copilot", "claude-code")}
    assert rows["copilot"]["will_run"] is False and rows["claude-code"]["trust"] == "undecided"
    (home / ".copilot").mkdir()
    (home / ".copilot" / "config.json").write_text(json.dumps({"trustedFolders": [str(repo.parent)]}))
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(json.dumps({"disableAllHooks": True}))
    rows = {r["host"]: r for r in gitai_json(repo, "agents", "status", "copilot", "claude-code")}
    assert rows["copilot"]["will_run"] is True
    assert rows["claude-code"]["trust"] == "disabled" and rows["claude-code"]["will_run"] is False
    (home / ".claude" / "settings.json").write_text("{}")
    (home / ".claude.json").write_text(json.dumps({"projects": {str(repo): {"hasTrustDialogAccepted": True}}}))
    (row,) = gitai_json(repo, "agents", "status", "claude-code")
    assert row["trust"] == "trusted" and row["will_run"] is True


def test_status_reads_copilots_config_as_copilot_writes_it(repo: Path) -> None:
    """Copilot CLI heads the config.json it writes with two `//` lines (seen in the real host, 1.0.102):
    the folder it lists is still trusted."""
    gitai_ok(repo, "agents", "install", "copilot")
    config = Path(os.environ["HOME"]) / ".copilot" / "config.json"
    config.parent.mkdir()
    config.write_text("// User settings belong in settings.json.\n// This file is managed automatically.\n"
                      + json.dumps({"firstLaunchAt": "2026-01-01T00:00:00.000Z", "trustedFolders": [str(repo)]},
                                   indent=2) + "\n")
    (row,) = gitai_json(repo, "agents", "status", "copilot")
    assert row["will_run"] is True, row


def test_status_says_hooks_will_not_run_where_gitai_is_not_on_path(repo: Path) -> None:
    """The installed hooks name gitai by name; started from a PATH without gitai (the real script run by its
    path, PATH without its directory), the host cannot start them: `agents status` says they will not run."""
    gitai_ok(repo, "agents", "install", "claude-code", "copilot")
    home = Path(os.environ["HOME"])
    (home / ".copilot").mkdir()
    (home / ".copilot" / "config.json").write_text(json.dumps({"trustedFolders": [str(repo)]}))
    bare = {**os.environ, "PATH": "/usr/bin:/bin"}
    assert subprocess.run(["sh", "-c", "command -v gitai"], env=bare, capture_output=True).returncode != 0
    out = subprocess.run([GITAI, "agents", "status", "--json", "claude-code", "copilot"], cwd=repo, env=bare,
                         capture_output=True, text=True, check=True).stdout
    for row in json.loads(out):
        assert row["will_run"] is False and "`gitai` is not on PATH here" in row["trust_detail"], row
        assert row["fix"][0].startswith("put gitai on PATH"), row
    rows = {r["host"]: r for r in gitai_json(repo, "agents", "status", "claude-code", "copilot")}
    assert rows["copilot"]["will_run"] is True and rows["claude-code"]["will_run"] is not False, rows


def test_claude_codes_settings_are_read_where_claude_config_dir_moves_them(repo: Path, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """CLAUDE_CONFIG_DIR moves ~/.claude: `agents status` reads `disableAllHooks` there, and the model a
    session's payloads do not name is read from the settings there, not from ~/.claude."""
    from gitai.agents.model import SETTINGS, find_model

    home = Path(os.environ["HOME"])
    moved = tmp_path / "claude-config"
    moved.mkdir()
    gitai_ok(repo, "agents", "install", "claude-code")
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(json.dumps({"disableAllHooks": True, "model": "home-model"}))
    env = {"CLAUDE_CONFIG_DIR": str(moved)}
    (row,) = gitai_json(repo, "agents", "status", "claude-code", env=env)
    assert row["trust"] != "disabled" and row["will_run"] is not False, row  # ~/.claude is not read
    (moved / "settings.json").write_text(json.dumps({"disableAllHooks": True, "model": "moved-model"}))
    (row,) = gitai_json(repo, "agents", "status", "claude-code", env=env)
    assert row["trust"] == "disabled" and row["will_run"] is False, row
    assert str(moved / "settings.json") in row["trust_detail"]
    (row,) = gitai_json(repo, "agents", "status", "claude-code")
    assert row["trust"] == "disabled" and "~/.claude/settings.json" in row["trust_detail"], row
    assert find_model("claude-code", None, str(repo)) == ("home-model", SETTINGS)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(moved))
    assert find_model("claude-code", None, str(repo)) == ("moved-model", SETTINGS)


def test_gemini_gets_its_instructions_file_and_plain_context(repo: Path) -> None:
    assert not (repo / "GEMINI.md").exists()
    out = gitai_ok(repo, "agents", "install", "gemini").stdout
    assert "GEMINI.md" in out and "Working with gitai" in (repo / "GEMINI.md").read_text()
    start = Agent(HostSimulator("gemini", repo, dict(os.environ)), "plain").start()
    context = "".join(start.context)
    assert "Selectable intents" in context and "<" not in context and ">" not in context
    install_host("claude-code", str(repo))
    claude = "".join(Agent(HostSimulator("claude-code", repo, dict(os.environ)), "tags").start().context)
    assert claude.startswith("<gitai_context>")


def test_a_session_seen_in_another_worktree_may_commit_in_this_one(repo: Path, tmp_path: Path) -> None:
    """`git -C ../wt commit` from a session gitai's hooks saw in the main worktree: its shell hook
    announced the commit, so the commit is not refused as ungoverned; the other worktree's scope gate
    still judges it. The session being alive there is not enough: only its announced commit."""
    agent, other = _seen_session_and_another_worktree(repo, tmp_path)
    env = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "seen-1"}
    assert "never saw" in _refused(other, env)  # alive in the main worktree, but announced no commit here
    command = f"git -C {other} commit -qm 'agent work in the other worktree'"
    assert agent.shell(command).decision == "allow"  # its before-shell hook announces the commit
    assert "never saw" in _refused(other, {**env, "CLAUDE_CODE_SESSION_ID": "never-seen"})
    write(other, "docs/notes.md", "out of scope\n")
    before = head(other)
    proc = commit(other, "out of scope", "docs", env=env, check=False)
    assert proc.returncode != 0 and head(other) == before and "never saw" not in proc.stderr
    assert "docs/notes.md" in proc.stderr  # this worktree's scope gate
    git(other, "reset", "-q", "docs")
    write(other, "src/auth/x.py", "x = 1\n")
    commit(other, "agent work in the other worktree", "src/auth", env=env)
    assert head(other) != before


def test_another_live_session_of_the_host_does_not_cover_an_announced_commit(repo: Path, tmp_path: Path) -> None:
    """One session's commit announcement covers that session only: another session of the same host,
    alive in the main worktree, is still refused in the other worktree."""
    _start_session(repo, "claude-code", "seen-2")
    agent, other = _seen_session_and_another_worktree(repo, tmp_path)
    assert agent.shell(f"git -C {other} commit -qm 'mine'").decision == "allow"
    assert "never saw" in _refused(other, {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "seen-2"})


def test_a_host_without_a_session_variable_needs_a_session_in_this_worktree(repo: Path, tmp_path: Path) -> None:
    """Cursor's shell names no session: a live Cursor session in the main worktree does not make
    every Cursor commit in another worktree the hooks' (only one in this worktree, or an announcement)."""
    _start_session(repo, "cursor", "c-1")
    other = tmp_path / "other"
    git(repo, "worktree", "add", "-q", "-b", "other", str(other))
    gitai_ok(other, "select", "INT-001")
    assert "never saw" in _refused(other, {"CURSOR_AGENT": "1"})
