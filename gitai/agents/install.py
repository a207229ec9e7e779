"""`gitai agents install | status | uninstall`: each host's hook configuration (PROTOCOLS.md),
merged into the file that may already be there.

Other tools' hooks and the user's settings are kept in place (JSON key order is kept; Codex's
TOML is edited with tomlkit, comments and layout included). gitai's entries are recognised by
their exact command (`gitai hook HOST`, as written), so installing twice changes nothing and uninstalling removes only
them. A file is written only when its content changes.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from typing import Any

from gitai.errors import GitaiError

COMMAND = "gitai hook"
CLAUDE_WRITE = "Write|Edit|MultiEdit|NotebookEdit"
HOSTS = ("claude-code", "cursor", "gemini", "codex", "copilot")


@functools.cache
def _our_commands() -> frozenset[str]:
    """Every command line install writes, exactly (a user's own `gitai hook ...` is not ours)."""
    found = set()
    for host in HOSTS:
        for entries in desired(host).values():
            for entry in entries:
                for hook in [entry, *entry.get("hooks", [])]:
                    found |= {hook[k] for k in ("command", "bash", "powershell") if isinstance(hook.get(k), str)}
    return frozenset(found)


def _is_ours(entry: Any) -> bool:
    if not isinstance(entry, dict):
        return False
    for key in ("command", "bash", "powershell"):
        value = entry.get(key)
        if isinstance(value, str) and value.strip() in _our_commands():
            return True
    hooks = entry.get("hooks")
    return isinstance(hooks, list) and bool(hooks) and all(_is_ours(h) for h in hooks)


def _group(matcher: str | None, command: str, timeout: int, **extra: Any) -> dict[str, Any]:
    hook = {"type": "command", "command": command, "timeout": timeout, **extra}
    return {"matcher": matcher, "hooks": [hook]} if matcher is not None else {"hooks": [hook]}


def desired(host: str) -> dict[str, list[dict[str, Any]]]:
    """gitai's entries per host event, in the host's own shape and timeout unit."""
    cmd = f"{COMMAND} {host}"
    if host == "claude-code":
        return {
            "PreToolUse": [_group(f"{CLAUDE_WRITE}|Bash", cmd, 10)],
            "PostToolUse": [_group(f"{CLAUDE_WRITE}|Bash|Read", cmd, 10)],
            "SessionStart": [_group(None, cmd, 10)],
            "UserPromptSubmit": [_group(None, cmd, 10)],
            "SessionEnd": [_group(None, cmd, 10)],
        }
    if host == "codex":
        tools = "^(Bash|apply_patch|functions\\.apply_patch|exec_command|shell)$"
        return {
            "PreToolUse": [_group(tools, cmd, 30)],
            "PostToolUse": [_group(tools, cmd, 30)],
            "SessionStart": [_group(None, cmd, 30)],
            "UserPromptSubmit": [_group(None, cmd, 30)],
        }
    if host == "gemini":
        def gemini(matcher: str | None) -> dict[str, Any]:
            hook = {"name": "gitai", "type": "command", "command": cmd, "timeout": 10000}  # milliseconds
            return {"matcher": matcher, "hooks": [hook]} if matcher else {"hooks": [hook]}
        return {
            "BeforeTool": [gemini("write_file|replace|run_shell_command")],
            "AfterTool": [gemini("write_file|replace|run_shell_command|read_file|read_many_files")],
            "SessionStart": [gemini(None)],
            "BeforeAgent": [gemini(None)],
            "SessionEnd": [gemini(None)],
        }
    if host == "cursor":
        tools = "Write|StrReplace|Delete|ApplyPatch|Edit|Shell"
        return {
            "preToolUse": [{"command": cmd, "matcher": tools, "timeout": 10, "failClosed": True}],
            "postToolUse": [{"command": cmd, "matcher": tools + "|Read", "timeout": 10}],
            "sessionStart": [{"command": cmd, "timeout": 10}],
            "beforeSubmitPrompt": [{"command": cmd, "timeout": 10}],
            "sessionEnd": [{"command": cmd, "timeout": 10}],
        }
    if host == "copilot":
        def copilot(event: str) -> dict[str, Any]:
            line = f"{cmd} {event}"
            return {"type": "command", "bash": line, "powershell": line, "cwd": ".", "timeoutSec": 30}
        return {event: [copilot(event)] for event in ("preToolUse", "postToolUse", "sessionStart",
                                                      "userPromptSubmitted", "sessionEnd")}
    raise GitaiError(f"unknown host {host!r} (known: {', '.join(HOSTS)})")


MANUAL = {
    "claude-code": "restart Claude Code (or open /hooks) so that it reads the new hooks",
    "cursor": "restart Cursor so that it reads .cursor/hooks.json",
    "gemini": "Gemini CLI versions that still need it: set \"tools\": {\"enableHooks\": true} in the same settings.json",
    "codex": ("Codex loads project hooks only for a trusted project: trust this folder when Codex asks, then approve "
              "each gitai hook in Codex's /hooks screen (gitai does not forge that trust)"),
    "copilot": "commit .github/hooks/gitai.json: the cloud coding agent reads it from the default branch",
}


@dataclass(frozen=True)
class HostState:
    host: str
    path: str
    state: str  # installed | stale | missing
    manual: str

    def to_json(self) -> dict[str, str]:
        return {"host": self.host, "path": self.path, "state": self.state, "manual": self.manual}


def config_path(host: str, root: str, user: bool) -> str:
    base = os.path.expanduser("~") if user else root
    if host == "copilot" and user:
        raise GitaiError("Copilot reads hooks from the repository only (.github/hooks/): install it without --user")
    return os.path.join(base, {
        "claude-code": ".claude/settings.json", "cursor": ".cursor/hooks.json", "gemini": ".gemini/settings.json",
        "codex": ".codex/config.toml", "copilot": ".github/hooks/gitai.json",
    }[host])


# -- JSON hosts ---------------------------------------------------------------------------

def _read_json(path: str) -> tuple[dict[str, Any], str | None]:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError) as exc:
        raise GitaiError(f"cannot read {path} ({exc.__class__.__name__}); fix it by hand, gitai will not overwrite it") from None
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise GitaiError(f"{path} is not valid JSON ({exc}); fix it by hand, gitai will not overwrite it") from None
    if not isinstance(data, dict):
        raise GitaiError(f"{path} does not hold a JSON object; gitai will not overwrite it")
    return data, text


