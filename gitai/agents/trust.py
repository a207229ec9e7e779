"""Whether a host will run the hooks gitai installed: each host's own trust state, read where it keeps it
(gitai/agents/hosts.py says where and in which shape). Read only: gitai never writes a host's trust.

Codex approves each hook by a hash of its definition (`[hooks.state."<config>:<event>:<group>:<handler>"]
trusted_hash`), computed here as Codex 0.169 computes it: a changed hook needs a new approval.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from typing import Any

from gitai.agents.hosts import (
    BY_NAME,
    FOLDER_LIST,
    FOLDER_LIST_KEYS,
    FOLDER_RULES,
    HOOK_APPROVALS,
    TRUST_DIALOG,
    Host,
    home_path,
)

TRUSTED = "trusted"
UNTRUSTED = "untrusted"  # the host was told not to trust the folder, or the hooks are not approved
UNDECIDED = "undecided"  # nobody answered yet: the host asks in an interactive session
DISABLED = "disabled"  # a setting switches every hook off
UNKNOWN = "unknown"  # the host keeps no trust state gitai can read


@dataclass(frozen=True)
class Trust:
    state: str
    will_run: bool | None  # None: it depends on what a person answers when the host asks
    detail: str
    fix: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {"trust": self.state, "will_run": self.will_run, "trust_detail": self.detail, "fix": list(self.fix)}


def host_trust(name: str, root: str, config: str, home: str | None = None,
               environ: dict[str, str] | None = None) -> Trust:
    """The trust state of `name`'s hooks installed in `config` for the worktree `root`."""
    host = BY_NAME[name]
    env = dict(os.environ) if environ is None else environ
    home = home if home is not None else os.path.expanduser("~")
    switched_off = _hooks_switched_off(host, root, home, env)
    if switched_off:
        return Trust(DISABLED, False, switched_off, host.trust)
    store = trust_file(host, home, env)
    if host.trust_kind == HOOK_APPROVALS and store:
        return _codex(host, root, config, store, home)
    if host.trust_kind == FOLDER_RULES and store:
        return _folder_rules(host, root, store, home)
    if host.trust_kind == FOLDER_LIST and store:
        return _folder_list(host, root, store)
    if host.trust_kind == TRUST_DIALOG and store:
        return _dialog(host, root, store)
    return Trust(UNKNOWN, None, f"{host.title} keeps no trust state gitai can read", host.trust)


def without_gitai_on_path(name: str, trust: Trust) -> Trust:
    """`trust` where `gitai` is not on PATH: the installed hooks name gitai by name (a committed config must
    not hold one machine's path), so a host started from here cannot start them, and a hook that cannot
    start governs nothing (Claude Code and Codex, seen in the real hosts, then let the tool call through)."""
    host = BY_NAME[name]
    return Trust(trust.state, False,
                 f"`gitai` is not on PATH here: {host.title} started from this shell cannot run its hooks' "
                 f"command `gitai hook {name}`, and a hook that cannot start governs nothing",
                 (f"put gitai on PATH before starting {host.title}: install it with `pipx install "
                  "gitai-intent-trace`, or activate the virtualenv it is installed in", *trust.fix))


def trust_file(host: Host, home: str, environ: dict[str, str]) -> str | None:
    """Where `host` keeps its trust, after the variable that moves it."""
    if host.trust_file is None:
        return None
    if host.trust_file_variable:
        variable, name = host.trust_file_variable
        moved = environ.get(variable)
        if moved:
            return os.path.join(moved, name) if name else moved
    return os.path.join(home, host.trust_file)


def _read_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as handle:
            return json_config(handle.read())
    except (OSError, ValueError):
        return None


def json_config(text: str) -> Any:
    """A host's JSON config, after the `//` comment lines a host may put above it (Copilot CLI heads its
    config.json with two); raises ValueError where it is not JSON."""
    lines = text.splitlines(keepends=True)
    while lines and lines[0].lstrip().startswith("//"):
        lines.pop(0)
    return json.loads("".join(lines))


def _key(data: Any, keys: tuple[str, ...]) -> Any:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def _hooks_switched_off(host: Host, root: str, home: str, environ: dict[str, str]) -> str | None:
    """Which of the host's settings switches every hook off: a user-level one ("~/") read where the host's
    `home_variable` moves it (CLAUDE_CONFIG_DIR), a project one in the worktree."""
    for path, keys in host.hooks_switch:
        full = home_path(path, home, environ) if path.startswith("~/") else os.path.join(root, path)
        if _key(_read_json(full), keys) is True:
            moved = path.startswith("~/") and full != home_path(path, home, {})
            return f"\"{'.'.join(keys)}\": true in {full if moved else path} switches every hook off"
    return None


