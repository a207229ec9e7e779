"""`gitai hook` in the test's process (tests/testing/agent_hook.py), as the host simulator and the hostile
moves run it, against the real process: the same stdout, stderr and exit code for each kind of answer,
and the test's process left as it was. Otherwise those tests prove less than they say."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
from testing.agent_hook import hook_arguments, run_in_process, run_script
from testing.commands import gitai_ok
from testing.host_simulator import HOSTS, Agent, HostSimulator

from gitai.agents.install import install_host


def _write(repo: Path, path: str, tool: str = "Write") -> bytes:
    return json.dumps({"hook_event_name": "PreToolUse", "session_id": "same", "cwd": str(repo), "tool_name": tool,
                       "tool_input": {"file_path": str(repo / path), "content": "x = 1\n"}}).encode()


def _write_with_a_broken_cache(repo: Path) -> bytes:
    """A write the hook cannot judge, its policy cache unreadable: a bug-like failure (its traceback
    goes to errors.log)."""
    cache = repo / ".git/gitai/policy-cache.marshal"
    cache.unlink(missing_ok=True)
    cache.mkdir(parents=True)
    return _write(repo, "src/auth/login.py")


CASES: dict[str, tuple[list[str], Any, str]] = {  # arguments, payload, what the answer says
    "allow": (["claude-code"], lambda repo: _write(repo, "src/auth/login.py"), ""),
    "deny": (["claude-code"], lambda repo: _write(repo, "docs/guide.md"), '"permissionDecision": "deny"'),
    "ask": (["claude-code"], lambda repo: _write(repo, "src/auth/login.py", tool="mcp__files__put"),
            '"permissionDecision": "ask"'),
    "bad JSON": (["claude-code"], lambda repo: b'{"hook_event_name": "PreToolUse", ', "is not JSON"),
    "a path not UTF-8": (["gemini"], lambda repo: b'{"hook_event_name": "BeforeTool", "session_id": "g", "cwd": "'
                         + bytes(repo) + b'", "tool_name": "write_file", "tool_input": {"file_path": "docs/\xff.md"}}',
                         '"decision": "deny"'),
    "deny, per-event host": (["copilot", "preToolUse"], lambda repo: json.dumps(
        {"cwd": str(repo), "toolName": "edit", "toolArgs": json.dumps({"path": str(repo / "docs/guide.md")})}
    ).encode(), '"permissionDecision": "deny"'),
    "session start, Gemini": (["gemini", "SessionStart"], lambda repo: json.dumps(
        {"hook_event_name": "SessionStart", "session_id": "g", "cwd": str(repo), "source": "startup"}).encode(),
        "Intent INT-001"),
    "unknown host": (["vim"], lambda repo: b"{}", "unknown host 'vim'"),
    "no host": ([], lambda repo: b"", "usage: gitai hook"),
    "help": (["--help"], lambda repo: b"", "usage: gitai hook"),
    "internal error": (["claude-code"], _write_with_a_broken_cache, "internal error"),
}


@pytest.mark.parametrize("case", CASES)
def test_in_process_answers_as_the_script_does(repo: Path, case: str) -> None:
    gitai_ok(repo, "select", "INT-001")
    args, payload, says = CASES[case][0], CASES[case][1](repo), CASES[case][2]
    script = run_script(args, payload, cwd=repo)
    ran = run_in_process(args, payload, cwd=repo)
    assert (ran.returncode, ran.stdout, ran.stderr) == (script.returncode, script.stdout, script.stderr)
    assert says in ran.stdout + ran.stderr if says else not ran.stdout + ran.stderr  # the case is what it means to be


@pytest.mark.parametrize("host", HOSTS)
def test_the_simulator_reads_the_same_answers_either_way(repo: Path, tmp_path: Path, host: str) -> None:
    """Each host's session through the simulator, its hooks in this process and as real processes
    (`real_process`), from the same repository state: the host sees the same decisions, reasons and context."""
    install_host(host, str(repo))
    gitai_ok(repo, "select", "INT-001")
    shutil.copytree(repo, tmp_path / "saved", symlinks=True)

    def session(real: bool) -> list[tuple[str, str, list[str], list[str]]]:
        agent = Agent(HostSimulator(host, repo, dict(os.environ), real_process=real), "either-way")
        outcomes = [agent.start(), agent.write(str(repo / "docs/guide.md")), agent.write(str(repo / "src/auth/a.py")),
                    agent.shell(f"rm -rf {repo / 'docs'}")]
        return [(o.decision, o.reason, o.context, o.notes) for o in outcomes]

    real = session(True)
    assert [decision for decision, *_ in real][1:3] == ["deny", "allow"] and real[3][0] != "allow"
    shutil.rmtree(repo)
    shutil.copytree(tmp_path / "saved", repo, symlinks=True)
    assert session(False) == real


def test_what_a_child_writes_is_caught_as_the_real_process_would_show_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process the hook starts writes to the hook's stdout and stderr (a host that wants nothing but
    JSON on stdout would see it): caught at the file descriptors, before what the hook itself writes."""
    from gitai.agents import hook_entry

    def noisy(argv: list[str]) -> int:
        os.system("echo child-out; echo child-err >&2")
        print("answer")
        return 2

    monkeypatch.setattr(hook_entry, "main", noisy)
    ran = run_in_process(["claude-code"], b"{}")
    assert (ran.returncode, ran.stdout, ran.stderr) == (2, "child-out\nanswer\n", "child-err\n")


