"""A stand-in for each coding agent's hook runner, built from PROTOCOLS.md.

It reads the configuration file that `gitai agents install` wrote, picks the hooks whose event
and matcher fit (the host's matcher rules), runs each configured command with the payload on
stdin under the host's timeout (in the host's unit), and reads the answer by the host's rules:
exit 2 blocks; exit 1 does not block on Claude Code; Cursor lets a failing hook through unless
`failClosed`; Codex treats exit 2 with an empty stderr as a hook failure and proceeds; Copilot
blocks on any non-zero exit; Gemini wants nothing but JSON on stdout; Qwen Code reads Claude Code's
answers and falls back to a top-level `decision`.
So installer, entry point and protocol are tested together. Names (events, tools, config paths,
timeout units) come from the host registry; how each host reads an answer is written here, apart
from gitai/agents/protocol.py, so that the two check each other.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gitai.agents.hosts import (
    BY_NAME,
    MILLISECONDS,
    NAMES,
    POST_TOOL,
    POST_TOOL_FAILURE,
    PRE_TOOL,
    PROMPT_SUBMIT,
    SESSION_END,
    SESSION_START,
    Host,
)
from testing.agent_hook import hook_arguments, run_in_process

RANK = {"allow": 0, "ask": 1, "deny": 2}
SIMPLE_MATCHER = re.compile(r"^[A-Za-z0-9_|, -]*$")


@dataclass
class Outcome:
    decision: str = "allow"  # what the host does with the tool call: allow, ask (the person), deny
    reason: str = ""
    context: list[str] = field(default_factory=list)
    runs: int = 0  # hooks that ran
    notes: list[str] = field(default_factory=list)  # protocol slips the host would tolerate

    def merge(self, decision: str, reason: str = "") -> None:
        if RANK[decision] > RANK[self.decision]:
            self.decision, self.reason = decision, reason


TOOL_EVENTS = {name for host in BY_NAME.values() for name, kind in host.events
               if kind in (PRE_TOOL, POST_TOOL, POST_TOOL_FAILURE)}


class HostSimulator:
    def __init__(self, host: str, root: Path, env: dict[str, str], real_process: bool = False) -> None:
        self.host = host
        self.root = root
        self.env = env
        self.real_process = real_process

    # -- configuration ------------------------------------------------------------------
    def hooks_for(self, event: str, tool: str | None) -> list[dict[str, Any]]:
        """The hook entries (command, timeout in seconds, fail_closed) that run for this call."""
        found: list[dict[str, Any]] = []
        if self.host in ("claude-code", "gemini", "codex", "qwen"):
            config = self._config()
            in_ms = BY_NAME[self.host].timeout_unit == MILLISECONDS
            for group in config.get("hooks", {}).get(event, []):
                if event in TOOL_EVENTS and not self._matches(group.get("matcher"), tool):
                    continue
                for hook in group.get("hooks", []):
                    timeout = hook.get("timeout", 60000 if in_ms else 60)
                    seconds = timeout / 1000 if in_ms else timeout
                    found.append({"command": hook["command"], "timeout": seconds, "fail_closed": False})
        elif self.host == "cursor":
            config = json.loads((self.root / ".cursor/hooks.json").read_text())
            for hook in config.get("hooks", {}).get(event, []):
                if event in TOOL_EVENTS and not self._matches(hook.get("matcher"), tool):
                    continue
                found.append({"command": hook["command"], "timeout": hook.get("timeout", 30),
                              "fail_closed": bool(hook.get("failClosed"))})
        else:  # copilot: every .github/hooks/*.json, no matchers
            for path in sorted((self.root / ".github/hooks").glob("*.json")):
                for hook in json.loads(path.read_text()).get("hooks", {}).get(event, []):
                    found.append({"command": hook["bash"], "timeout": hook.get("timeoutSec", 30),
                                  "fail_closed": False, "cwd": hook.get("cwd", ".")})
        return found

    def _config(self) -> dict[str, Any]:
        if self.host == "codex":
            import tomllib

            return tomllib.loads((self.root / BY_NAME["codex"].project_configs[0]).read_text())
        return json.loads((self.root / BY_NAME[self.host].project_configs[0]).read_text())

    def _matches(self, matcher: str | None, tool: str | None) -> bool:
        if matcher in (None, "", "*"):
            return True
        tool = tool or ""
        if self.host in ("claude-code", "cursor") and SIMPLE_MATCHER.match(matcher):
            return tool in [m.strip() for m in re.split(r"[|,]", matcher)]
        if self.host == "qwen" and not matcher.startswith(("^", "(")):  # a |-list of exact names, else a regex
            return tool in [m.strip() for m in matcher.split("|")]
        return re.search(matcher, tool) is not None

    # -- one call -----------------------------------------------------------------------
    def fire(self, event: str, payload: dict[str, Any], tool: str | None = None) -> Outcome:
        outcome = Outcome()
        body = json.dumps(payload)
        for hook in self.hooks_for(event, tool):
            outcome.runs += 1
            cwd = self.root / hook.get("cwd", ".")
            ours = None if self.real_process else hook_arguments(hook["command"])
            if ours is not None:
                program = shlex.split(hook["command"])[0]  # as the host's shell would find it
                assert shutil.which(program, path=self.env.get("PATH")), f"not found: {program}"
                self._interpret(event, run_in_process(ours, body.encode(), self.env, cwd), hook, outcome)
                continue
            try:
                proc = subprocess.run(hook["command"], shell=True, input=body, capture_output=True, text=True,
                                      cwd=cwd, env=self.env, timeout=hook["timeout"])
            except subprocess.TimeoutExpired:
                outcome.notes.append("timeout")
                if hook["fail_closed"]:
                    outcome.merge("deny", "hook timed out (failClosed)")
                continue
            self._interpret(event, proc, hook, outcome)
        return outcome

    def _interpret(self, event: str, proc: subprocess.CompletedProcess[str], hook: dict[str, Any],
                   outcome: Outcome) -> None:
        host, code, out, err = self.host, proc.returncode, proc.stdout, proc.stderr
        if code == 2:
            if host == "codex" and not err.strip():
                outcome.notes.append("exit 2 with empty stderr: hook failure, call proceeds")
                return
            if host == "copilot":
                outcome.merge("deny", "")
                return
            outcome.merge("deny", err.strip())
            return
        if code != 0:
            outcome.notes.append(f"exit {code}: {err.strip()}")
            if host == "copilot" or (host == "cursor" and hook["fail_closed"]):
                outcome.merge("deny", "")
            return  # Claude Code (exit 1 does not block), Gemini, Codex, Cursor without failClosed: proceed
        if not out.strip():
            return
        try:
            data = json.loads(out)
        except ValueError:
            if host in ("claude-code", "codex") and event in ("SessionStart", "UserPromptSubmit"):
                outcome.context.append(out)  # plain stdout is context for these two events
            else:
                outcome.notes.append(f"stdout is not JSON: {out[:80]!r}")
            return
        if host in ("claude-code", "codex", "qwen"):
            specific = data.get("hookSpecificOutput", {})
            decision = specific.get("permissionDecision")
            if host == "qwen" and decision is None and data.get("decision") in ("deny", "block", "ask"):
                decision = "deny" if data["decision"] == "block" else data["decision"]
                specific = {**specific, "permissionDecisionReason": data.get("reason", "")}
            if decision in ("deny", "ask", "allow"):
                outcome.merge(decision, specific.get("permissionDecisionReason", ""))
            if specific.get("additionalContext"):
                outcome.context.append(specific["additionalContext"])
        elif host == "cursor":
            if data.get("continue") is False:
                outcome.merge("deny", data.get("user_message", ""))
            if data.get("permission") in ("deny", "ask", "allow"):
                outcome.merge(data["permission"], data.get("agent_message", ""))
            if data.get("additional_context"):
                outcome.context.append(data["additional_context"])
        elif host == "gemini":
            if data.get("decision") in ("deny", "block"):
                outcome.merge("deny", data.get("reason", ""))
            context = data.get("hookSpecificOutput", {}).get("additionalContext")
            if context:
                outcome.context.append(context)
        else:
            if data.get("permissionDecision") in ("deny", "ask", "allow"):
                outcome.merge(data["permissionDecision"], data.get("permissionDecisionReason", ""))
            if data.get("additionalContext"):
                outcome.context.append(data["additionalContext"])


# -- payloads as each host sends them (PROTOCOLS.md) ------------------------------------------

HOSTS = NAMES


def _event(kind: str) -> dict[str, str]:
    return {h.name: name for h in BY_NAME.values() if (name := h.event(kind))}


def _tool(*choices: Callable[[Host], tuple[str, ...]]) -> dict[str, str]:
    """Per host, its first tool of the first kind it has among `choices`."""
    found = {}
    for host in BY_NAME.values():
        tools = next((t for t in (choice(host) for choice in choices) if t), ())
        if tools:
            found[host.name] = tools[0]
    return found


PRE = _event(PRE_TOOL)
POST = _event(POST_TOOL)
FAILED = _event(POST_TOOL_FAILURE)
START = _event(SESSION_START)
PROMPT = _event(PROMPT_SUBMIT)
END = _event(SESSION_END)
WRITE_TOOL = _tool(lambda h: h.write_tools, lambda h: h.patch_tools)
EDIT_TOOL = _tool(lambda h: h.edit_tools, lambda h: h.patch_tools)
SHELL_TOOL = _tool(lambda h: h.shell_tools)
READ_TOOL = _tool(lambda h: h.read_tools)


class Agent:
    """One agent session of `host` in `root`: builds the host's payloads and fires them."""

    def __init__(self, sim: HostSimulator, session: str, model: str = "test-model") -> None:
        self.sim = sim
        self.host = sim.host
        self.session = session
        self.model = model

    def _common(self, event: str) -> dict[str, Any]:
        root = str(self.sim.root)
        if self.host == "cursor":
            return {"conversation_id": self.session, "generation_id": "g1", "model": self.model,
                    "hook_event_name": event, "cursor_version": "2.0", "workspace_roots": [root],
                    "user_email": "a@example.com"}
        if self.host == "copilot":
            return {"timestamp": 1763800000000, "cwd": root, "sessionId": self.session}
        data = {"session_id": self.session, "transcript_path": f"/tmp/{self.session}.jsonl", "cwd": root,
                "hook_event_name": event}
        if self.host == "codex":
            data.update({"turn_id": "t1", "model": self.model, "permission_mode": "default"})
        if self.host == "gemini":
            data["timestamp"] = "2026-11-22T10:00:00Z"
        return data

    def _tool(self, event: str, tool: str, args: dict[str, Any], **extra: Any) -> Outcome:
        data = self._common(event)
        if self.host == "copilot":
            data.update({"toolName": tool, "toolArgs": json.dumps(args)})
        else:
            data.update({"tool_name": tool, "tool_input": args, "tool_use_id": "tu1"})
        data.update(extra)
        return self.sim.fire(event, data, tool)

    def _write_args(self, tool: str, path: str, content: str = "x = 1\n") -> dict[str, Any]:
        if tool == "apply_patch" or tool == "ApplyPatch":
            return {"input": f"*** Begin Patch\n*** Add File: {path}\n+{content}*** End Patch\n"}
        key = "path" if self.host in ("copilot",) or tool == "StrReplace" else "file_path"
        return {key: path, "content": content, "old_string": "a", "new_string": "b"}

    def write(self, path: str, tool: str | None = None) -> Outcome:
        tool = tool or WRITE_TOOL[self.host]
        return self._tool(PRE[self.host], tool, self._write_args(tool, path))

    def edit(self, path: str) -> Outcome:
        return self.write(path, EDIT_TOOL[self.host])

    def wrote(self, path: str, tool: str | None = None) -> Outcome:
        tool = tool or WRITE_TOOL[self.host]
        return self._tool(POST[self.host], tool, self._write_args(tool, path), tool_response={"success": True})

    def read(self, path: str) -> Outcome:
        key = "path" if self.host == "copilot" else "file_path"
        return self._tool(POST[self.host], READ_TOOL[self.host], {key: path}, tool_response={"content": "..."})

    def shell(self, command: str) -> Outcome:
        if self.host == "cursor":
            return self._tool(PRE[self.host], SHELL_TOOL[self.host], {"command": command, "cwd": str(self.sim.root)})
        args = {"command": ["bash", "-lc", command]} if self.host == "codex" else {"command": command}
        return self._tool(PRE[self.host], SHELL_TOOL[self.host], args)

    def shell_done(self, command: str, exit_code: int = 0) -> Outcome:
        return self._tool(POST[self.host], SHELL_TOOL[self.host], {"command": command},
                          tool_response={"exit_code": exit_code, "stdout": ""})

    def shell_failed(self, command: str, exit_code: int = 1) -> Outcome:
        """A command that exited non-zero: the host's failure event where it has one."""
        if self.host not in FAILED:
            return self.shell_done(command, exit_code)
        return self._tool(FAILED[self.host], SHELL_TOOL[self.host], {"command": command},
                          error=f"Command failed with exit code {exit_code}")

    def start(self) -> Outcome:
        data = self._common(START[self.host])
        data.update({"source": "startup", "model": self.model})
        return self.sim.fire(START[self.host], data)

    def prompt(self, text: str) -> Outcome:
        data = self._common(PROMPT[self.host])
        data["prompt"] = text
        return self.sim.fire(PROMPT[self.host], data)

    def end(self) -> Outcome:
        if self.host not in END:
            return Outcome()
        data = self._common(END[self.host])
        data["reason"] = "exit"
        return self.sim.fire(END[self.host], data)
