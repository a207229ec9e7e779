"""The host registry (gitai/agents/hosts.py) is complete, and the modules that act on its facts
agree with it: the normalizer, the answers, the installer, the agent-variable checks, the schema."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from testing.commands import as_person, gitai, gitai_json
from testing.host_simulator import Agent, HostSimulator

from gitai.agents import hosts as registry
from gitai.agents import normalize as ev
from gitai.agents.hosts import HOSTS, NAMES, Host
from gitai.agents.install import config_path, desired
from gitai.agents.protocol import ASK, DENY, Answer, render, render_failure
from gitai.intents.approval import AGENT_VARIABLES, agent_variable
from gitai.trace.contributor import detect_contributor

SCHEMAS = Path(__file__).resolve().parent.parent / "docs" / "schemas"
KINDS = {ev.BEFORE_WRITE, ev.BEFORE_SHELL, ev.AFTER_WRITE, ev.AFTER_READ, ev.AFTER_SHELL, ev.SESSION_START,
         ev.PROMPT_SUBMIT, ev.SESSION_END, registry.PRE_TOOL, registry.POST_TOOL, registry.POST_TOOL_FAILURE}
TUPLES = ("project_configs", "user_configs", "events", "write_tools", "edit_tools", "patch_tools", "delete_tools",
          "shell_tools", "read_tools", "stdin_tools", "install_events", "shell_variables", "hook_variables",
          "model_keys", "instructions")


def matcher_tools(matcher: str) -> set[str]:
    """The tool names a matcher lists: `A|B` or Codex's anchored `^(A|b\\.c)$`."""
    return {name.replace("\\.", ".") for name in re.sub(r"^\^\((.*)\)\$$", r"\1", matcher).split("|")}


@pytest.mark.parametrize("host", HOSTS, ids=NAMES)
def test_every_host_has_every_fact(host: Host) -> None:
    for slot in Host.__slots__:
        assert hasattr(host, slot), f"{host.name} has no {slot}"
    for slot in TUPLES:
        assert isinstance(getattr(host, slot), tuple), f"{host.name}.{slot} is not a tuple"
    assert re.fullmatch(r"[a-z][a-z-]*", host.name) and host.title
    assert host.project_configs and all(not p.startswith(("/", "~")) for p in host.project_configs + host.user_configs)
    kinds = {kind for _, kind in host.events}
    assert kinds <= KINDS
    assert {registry.PRE_TOOL, registry.POST_TOOL, ev.SESSION_START, ev.PROMPT_SUBMIT} <= kinds, host.name
    assert host.file_tools() and host.shell_tools, host.name
    assert host.install_events and host.config_style in (registry.GROUPS, registry.NAMED_GROUPS, registry.FLAT,
                                                         registry.PER_EVENT)
    assert host.timeout > 0 and host.timeout_unit in (registry.SECONDS, registry.MILLISECONDS)
    shapes = (registry.HOOK_SPECIFIC, registry.CURSOR, registry.DECISION, registry.PERMISSION_DECISION)
    assert host.refusal in shapes and host.failure in (*shapes, registry.EXIT_2)
    assert host.context in (registry.HOOK_SPECIFIC, registry.CURSOR, registry.ADDITIONAL_CONTEXT)
    assert isinstance(host.asks, bool) and isinstance(host.transcript_names_model, bool)
    assert host.shell_variables or host.hook_variables, host.name
    assert not host.transcript_names_model or host.transcript_key, host.name
    assert host.trust and all(step.strip() for step in host.trust) and host.instructions
    with pytest.raises(AttributeError):
        host.asks = not host.asks  # type: ignore[misc]


def test_names_do_not_collide_across_hosts() -> None:
    assert len(set(NAMES)) == len(NAMES)
    seen: dict[str, str] = {}
    for host in HOSTS:
        for name, kind in host.events:
            assert seen.setdefault(name.lower(), kind) == kind, f"event {name} means two things"
    tool_kind: dict[str, str] = {}
    for host in HOSTS:
        for kind, tools in (("file", host.file_tools()), ("shell", host.shell_tools), ("read", host.read_tools),
                            ("stdin", host.stdin_tools)):
            for tool in tools:
                assert tool_kind.setdefault(tool.lower(), kind) == kind, f"tool {tool} is both {kind} and another kind"


