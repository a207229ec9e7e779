"""Each host's hook payload mapped onto a few normalized events (docs/agents.md).

Tolerant on purpose: hosts rename keys between versions, so several spellings are accepted,
unknown tools and keys pass through (kind OTHER), and a payload that is not what we expect
never raises here except for one that is not a JSON object at all. Lean: runs on every tool call.
"""

from __future__ import annotations

import json
import os
import re

from gitai.agents.hosts import AFTER_READ as AFTER_READ
from gitai.agents.hosts import AFTER_SHELL as AFTER_SHELL
from gitai.agents.hosts import AFTER_WRITE as AFTER_WRITE
from gitai.agents.hosts import BEFORE_SHELL as BEFORE_SHELL
from gitai.agents.hosts import BEFORE_WRITE as BEFORE_WRITE
from gitai.agents.hosts import HOSTS, POST_TOOL, PRE_TOOL
from gitai.agents.hosts import OTHER as OTHER
from gitai.agents.hosts import PROMPT_SUBMIT as PROMPT_SUBMIT
from gitai.agents.hosts import SESSION_END as SESSION_END
from gitai.agents.hosts import SESSION_START as SESSION_START

# Every host's tool and event names (gitai/agents/hosts.py), lower-cased and pooled: a payload is
# read by its names whichever host sent it (Cursor and VS Code also run Claude Code's hooks). Codex
# may prefix a tool with "functions.".
WRITE_TOOLS = {tool.lower() for host in HOSTS for tool in host.file_tools()}
SHELL_TOOLS = {tool.lower() for host in HOSTS for tool in host.shell_tools}
READ_TOOLS = {tool.lower() for host in HOSTS for tool in host.read_tools}
KINDS = {name.lower(): kind for host in HOSTS for name, kind in host.events}

PATH_KEYS = ("file_path", "path", "filePath", "notebook_path", "target_file", "targetFile", "filepath",
             "absolute_path", "new_path", "newPath", "old_path", "oldPath")
LIST_KEYS = ("paths", "file_paths", "files", "absolute_paths")
MODEL_KEYS = ("model", "model_id", "modelId")
TRANSCRIPT_KEYS = ("transcript_path", "transcriptPath")
PATCH_HEADER = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$", re.M)
WINDOWS_DRIVE = re.compile(r"^/?([A-Za-z]):[\\/]")

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class PayloadError(ValueError):
    """The payload is not a JSON object: nothing can be governed, so the call is denied."""


class AgentEvent:
    """One host call, normalized. `paths` are absolute (resolved against the payload's cwd);
    `raw` is the payload as received, for extensions (issue 12's checkpoints)."""

    __slots__ = ("host", "kind", "hook_event", "session_id", "model", "cwd", "tool", "tool_input", "paths",
                 "command", "transcript_path", "prompt", "tool_use_id", "raw", "exit_code")

    def __init__(self, host: str, kind: str, hook_event: str, raw: dict[str, Any]) -> None:
        self.host = host
        self.kind = kind
        self.hook_event = hook_event
        self.raw = raw
        self.session_id = ""
        self.model: str | None = None
        self.cwd = ""
        self.tool = ""
        self.tool_input: dict[str, Any] = {}
        self.paths: list[str] = []
        self.command: str | None = None
        self.transcript_path: str | None = None
        self.prompt: str | None = None
        self.tool_use_id: str | None = None
        self.exit_code: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"host": self.host, "kind": self.kind, "hook_event": self.hook_event, "session_id": self.session_id,
                "model": self.model, "cwd": self.cwd, "tool": self.tool, "paths": self.paths,
                "command": self.command, "transcript_path": self.transcript_path, "tool_use_id": self.tool_use_id}


