"""What the real hosts do to gitai that their documentation does not say: git config set through
the environment, hooks git does not run, models named only in transcripts or settings, PATH rebuilt
by a login shell, the installer's own files (docs/agents.md, "Seen in the real hosts")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import tomlkit
from testing.commands import GITAI, git, gitai, gitai_json
from testing.host_simulator import Agent, HostSimulator
from testing.repos import commit, head, write

from gitai.agents.hosts import BY_NAME
from gitai.agents.install import install_host, uninstall_host

# Gemini CLI's shell: git config from the environment, with an empty core.hooksPath.
GEMINI_GIT_CONFIG = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.hooksPath", "GIT_CONFIG_VALUE_0": ""}


def test_gitai_works_under_git_config_from_the_environment(repo: Path) -> None:
    status = gitai(repo, "status", env=GEMINI_GIT_CONFIG)
    assert status.returncode == 0, status.stderr
    selected = gitai(repo, "select", "INT-001", env=GEMINI_GIT_CONFIG)
    assert selected.returncode == 0, selected.stderr
    assert "INT-001" in gitai(repo, "status").stdout


def test_a_directory_outside_any_repository_is_still_refused(tmp_path: Path) -> None:
    status = gitai(tmp_path, "status", env=GEMINI_GIT_CONFIG)
    assert status.returncode == 2 and "not a git repository" in status.stderr


def gemini_session(repo: Path) -> tuple[Agent, dict[str, str]]:
    """A Gemini CLI session under INT-001, and the environment of its shell tool."""
    install_host("gemini", str(repo))
    agent = Agent(HostSimulator("gemini", repo, dict(os.environ)), "g1", model="gemini-2.5-pro")
    agent.start()
    command = "gitai select INT-001"
    assert agent.shell(command).decision == "allow"
    shell_env = {**GEMINI_GIT_CONFIG, "GEMINI_CLI": "1"}
    assert gitai(repo, "select", "INT-001", env=shell_env).returncode == 0
    agent.shell_done(command)
    return agent, shell_env


def test_a_commit_where_git_runs_no_hooks_is_gated_before_it_runs(repo: Path) -> None:
    agent, _ = gemini_session(repo)
    write(repo, "src/auth/token.py", "x = 1\n")
    write(repo, "docs/secret.md", "made by a program the agent ran\n")
    command = "git add -A && git commit -m 'token'"
    outcome = agent.shell(command)
    assert outcome.decision == "deny"
    assert "docs/secret.md" in outcome.reason and "outside the scope of INT-001" in outcome.reason
    git(repo, "add", "src/auth/token.py")  # staged one by one, then committed: only the index counts
    assert agent.shell("git commit -m 'token'").decision == "allow"
    assert agent.shell("git add src/auth && git commit -m 'token'").decision == "allow"
    write(repo, "README.md", "# readme, tracked, owned by INT-002\n")
    git(repo, "add", "README.md")
    git(repo, "commit", "-q", "--no-verify", "--only", "README.md", "-m", "readme")
    assert agent.shell("git commit -am 'token'").decision == "allow"  # README.md unchanged: -a adds nothing outside
    write(repo, "README.md", "# changed\n")
    am = agent.shell("git commit -am 'token'")
    assert am.decision == "deny" and "README.md" in am.reason and "docs/secret.md" not in am.reason, am.reason
    assert agent.shell("git commit -m 'token' docs/secret.md").decision == "deny"  # paths: every change counts


def test_a_commit_whose_staging_the_gate_cannot_read_is_refused_before_it_runs(repo: Path) -> None:
    """Where git runs no hooks, a command that may stage in a way gitai does not read (a `git add` behind
    a wrapper, a variable or an option gitai does not run for the agent, index-only staging, a script,
    a word the shell expands, paths or an unknown option on `git commit`) cannot be checked before it
    runs, and nothing checks it after: refused, with the way forward (stage, then commit alone)."""
    agent, _ = gemini_session(repo)
    write(repo, "docs/other.md", "out of scope\n")
    (repo / "src" / "auth").mkdir(parents=True, exist_ok=True)
    (repo / "src/auth/a#").write_text("")
    (repo / "src/auth/a").write_text("")
    fifo = repo.parent / "paths.fifo"
    os.mkfifo(fifo)
    (repo.parent / "paths.txt").write_text("docs/other.md\n")
    before = head(repo)
    for command in ("A=1 git add docs/other.md && git commit -m x", "command git add docs/other.md && git commit -m x",
                    "timeout 5 git add docs/other.md && git commit -m x", "git stage docs/other.md && git commit -m x",
                    "bash -c 'git add docs/other.md' && git commit -m x", "python3 stage.py && git commit -m x",
                    f"git add --pathspec-from-file={fifo} && git commit -m x",  # a FIFO would hang git add
                    "git read-tree --empty && git commit -m x", "git update-index --force-remove README.md && "
                    "git commit -m x", "git add \"src/auth/$(git read-tree --empty)\" && git commit -m x",
                    "git add src/auth/a#; git read-tree --empty; git commit -m x",
                    "git add src/auth/{a,b} && git commit -m x",
                    f"git commit --pathspec-from-file={repo.parent / 'paths.txt'} -m x", "git commit --al -m x",
                    "git commit -m x docs/other.md", "env -u GIT_INDEX_FILE git commit -m x",
                    "env -u GEMINI_CLI git add docs/other.md && git commit -m x"):
        outcome = agent.shell(command)
        assert outcome.decision == "deny", (command, outcome.reason)
        assert "stage in one command (`git add PATHS`), then commit in the next" in outcome.reason, outcome.reason
    assert git(repo, "diff", "--cached", "--name-only").stdout == ""  # nothing was staged on the agent's behalf
    assert head(repo) == before
    git(repo, "add", "src/auth/a")  # staged in one call, committed alone in the next: the index is checked
    assert agent.shell("git commit -m x").decision == "allow"
    assert agent.shell("GITAI_INTENT=INT-001 git commit -q -m 'x' || echo refused").decision == "allow"
    assert agent.shell("env -u GEMINI_CLI -u GITAI_AGENT git commit -q -m x").decision == "allow"  # the agent's marks


def test_a_commit_where_git_runs_no_hooks_is_recorded_after_it(repo: Path) -> None:
    agent, shell_env = gemini_session(repo)
    write(repo, "src/auth/token.py", "x = 1\n")
    agent.wrote(str(repo / "src/auth/token.py"))
    before = head(repo)
    command = "git add src/auth/token.py && git commit -m 'token'"
    outcome = agent.shell(command)
    assert outcome.decision == "allow", outcome.reason
    commit(repo, "token", "src/auth/token.py", env=shell_env)  # the host's shell: git runs no hooks
    assert head(repo) != before
    assert "Intent:" not in git(repo, "log", "-1", "--format=%B").stdout
    assert gitai(repo, "show", "--json").returncode != 0  # no record yet
    agent.shell_done(command)
    (record,) = gitai_json(repo, "show")
    assert record["metadata"]["dev.gitai"]["intent_id"] == "INT-001"
    (entry,) = [f for f in record["files"] if f["path"] == "src/auth/token.py"]
    contributor = entry["conversations"][0]["contributor"]
    assert contributor["type"] == "ai" and contributor["model_id"].endswith("gemini-2.5-pro"), contributor


# A program that commits by itself, as a script, a `make` target or `python -c` can: git runs no hooks for it.
COMMITTING_PROGRAM = """import subprocess, sys
subprocess.run(["git", "add", "--", *sys.argv[1:]], check=True)
subprocess.run(["git", "commit", "-q", "-m", "made by a program"], check=True)
"""


def _program_commits(repo: Path, agent: Agent, shell_env: dict[str, str], *paths: str) -> tuple[str, list[str]]:
    """The agent runs a program that stages `paths` and commits them in Gemini CLI's shell: the new
    HEAD, and what the after-shell hook told the agent."""
    script = repo.parent / "commit.py"
    script.write_text(COMMITTING_PROGRAM)
    command = f"python3 {script} {' '.join(paths)}"
    assert agent.shell(command).decision == "allow"
    subprocess.run(command, shell=True, cwd=repo, env={**os.environ, **shell_env}, check=True)
    assert "Intent:" not in git(repo, "log", "-1", "--format=%B").stdout  # no hook of git's ran
    return head(repo), agent.shell_done(command).context


def _events(repo: Path, name: str) -> list[dict[str, object]]:
    events = repo / ".orchestration" / "events.jsonl"
    lines = events.read_text().splitlines() if events.exists() else []
    return [e for e in map(json.loads, lines) if e["event"] == name]


def test_a_commit_a_program_makes_where_git_runs_no_hooks_is_recorded(repo: Path) -> None:
    agent, shell_env = gemini_session(repo)
    write(repo, "src/auth/token.py", "x = 1\n")
    agent.wrote(str(repo / "src/auth/token.py"))
    made, told = _program_commits(repo, agent, shell_env, "src/auth/token.py")
    (record,) = gitai_json(repo, "show", made)
    assert record["metadata"]["dev.gitai"]["intent_id"] == "INT-001"
    assert record["files"][0]["conversations"][0]["contributor"]["type"] == "ai", record
    assert told == [] and _events(repo, "agent-commit-ungated-outside-scope") == []


def test_a_commit_a_program_makes_outside_the_scope_is_recorded_and_flagged(repo: Path) -> None:
    """Nothing gated it (git ran no hook): it is recorded as the session's, and the agent and the events
    file say which commit holds which paths outside the scope. Nothing is undone: HEAD and files stay."""
    agent, shell_env = gemini_session(repo)
    write(repo, "src/auth/token.py", "x = 1\n")
    write(repo, "docs/secret.md", "made by a program the agent ran\n")
    made, told = _program_commits(repo, agent, shell_env, "src/auth/token.py", "docs/secret.md")
    (record,) = gitai_json(repo, "show", made)
    assert record["metadata"]["dev.gitai"]["intent_id"] == "INT-001"
    (warning,) = told
    assert made[:12] in warning and "docs/secret.md" in warning and "src/auth/token.py" not in warning, warning
    assert "outside the scope of INT-001" in warning and "a person" in warning
    (event,) = _events(repo, "agent-commit-ungated-outside-scope")
    assert event["commit"] == made and event["paths"] == ["docs/secret.md"] and event["intent_id"] == "INT-001"
    assert head(repo) == made and (repo / "docs/secret.md").exists()


def test_a_persons_commit_outside_the_agents_shell_is_not_the_agents(repo: Path) -> None:
    agent, shell_env = gemini_session(repo)
    write(repo, "docs/by-a-person.md", "x\n")
    commit(repo, "a person's", "docs/by-a-person.md", env=shell_env)  # between two of the agent's commands
    for command in ("ls", "touch src/auth/x.txt"):  # read-only, then one that may write
        assert agent.shell(command).decision == "allow"
        assert agent.shell_done(command).context == []
    assert gitai(repo, "show", "--json").returncode != 0  # no record: not the agent's
    assert _events(repo, "agent-commit-ungated-outside-scope") == []


def _gemini_selects_writes_and_commits(repo: Path, agent: Agent, commit_command: str,
                                       announce_done: bool = True) -> None:
    """A Gemini CLI session: the handshake through its shell, a write of src/auth/token.py, and the
    agent's commit of it (git runs no hooks in Gemini's shell: the after-shell hook records it)."""
    agent.start()
    command = "gitai select INT-001"
    agent.shell(command)
    gitai(repo, "select", "INT-001", env={"GEMINI_CLI": "1"})
    agent.shell_done(command)
    write(repo, "src/auth/token.py", "x = 1\n")
    agent.wrote("src/auth/token.py")
    assert agent.shell(commit_command).decision == "allow"
    commit(repo, "token", "src/auth/token.py", env={"GEMINI_CLI": "1"})
    if announce_done:
        agent.shell_done(commit_command)


def test_the_model_comes_from_the_transcript_and_the_record_says_so(repo: Path, tmp_path: Path) -> None:
    install_host("gemini", str(repo))
    agent = Agent(HostSimulator("gemini", repo, dict(os.environ)), f"seams-{tmp_path.name}", model="")
    transcript = Path(f"/tmp/{agent.session}.jsonl")  # where the simulator's payloads say it is
    transcript.write_text('{"type":"user","content":"Do the task."}\n'
                          '{"type":"gemini","model":"gemini-2.5-flash","content":"ok"}\n')
    try:
        _gemini_selects_writes_and_commits(repo, agent, "git add src/auth/token.py && git commit -m token")
    finally:
        transcript.unlink()
    (record,) = gitai_json(repo, "show")
    assert record["metadata"]["dev.gitai"]["model_source"] == "transcript"
    (entry,) = [f for f in record["files"] if f["path"] == "src/auth/token.py"]
    assert entry["conversations"][0]["contributor"]["model_id"] == "google/gemini-2.5-flash"


def test_the_model_comes_from_the_hosts_settings(repo: Path) -> None:
    install_host("gemini", str(repo))
    settings = Path(os.environ["HOME"]) / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('{"model": {"name": "gemini-2.5-pro"}}')
    agent = Agent(HostSimulator("gemini", repo, dict(os.environ)), "no-transcript", model="")
    _gemini_selects_writes_and_commits(repo, agent, "git commit -m token", announce_done=False)
    (record,) = gitai_json(repo, "show")
    assert record["metadata"]["dev.gitai"]["model_source"] == "settings"
    (entry,) = [f for f in record["files"] if f["path"] == "src/auth/token.py"]
    assert entry["conversations"][0]["contributor"]["model_id"] == "google/gemini-2.5-pro"


def test_a_host_whose_model_shell_rebuilds_path_tells_the_model_gitais_absolute_path(repo: Path) -> None:
    """Codex runs its model's commands with `bash -lc` but its hooks with `bash -c` and its own PATH: the
    committed hook command names gitai by name, the advice the model reads names it by its path."""
    install_host("codex", str(repo))
    config = (repo / ".codex" / "config.toml").read_text()
    assert config.count('command = "gitai hook codex"') == 4 and GITAI not in config
    agent = Agent(HostSimulator("codex", repo, dict(os.environ)), "c1")
    outcome = agent.write("src/auth/token.py")
    assert outcome.decision == "deny"
    advice = next(line for line in outcome.reason.splitlines() if "select INT-001" in line)
    command = advice[advice.index(GITAI):]
    assert command == f"{GITAI} select INT-001", advice
    # The agent's shell: a login shell whose PATH does not have the virtualenv.
    login = subprocess.run(["bash", "-lc", command], cwd=repo, capture_output=True, text=True,
                           env={"HOME": os.environ["HOME"], "PATH": "/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1"})
    assert login.returncode == 0, login.stderr
    assert "INT-001" in gitai(repo, "status").stdout
    install_host("codex", str(repo))  # installing again changes nothing: gitai knows its own entry
    assert (repo / ".codex" / "config.toml").read_text() == config


def test_an_install_that_named_gitai_by_a_machines_path_is_replaced(repo: Path) -> None:
    """Older installs wrote the installing machine's path into the committed `.codex/config.toml`: gitai
    still knows those entries as its own, so status calls them stale and install and uninstall replace them."""
    install_host("codex", str(repo))
    config = repo / ".codex" / "config.toml"
    by_name = config.read_text()
    config.write_text(by_name.replace('"gitai hook codex"', '"/home/someone/.venv/bin/gitai hook codex"'))
    (row,) = gitai_json(repo, "agents", "status", "codex")
    assert row["state"] == "stale"
    install_host("codex", str(repo))
    assert tomlkit.parse(config.read_text()).unwrap() == tomlkit.parse(by_name).unwrap()
    assert [r["state"] for r in gitai_json(repo, "agents", "status", "codex")] == ["installed"]
    config.write_text(by_name.replace('"gitai hook codex"', '"/home/someone/.venv/bin/gitai hook codex"'))
    uninstall_host("codex", str(repo))
    assert "hook codex" not in config.read_text()


def test_the_installed_configs_can_be_committed_and_agents_still_cannot_edit_them(repo: Path) -> None:
    from gitai.agents.hosts import PROJECT_CONFIGS

    installed = gitai(repo, "agents", "install", "--all")
    assert installed.returncode == 0, installed.stderr
    assert "To commit them" in installed.stdout and "git add .claude/settings.json" in installed.stdout
    ignore = (repo / ".orchestration" / ".intentignore").read_text()
    again = gitai(repo, "agents", "install", "--all")
    assert again.returncode == 0 and (repo / ".orchestration" / ".intentignore").read_text() == ignore
    written = [p for p in PROJECT_CONFIGS if (repo / p).exists() and p != ".claude/settings.local.json"]  # git-ignored
    assert len(written) >= 6
    before = head(repo)
    assert "GEMINI.md .orchestration/.intentignore" in installed.stdout  # Gemini CLI reads no AGENTS.md
    committed = commit(repo, "gitai agent hooks", *written, "GEMINI.md", ".orchestration/.intentignore", check=False)
    assert committed.returncode == 0, committed.stderr  # no intent selected: none is needed
    assert head(repo) != before
    assert git(repo, "status", "--porcelain").stdout == ""
    agent, _ = gemini_session(repo)
    settings = repo / ".gemini" / "settings.json"
    content = settings.read_bytes()
    assert agent.write(".gemini/settings.json").decision == "deny"
    assert settings.read_bytes() == content


def test_a_shell_read_counts_as_a_read_and_shell_writes_wait_for_one(repo: Path) -> None:
    install_host("codex", str(repo))
    agent = Agent(HostSimulator("codex", repo, dict(os.environ)), "c-stale")
    command = "gitai select INT-001"
    agent.shell(command)
    gitai(repo, "select", "INT-001", env={"CODEX_SANDBOX": "seatbelt"})
    agent.shell_done(command)
    login = write(repo, "src/auth/login.py", "x = 1\n")
    agent.wrote("src/auth/login.py")  # the agent's apply_patch left it so
    login.write_text("x = 1\n# a person's note\n")
    sed = "sed -i 's/x = 1/x = 2/' src/auth/login.py"
    refused = agent.shell(sed)
    assert refused.decision == "deny" and "read it again" in refused.reason
    assert agent.write("src/auth/login.py").decision == "deny"  # the patch tool waits as well
    assert agent.shell("cat src/auth/login.py").decision == "allow"
    agent.shell_done("cat src/auth/login.py")
    assert agent.shell(sed).decision == "allow"
    assert agent.write("src/auth/login.py").decision == "allow"


@pytest.mark.parametrize("read", ["c'a't src/auth/login.py", "ca\\t src/auth/login.py", '"cat" src/auth/login.py',
                                  "n''l src/auth/login.py"])
def test_a_shell_read_spelled_with_quotes_or_backslashes_counts_as_a_read(repo: Path, read: str) -> None:
    """The shell reads `c'a't f` and `ca\\t f` as `cat f`: the agent saw the file whole, so the stale-write
    lock opens, as it does for the plain spelling."""
    install_host("codex", str(repo))
    agent = Agent(HostSimulator("codex", repo, dict(os.environ)), "c-quoted")
    gitai(repo, "select", "INT-001")
    login = write(repo, "src/auth/login.py", "x = 1\n")
    agent.wrote("src/auth/login.py")
    login.write_text("x = 1\n# a person's note\n")
    sed = "sed -i 's/x = 1/x = 2/' src/auth/login.py"
    refused = agent.shell(sed)
    assert refused.decision == "deny" and "read it again" in refused.reason
    agent.shell_done(read)
    assert agent.shell(sed).decision == "allow"


def test_a_partial_shell_read_does_not_unlock_a_whole_file_write(repo: Path) -> None:
    """The lock guards writes of the whole file: a reader that showed part of it (or none: `wc`), or
    whose output went on into another program, is no fresh read; a whole read is."""
    install_host("codex", str(repo))
    agent = Agent(HostSimulator("codex", repo, dict(os.environ)), "c-partial")
    gitai(repo, "select", "INT-001")
    login = write(repo, "src/auth/login.py", "x = 1\n")
    agent.wrote("src/auth/login.py")
    login.write_text("x = 1\n# a person's note\n")
    sed = "sed -i 's/x = 1/x = 2/' src/auth/login.py"
    for partial in ("head -n 1 src/auth/login.py", "tail -1 src/auth/login.py", "grep x src/auth/login.py",
                    "wc -l src/auth/login.py", "sed -n 1p src/auth/login.py", "awk 'NR==1' src/auth/login.py",
                    "cat src/auth/login.py | head -1", "cat src/auth/login.py > /tmp/copy",
                    "cat src/auth/login.py 2>/dev/null | head -1", "cat src/auth/login.py 2>&1 | head -1",
                    "bat -r 1:1 src/auth/login.py"):
        agent.shell_done(partial)
        refused = agent.shell(sed)
        assert refused.decision == "deny" and "read it again" in refused.reason, partial
    agent.shell_done("cat -n src/auth/login.py 2>/dev/null")
    assert agent.shell(sed).decision == "allow"


def test_an_interactive_shell_is_refused_where_the_hooks_cannot_see_its_input(repo: Path) -> None:
    install_host("codex", str(repo))
    sim = HostSimulator("codex", repo, dict(os.environ))
    agent = Agent(sim, "c-tty")
    payload = {**agent._common("PreToolUse"), "tool_name": "exec_command", "tool_use_id": "t",
               "tool_input": {"cmd": "bash", "tty": True}}
    outcome = sim.fire("PreToolUse", payload, "exec_command")
    assert outcome.decision == "deny" and "interactive" in outcome.reason
    plain = {**payload, "tool_input": {"cmd": "ls", "tty": False}}
    assert sim.fire("PreToolUse", plain, "exec_command").decision == "allow"
    # Claude Code has no way to type into a running shell: its commands are checked as they are.
    install_host("claude-code", str(repo))
    claude = Agent(HostSimulator("claude-code", repo, dict(os.environ)), "cc-tty")
    assert claude.shell("ls").decision == "allow"


def test_the_pre_commit_frameworks_config_is_protected_like_a_hosts(repo: Path) -> None:
    """Where the pre-commit framework runs gitai's git hooks, its config decides whether they run."""
    agent, _ = gemini_session(repo)
    outcome = agent.write(".pre-commit-config.yaml")
    assert outcome.decision == "deny" and "only a person changes it" in outcome.reason, outcome.reason
    assert not (repo / ".pre-commit-config.yaml").exists()
    shell = agent.shell("printf 'repos: []\\n' > .pre-commit-config.yaml")
    assert shell.decision == "deny", shell.reason