@pytest.mark.parametrize("host", HOSTS, ids=NAMES)
def test_normalize_agrees(host: Host) -> None:
    pre, post = host.event(registry.PRE_TOOL), host.event(registry.POST_TOOL)
    def kind(event: str, tool: str = "", args: dict[str, object] | None = None) -> str:
        payload = {"hook_event_name": event, "tool_name": tool, "tool_input": args or {"file_path": "/r/x"},
                   "cwd": "/r"}
        return ev.normalize(host.name, payload).kind
    for name, fixed in host.events:
        if fixed == registry.POST_TOOL_FAILURE:  # a failed shell command may have changed files; a failed write did not
            shell_kinds = [kind(name, t, {"command": "ls"}) for t in host.shell_tools]
            assert shell_kinds == [ev.AFTER_SHELL] * len(host.shell_tools)
            assert {kind(name, t) for t in host.file_tools() + host.read_tools} <= {ev.OTHER}
        elif fixed not in (registry.PRE_TOOL, registry.POST_TOOL):
            assert kind(name) == fixed, (host.name, name)
    assert pre and post
    for tool in host.file_tools():
        assert kind(pre, tool) == ev.BEFORE_WRITE and kind(post, tool) == ev.AFTER_WRITE, tool
    for tool in host.shell_tools:
        shell = {"command": "ls"}
        assert kind(pre, tool, shell) == ev.BEFORE_SHELL and kind(post, tool, shell) == ev.AFTER_SHELL, tool
    for tool in host.read_tools:
        assert kind(post, tool) == ev.AFTER_READ, tool
    assert set(host.model_keys) <= set(ev.MODEL_KEYS)
    assert host.transcript_key is None or host.transcript_key in ev.TRANSCRIPT_KEYS
    payload = {"hook_event_name": host.event(ev.SESSION_START), **{key: "m-1" for key in host.model_keys}}
    assert ev.normalize(host.name, payload).model == ("m-1" if host.model_keys else None)


def verdict(shape: str, data: dict[str, Any]) -> tuple[str, str]:
    """(decision, reason) read from an answer of `shape`."""
    if shape == registry.HOOK_SPECIFIC:
        return data["hookSpecificOutput"]["permissionDecision"], data["hookSpecificOutput"]["permissionDecisionReason"]
    if shape == registry.CURSOR:
        return data["permission"], data["agent_message"]
    if shape == registry.DECISION:
        return data["decision"], data["reason"]
    return data["permissionDecision"], data["permissionDecisionReason"]


@pytest.mark.parametrize("host", HOSTS, ids=NAMES)
def test_protocol_agrees(host: Host) -> None:
    event = ev.normalize(host.name, {"hook_event_name": host.event(registry.PRE_TOOL), "tool_name": host.shell_tools[0],
                                     "tool_input": {"command": "rm -rf src"}, "cwd": "/r"})
    def answered(answer: Answer) -> tuple[str, str]:
        out, err, code = render(event, answer)
        assert code == 0 and not err
        return verdict(host.refusal, json.loads(out))
    assert answered(Answer(DENY, "no")) == (DENY, "no")
    asked, reason = answered(Answer(ASK, "destructive"))
    assert asked == (ASK if host.asks else DENY) and reason.startswith("destructive")
    out, err, code = render_failure(host.name, "", "gitai: refused: broken")
    if host.failure == registry.EXIT_2:
        assert (out, code) == ("", 2) and "broken" in err
    else:
        assert code == 0 and verdict(host.failure, json.loads(out)) == (DENY, "gitai: refused: broken")
    start = ev.normalize(host.name, {"hook_event_name": host.event(ev.SESSION_START), "cwd": "/r"})
    out, _, _ = render(start, Answer(context="<gitai>ctx</gitai>"))
    assert "<gitai>ctx</gitai>" in out