def parse_payload(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text) if text.strip() else None
    except ValueError as exc:
        raise PayloadError(f"the hook payload is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise PayloadError("the hook payload is not a JSON object")
    return data


def _first_str(data: dict[str, Any], *keys: str) -> str | None:
    for key in keys:
        value = data.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _tool_input(data: dict[str, Any]) -> dict[str, Any]:
    """The tool's arguments: an object, or (Copilot's `toolArgs`) a JSON string parsed a second time."""
    for key in ("tool_input", "toolInput", "toolArgs", "tool_args", "input", "arguments"):
        value = data.get(key)
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                return {"input": value}  # e.g. a raw patch text
        if isinstance(value, dict):
            return value
    return {}


def fix_path(path: str, cwd: str) -> str:
    """An absolute, normalized path: Windows `/c:/x` and `c:\\x` become `C:/x`; relative paths are
    resolved against the payload's cwd."""
    match = WINDOWS_DRIVE.match(path)
    if match:
        return match.group(1).upper() + ":/" + path[match.end():].replace("\\", "/")
    if not os.path.isabs(path):
        path = os.path.join(cwd, path)
    return os.path.normpath(path)


def patch_paths(text: str) -> list[str]:
    """Every path named by `*** Add/Update/Delete File:` and `*** Move to:` headers of a patch."""
    return [a or b for a, b in PATCH_HEADER.findall(text)]


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def tool_paths(tool_input: dict[str, Any], data: dict[str, Any]) -> list[str]:
    """Every path a tool call names: the usual keys, lists of paths, and patch headers in any string."""
    found: list[str] = []
    for source in (tool_input, data):
        for key in PATH_KEYS:
            value = source.get(key)
            if isinstance(value, str) and value and "\n" not in value:
                found.append(value)
        for key in LIST_KEYS:
            value = source.get(key)
            if isinstance(value, list):
                found.extend(v for v in value if isinstance(v, str) and v)
        if found:
            break
    for text in _strings(tool_input):
        if "*** " in text:
            found.extend(patch_paths(text))
    return list(dict.fromkeys(found))


def shell_command(tool_input: dict[str, Any], data: dict[str, Any]) -> str | None:
    """The command line; Codex may send an argv list (`["bash", "-lc", "..."]`)."""
    value = tool_input.get("command", tool_input.get("cmd", data.get("command")))
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        if len(value) >= 3 and os.path.basename(value[0]) in ("bash", "sh", "zsh") and value[1] in ("-c", "-lc"):
            return str(value[2])
        import shlex

        return shlex.join(value)
    return value if isinstance(value, str) else None


def normalize(host: str, data: dict[str, Any], event_arg: str | None = None, process_cwd: str | None = None) -> AgentEvent:
    """The normalized event for one payload of `host` (`event_arg`: the event named on the command
    line, for hosts whose payload does not name it, such as Copilot)."""
    hook_event = _first_str(data, "hook_event_name", "hookEventName", "event") or event_arg or ""
    name = hook_event.lower()
    tool = _first_str(data, "tool_name", "toolName", "tool") or ""
    bare_tool = tool.lower().rsplit(".", 1)[-1]  # "functions.apply_patch"
    tool_input = _tool_input(data)
    kind = KINDS.get(name, OTHER)
    if kind == PRE_TOOL:
        kind = BEFORE_WRITE if bare_tool in WRITE_TOOLS else BEFORE_SHELL if bare_tool in SHELL_TOOLS else OTHER
    elif kind == POST_TOOL:
        kind = (AFTER_WRITE if bare_tool in WRITE_TOOLS else AFTER_SHELL if bare_tool in SHELL_TOOLS
                else AFTER_READ if bare_tool in READ_TOOLS else OTHER)
    event = AgentEvent(host, kind, hook_event, data)
    event.tool = tool
    event.tool_input = tool_input
    roots = data.get("workspace_roots")
    root = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else None
    cwd = _first_str(data, "cwd") or root or process_cwd or os.getcwd()
    event.cwd = fix_path(cwd, process_cwd or os.getcwd())
    event.session_id = _first_str(data, "session_id", "sessionId", "conversation_id", "conversationId") or ""
    event.model = _first_str(data, *MODEL_KEYS)
    event.transcript_path = _first_str(data, *TRANSCRIPT_KEYS)
    event.tool_use_id = _first_str(data, "tool_use_id", "toolUseId", "tool_call_id")
    event.prompt = _first_str(data, "prompt", "userPrompt")
    if kind in (BEFORE_SHELL, AFTER_SHELL):
        event.command = shell_command(tool_input, data)
        if event.command and "*** Begin Patch" in event.command and kind == BEFORE_SHELL:
            # Codex has applied patches through its shell tool (`apply_patch <<'EOF'`): a write.
            event.kind = BEFORE_WRITE
            event.paths = [fix_path(p, event.cwd) for p in patch_paths(event.command)]
    if kind in (BEFORE_WRITE, AFTER_WRITE, AFTER_READ):
        event.paths = [fix_path(p, event.cwd) for p in tool_paths(tool_input, data)]
    if kind == AFTER_SHELL:
        event.exit_code = _exit_code(data)
    return event


def _exit_code(data: dict[str, Any]) -> int | None:
    for source in (data, data.get("tool_response"), data.get("tool_output"), data.get("toolResult")):
        if isinstance(source, dict):
            for key in ("exit_code", "exitCode", "returncode"):
                if isinstance(source.get(key), int):
                    return int(source[key])
    return None
