"""Each host's hook payload mapped onto a few normalized events (docs/agents.md).

Tolerant on purpose: hosts rename keys between versions, so several spellings are accepted and
unknown keys pass through. Not lenient: an unknown tool whose input names a path or content is
asked about (BEFORE_UNKNOWN), a file tool or shell command whose target cannot be read is marked
`unreadable` (denied), and nothing here raises except for a payload that is not a JSON object at
all. Lean: runs on every tool call.
"""

from __future__ import annotations

import os

from gitai.agents.hosts import AFTER_READ as AFTER_READ
from gitai.agents.hosts import AFTER_SHELL as AFTER_SHELL
from gitai.agents.hosts import AFTER_WRITE as AFTER_WRITE
from gitai.agents.hosts import BEFORE_SHELL as BEFORE_SHELL
from gitai.agents.hosts import BEFORE_WRITE as BEFORE_WRITE
from gitai.agents.hosts import HOSTS, POST_TOOL, POST_TOOL_FAILURE, PRE_TOOL
from gitai.agents.hosts import OTHER as OTHER
from gitai.agents.hosts import PROMPT_SUBMIT as PROMPT_SUBMIT
from gitai.agents.hosts import SESSION_END as SESSION_END
from gitai.agents.hosts import SESSION_START as SESSION_START
from gitai.util import hookjson

# Every host's tool and event names (gitai/agents/hosts.py), lower-cased and pooled: a payload is
# read by its names whichever host sent it (Cursor and VS Code also run Claude Code's hooks). Codex
# may prefix a tool with "functions.".
WRITE_TOOLS = {tool.lower() for host in HOSTS for tool in host.file_tools()}
SHELL_TOOLS = {tool.lower() for host in HOSTS for tool in host.shell_tools}
READ_TOOLS = {tool.lower() for host in HOSTS for tool in host.read_tools}
KINDS = {name.lower(): kind for host in HOSTS for name, kind in host.events}
BEFORE_UNKNOWN = "before-unknown-tool"  # a tool gitai does not know, whose input names a path or content
BEFORE_STDIN = "before-stdin"  # text typed into a running process (Codex `write_stdin`): nothing to read
STDIN_TOOLS = {tool.lower() for host in HOSTS for tool in host.stdin_tools}
# Tools that only read, search, plan or talk: a path in their input is never written. Any other tool
# whose input names a path or content is asked about (the host registry lists no such tools yet).
HARMLESS_TOOLS = READ_TOOLS | {
    "glob", "grep", "ls", "webfetch", "websearch", "task", "agent", "todowrite", "todoread", "exitplanmode",
    "bashoutput", "killshell", "killbash", "skill", "slashcommand", "askuserquestion", "listmcpresourcestool",
    "readmcpresourcetool",  # Claude Code
    "list_directory", "search_file_content", "web_fetch", "google_web_search", "write_todos",  # Gemini CLI
    "update_plan", "view_image", "web_search", "read_mcp_resource", "list_mcp_resources",  # Codex
    "fetch", "report_intent", "think", "read_bash", "list_bash", "stop_bash",  # Copilot CLI
    "codebase_search", "grep_search", "file_search", "list_dir", "semantic_search", "get_errors",  # Cursor, VS Code
    "fetch_webpage", "get_terminal_output", "test_search", "get_changed_files", "list_code_usages",
}
# Keys whose presence in an unknown tool's input means it may write.
CONTENT_KEYS = ("content", "contents", "new_string", "newString", "new_str", "text", "patch", "input", "chars",
                "edits", "replacements", "code", "source", "data")

PATH_KEYS = ("file_path", "path", "filePath", "notebook_path", "target_file", "targetFile", "filepath",
             "absolute_path", "new_path", "newPath", "old_path", "oldPath")
LIST_KEYS = ("paths", "file_paths", "files", "absolute_paths")
MODEL_KEYS = ("model", "model_id", "modelId")
TRANSCRIPT_KEYS = ("transcript_path", "transcriptPath")
# Codex trims each line of a patch before reading it, so headers led by spaces or tabs count. Compiled
# where a patch is read: `re` is not imported for the other calls (it costs every hook's start-up).
PATCH_HEADER = r"^[ \t]*\*\*\* (?:Add|Update|Delete) File: (.+?)\s*$|^[ \t]*\*\*\* Move to: (.+?)\s*$"
DIFF_HEADER = (r"^diff --git (\S+) (\S+)\s*$|^(?:---|\+\+\+) ([^\t\n]+?)(?:\t.*)?$|"
               r"^(?:rename|copy) (?:from|to) (.+?)\s*$")