@pytest.mark.parametrize("host", HOSTS, ids=NAMES)
def test_install_agrees(host: Host, tmp_path: Path) -> None:
    wanted = desired(host.name)
    assert list(wanted) == [event for event, _ in host.install_events]
    events = dict(host.events)
    for event, matcher in host.install_events:
        assert event in events, f"{host.name} installs {event}, which it does not fire"
        if matcher is not None:
            named = matcher_tools(matcher)
            known = {t for t in host.file_tools() + host.shell_tools + host.read_tools}
            known |= {f"functions.{t}" for t in host.patch_tools}  # Codex's prefixed name
            assert named <= known, named - known
            if events[event] == registry.POST_TOOL_FAILURE:  # only a failed shell command's changes matter
                assert named == set(host.shell_tools), named
                continue
            assert named & set(host.file_tools()) and named & set(host.shell_tools)
            if events[event] == registry.POST_TOOL and host.read_tools:
                assert named & set(host.read_tools)
        text = json.dumps(wanted[event])
        assert f'"gitai hook {host.name}' in text and f": {host.timeout}" in text
    assert config_path(host.name, str(tmp_path), False) == str(tmp_path / host.project_configs[0])


def test_agent_variables_come_from_the_registry() -> None:
    for host in HOSTS:
        for variable in host.shell_variables:
            assert detect_contributor({variable: "1"})["type"] == "ai", variable
        for variable in host.shell_variables + host.hook_variables:
            assert variable in AGENT_VARIABLES and agent_variable({variable: "1"}) == variable
        for variable in host.hook_variables:
            assert detect_contributor({variable: "1"})["type"] == "human", variable


def test_schemas_name_every_host_and_instructions_file() -> None:
    schema = json.loads((SCHEMAS / "agents.schema.json").read_text())
    assert schema["items"]["properties"]["host"]["enum"] == list(NAMES)
    init = json.loads((SCHEMAS / "init.schema.json").read_text())
    assert init["properties"]["agent_instructions"]["items"]["enum"] == list(registry.INSTRUCTIONS)


def test_agents_install_qwen(repo: Path) -> None:
    """Qwen Code: `gitai agents install qwen` writes .qwen/settings.json (and ~/.qwen with --user),
    and the hooks it wrote govern a session."""
    settings = repo / ".qwen/settings.json"
    settings.parent.mkdir()
    settings.write_text('{\n  "model": {"name": "qwen3-coder-plus"}\n}\n')
    rows = gitai_json(repo, "agents", "install", "qwen")
    assert [(r["host"], r["state"], r["changed"]) for r in rows] == [("qwen", "installed", True)]
    assert rows[0]["path"] == str(settings) and "trustedFolders.json" in rows[0]["manual"]
    data = json.loads(settings.read_text())
    assert data["model"] == {"name": "qwen3-coder-plus"}
    assert data["hooks"]["PreToolUse"][0]["hooks"][0] == {"type": "command", "command": "gitai hook qwen",
                                                          "timeout": 10000}
    assert "will run: folder trust is off" in gitai(repo, "agents", "status", "qwen").stdout
    user = gitai_json(repo, "agents", "install", "qwen", "--user")
    home = Path(user[0]["path"])
    assert home.name == "settings.json" and home.parent.name == ".qwen" and home.is_file()
    agent = Agent(HostSimulator("qwen", repo, dict(os.environ)), "q-one")
    refused = agent.write(str(repo / "src/auth/login.py"))
    assert refused.decision == "deny" and "gitai select" in refused.reason
    assert agent.write(str(repo / ".qwen/settings.json")).decision == "deny"
    as_person(repo, "agents", "uninstall", "qwen")
    assert json.loads(settings.read_text()) == {"model": {"name": "qwen3-coder-plus"}}


@pytest.mark.parametrize("host", HOSTS, ids=NAMES)
def test_a_host_whose_shell_rebuilds_path_is_told_how_to_run_gitai(host: Host, repo: Path) -> None:
    """Codex runs commands with `bash -lc`: its session-start context names gitai by its absolute path, in
    so many words (the project's AGENTS.md says `gitai`); the others' contexts name it `gitai`."""
    gitai_json(repo, "agents", "install", host.name)
    told = "\n".join(Agent(HostSimulator(host.name, repo, dict(os.environ)), "s-path").start().context)
    program = str(Path(sys.executable).parent / "gitai")
    assert "Selectable intents" in told
    if host.login_shell:
        assert f"Run gitai in your shell as `{program}`" in told and f"{program} select INT-ID" in told
    else:
        assert program not in told and "gitai select INT-ID" in told