def test_user_level_host_configs_are_protected_like_project_ones(repo: Path) -> None:
    """`~/.claude/settings.json` with `disableAllHooks`, Codex's hook approvals, Gemini's trusted
    folders: written by the agent, the next session would run without gitai. Refused, and untouched."""
    home = Path(os.environ["HOME"])
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text("{}\n")
    (home / ".codex").mkdir(exist_ok=True)
    (home / ".codex" / "config.toml").write_text("[features]\nhooks = true\n")
    agent, _ = gemini_session(repo)
    outcome = agent.write(str(settings))
    assert outcome.decision == "deny" and "user-level hooks" in outcome.reason, outcome.reason
    for command in (f"printf '{{\"disableAllHooks\": true}}' > {settings}", "rm ~/.codex/config.toml",
                    f"sed -i s/true/false/ {home}/.codex/config.toml",
                    "echo '{}' > ~/.gemini/trustedFolders.json",
                    "echo '{\"mcpServers\": {\"x\": {\"command\": \"sh\"}}}' > ~/.copilot/mcp-config.json"):
        assert agent.shell(command).decision != "allow", command
    mcp = agent.write(str(home / ".copilot" / "mcp-config.json"))  # the MCP servers Copilot starts in every session
    assert mcp.decision == "deny" and "MCP servers" in mcp.reason, mcp.reason
    assert settings.read_text() == "{}\n"
    assert (home / ".codex" / "config.toml").read_text() == "[features]\nhooks = true\n"