DRIVE_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class PayloadError(ValueError):
    """The payload is not a JSON object: nothing can be governed, so the call is denied."""


class AgentEvent:
    """One host call, normalized. `paths` are absolute (resolved against the payload's cwd);
    `raw` is the payload as received, for extensions (the line-level checkpoints)."""

    __slots__ = ("host", "kind", "hook_event", "session_id", "model", "cwd", "tool", "tool_input", "paths",
                 "command", "transcript_path", "prompt", "tool_use_id", "raw", "exit_code", "unreadable")

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
        self.unreadable: str | None = None  # why the call's target cannot be read (the call is denied)

    def to_json(self) -> dict[str, Any]:
        return {"host": self.host, "kind": self.kind, "hook_event": self.hook_event, "session_id": self.session_id,
                "model": self.model, "cwd": self.cwd, "tool": self.tool, "paths": self.paths,
                "command": self.command, "transcript_path": self.transcript_path, "tool_use_id": self.tool_use_id}


def parse_payload(text: str) -> dict[str, Any]:
    try:
        data = hookjson.loads(text) if text.strip() else None
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


def _tool_input(data: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The tool's arguments: an object, or (Copilot's `toolArgs`) a JSON string parsed a second time;
    and whether arguments were given in a shape that is not an object (a list, a number)."""
    for key in ("tool_input", "toolInput", "toolArgs", "tool_args", "input", "arguments"):
        if key not in data or data[key] is None:
            continue
        value = data.get(key)
        if isinstance(value, str):
            try:
                value = hookjson.loads(value)
            except ValueError:
                return {"input": value}, False  # e.g. a raw patch text
            if isinstance(value, str):
                return {"input": value}, False
        if isinstance(value, dict):
            return value, False
        return {}, True
    return {}, False


def fix_path(path: str, cwd: str) -> str:
    """An absolute, normalized path: Windows `/c:/x` and `c:\\x` become `C:/x`; relative paths are
    resolved against the payload's cwd."""
    drive = 1 if path[:1] == "/" else 0  # what `^/?([A-Za-z]):[\\/]` matched, without `re`
    if path[drive:drive + 1] in DRIVE_LETTERS and path[drive + 1:drive + 3] in (":/", ":\\"):
        return path[drive].upper() + ":/" + path[drive + 3:].replace("\\", "/")
    if not os.path.isabs(path):
        path = os.path.join(cwd, path)
    return os.path.normpath(path)


def patch_paths(text: str) -> list[str]:
    """Every path named by `*** Add/Update/Delete File:` and `*** Move to:` headers of a patch."""
    import re

    return [a or b for a, b in re.findall(PATCH_HEADER, text, re.M)]


def diff_paths(text: str) -> list[tuple[str, bool]]:
    """Every path a patch file names, and whether it carries a strippable prefix (`a/x`): unified and
    git diff headers, and Codex's patch headers."""
    found: list[tuple[str, bool]] = [(p, False) for p in patch_paths(text)]
    import re

    for old, new, side, renamed in re.findall(DIFF_HEADER, text, re.M):
        for name in (old, new, side):
            if name and name != "/dev/null":
                found.append((name.strip('"'), True))
        if renamed:
            found.append((renamed, False))
    return list(dict.fromkeys(found))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def tool_paths(tool_input: dict[str, Any], data: dict[str, Any], bad: list[str] | None = None) -> list[str]:
    """Every path a tool call names: the usual keys (also in nested objects, such as a list of
    replacements), lists of paths, and patch headers in any string. A path key whose value is not a
    usable path (not a string, empty, with a newline or NUL) is reported in `bad`."""
    found: list[str] = []
    for source in (tool_input, data):
        _collect_paths(source, found, bad if bad is not None else [], 0)
        if found or (bad and source is tool_input):
            break
    for text in _strings(tool_input):
        if "*** " in text:
            found.extend(patch_paths(text))
    return list(dict.fromkeys(found))


def _collect_paths(source: dict[str, Any], found: list[str], bad: list[str], depth: int) -> None:
    for key in PATH_KEYS:
        if key in source:
            _one_path(source[key], key, found, bad)
    for key in LIST_KEYS:
        if key in source:
            value = source[key]
            if isinstance(value, list):
                for item in value:
                    _one_path(item, key, found, bad)
            else:
                _one_path(value, key, found, bad)
    if depth < 3:
        for value in source.values():
            items = value if isinstance(value, list) else [value]
            for item in items:
                if isinstance(item, dict):
                    _collect_paths(item, found, bad, depth + 1)