def test_the_process_is_left_as_it_was(repo: Path, tmp_path: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    before = (os.getcwd(), dict(os.environ), sys.stdin, sys.stdout, sys.stderr, signal.getsignal(signal.SIGINT),
              os.umask(0o022))
    os.umask(before[-1])
    env = {**os.environ, "GITAI_HOOKS": "off", "SOMETHING_ELSE": "1"}
    assert run_in_process(["claude-code"], _write(repo, "docs/guide.md"), env=env, cwd=tmp_path).returncode == 0
    assert run_in_process(["claude-code"], _write(repo, "docs/guide.md"), cwd=repo).stdout  # a deny
    after = (os.getcwd(), dict(os.environ), sys.stdin, sys.stdout, sys.stderr, signal.getsignal(signal.SIGINT),
             os.umask(0o022))
    os.umask(after[-1])
    assert after == before


def test_the_environment_is_the_one_given_not_added_to(repo: Path) -> None:
    """`GITAI_HOOKS=off` in the test's own environment, not in the hook's: the hook does not see it."""
    gitai_ok(repo, "select", "INT-001")
    env = dict(os.environ)
    os.environ["GITAI_HOOKS"] = "off"
    try:
        ran = run_in_process(["claude-code"], _write(repo, "docs/guide.md"), env=env, cwd=repo)
    finally:
        del os.environ["GITAI_HOOKS"]
    assert json.loads(ran.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


STATELESS = {("gitai.agents.budget", "_deadline"),  # set afresh by each call
             ("gitai.agents.shell_risk", "_PARSER"), ("gitai.syntax.languages", "_LOADED"),  # a parser, grammars
             ("gitai.syntax.classify", "_STATEMENTS"), ("gitai.syntax.normal_form", "_DIGESTS")}  # of given text
"""Module-level state the hook may change and a real process would not have had: none that a file decides."""


def _module_state() -> dict[tuple[str, str], object]:
    """Every gitai module's mutable or plain module-level values (containers by size, caches by entries)."""
    found: dict[tuple[str, str], object] = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith("gitai") or module is None:
            continue
        for attr, value in vars(module).items():
            if hasattr(value, "cache_info"):
                found[name, attr] = value.cache_info().currsize
            elif isinstance(value, (dict, list, set, bytearray)):
                found[name, attr] = len(value)
            elif isinstance(value, (int, float, str, bytes)) or value is None:
                found[name, attr] = value
    return found


def test_a_call_leaves_no_module_state_a_file_decided(repo: Path, tmp_path: Path) -> None:
    """A cache of what a file said, kept in a module, would let a later in-process call answer from a
    file as it was, where a real process reads it afresh: each is emptied after the call
    (agent_hook.PER_PROCESS_CACHES), and any new one fails here until it is listed there or above."""
    gitai_ok(repo, "select", "INT-001")
    shutil.copytree(repo, tmp_path / "twin", symlinks=True)

    def calls(root: Path) -> None:
        (root / "src/auth").mkdir(parents=True, exist_ok=True)
        (root / "src/auth/a.py").write_text("a = 2\n")
        wrote = {**json.loads(_write(root, "src/auth/a.py")), "hook_event_name": "PostToolUse", "tool_response": {}}
        shell = {"hook_event_name": "PreToolUse", "session_id": "same", "cwd": str(root), "tool_name": "Bash",
                 "tool_input": {"command": "echo x > src/auth/b.py"}}
        start = {"hook_event_name": "SessionStart", "session_id": "g", "cwd": str(root)}
        claude = [json.dumps(wrote).encode(), json.dumps(shell).encode(), _write(root, "docs/guide.md"),
                  _write(root, "src/auth/a.py")]
        for payload in claude:
            run_in_process(["claude-code"], payload, cwd=root)
        run_in_process(["gemini", "SessionStart"], json.dumps(start).encode(), cwd=root)

    calls(repo)  # imports what the hook needs
    before = _module_state()
    calls(tmp_path / "twin")  # another repository: a cache by path grows
    after = _module_state()
    changed = {key for key in before.keys() & after.keys() if before[key] != after[key]}
    assert changed <= STATELESS


@pytest.mark.parametrize(("command", "expected"), [
    ("gitai hook claude-code", ["claude-code"]),
    ("'/some where/bin/gitai' hook copilot preToolUse", ["copilot", "preToolUse"]),
    ("gitai hooks run pre-commit", None), ("exit 1", None), ("other-tool hook x", None), ("gitai 'hook", None),
])
def test_only_gitais_own_hook_command_runs_in_process(command: str, expected: list[str] | None) -> None:
    assert hook_arguments(command) == expected