def _real(path: str) -> str:
    return os.path.realpath(path)


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _folder_rules(host: Host, root: str, store: str, home: str) -> Trust:
    """Gemini CLI and Qwen Code: folder trust on, then the longest matching rule decides."""
    if host.folder_trust_switch:
        path, keys, default = host.folder_trust_switch
        enabled = _key(_read_json(os.path.join(home, path)), keys)
        if not (default if enabled is None else enabled is True):
            return Trust(TRUSTED, True, f"folder trust is off (~/{path}): {host.title} runs every folder's hooks")
    rules = _read_json(store)
    best: tuple[int, str] | None = None
    target = _real(root)
    for rule, level in (rules.items() if isinstance(rules, dict) else ()):
        folder = os.path.dirname(rule) if level == "TRUST_PARENT" else rule
        if _under(target, _real(folder)) and (best is None or len(rule) > best[0]):
            best = (len(rule), str(level))
    if best is None:
        return Trust(UNDECIDED, None, f"this folder is not in {store}: {host.title} asks in an interactive "
                                      "session; headless, it does not run here with the hooks", host.trust)
    if best[1] in ("TRUST_FOLDER", "TRUST_PARENT"):
        return Trust(TRUSTED, True, f"trusted in {store} ({best[1]})")
    return Trust(UNTRUSTED, False, f"{store} says {best[1]} for this folder: {host.title} loads no project "
                                   "hooks here", host.trust)


def _folder_list(host: Host, root: str, store: str) -> Trust:
    """Copilot CLI: the folder, or one above it, in the config's trusted folders."""
    data = _read_json(store)
    folders = [f for key in FOLDER_LIST_KEYS for f in (_key(data, (key,)) or [])
               if isinstance(f, str)]
    target = _real(root)
    if any(_under(target, _real(folder)) for folder in folders):
        return Trust(TRUSTED, True, f"trusted in {store}")
    return Trust(UNTRUSTED, False, f"this folder is not among the trusted folders of {store}: {host.title} "
                                   "loads no repository hooks here (headless, it does not ask)", host.trust)


def _dialog(host: Host, root: str, store: str) -> Trust:
    """Claude Code: the answer to its trust dialog; `claude -p` shows none and runs the hooks."""
    projects = _key(_read_json(store), ("projects",))
    project = projects.get(root) or projects.get(_real(root)) if isinstance(projects, dict) else None
    if isinstance(project, dict) and project.get("hasTrustDialogAccepted") is True:
        return Trust(TRUSTED, True, f"this folder's trust dialog was accepted ({store})")
    return Trust(UNDECIDED, True, f"{host.title} asks to trust this folder at its next interactive start "
                                  "(the hooks run once it is accepted; `claude -p` does not ask)")


# -- Codex ------------------------------------------------------------------------------------

def codex_hook_hash(event: str, matcher: str | None, handler: dict[str, Any]) -> str:
    """Codex's trusted_hash of one command hook: sha256 of the canonical JSON of its normalised identity."""
    normal = {"type": "command", "command": handler.get("command"),
              "timeout": max(int(handler.get("timeout") or 600), 1), "async": bool(handler.get("async", False))}
    if handler.get("statusMessage") is not None:
        normal["statusMessage"] = handler["statusMessage"]
    identity: dict[str, Any] = {"event_name": _snake(event), "hooks": [normal]}
    if matcher is not None:
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _snake(event: str) -> str:
    return "".join("_" + c.lower() if c.isupper() and i else c.lower() for i, c in enumerate(event))


def _load_toml(path: str) -> dict[str, Any]:
    import tomlkit

    try:
        with open(path, encoding="utf-8") as handle:
            data = tomlkit.parse(handle.read()).unwrap()
    except (OSError, UnicodeDecodeError):
        return {}
    except Exception:  # noqa: BLE001 - tomlkit raises its own error types; unreadable means "not trusted"
        return {}
    return data if isinstance(data, dict) else {}


def _codex(host: Host, root: str, config: str, store: str, home: str) -> Trust:
    user = _load_toml(store)
    if not _under(_real(config), _real(os.path.dirname(store))):  # a project's hooks need a trusted project
        projects = user.get("projects")
        levels = [(len(_real(folder)), entry.get("trust_level"))
                  for folder, entry in (projects.items() if isinstance(projects, dict) else ())
                  if isinstance(entry, dict) and _under(_real(root), _real(folder))]
        level = max(levels, key=lambda found: found[0])[1] if levels else None  # the nearest entry decides
        if level != "trusted":
            said = f"{store} says trust_level = \"{level}\" for" if level else f"{store} does not trust"
            return Trust(UNTRUSTED, False, f"{said} this project: Codex loads no project config here, hooks "
                                           "included", host.trust)
    state = _key(user, ("hooks", "state"))
    state = state if isinstance(state, dict) else {}
    from gitai.agents.install import is_ours

    hooks = _load_toml(config).get("hooks")
    key_path = _real(config)
    ours = unapproved = 0
    for event, groups in (hooks.items() if isinstance(hooks, dict) else ()):
        if event == "state" or not isinstance(groups, list):
            continue
        for g, group in enumerate(groups):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for h, handler in enumerate(handlers if isinstance(handlers, list) else []):
                if not is_ours(handler):
                    continue
                ours += 1
                entry = state.get(f"{key_path}:{_snake(event)}:{g}:{h}")
                wanted = codex_hook_hash(event, group.get("matcher"), handler)
                if not (isinstance(entry, dict) and entry.get("trusted_hash") == wanted
                        and entry.get("enabled", True) is not False):
                    unapproved += 1
    if unapproved:
        return Trust(UNTRUSTED, False, f"{unapproved} of gitai's {ours} hooks are not approved in Codex's /hooks "
                                       f"(or changed since; {store} [hooks.state]): Codex skips them", host.trust)
    return Trust(TRUSTED, True, f"every gitai hook is approved ({store} [hooks.state])")