def _one_path(value: Any, key: str, found: list[str], bad: list[str]) -> None:
    if isinstance(value, str) and value and not any(c in value for c in "\n\r\0"):
        found.append(value)
    elif isinstance(value, (str, dict, list, int, float)) or value is None:
        bad.append(f"{key}={hookjson.dumps(value)[:60]}")


def shell_command(tool_input: dict[str, Any], data: dict[str, Any]) -> str | None:
    """The command line; Codex may send an argv list (`["bash", "-lc", "..."]`). None when there is
    none that can be read (missing, null, a list with other than strings)."""
    value = tool_input.get("command", tool_input.get("cmd", data.get("command")))
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        if len(value) >= 3 and os.path.basename(value[0]) in ("bash", "sh", "zsh") and value[1] in ("-c", "-lc"):
            return str(value[2])
        import shlex

        return shlex.join(value)
    return value if isinstance(value, str) else None


def normalize(
    host: str, data: dict[str, Any], event_arg: str | None = None, process_cwd: str | None = None
) -> AgentEvent:
    """The normalized event for one payload of `host` (`event_arg`: the event named on the command
    line, for hosts whose payload does not name it, such as Copilot)."""
    hook_event = _first_str(data, "hook_event_name", "hookEventName", "event") or event_arg or ""
    name = hook_event.lower()
    tool = _first_str(data, "tool_name", "toolName", "tool") or ""
    bare_tool = tool.lower().rsplit(".", 1)[-1]  # "functions.apply_patch"
    tool_input, misshapen = _tool_input(data)
    kind = KINDS.get(name, OTHER)
    if kind == PRE_TOOL:
        kind = (BEFORE_WRITE if bare_tool in WRITE_TOOLS else BEFORE_SHELL if bare_tool in SHELL_TOOLS
                else BEFORE_STDIN if bare_tool in STDIN_TOOLS else OTHER if bare_tool in HARMLESS_TOOLS
                else BEFORE_UNKNOWN if misshapen or _names_path_or_content(tool_input) else OTHER)
    elif kind == POST_TOOL:
        kind = (AFTER_WRITE if bare_tool in WRITE_TOOLS else AFTER_SHELL if bare_tool in SHELL_TOOLS
                else AFTER_READ if bare_tool in READ_TOOLS else OTHER)
    elif kind == POST_TOOL_FAILURE:
        kind = AFTER_SHELL if bare_tool in SHELL_TOOLS else OTHER
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
        if event.command is None and kind == BEFORE_SHELL:
            event.unreadable = "the shell command is missing or not text"
        if event.command and "*** Begin Patch" in event.command:
            # Codex has applied patches through its shell tool (`apply_patch <<'EOF'`): a write of the
            # patch's paths, and still a shell command judged as one.
            event.paths = [fix_path(p, event.cwd) for p in patch_paths(event.command)]
    if kind in (BEFORE_WRITE, AFTER_WRITE, AFTER_READ, BEFORE_UNKNOWN):
        bad: list[str] = []
        event.paths = [fix_path(p, event.cwd) for p in tool_paths(tool_input, data, bad)]
        if kind == BEFORE_WRITE and (bad or misshapen or not event.paths):
            event.unreadable = (f"a path that cannot be read ({', '.join(bad)})" if bad else
                                "the tool's input is not an object" if misshapen else "it names no path")
    if kind == BEFORE_STDIN:
        chars = tool_input.get("chars", tool_input.get("input", tool_input.get("text")))
        if chars in (None, ""):
            event.kind = OTHER  # an empty write polls the running command's output
    if kind == AFTER_SHELL:
        event.exit_code = _exit_code(data)
    return event


def _names_path_or_content(tool_input: dict[str, Any]) -> bool:
    if any(key in tool_input for key in (*PATH_KEYS, *LIST_KEYS, *CONTENT_KEYS)):
        return True
    return any(isinstance(v, dict) and _names_path_or_content(v) for v in tool_input.values()) or any(
        isinstance(v, list) and any(isinstance(i, dict) and _names_path_or_content(i) for i in v)
        for v in tool_input.values())


def _exit_code(data: dict[str, Any]) -> int | None:
    for source in (data, data.get("tool_response"), data.get("tool_output"), data.get("toolResult")):
        if isinstance(source, dict):
            for key in ("exit_code", "exitCode", "returncode"):
                if isinstance(source.get(key), int):
                    return int(source[key])
    return None
