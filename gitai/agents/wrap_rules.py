"""The host permission rules `gitai agents install` writes beside its hooks, so that the line gitai's
hook puts before each shell command (`GITAI exec --again KEY NONCE; exit;`, gitai/sandbox/wrap.py)
runs in the hosts' default permission modes: Claude Code's `permissions.allow` in the project's
settings.local.json (or the user's settings), a Gemini CLI policy in `~/.gemini/policies/` (0.61
reads no workspace policies). They name only the two parts of that line; the agent's own command is
judged by the person's rules, part by part, as without gitai."""

from __future__ import annotations

import os

from gitai.sandbox.wrap import host_allow_rules
from gitai.util.program import gitai_program

GEMINI_POLICY = ".gemini/policies/gitai.toml"  # in HOME: Gemini CLI 0.61 ships with workspace policies off
_GEMINI_HEAD = "# Written by `gitai agents install` (docs/security.md, \"The second way in\"): do not edit.\n"


def claude_rules() -> list[str]:
    return [f"Bash({prefix}:*)" if " " in prefix else f"Bash({prefix})" for prefix in host_allow_rules(gitai_program())]


def _is_ours(rule: object) -> bool:
    """One of the rules `claude_rules` writes, for this gitai or one at another path."""
    if rule == "Bash(exit)":
        return True
    if not isinstance(rule, str) or not rule.startswith("Bash(") or not rule.endswith(" exec --again:*)"):
        return False
    return os.path.basename(rule[5:-len(" exec --again:*)")]) == "gitai"


def _claude_file(root: str, settings: str, user: bool) -> str:
    """Where the rules go: beside the person's own in the project's `settings.local.json` (Claude Code
    did not apply `permissions` from the project's shared settings.json in `claude -p`; and the path of
    gitai is this machine's), or in the user's settings."""
    return settings if user else os.path.join(root, ".claude", "settings.local.json")


def _exclude_from_git(root: str, rel: str) -> None:
    """`rel` (this person's, naming this machine's paths) into the repository's `info/exclude`, as Claude
    Code does for a settings.local.json it creates, so that `git add -A` does not commit it."""
    import subprocess

    found = subprocess.run(["git", "rev-parse", "--git-common-dir"], cwd=root, capture_output=True, text=True)
    if found.returncode != 0:
        return
    exclude = os.path.join(root, found.stdout.strip(), "info", "exclude")
    try:
        with open(exclude, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        text = ""
    except (OSError, UnicodeDecodeError):
        return
    if f"/{rel}" not in text.splitlines():
        os.makedirs(os.path.dirname(exclude), exist_ok=True)
        with open(exclude, "a", encoding="utf-8") as handle:
            handle.write(("\n" if text and not text.endswith("\n") else "") + f"/{rel}\n")


def _write_claude(path: str, keep: bool) -> bool:
    """gitai's rules into `permissions.allow` of `path` (`keep`), in place of older ones (a gitai that
    moved), or out of it; whether the file changed."""
    import json

    from gitai.agents.install import _indent, _read_json, _write_text

    data, old = _read_json(path)
    if old is None and not keep:
        return False
    permissions = data.get("permissions")
    if not isinstance(permissions, dict):
        permissions = data["permissions"] = {}
    allow = permissions.get("allow")
    permissions["allow"] = [r for r in allow if not _is_ours(r)] if isinstance(allow, list) else []
    if keep:
        permissions["allow"] += claude_rules()
    if not permissions["allow"]:
        del permissions["allow"]
    if not permissions:
        del data["permissions"]
    return _write_text(path, json.dumps(data, indent=_indent(old), ensure_ascii=False) + "\n", old)


def gemini_policy() -> str:
    import json

    rules = [f'[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = {json.dumps(prefix)}\n'
             'decision = "allow"\npriority = 100\n' for prefix in host_allow_rules(gitai_program())]
    return _GEMINI_HEAD + "\n".join(rules)


def install_rules(host: str, root: str, settings: str, user: bool) -> bool:
    """Write `host`'s rules (`settings`: the file its hooks are in); whether a file changed."""
    if host == "claude-code":
        changed = _write_claude(_claude_file(root, settings, user), keep=True)
        if not user:
            _exclude_from_git(root, ".claude/settings.local.json")
        return changed
    return _install_gemini_policy()


def uninstall_rules(host: str, root: str, settings: str, user: bool) -> bool:
    if host == "claude-code":
        return _write_claude(_claude_file(root, settings, user), keep=False)
    return _uninstall_gemini_policy()


def _gemini_policy_path() -> str:
    """Where Gemini CLI reads the user's policies: in HOME, or where GEMINI_CLI_HOME moves its ~/.gemini."""
    from gitai.agents.hosts import home_path

    return home_path(GEMINI_POLICY, os.path.expanduser("~"), os.environ)


def _install_gemini_policy() -> bool:
    """Write the user's policy (for a project install too: the only policies Gemini CLI reads); whether
    it changed."""
    from gitai.util.files import write_atomic

    path = _gemini_policy_path()
    text = gemini_policy()
    try:
        with open(path, encoding="utf-8") as handle:
            if handle.read() == text:
                return False
    except OSError:
        pass
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_atomic(path, text)
    return True


def _uninstall_gemini_policy() -> bool:
    """Remove the user's policy (another project's wrapped commands are then asked for until its next
    install: the safe side)."""
    path = _gemini_policy_path()
    try:
        with open(path, encoding="utf-8") as handle:
            if not handle.read().startswith(_GEMINI_HEAD):
                return False  # not ours
        os.unlink(path)
    except OSError:
        return False
    return True