def test_a_gitai_the_hooks_would_run_is_out_of_the_agents_reach(repo: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The hooks run gitai by name: a `gitai` the agent makes in a PATH directory before the real one (or in
    ~/.local/bin, which a login shell puts on PATH), or a file it plants in gitai's own installation (its
    package, its virtualenv, a `.pth` in its site directory), would run at the next hook in gitai's place.
    Written, replaced or deleted, through the write tool or the shell: refused, and nothing on disk changed."""
    from testing.hostile_moves import shell_move, write_move

    import gitai as package_module

    early, late = tmp_path / "early-bin", tmp_path / "late-bin"
    early.mkdir()
    late.mkdir()
    found = late / "gitai"
    found.write_text("#!/bin/sh\nexit 0\n")
    monkeypatch.setenv("PATH", os.pathsep.join([str(early), str(late), os.environ["PATH"]]))
    package = Path(package_module.__file__ or "").resolve().parent
    site = next(Path(p) for p in sys.path if p.endswith("-packages"))
    planted = [early / "gitai", early / "gitai.exe", late / "gitai.exe",
               Path(os.environ["HOME"]) / ".local" / "bin" / "gitai", package / "planted_by_an_agent.py",
               site / "planted_by_an_agent.pth", Path(sys.prefix) / "bin" / "planted-by-an-agent"]
    gitai(repo, "select", "INT-001")
    try:
        for target in planted + [found]:
            decision, reason = write_move(repo, str(target), content="#!/bin/sh\nexit 0\n")
            assert decision == "deny" and "gitai itself" in reason, (target, reason)
        for command in (f"echo 'exit 0' > {found}", f"rm -f {found}", f"cp {found} {early}/gitai",
                        f"echo 'import os' > {site}/planted_by_an_agent.pth"):
            assert shell_move(repo, command)[0] != "allow", command
        assert found.read_text() == "#!/bin/sh\nexit 0\n" and not any(p.exists() for p in planted)
        assert write_move(repo, "src/auth/fine.py")[0] == "allow"  # the scope itself is as it was
    finally:
        for path in planted:  # only where a test that fails wrote them
            path.unlink(missing_ok=True)


def test_gemini_policies_are_out_of_the_agents_reach_whether_their_directory_is_there_or_not(repo: Path) -> None:
    """Gemini CLI reads every policy in ~/.gemini/policies/: one the agent made there (allow every command)
    would let its later commands run unasked, in this session and the next. Refused by the hooks whether
    the directory is there or not yet (write tool, shell); inside `gitai run`'s domain, where ~/.gemini stays
    writable for the host, the directory is made first and held read-only. Each move run for real: no
    policy appears, a person's own is untouched, the directory stays where it is."""
    from testing.hostile_moves import shell_move, write_move

    from gitai.sandbox.landlock import mounts_available
    from gitai.sandbox.wrap import domain_available

    home = Path(os.environ["HOME"])
    (home / ".gemini").mkdir(exist_ok=True)
    policies = home / ".gemini" / "policies"
    forged = policies / "allow-all.toml"
    rule = '[[rule]]\ntoolName = "run_shell_command"\ndecision = "allow"\npriority = 999\n'
    gitai(repo, "select", "INT-001")
    decision, reason = write_move(repo, str(forged), content=rule)
    assert decision == "deny" and "permission rules" in reason, reason
    for command in (f"mkdir -p {policies} && printf x > {forged}", f"cp /dev/null {forged}",
                    f"mkdir {policies}"):
        assert shell_move(repo, command)[0] != "allow", command
    assert not policies.exists()
    if not domain_available():
        return
    moves = (f"mkdir -p {policies}; printf x > {forged}; printf x > {policies}/mine.toml; "
             f"mv {policies} {policies}-x; mkdir -p {policies}; printf x > {forged}; "
             f"printf state > {home}/.gemini/state.json; true")
    words = [GITAI, "run", "INT-001", "--", "sh", "-c", moves]
    proc = subprocess.run(words, cwd=repo, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    assert policies.is_dir() and list(policies.iterdir()) == [] and not (home / ".gemini/policies-x").exists()
    if mounts_available():
        assert (home / ".gemini" / "state.json").read_text() == "state"  # the host's own state stays writable
    (policies / "mine.toml").write_text(rule)  # a person's own policy
    proc = subprocess.run(words, cwd=repo, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in policies.iterdir()) == ["mine.toml"] and (policies / "mine.toml").read_text() == rule
    assert not (home / ".gemini/policies-x").exists()


def test_gemini_cli_home_moves_its_user_controls_and_they_are_protected_there(repo: Path, tmp_path: Path) -> None:
    """GEMINI_CLI_HOME stands for the home directory Gemini CLI keeps ~/.gemini in: its settings, trusted
    folders and every policy in $GEMINI_CLI_HOME/.gemini/policies/ are refused to the agent there (there
    or not yet), the moves run for real leave them as they were, and gitai's own policy for its wrap is
    written where Gemini reads it; inside `gitai run` that policies directory is held read-only too."""
    from gitai.agents.hosts import user_control_dirs, user_controls
    from gitai.sandbox.wrap import domain_available

    moved = tmp_path / "gemini-home"
    gemini_dir = moved / ".gemini"
    gemini_dir.mkdir(parents=True)
    env = {**os.environ, "GEMINI_CLI_HOME": str(moved)}
    home = os.environ["HOME"]
    assert user_control_dirs(home, env) == [f"{home}/.gemini/policies", f"{gemini_dir}/policies"]
    assert f"{gemini_dir}/settings.json" in user_controls(home, env)
    assert f"{gemini_dir}/trustedFolders.json" in user_controls(home, env)
    settings = gemini_dir / "settings.json"
    settings.write_text("{}\n")
    policies = gemini_dir / "policies"
    forged = policies / "allow-all.toml"
    gitai(repo, "select", "INT-001")
    installed = subprocess.run([GITAI, "agents", "install", "gemini"], cwd=repo, env=env, capture_output=True,
                               text=True)
    assert installed.returncode == 0, installed.stderr
    assert (policies / "gitai.toml").is_file() and not (Path(home) / ".gemini/policies/gitai.toml").exists()
    ours = (policies / "gitai.toml").read_text()
    agent = Agent(HostSimulator("gemini", repo, env), "s-gemini-home")
    agent.start()
    for path in (settings, forged, gemini_dir / "trustedFolders.json"):
        outcome = agent.write(str(path))
        assert outcome.decision == "deny", (path, outcome.reason)
    for command in (f"printf x > {forged}", "printf '{}' > $GEMINI_CLI_HOME/.gemini/settings.json",
                    f"rm {policies}/gitai.toml", f"printf x > {settings}"):
        if agent.shell(command).decision == "allow":  # as the host would: run what the hook let through
            subprocess.run(["bash", "-c", command], cwd=repo, env=env, capture_output=True)
    assert not forged.exists() and settings.read_text() == "{}\n" and (policies / "gitai.toml").read_text() == ours
    if not domain_available():
        return
    moves = f"printf x > {forged}; printf x > {policies}/gitai.toml; mv {policies} {policies}-x; true"
    proc = subprocess.run([GITAI, "run", "INT-001", "--", "sh", "-c", moves], cwd=repo, env=env, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    assert not forged.exists() and (policies / "gitai.toml").read_text() == ours
    assert not (gemini_dir / "policies-x").exists()


def test_a_persons_commit_after_the_agents_command_is_the_persons(repo: Path) -> None:
    """The agent's announced commit command makes a commit the agent's only while it runs: once its
    after-shell hook came, a person's commit in the same worktree is recorded as theirs."""
    install_host("claude-code", str(repo))
    agent = Agent(HostSimulator("claude-code", repo, dict(os.environ)), "announce")
    gitai(repo, "select", "INT-001")
    assert agent.shell("git commit -q -m 'nothing staged yet'").decision == "allow"
    agent.shell_done("git commit -q -m 'nothing staged yet'", exit_code=1)
    write(repo, "src/auth/person.py", "x = 1\n")
    git(repo, "add", "src/auth/person.py")
    git(repo, "commit", "-q", "-m", "a person's work")
    shown = gitai_json(repo, "show", "--json")
    record = shown[0] if isinstance(shown, list) else shown
    (entry,) = [f for f in record["files"] if f["path"] == "src/auth/person.py"]
    assert [c["contributor"]["type"] for c in entry["conversations"]] == ["human"], entry


def test_a_persons_commit_while_the_agents_commit_command_runs_is_the_persons(repo: Path) -> None:
    """While the agent's announced commit command runs, a person's commit from a plain terminal (no
    agent variable, no host above it) in the same worktree is still recorded as theirs."""
    install_host("claude-code", str(repo))
    agent = Agent(HostSimulator("claude-code", repo, dict(os.environ)), "announce")
    gitai(repo, "select", "INT-001")
    assert agent.shell("git commit -q -m 'the agent commits'").decision == "allow"  # running: no after-shell yet
    write(repo, "src/auth/person.py", "x = 1\n")
    git(repo, "add", "src/auth/person.py")
    git(repo, "commit", "-q", "-m", "a person's work")
    shown = gitai_json(repo, "show", "--json")
    record = shown[0] if isinstance(shown, list) else shown
    assert record["files"] and all(c["contributor"]["type"] == "human"
                                   for f in record["files"] for c in f["conversations"]), record


@pytest.mark.parametrize("name", ["claude-code", "codex", "gemini", "copilot", "qwen"])
def test_trust_files_moved_by_a_variable_are_protected_and_read(repo: Path, tmp_path: Path, name: str) -> None:
    """CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_TRUSTED_FOLDERS_PATH, COPILOT_HOME,
    QWEN_CODE_TRUSTED_FOLDERS_PATH move where the host keeps its trust and user settings: the agent's
    write there is refused and the file untouched, and `agents status` reads the trust there. (Claude
    Code rewrites its own .claude.json: its moved settings.json is the protected file.)"""
    host = BY_NAME[name]
    assert host.trust_file_variable is not None
    variable, file_name = host.trust_file_variable
    moved = tmp_path / "moved"
    moved.mkdir()
    value = str(moved) if file_name else str(moved / "folders.json")
    store = moved / file_name if file_name else moved / "folders.json"
    content = {"gemini": {str(repo): "DO_NOT_TRUST"}, "qwen": {str(repo): "DO_NOT_TRUST"},
               "copilot": {"trustedFolders": [str(repo)]},
               "claude-code": {"projects": {str(repo): {"hasTrustDialogAccepted": True}}}}.get(name)
    store.write_text(json.dumps(content) if content else f'[projects."{repo}"]\ntrust_level = "untrusted"\n')
    protected_name = "settings.json" if name == "claude-code" else file_name
    protected = moved / protected_name if protected_name else store
    if protected != store:
        protected.write_text("{}\n")
    before = protected.read_text()
    if name == "qwen":  # Qwen Code's folder trust is off unless switched on
        switch = Path(os.environ["HOME"]) / ".qwen" / "settings.json"
        switch.parent.mkdir(parents=True, exist_ok=True)
        switch.write_text('{"security": {"folderTrust": {"enabled": true}}}\n')
    env = {**os.environ, variable: value}
    install_host(name, str(repo))
    gitai(repo, "select", "INT-001")
    agent = Agent(HostSimulator(name, repo, env), "s-moved")
    agent.start()
    if host.write_tools:
        outcome = agent.write(str(protected))
        assert outcome.decision == "deny" and "user-level hooks" in outcome.reason, outcome.reason
    for command in (f"printf '{{}}' > {protected}", f"rm {protected}", f"echo '{{}}' > \"${variable}\"/{protected_name}"
                    if protected_name else f"echo '{{}}' > \"${variable}\""):
        if agent.shell(command).decision == "allow":  # as the host would: run what the hook let through
            subprocess.run(["bash", "-c", command], cwd=repo, env=env, capture_output=True)
        assert protected.read_text() == before, command
    (row,) = gitai_json(repo, "agents", "status", name, env={variable: value})
    if name == "claude-code":  # its accepted dialog, read there, says so without naming the file
        assert row["will_run"] is True, row
    else:
        assert str(store) in row["trust_detail"] and row["will_run"] is (name == "copilot"), row


def test_claude_code_user_settings_moved_by_claude_config_dir_are_protected(repo: Path, tmp_path: Path) -> None:
    """CLAUDE_CONFIG_DIR moves ~/.claude (settings.json: the user-level hooks, `disableAllHooks`) as
    CODEX_HOME moves ~/.codex; the registry names it as the host's home_variable."""
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


def test_a_persons_commits_while_an_agent_command_runs_are_not_flagged_as_the_agents(repo: Path) -> None:
    """The agent's may-write command runs (or its after-shell never comes: the person declined it, it was
    interrupted); meanwhile the person commits in their own terminal, where gitai's hooks record the
    commits as the person's. The agent's next command must not count them as its own."""
    agent, _ = gemini_session(repo)
    assert agent.shell("make build").decision == "allow"  # before-shell: HEAD remembered, command never ends
    write(repo, "docs/by-a-person.md", "x\n")
    git(repo, "add", "docs/by-a-person.md")
    git(repo, "commit", "-q", "--no-verify", "-m", "a person's")  # the gate skipped, the post-commit record kept
    write(repo, "src/auth/by-a-person.py", "y = 1\n")
    commit(repo, "a person's second", "src/auth/by-a-person.py")  # through the person's hooks
    assert agent.shell("ls").decision == "allow"
    told = agent.shell_done("ls").context
    assert _events(repo, "agent-commit-ungated-outside-scope") == [], told
    assert told == []


def test_a_head_remembered_for_a_command_whose_after_shell_never_came_is_forgotten(repo: Path) -> None:
    """An hour after the agent's command started, its after-shell has not come (declined, interrupted):
    a commit git ran no hooks for since then is no longer taken for that command's."""
    agent, _ = gemini_session(repo)
    assert agent.shell("make build").decision == "allow"  # HEAD remembered; the after-shell never comes
    (state,) = (repo / ".git" / "gitai" / "sessions").glob("gemini-g1.json")
    data = json.loads(state.read_text())
    data["head_before_at"] = time.time() - 2 * 3600  # remembered two hours ago
    state.write_text(json.dumps(data))
    write(repo, "docs/by-a-person.md", "x\n")
    git(repo, "add", "docs/by-a-person.md")
    subprocess.run(["git", "commit", "-q", "-m", "a person's, hooks off"], cwd=repo, check=True,
                   env={**os.environ, **GEMINI_GIT_CONFIG})  # no hook ran: no record
    assert agent.shell("ls").decision == "allow"
    told = agent.shell_done("ls").context
    assert _events(repo, "agent-commit-ungated-outside-scope") == [], told
    assert told == []
    assert gitai(repo, "show", "HEAD", "--json").returncode != 0  # not recorded as the agent's either


def test_a_head_remembered_for_a_command_still_running_is_kept_for_the_next(repo: Path) -> None:
    """Two commands run side by side (or the first's after-shell never comes): what the first one's
    program committed before the second started is still counted when an after-shell comes."""
    agent, shell_env = gemini_session(repo)
    assert agent.shell("make first").decision == "allow"
    write(repo, "docs/by-a-script.md", "x\n")
    git(repo, "add", "docs/by-a-script.md")
    subprocess.run(["git", "commit", "-q", "-m", "by the first command's script"], cwd=repo, check=True,
                   env={**os.environ, **shell_env})  # git ran no hooks: no record
    assert agent.shell("make second").decision == "allow"
    told = agent.shell_done("make second").context
    (event,) = _events(repo, "agent-commit-ungated-outside-scope")
    assert event["paths"] == ["docs/by-a-script.md"] and "docs/by-a-script.md" in " ".join(told)
