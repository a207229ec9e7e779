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
import shutil
from dataclasses import dataclass
from typing import Any

from gitai.agents.hosts import BY_NAME, FLAT, NAMED_GROUPS, NAMES, PER_EVENT, PRE_TOOL, Host
from gitai.agents.trust import Trust, host_trust, without_gitai_on_path
from gitai.errors import GitaiError

COMMAND = "gitai hook"


@functools.cache
def _our_commands() -> frozenset[str | None]:
    """Every command line install writes, exactly (a user's own `gitai hook ...` is not ours)."""
    found = set()
    for host in NAMES:
        for entries in desired(host).values():
            for entry in entries:
                for hook in [entry, *entry.get("hooks", [])]:
                    found |= {_as_by_name(hook[k]) for k in ("command", "bash", "powershell")
                              if isinstance(hook.get(k), str)}
    return frozenset(found - {None})


def is_ours(entry: Any) -> bool:
    """One of gitai's entries (a hook group or a handler), recognised by its exact command."""
    if not isinstance(entry, dict):
        return False
    for key in ("command", "bash", "powershell"):
        value = entry.get(key)
        if isinstance(value, str) and _as_by_name(value) in _our_commands():
            return True
    hooks = entry.get("hooks")
    return isinstance(hooks, list) and bool(hooks) and all(is_ours(h) for h in hooks)


def _as_by_name(command: str) -> str | None:
    """`command` with gitai named by name where it is named by a path (older installs wrote the path of
    the gitai that installed them, for Codex), so that reinstalling and uninstalling replace them; None
    when it is not gitai's."""
    import shlex

    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words or os.path.basename(words[0]) != "gitai":
        return None
    return " ".join(["gitai", *words[1:]])


def _host(name: str) -> Host:
    host = BY_NAME.get(name)
    if host is None:
        raise GitaiError(f"unknown host {name!r} (known: {', '.join(NAMES)})")
    return host


def _entry(host: Host, event: str, matcher: str | None) -> dict[str, Any]:
    """gitai's entry for one event, in the host's configuration style."""
    # By name, for every host: the file is committed and shared, and a machine's path is not a teammate's.
    # Hosts run hooks with the PATH they were started with (Codex too: only its model's shell rebuilds it).
    cmd = f"{COMMAND} {host.name}"
    if host.config_style == FLAT:
        entry: dict[str, Any] = {"command": cmd}
        if matcher is not None:
            entry["matcher"] = matcher
        entry["timeout"] = host.timeout
        if dict(host.events).get(event) == PRE_TOOL:
            entry["failClosed"] = True  # else a hook that fails lets the call through
        return entry
    if host.config_style == PER_EVENT:
        line = f"{cmd} {event}"
        return {"type": "command", "bash": line, "powershell": line, "cwd": ".", "timeoutSec": host.timeout}
    named = {"name": "gitai"} if host.config_style == NAMED_GROUPS else {}
    hook = {**named, "type": "command", "command": cmd, "timeout": host.timeout}
    return {"matcher": matcher, "hooks": [hook]} if matcher is not None else {"hooks": [hook]}


def desired(name: str) -> dict[str, list[dict[str, Any]]]:
    """gitai's entries per host event, in the host's own shape and timeout unit."""
    host = _host(name)
    return {event: [_entry(host, event, matcher)] for event, matcher in host.install_events}


@dataclass(frozen=True)
class HostState:
    host: str
    path: str
    state: str  # installed | stale | missing
    manual: str
    trust: Trust | None = None  # whether the host will run them (installed or stale only)

    def to_json(self) -> dict[str, Any]:
        row: dict[str, Any] = {"host": self.host, "path": self.path, "state": self.state, "manual": self.manual}
        return row | self.trust.to_json() if self.trust else row


def config_path(name: str, root: str, user: bool) -> str:
    host = _host(name)
    if user and not host.user_configs:
        raise GitaiError(f"{host.title} reads hooks from the repository only ({host.project_configs[0]}): "
                         "install it without --user")
    base, configs = (os.path.expanduser("~"), host.user_configs) if user else (root, host.project_configs)
    return os.path.join(base, configs[0])


def _is_toml(path: str) -> bool:
    return path.endswith(".toml")


def _versioned(host: str) -> bool:
    """Cursor's and Copilot's hook files carry `"version": 1`."""
    return BY_NAME[host].config_style in (FLAT, PER_EVENT)


def _unreadable(path: str, exc: Exception) -> GitaiError:
    """A host's configuration file gitai cannot read (JSON or TOML): left for the user to fix."""
    return GitaiError(f"cannot read {path} ({exc.__class__.__name__}); fix it by hand, gitai will not overwrite it")


# -- JSON hosts ---------------------------------------------------------------------------

def _read_json(path: str) -> tuple[dict[str, Any], str | None]:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError) as exc:
        raise _unreadable(path, exc) from None
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
        positions = [i for i, entry in enumerate(current) if is_ours(entry)]
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
            remaining = [e for e in current if not is_ours(e)]
            if remaining:
                current[:] = remaining
            else:
                del hooks[event]


