"""Every command's --json output against its schema in docs/schemas/ (the vocabulary agents parse)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import pytest
from testing.commands import as_person, git, gitai, gitai_json, gitai_ok
from testing.repos import commit, new_repo, write
from testing.schemas import SCHEMAS, validate

from gitai.cli import cli, subcommands


def leaf_commands(group: click.Group, prefix: str = "") -> list[str]:
    names = []
    for name, command in subcommands(group).items():
        if isinstance(command, click.Group):
            names += leaf_commands(command, f"{prefix}{name} ")
        else:
            names.append(f"{prefix}{name}")
    return names


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository with a catalogue, traced commits (a refactor among them) and a remote."""
    from testing.repos import CATALOGUE

    root = tmp_path_factory.mktemp("schemas")
    remote = root / "remote.git"
    git(root, "init", "-q", "--bare", str(remote))
    repo = new_repo(root / "repo")
    assert gitai(repo, "init").returncode == 0
    write(repo, ".orchestration/active_intents.yaml", CATALOGUE)
    commit(repo, "add catalogue")
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/a.py", "def f(x):\n    return x + 1\n")
    commit(repo, "auth")
    write(repo, "src/auth/a.py", "def f( x ):\n    return x+1\n")
    commit(repo, "reformat")
    git(repo, "remote", "add", "origin", str(remote))
    return repo


def _hook(repo: Path, host: str, payload: dict[str, Any], event: str | None = None) -> Any:
    """`gitai hook` answers in the host's protocol: one JSON object on stdout."""
    import subprocess

    from testing.commands import GITAI

    proc = subprocess.run([GITAI, "hook", host, *([event] if event else [])], cwd=repo, capture_output=True,
                          text=True, input=json.dumps({"cwd": str(repo), **payload}))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _coverage(repo: Path) -> Any:
    proc = gitai(repo, "coverage", "--json")
    output = json.loads(proc.stdout)
    assert proc.returncode == (0 if output["complete"] else 1), proc.stderr
    return output


def test_every_command_output_matches_its_schema(traced: Path) -> None:
    repo = traced
    head = git(repo, "rev-parse", "HEAD").stdout.strip()
    runs: dict[str, list[Any]] = {
        "init": [gitai_json(repo, "init")],
        "hooks": [gitai_json(repo, "hooks", "status"), gitai_json(repo, "hooks", "install")],
        "intents": [gitai_json(repo, "intents")],
        "select": [gitai_json(repo, "select", "INT-002")],
        "clear": [gitai_json(repo, "clear")],
        "status": [gitai_json(repo, "status")],
        "check": [gitai_json(repo, "check", "src/auth/a.py", "--intent", "INT-001"),
                  gitai_json(repo, "check", "--range", "HEAD~2..HEAD", code=0),
                  gitai_json(repo, "check", "docs/x.md", "--intent", "INT-001", code=1)],
        "show": [gitai_json(repo, "show", head)],
        "log": [gitai_json(repo, "log"), gitai_json(repo, "log", "--no-merges", "--limit", "1", "--path", "src")],
        "stats": [gitai_json(repo, "stats"), gitai_json(repo, "stats", "HEAD", "--by", "model")],
        "backfill": [gitai_json(repo, "backfill")],
        "trace-verify": [gitai_json(repo, "trace", "verify")],
        "trace-rebuild": [gitai_json(repo, "trace", "rebuild")],
        "trace-recover": [gitai_json(repo, "trace", "recover")],
        "sync": [gitai_json(repo, "sync")],
        "classify": [gitai_json(repo, "classify"), gitai_json(repo, "classify", "HEAD~1")],
        "map": [gitai_json(repo, "map"), json.loads(gitai_ok(repo, "map", "--format", "json").stdout)],
        "export": [gitai_json(repo, "export", "-o", str(repo.parent / "t.sqlite")),
                   gitai_json(repo, "export", "--format", "jsonl", "-o", str(repo.parent / "t.jsonl"))],
        "report": [gitai_json(repo, "report", "-o", str(repo.parent / "r.html"))],
        "blame-intent": [gitai_json(repo, "blame-intent", "src/auth/a.py")],
        "blame-intent-summary": [gitai_json(repo, "blame-intent", "src/auth/a.py", "--summary")],
        "agents": [gitai_json(repo, "agents", "install", "claude-code", "gemini"), gitai_json(repo, "agents", "status"),
                   json.loads(as_person(repo, "agents", "uninstall", "claude-code", "gemini", "--json").stdout)],
        "owners": [gitai_json(repo, "owners", "src/auth/a.py", ".orchestration/AGENT.md")],
        "coverage": [_coverage(repo)],
        "intent-show": [gitai_json(repo, "intent", "show", "INT-001")],
        "context": [gitai_json(repo, "context"), gitai_json(repo, "context", "--intent", "INT-001")],
        "lesson": [gitai_json(repo, "lesson", "Keep login() stable")],
        "approve": [json.loads(as_person(repo, "approve", "INT-003", "--json").stdout)],
        "block": [json.loads(as_person(repo, "block", "INT-003", "--reason", "waiting", "--json").stdout)],
        "done": [json.loads(as_person(repo, "done", "INT-003", "--json").stdout)],
        "hook": [_hook(repo, "claude-code", {"hook_event_name": "PreToolUse", "tool_name": "Write",
                                             "tool_input": {"file_path": "docs/x.md"}}),
                 _hook(repo, "claude-code", {"hook_event_name": "SessionStart"}),
                 _hook(repo, "cursor", {"hook_event_name": "preToolUse", "tool_name": "Shell",
                                        "tool_input": {"command": "git commit -n"}}),
                 _hook(repo, "gemini", {"hook_event_name": "BeforeTool", "tool_name": "write_file",
                                        "tool_input": {"file_path": "docs/x.md"}}),
                 _hook(repo, "copilot", {"toolName": "edit", "toolArgs": '{"path": "docs/x.md"}'}, "preToolUse")],
        "carry": [gitai_json(repo, "carry", "HEAD~1..HEAD", "--to", "HEAD")],
        "gc": [gitai_json(repo, "gc")],
        "ci": [gitai_json(repo, "ci", "github")],
        "help": [gitai_json(repo, "help"), gitai_json(repo, "help", "hooks", "install")],
    }
    for name, outputs in runs.items():
        for output in outputs:
            validate(name, output)
    assert {p.name.removesuffix(".schema.json") for p in SCHEMAS.glob("*.schema.json")} - set(runs) == {
        "agent-trace-0.1.0.strict"}


# Commands that become another program (exec): they have no output of their own, nor --json.
BECOME_ANOTHER_PROGRAM = {"exec", "run"}


def test_every_command_has_a_schema() -> None:
    """A new command comes with the schema of its --json output."""
    names = {p.name.removesuffix(".schema.json") for p in SCHEMAS.glob("*.schema.json")} | BECOME_ANOTHER_PROGRAM
    grouped = {"hooks install": "hooks", "hooks uninstall": "hooks", "hooks status": "hooks",
               "agents install": "agents", "agents uninstall": "agents", "agents status": "agents"}
    git_hooks = {"hooks run"}  # a git hook's own output and exit status, no --json
    missing = [name for name in leaf_commands(cli)
               if name not in git_hooks and grouped.get(name, name.replace(" ", "-")) not in names]
    assert not missing, f"commands without a schema in docs/schemas/: {missing}"
