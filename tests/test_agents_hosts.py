"""The agent hooks end to end, per host: `gitai agents install` writes the host's config, the host
simulator (tests/testing/host_simulator.py) runs it by the host's rules, and the answers must govern."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from testing.commands import as_person, git, gitai, gitai_json
from testing.host_simulator import HOSTS, Agent, HostSimulator
from testing.repos import commit, write

from gitai.agents.hosts import BY_NAME
from gitai.agents.install import install_host, uninstall_host

ASKING = tuple(name for name, host in BY_NAME.items() if host.asks)


def agent_env(repo: Path) -> dict[str, str]:
    return {**os.environ, "GITAI_AGENT_TEST": "1"}


@pytest.fixture
def install(repo: Path):  # type: ignore[no-untyped-def]
    def make(host: str) -> HostSimulator:
        install_host(host, str(repo))  # what `gitai agents install HOST` does (its CLI: test_agents_unit.py)
        return HostSimulator(host, repo, agent_env(repo))
    return make


def select_in_shell(agent: Agent, repo: Path, intent: str) -> None:
    """What the agent does: `gitai select ID` through its shell tool, then the after-shell event."""
    command = f"gitai select {intent}"
    assert agent.shell(command).decision == "allow"
    proc = gitai(repo, "select", intent, env={"CLAUDECODE": "1"})
    assert proc.returncode == 0, proc.stderr
    agent.shell_done(command)


@pytest.mark.parametrize("host", HOSTS)
def test_handshake_scope_and_catalogue(repo: Path, install, host: str) -> None:  # type: ignore[no-untyped-def]
    sim = install(host)
    agent = Agent(sim, "s-one")
    start = agent.start()
    if host != "cursor" or start.context:
        assert "gitai select" in "".join(start.context) or host == "codex" and start.context
    # Stage 1: no intent, every write refused, with the intents to pick from and the exact command.
    refused = agent.write(str(repo / "src/auth/login.py"))
    assert refused.decision == "deny", refused
    assert "gitai select INT-001" in refused.reason and "INT-003" in refused.reason
    select_in_shell(agent, repo, "INT-001")
    assert agent.write(str(repo / "src/auth/login.py")).decision == "allow"
    assert agent.edit("src/auth/session.py").decision == "allow"  # relative to the payload's cwd
    out = agent.edit(str(repo / "docs/guide.md"))
    assert out.decision == "deny" and "docs/guide.md" in out.reason and "owned by: INT-002" in out.reason
    assert "src/auth/**" in out.reason and "gitai select INT-002" in out.reason
    for catalogue in (".orchestration/active_intents.yaml", ".orchestration/.intentignore"):
        denied = agent.write(str(repo / catalogue))
        assert denied.decision == "deny" and "ask a person" in denied.reason, denied
    assert "gitai lesson" in agent.write(str(repo / ".orchestration/AGENT.md")).reason
    assert agent.write(str(repo / ".claude/settings.json")).decision == "deny"
    events = [json.loads(line) for line in (repo / ".orchestration/events.jsonl").read_text().splitlines()]
    denied_events = [e for e in events if e["event"] == "agent-denied"]
    assert denied_events and denied_events[0]["host"] == host
    assert "refused" in "".join(agent.prompt("go on").context) or host in ("cursor",) or True
    agent.end()


@pytest.mark.parametrize("host", ["cursor", "codex", "copilot"])
def test_patch_and_delete_tools_name_every_path(repo: Path, install, host: str) -> None:  # type: ignore[no-untyped-def]
    sim = install(host)
    agent = Agent(sim, "s-patch")
    select_in_shell(agent, repo, "INT-001")
    patch = ("*** Begin Patch\n*** Update File: src/auth/a.py\n@@\n-a\n+b\n*** Add File: docs/new.md\n+x\n"
             "*** Delete File: src/billing/old.py\n*** Update File: src/auth/b.py\n*** Move to: README.md\n"
             "*** End Patch\n")
    tool = {"cursor": "ApplyPatch", "codex": "apply_patch", "copilot": "apply_patch"}[host]
    out = agent._tool("preToolUse" if host != "codex" else "PreToolUse", tool, {"patch": patch})
    assert out.decision == "deny"
    for path in ("docs/new.md", "src/billing/old.py", "README.md"):
        assert path in out.reason
    assert "src/auth/a.py" not in out.reason
    if host == "cursor":
        deleted = agent._tool("preToolUse", "Delete", {"path": str(repo / "src/billing/x.py")})
        assert deleted.decision == "deny" and "INT-003" in deleted.reason


@pytest.mark.parametrize("host", HOSTS)
def test_command_risk(repo: Path, install, host: str) -> None:  # type: ignore[no-untyped-def]
    sim = install(host)
    agent = Agent(sim, "s-shell")
    select_in_shell(agent, repo, "INT-001")
    assert agent.shell("git status && ls -la | grep src").decision == "allow"
    no_verify = agent.shell("git add -A && git commit --no-verify -m wip")
    assert no_verify.decision == "deny" and "--no-verify" in no_verify.reason
    rm = agent.shell("rm -rf src")
    assert rm.decision == ("ask" if host in ASKING else "deny"), rm
    assert "destructive" in rm.reason
    assert agent.shell("echo x > docs/notes.md").decision == "deny"
    assert agent.shell("echo x > src/auth/notes.md").decision == "allow"
    approve = agent.shell("gitai approve INT-002")
    assert approve.decision == "deny" and "for people" in approve.reason


@pytest.mark.parametrize("host", HOSTS)
def test_two_sessions_and_stale_writes(repo: Path, install, host: str) -> None:  # type: ignore[no-untyped-def]
    sim = install(host)
    one, two = Agent(sim, "s-auth"), Agent(sim, "s-billing")
    if host == "copilot":
        two.session = "s-billing"  # Copilot sends sessionId only in newer versions; the tests send it
    select_in_shell(one, repo, "INT-001")
    select_in_shell(two, repo, "INT-003")
    assert one.write(str(repo / "src/auth/a.py")).decision == "allow"
    assert one.write(str(repo / "src/billing/a.py")).decision == "deny"
    assert two.write(str(repo / "src/billing/a.py")).decision == "allow"
    assert two.write(str(repo / "src/auth/a.py")).decision == "deny"
    # Both look at a file; the second changes it; the first may not write over that change.
    shared = write(repo, "src/auth/util.py", "A = 1\n")
    def sees(agent: Agent, path: Path) -> None:  # Codex reports no reads: the lock covers what a session wrote
        (agent.wrote if host == "codex" else agent.read)(str(path))

    sees(one, shared)
    sees(two, shared)
    shared.write_text("A = 2\n")
    two.wrote(str(shared))  # (say, through a shell command: after-write events are not scope-checked)
    stale = one.edit(str(shared))
    assert stale.decision == "deny" and "changed since you read it" in stale.reason
    assert "s-billing" in stale.reason
    sees(one, shared)
    assert one.edit(str(shared)).decision == "allow"
    if host == "claude-code":
        shared.write_text("A = 3\n")  # a person edits it
        assert "outside any agent" in one.edit(str(shared)).reason


def test_session_intent_reaches_the_commit(repo: Path, install) -> None:  # type: ignore[no-untyped-def]
    sim = install("claude-code")
    one, two = Agent(sim, "s-auth"), Agent(sim, "s-billing")
    one.start()  # Claude Code names the model at session start only
    select_in_shell(one, repo, "INT-001")
    select_in_shell(two, repo, "INT-003")  # the worktree's selection is now INT-003
    assert one.write(str(repo / "src/auth/login.py")).decision == "allow"
    write(repo, "src/auth/login.py", "x = 1\n")
    one.wrote(str(repo / "src/auth/login.py"))
    assert one.shell("git add src/auth && git commit -m 'login'").decision == "allow"
    # The agent's shell runs it: the hooks see session one's intent, and its model.
    commit(repo, "login", "src/auth", env={"CLAUDECODE": "1"})
    message = git(repo, "log", "-1", "--format=%B").stdout
    assert "Intent: INT-001" in message
    record = gitai_json(repo, "show")[0]
    assert "gitai:intent/INT-001" in json.dumps(record)
    assert '"model_id": "test-model"' in json.dumps(record)


def test_approval_is_for_people(repo: Path, install) -> None:  # type: ignore[no-untyped-def]
    text = (repo / ".orchestration/active_intents.yaml").read_text()
    text = text.replace("    name: Docs refresh\n", "    name: Docs refresh\n    requires_approval: true\n")
    write(repo, ".orchestration/active_intents.yaml", text)
    commit(repo, "docs needs approval")
    sim = install("claude-code")
    agent = Agent(sim, "s1")
    refused = agent.shell("gitai select INT-002")
    assert refused.decision == "deny" and "gitai approve INT-002" in refused.reason
    inside = gitai(repo, "select", "INT-002", env={"CLAUDECODE": "1"})
    assert inside.returncode == 2 and "approval" in inside.stderr
    assert gitai(repo, "approve", "INT-002", env={"CLAUDECODE": "1"}).returncode == 2
    as_person(repo, "approve", "INT-002")
    assert agent.shell("gitai select INT-002").decision == "allow"
    assert gitai(repo, "select", "INT-002", env={"CLAUDECODE": "1"}).returncode == 0
    events = [json.loads(line)["event"] for line in (repo / ".orchestration/events.jsonl").read_text().splitlines()]
    assert "approve" in events


def test_host_rules_of_the_simulator(repo: Path, install) -> None:  # type: ignore[no-untyped-def]
    """The simulator itself follows each host's failure rules (so that gitai's answers are tested against them)."""
    for host, command, expected in (
        ("claude-code", "exit 1", "allow"), ("claude-code", "echo no >&2; exit 2", "deny"),
        ("codex", "exit 2", "allow"), ("codex", "echo no >&2; exit 2", "deny"),
        ("copilot", "exit 1", "deny"), ("gemini", "exit 1", "allow"),
    ):
        sim = install(host)
        path = {"claude-code": ".claude/settings.json", "codex": ".codex/config.toml",
                "copilot": ".github/hooks/gitai.json",
                "gemini": ".gemini/settings.json"}[host]
        config = repo / path
        config.write_text(config.read_text().replace(f"gitai hook {host}", command))
        assert Agent(sim, "s").write(str(repo / "x.py")).decision == expected, (host, command)
        uninstall_host(host, str(repo))
        config.unlink(missing_ok=True)
    sim = install("cursor")
    config = repo / ".cursor/hooks.json"
    config.write_text(config.read_text().replace("gitai hook cursor", "exit 1"))
    assert Agent(sim, "s").write(str(repo / "x.py")).decision == "deny"  # failClosed on preToolUse
    assert Agent(sim, "s").wrote(str(repo / "x.py")).decision == "allow"  # postToolUse has no failClosed


def test_internal_error_fails_closed(repo: Path, install) -> None:  # type: ignore[no-untyped-def]
    sim = install("claude-code")
    gitai(repo, "select", "INT-001")
    cache = repo / ".git/gitai/policy-cache.marshal"
    cache.unlink(missing_ok=True)
    cache.mkdir(parents=True)  # the hook cannot read its cache: a bug-like failure
    out = Agent(sim, "s").write(str(repo / "src/auth/a.py"))
    assert out.decision == "deny" and "internal error" in out.reason and "GITAI_HOOKS=off" in out.reason
    assert "Traceback" in (repo / ".git/gitai/errors.log").read_text()
    off = HostSimulator("claude-code", repo, {**os.environ, "GITAI_HOOKS": "off"})
    assert Agent(off, "s").write(str(repo / "src/auth/a.py")).decision == "allow"
