"""Hostile moves against the agent hooks, run for real: the verdict of `gitai hook HOST` on a real
payload (in the test's process: the verdict and the move's effect are what is tested), then, when
the verdict lets the move through, the move itself (real bash, a real file write), and a snapshot of
everything the move must not change (files, hooks, HEAD, notes, config).
Shared by tests/test_hostile_roots.py and tests/test_hostile_table.py."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

from testing.agent_hook import run_in_process
from testing.commands import git, gitai_ok
from testing.repos import CATALOGUE, commit, new_repo, write

ALLOWED = "allow"


def make_repo(path: Path) -> Path:
    """A governed repository: the test catalogue, hooks installed, INT-001 selected, one traced
    commit (so a note exists), a person's uncommitted edit in docs/d.md, and a staged file outside
    the scope (so that a commit that skips the gate would move HEAD)."""
    repo = new_repo(path)
    gitai_ok(repo, "init")
    write(repo, ".orchestration/active_intents.yaml", CATALOGUE)
    write(repo, "docs/d.md", "committed\n")
    write(repo, "src/auth/a.py", "a = 1\n")
    write(repo, ".claude/settings.json", '{"hooks": {}}\n')
    commit(repo, "base", extra=("--no-verify",))
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/b.py", "b = 1\n")
    commit(repo, "traced", env={"GITAI_INTENT": "INT-001"})
    write(repo, "docs/d.md", "a person's uncommitted edit\n")
    write(repo, "docs/staged.md", "out of scope\n")
    git(repo, "add", "docs/staged.md")
    return repo


def snapshot(repo: Path, *extra: Path) -> dict[str, str]:
    """What no refused move may change: HEAD, the notes ref, the hooks, the git config, the
    catalogue, the hook configuration, and every file under docs/ (plus `extra` paths)."""
    state: dict[str, str] = {}
    for ref in ("HEAD", "refs/notes/gitai"):
        proc = git(repo, "rev-parse", "-q", "--verify", ref, check=False)
        state[ref] = proc.stdout.strip()
    hooks = Path(git(repo, "rev-parse", "--path-format=absolute", "--git-path", "hooks").stdout.strip())
    common = Path(git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").stdout.strip())
    paths = [*(sorted(hooks.iterdir()) if hooks.is_dir() else []), common / "config",
             repo / ".orchestration/active_intents.yaml", repo / ".claude/settings.json", *extra]
    docs = repo / "docs"
    paths += sorted(p for p in docs.rglob("*")) if docs.is_dir() else []
    paths.append(docs)
    for path in paths:
        state[str(path)] = _digest(path)
    return state


def _digest(path: Path) -> str:
    if path.is_symlink():
        return "link:" + os.readlink(path)
    if path.is_dir():
        return "dir:" + ",".join(sorted(os.listdir(path)))
    if path.is_file():
        return hashlib.sha256(path.read_bytes()).hexdigest()
    return "absent"


def verdict(host: str, payload: dict[str, Any], event: str | None = None) -> tuple[str, str]:
    """(allow | ask | deny, reason) from `gitai hook HOST`, run in this process (tests/testing/agent_hook.py)."""
    proc = run_in_process([host, *([event] if event else [])], json.dumps(payload).encode())
    return parse_answer(host, proc.stdout, proc.stderr, proc.returncode)


def parse_answer(host: str, out: str, err: str, code: int) -> tuple[str, str]:
    assert "Traceback" not in out + err, (out, err)
    if code == 2:
        return "deny", err.strip()
    assert code == 0, (code, out, err)
    if not out.strip():
        return ALLOWED, ""
    data = json.loads(out)
    if host == "cursor":
        return data.get("permission", ALLOWED), data.get("agent_message", "")
    if host == "gemini":
        return ("deny" if data.get("decision") == "deny" else ALLOWED), data.get("reason", "")
    if host == "copilot":
        return data.get("permissionDecision", ALLOWED), data.get("permissionDecisionReason", "")
    specific = data.get("hookSpecificOutput", data)
    return specific.get("permissionDecision", ALLOWED), specific.get("permissionDecisionReason", "")


def shell_payload(command: str, cwd: Path, host: str = "claude-code") -> dict[str, Any]:
    if host == "codex":
        return {"hook_event_name": "PreToolUse", "session_id": "hostile", "cwd": str(cwd), "tool_name": "exec_command",
                "tool_input": {"cmd": command}}
    if host == "gemini":
        return {"hook_event_name": "BeforeTool", "session_id": "hostile", "cwd": str(cwd),
                "tool_name": "run_shell_command", "tool_input": {"command": command}}
    return {"hook_event_name": "PreToolUse", "session_id": "hostile", "cwd": str(cwd), "tool_name": "Bash",
            "tool_input": {"command": command}}


def write_payload(path: str, cwd: Path, content: str = "x\n") -> dict[str, Any]:
    return {"hook_event_name": "PreToolUse", "session_id": "hostile", "cwd": str(cwd), "tool_name": "Write",
            "tool_input": {"file_path": path, "content": content}}


def run_shell(command: str, cwd: Path, env: dict[str, str] | None = None) -> None:
    """The move itself, in real bash (a refused move is run too when a test wants to prove its
    effect; errors are the move's business)."""
    subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, timeout=60, stdin=subprocess.DEVNULL,
                   env={**os.environ, **(env or {})})


def shell_move(repo: Path, command: str, cwd: Path | None = None, host: str = "claude-code") -> tuple[str, str]:
    """The verdict on `command`; the command runs for real when the verdict allows it."""
    where = cwd or repo
    decision, reason = verdict(host, shell_payload(command, where, host))
    if decision == ALLOWED:
        run_shell(command, where)
    return decision, reason


def write_move(repo: Path, path: str, cwd: Path | None = None, content: str = "x\n") -> tuple[str, str]:
    """The verdict on a Write of `path`; the file is written for real (through any link) when allowed."""
    where = cwd or repo
    decision, reason = verdict("claude-code", write_payload(path, where, content))
    if decision == ALLOWED:
        target = Path(path) if os.path.isabs(path) else where / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    return decision, reason