def _indent(text: str | None) -> int | str:
    """The file's own indentation unit: the shallowest indented line's (a deeper first line, a
    continuation, must not set it), or a tab."""
    widths = []
    for line in (text or "").splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            if line.startswith("\t"):
                return "\t"
            widths.append(len(line) - len(stripped))
    return min(widths) if widths else 2


def _merge(hooks: dict[str, Any], wanted: dict[str, list[dict[str, Any]]]) -> None:
    """Put gitai's entries into each event's list: in the place of the old ones, else at the end."""
    for event, entries in wanted.items():
        current = hooks.get(event)
        if not isinstance(current, list):
            hooks[event] = list(entries)
            continue
        positions = [i for i, entry in enumerate(current) if _is_ours(entry)]
        if positions:
            first = positions[0]
            kept = [e for i, e in enumerate(current) if i not in positions]
            kept[first:first] = entries
            current[:] = kept
        else:
            current.extend(entries)


def _strip(hooks: dict[str, Any]) -> None:
    for event in list(hooks):
        current = hooks[event]
        if isinstance(current, list):
            remaining = [e for e in current if not _is_ours(e)]
            if remaining:
                current[:] = remaining
            else:
                del hooks[event]


def _json_state(data: dict[str, Any], wanted: dict[str, list[dict[str, Any]]]) -> str:
    found = data.get("hooks")
    hooks: dict[str, Any] = found if isinstance(found, dict) else {}
    ours = {event: [e for e in entries if _is_ours(e)] for event, entries in hooks.items() if isinstance(entries, list)}
    ours = {k: v for k, v in ours.items() if v}
    if not ours:
        return "missing"
    return "installed" if ours == wanted else "stale"


def _write_text(path: str, text: str, old: str | None) -> bool:
    if text == old:
        return False
    from gitai.util.files import write_atomic

    write_atomic(path, text)
    return True


def _install_json(host: str, path: str) -> bool:
    data, old = _read_json(path)
    if host in ("cursor", "copilot"):
        data.setdefault("version", 1)
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        hooks = data["hooks"] = {}
    _merge(hooks, desired(host))
    return _write_text(path, json.dumps(data, indent=_indent(old), ensure_ascii=False) + "\n", old)


def _uninstall_json(host: str, path: str) -> bool:
    data, old = _read_json(path)
    if old is None:
        return False
    hooks = data.get("hooks")
    if isinstance(hooks, dict):
        _strip(hooks)
        if not hooks:
            del data["hooks"]
    if not data or (host in ("cursor", "copilot") and set(data) <= {"version"}):
        os.unlink(path)
        return True
    return _write_text(path, json.dumps(data, indent=_indent(old), ensure_ascii=False) + "\n", old)