def _json_state(data: dict[str, Any], wanted: dict[str, list[dict[str, Any]]]) -> str:
    found = data.get("hooks")
    hooks: dict[str, Any] = found if isinstance(found, dict) else {}
    ours = {event: [e for e in entries if is_ours(e)] for event, entries in hooks.items() if isinstance(entries, list)}
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
    if _versioned(host):
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
    if not data or (_versioned(host) and set(data) <= {"version"}):
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
        raise _unreadable(path, exc) from None
    try:
        return tomlkit.parse(text), text
    except Exception as exc:  # noqa: BLE001 - tomlkit raises its own error types
        raise GitaiError(f"{path} is not valid TOML ({exc}); fix it by hand, gitai will not overwrite it") from None


def _install_toml(host: str, path: str) -> bool:
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
    for event, groups in desired(host).items():
        current = hooks.get(event)
        if current is None:
            array = tomlkit.aot()
            for group in groups:
                array.append(tomlkit.item(group))
            hooks[event] = array
            continue
        plain = current.unwrap() if hasattr(current, "unwrap") else list(current)
        positions = [i for i, entry in enumerate(plain) if is_ours(entry)]
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
            for index in reversed([i for i, entry in enumerate(plain) if is_ours(entry)]):
                del current[index]
            if len(current) == 0:
                del hooks[event]
        if len(hooks) == 0:
            del doc["hooks"]
    # `[features] hooks = true` stays: other tools' hooks may need it.
    return _write_text(path, __import__("tomlkit").dumps(doc), old)


def _toml_state(host: str, path: str) -> str:
    doc, old = _read_toml(path)
    if old is None:
        return "missing"
    hooks = doc.get("hooks")
    plain: dict[str, Any] = hooks.unwrap() if hooks is not None else {}
    ours: dict[str, list[Any]] = {
        event: [e for e in entries if is_ours(e)] for event, entries in plain.items() if isinstance(entries, list)}
    ours = {k: v for k, v in ours.items() if v}
    if not ours:
        return "missing"
    features = doc.get("features")
    enabled = bool(features is not None and features.get("hooks"))
    return "installed" if ours == desired(host) and enabled else "stale"


# -- the three operations ------------------------------------------------------------------

def host_status(host: str, root: str, user: bool = False) -> HostState:
    path = config_path(host, root, user)
    if _is_toml(path):
        state = _toml_state(host, path)
    else:
        data, old = _read_json(path)
        state = "missing" if old is None else _json_state(data, desired(host))
    trust = host_trust(host, root, path) if state != "missing" else None
    if trust is not None and trust.will_run is not False and shutil.which("gitai") is None:
        trust = without_gitai_on_path(host, trust)
    return HostState(host, path, state, "; ".join(BY_NAME[host].trust), trust)


def install_host(host: str, root: str, user: bool = False) -> tuple[HostState, bool]:
    """Install gitai's hooks for `host`; returns its state and whether a file changed."""
    path = config_path(host, root, user)
    _no_links(root, path, user)
    changed = _install_toml(host, path) if _is_toml(path) else _install_json(host, path)
    if BY_NAME[host].exec_wrap:  # the line gitai's hook puts before each shell command runs unasked
        from gitai.agents.wrap_rules import install_rules

        changed = install_rules(host, root, path, user) or changed
    return host_status(host, root, user), changed


def uninstall_host(host: str, root: str, user: bool = False) -> tuple[HostState, bool]:
    path = config_path(host, root, user)
    _no_links(root, path, user)
    changed = _uninstall_toml(path) if _is_toml(path) else _uninstall_json(host, path)
    if BY_NAME[host].exec_wrap:
        from gitai.agents.wrap_rules import uninstall_rules

        changed = uninstall_rules(host, root, path, user) or changed
    return host_status(host, root, user), changed


def _no_links(root: str, path: str, user: bool) -> None:
    """A project's config directories come from commits: never write through a link there."""
    if not user:
        from gitai.util.files import refuse_links

        refuse_links(root, path)


def resolve_hosts(names: tuple[str, ...], all_hosts: bool) -> list[str]:
    if all_hosts or not names:
        return list(NAMES)
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        raise GitaiError(f"unknown host {unknown[0]!r} (known: {', '.join(NAMES)})")
    return list(dict.fromkeys(names))


IGNORE_NOTE = "# The agent hooks' configurations `gitai agents install` writes: no intent needs to own them"


def ignore_in_scopes(root: str, paths: list[str]) -> list[str]:
    """Add the project configs gitai wrote to `.orchestration/.intentignore`, so that committing them
    is not refused as "owned by: no intent" (agents still may not edit them). Returns the lines
    added; nothing is written in a repository without `.orchestration/`."""
    orchestration = os.path.join(root, ".orchestration")
    if not os.path.isdir(orchestration):
        return []
    ignore = os.path.join(orchestration, ".intentignore")
    try:
        with open(ignore, encoding="utf-8") as handle:
            old: str | None = handle.read()
    except FileNotFoundError:
        old = None
    present = {line.strip() for line in (old or "").splitlines()}
    wanted = ["/" + os.path.relpath(p, root).replace(os.sep, "/") for p in paths]
    added = [line for line in dict.fromkeys(wanted) if line not in present]
    if not added:
        return []
    text = old or ""
    if text and not text.endswith("\n"):
        text += "\n"
    if IGNORE_NOTE not in present:
        text += IGNORE_NOTE + "\n"
    _write_text(ignore, text + "".join(line + "\n" for line in added), old)
    return added