# -- Codex (TOML) --------------------------------------------------------------------------

def _read_toml(path: str) -> tuple[Any, str | None]:
    import tomlkit

    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return tomlkit.document(), None
    except (OSError, UnicodeDecodeError) as exc:
        raise GitaiError(f"cannot read {path} ({exc.__class__.__name__}); fix it by hand, gitai will not overwrite it") from None
    try:
        return tomlkit.parse(text), text
    except Exception as exc:  # noqa: BLE001 - tomlkit raises its own error types
        raise GitaiError(f"{path} is not valid TOML ({exc}); fix it by hand, gitai will not overwrite it") from None


def _install_toml(path: str) -> bool:
    import tomlkit

    doc, old = _read_toml(path)
    features = doc.get("features")
    if features is None:
        doc["features"] = tomlkit.table()
        features = doc["features"]
    features["hooks"] = True
    hooks = doc.get("hooks")
    if hooks is None:
        doc["hooks"] = tomlkit.table(is_super_table=True)
        hooks = doc["hooks"]
    for event, groups in desired("codex").items():
        current = hooks.get(event)
        if current is None:
            array = tomlkit.aot()
            for group in groups:
                array.append(tomlkit.item(group))
            hooks[event] = array
            continue
        plain = current.unwrap() if hasattr(current, "unwrap") else list(current)
        positions = [i for i, entry in enumerate(plain) if _is_ours(entry)]
        if positions and [plain[i] for i in positions] == groups:
            continue
        for index in reversed(positions):
            del current[index]
        for group in groups:
            current.append(tomlkit.item(group))
    return _write_text(path, tomlkit.dumps(doc), old)


def _uninstall_toml(path: str) -> bool:
    doc, old = _read_toml(path)
    if old is None:
        return False
    hooks = doc.get("hooks")
    if hooks is not None:
        for event in list(hooks.keys()):
            current = hooks[event]
            plain = current.unwrap() if hasattr(current, "unwrap") else current
            if not isinstance(plain, list):
                continue
            for index in reversed([i for i, entry in enumerate(plain) if _is_ours(entry)]):
                del current[index]
            if len(current) == 0:
                del hooks[event]
        if len(hooks) == 0:
            del doc["hooks"]
    # `[features] hooks = true` stays: other tools' hooks may need it.
    return _write_text(path, __import__("tomlkit").dumps(doc), old)


def _toml_state(path: str) -> str:
    doc, old = _read_toml(path)
    if old is None:
        return "missing"
    hooks = doc.get("hooks")
    plain: dict[str, Any] = hooks.unwrap() if hooks is not None else {}
    ours: dict[str, list[Any]] = {event: [e for e in entries if _is_ours(e)] for event, entries in plain.items() if isinstance(entries, list)}
    ours = {k: v for k, v in ours.items() if v}
    if not ours:
        return "missing"
    features = doc.get("features")
    enabled = bool(features is not None and features.get("hooks"))
    return "installed" if ours == desired("codex") and enabled else "stale"


# -- the three operations ------------------------------------------------------------------

def host_status(host: str, root: str, user: bool = False) -> HostState:
    path = config_path(host, root, user)
    if host == "codex":
        state = _toml_state(path)
    else:
        data, old = _read_json(path)
        state = "missing" if old is None else _json_state(data, desired(host))
    return HostState(host, path, state, MANUAL[host])


def install_host(host: str, root: str, user: bool = False) -> tuple[HostState, bool]:
    """Install gitai's hooks for `host`; returns its state and whether a file changed."""
    path = config_path(host, root, user)
    _no_links(root, path, user)
    changed = _install_toml(path) if host == "codex" else _install_json(host, path)
    return host_status(host, root, user), changed


def uninstall_host(host: str, root: str, user: bool = False) -> tuple[HostState, bool]:
    path = config_path(host, root, user)
    _no_links(root, path, user)
    changed = _uninstall_toml(path) if host == "codex" else _uninstall_json(host, path)
    return host_status(host, root, user), changed


def _no_links(root: str, path: str, user: bool) -> None:
    """A project's config directories come from commits: never write through a link there."""
    if not user:
        from gitai.util.files import refuse_links

        refuse_links(root, path)


def resolve_hosts(names: tuple[str, ...], all_hosts: bool) -> list[str]:
    if all_hosts or not names:
        return list(HOSTS)
    unknown = [n for n in names if n not in HOSTS]
    if unknown:
        raise GitaiError(f"unknown host {unknown[0]!r} (known: {', '.join(HOSTS)})")
    return list(dict.fromkeys(names))
