"""Agent hooks in-process: payload fixtures per host and event, malformed payloads, command risk,
installers' merging, the git gate's scope-change refusal, and the person-only and brain commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from testing.commands import as_person, git, gitai, gitai_json
from testing.repos import CATALOGUE, commit, new_repo, write

from gitai.agents import normalize as ev
from gitai.agents.hook_entry import run
from gitai.agents.hosts import NAMES as HOSTS
from gitai.agents.install import host_status, install_host, uninstall_host
from gitai.agents.shell_risk import classify

FIXTURES = Path(__file__).parent / "data" / "agent_payloads"
ALL = sorted(FIXTURES.glob("*/*.json"))


def load(path: Path, repo: Path) -> tuple[str | None, bytes]:
    data = json.loads(path.read_text().replace("$REPO", str(repo)))
    return data["event_arg"], json.dumps(data["payload"]).encode()


def denial(host: str, out: str, err: str, code: int) -> str | None:
    """The reason when the answer denies (by the host's protocol), else None."""
    if code == 2:
        return err
    assert code == 0
    if not out:
        return None
    data = json.loads(out)  # stdout is one JSON object and nothing else (Gemini requires it)
    if host in ("claude-code", "codex") or host == "qwen" and "hookSpecificOutput" in data:
        spec = data.get("hookSpecificOutput", {})
        return spec.get("permissionDecisionReason") if spec.get("permissionDecision") in ("deny", "ask") else None
    if host == "qwen":  # Qwen Code also reads a top-level decision, as Gemini CLI does
        return data.get("reason") if data.get("decision") == "deny" else None
    if host == "cursor":
        return data.get("agent_message") if data.get("permission") in ("deny", "ask") else None
    if host == "gemini":
        return data.get("reason") if data.get("decision") == "deny" else None
    return data.get("permissionDecisionReason") if data.get("permissionDecision") == "deny" else None


@pytest.fixture(scope="module")
def fixture_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One repository for all payload fixtures (INT-001 selected): each fixture is one independent call."""
    identity = {"GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "T",
                "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1", "GITAI_INTENT": ""}
    path = new_repo(tmp_path_factory.mktemp("payloads") / "repo")
    assert gitai(path, "init", env=identity).returncode == 0
    write(path, ".orchestration/active_intents.yaml", CATALOGUE)
    commit(path, "catalogue", env=identity)
    assert gitai(path, "select", "INT-001", env=identity).returncode == 0
    return path


def test_one_fixture_per_documented_event() -> None:
    hosts = {p.parent.name for p in ALL}
    assert hosts == set(HOSTS) and len(ALL) >= 50


@pytest.mark.parametrize("fixture", ALL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_normalizes_and_is_answered(fixture_repo: Path, fixture: Path) -> None:
    repo = fixture_repo
    host = fixture.parent.name
    kind = fixture.name.split(".")[-2]
    event_arg, body = load(fixture, repo)
    event = ev.normalize(host, json.loads(body), event_arg)
    assert event.kind == kind
    if kind == ev.BEFORE_WRITE:
        assert event.paths and all(os.path.isabs(p) or p[1:3] == ":/" for p in event.paths)
    out, err, code = run(host, event_arg, body)
    reason = denial(host, out, err, code)
    if (kind == ev.BEFORE_WRITE and "windows" not in fixture.name) or (kind == ev.BEFORE_SHELL and event.paths):
        assert reason and "docs/a.md" in reason and "INT-002" in reason, (out, err)
    elif kind == ev.BEFORE_SHELL:
        assert reason and "circumvention" in reason, (out, err)
    else:
        assert reason is None, (out, err)


def test_codex_patch_headers_and_relative_paths(tmp_path: Path) -> None:
    repo = tmp_path
    _, body = load(FIXTURES / "codex/PreToolUse-apply_patch.before-write.json", repo)
    event = ev.normalize("codex", json.loads(body))
    assert [os.path.relpath(p, repo) for p in event.paths] == ["docs/a.md", "src/old.py", "src/b.py", "docs/b.py"]
    sub = {"hook_event_name": "PreToolUse", "cwd": str(repo / "src"), "tool_name": "Write",
           "tool_input": {"file_path": "../docs/x.md"}}
    assert ev.normalize("claude-code", sub).paths == [str(repo / "docs/x.md")]
    windows = ev.normalize("cursor", {"hook_event_name": "preToolUse", "tool_name": "Write",
                                      "tool_input": {"file_path": "/c:/Users/me/x.py"}})
    assert windows.paths == ["C:/Users/me/x.py"]


@pytest.mark.parametrize("host", HOSTS)
@pytest.mark.parametrize("body", [b"not json", b"[1, 2]", b"", b'{"toolArgs": "{broken"'])
def test_malformed_payloads_fail_closed(host: str, body: bytes) -> None:
    out, err, code = run(host, "preToolUse" if host == "copilot" else None, body)
    reason = denial(host, out, err, code)
    assert reason and "fail closed" in reason and "\n" not in reason.strip()


def test_missing_keys_and_foreign_paths_pass(repo: Path) -> None:
    gitai(repo, "select", "INT-001")
    cwd = {"cwd": str(repo)}
    assert run("claude-code", None, json.dumps({**cwd}).encode()) == ("", "", 0)  # no event: not governed
    no_path = {**cwd, "hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": {}}
    assert "cannot be read" in (denial("claude-code", *run("claude-code", None, json.dumps(no_path).encode())) or "")
    outside = {**cwd, "hook_event_name": "PreToolUse", "tool_name": "Write",
               "tool_input": {"file_path": "/tmp/elsewhere.txt"}}
    assert run("claude-code", None, json.dumps(outside).encode()) == ("", "", 0)
    huge = {**cwd, "hook_event_name": "PreToolUse", "tool_name": "Write",
            "tool_input": {"file_path": str(repo / "src/auth/a.py"), "content": "x" * (9 * 1024 * 1024)}}
    out, err, code = run("claude-code", None, json.dumps(huge).encode())
    assert code == 2 and "larger than" in err
    args = {**cwd, "toolName": "edit", "toolArgs": json.dumps({"path": "docs/a.md"})}
    assert "INT-002" in (denial("copilot", *run("copilot", "preToolUse", json.dumps(args).encode())) or "")


@pytest.mark.parametrize("command,klass", [
    ("ls -la | grep x && cat README.md", "read_only"),
    ("git log --oneline | head", "read_only"),
    ("echo x > src/a.py", "writes"),
    ("sed -i 's/a/b/' src/a.py", "writes"),
    ("cp a.txt b.txt && mv b.txt c.txt", "writes"),
    ("rm -rf /", "destructive"),
    ("rm -rf .", "destructive"),
    ("git reset --hard HEAD~1", "destructive"),
    ("git clean -fdx", "destructive"),
    ("git push --force origin main", "destructive"),
    ("git push origin +main", "destructive"),
    ("git branch -D feature", "destructive"),
    ("git commit -n -m x", "circumvention"),
    ("git commit -anm x", "circumvention"),
    ("git commit --no-verify -m x", "circumvention"),
    ("git -c core.hooksPath=/dev/null commit -m x", "circumvention"),
    ("git config core.hooksPath /tmp/none", "circumvention"),
    ("HUSKY=0 git commit -m x", "circumvention"),
    ("export HUSKY=0", "circumvention"),
    ("git update-ref refs/heads/main HEAD~1", "circumvention"),
    ("git notes --ref gitai add -f -m x", "circumvention"),
    ("echo '#!/bin/sh' > .git/hooks/pre-commit", "circumvention"),
    ("gitai hooks uninstall", "circumvention"),
    ("pip uninstall -y gitai-intent-trace", "circumvention"),
    ("bash -c 'git commit --no-verify -m x'", "circumvention"),
    ("(cd src && git commit -n -m x)", "circumvention"),
    ("echo $(git update-ref refs/heads/x HEAD)", "circumvention"),
    ("ls; true || git reset --hard", "destructive"),
])
def test_command_classes(tmp_path: Path, command: str, klass: str) -> None:
    assert classify(command, str(tmp_path), str(tmp_path)).klass == klass


def test_command_targets_resolve_against_cwd(tmp_path: Path) -> None:
    risk = classify("cd src && echo x > a.py; tee -a ../docs/b.md < x; sed -i -e s/a/b/ c.py",
                    str(tmp_path), str(tmp_path))
    assert risk.targets == ["src/a.py", "docs/b.md", "src/c.py"]
    assert classify("echo x > $OUT", str(tmp_path), str(tmp_path)).targets == []  # not resolvable: not checked


def test_agent_policy_in_the_catalogue_tunes_decisions(repo: Path) -> None:
    text = (repo / ".orchestration/active_intents.yaml").read_text()
    write(repo, ".orchestration/active_intents.yaml",
          "agent_policy:\n  destructive: deny\n  circumvention: ask\n" + text)
    gitai(repo, "select", "INT-001")
    payload = {"cwd": str(repo), "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {}}
    for command, decision in (("git reset --hard", "deny"), ("git commit -n -m x", "ask")):
        payload["tool_input"] = {"command": command}
        out, _, _ = run("claude-code", None, json.dumps(payload).encode())
        assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == decision
    write(repo, ".orchestration/active_intents.yaml", "agent_policy:\n  destructive: maybe\n" + text)
    proc = gitai(repo, "intents")
    assert proc.returncode == 2 and "agent_policy.destructive" in proc.stderr


def test_installers_merge_and_uninstall_only_theirs(tmp_path: Path) -> None:
    claude = tmp_path / ".claude/settings.json"
    claude.parent.mkdir()
    original = {"permissions": {"allow": ["Bash(ls)"]}, "model": "opus",
                "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "other-tool"}]}]}}
    claude.write_text(json.dumps(original, indent=4) + "\n")
    codex = tmp_path / ".codex/config.toml"
    codex.parent.mkdir()
    codex_text = ('# my settings\nmodel = "o3"  # keep\n\n[[hooks.PreToolUse]]\nmatcher = "x"\n'
                  'hooks = [{type = "command", command = "other"}]\n')
    codex.write_text(codex_text)
    for host in HOSTS:
        state, changed = install_host(host, str(tmp_path))
        assert state.state == "installed" and changed
    for host in HOSTS:
        assert install_host(host, str(tmp_path))[1] is False  # idempotent: nothing rewritten
    data = json.loads(claude.read_text())
    assert list(data) == ["permissions", "model", "hooks"] and data["permissions"] == original["permissions"]
    assert data["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "other-tool"
    assert claude.read_text().startswith('{\n    "permissions"')  # the file's indentation is kept
    assert codex.read_text().startswith(codex_text.split("[[")[0]) and "hooks = true" in codex.read_text()
    cursor = json.loads((tmp_path / ".cursor/hooks.json").read_text())
    assert cursor["version"] == 1 and cursor["hooks"]["preToolUse"][0]["failClosed"] is True
    gemini = json.loads((tmp_path / ".gemini/settings.json").read_text())
    assert gemini["hooks"]["BeforeTool"][0]["hooks"][0]["timeout"] == 10000  # milliseconds
    data["hooks"]["PreToolUse"][1]["hooks"][0]["timeout"] = 99
    claude.write_text(json.dumps(data, indent=4) + "\n")
    assert host_status("claude-code", str(tmp_path)).state == "stale"
    for host in HOSTS:
        uninstall_host(host, str(tmp_path))
        assert host_status(host, str(tmp_path)).state == "missing"
    assert json.loads(claude.read_text()) == original
    assert "other" in codex.read_text() and "gitai" not in codex.read_text()
    assert not (tmp_path / ".cursor/hooks.json").exists() and not (tmp_path / ".github/hooks/gitai.json").exists()


def test_agents_commands(repo: Path) -> None:
    installed = gitai_json(repo, "agents", "install", "claude-code", "codex")
    assert [r["state"] for r in installed] == ["installed", "installed"]
    text = gitai(repo, "agents", "install", "codex").stdout
    assert "trust" in text and "/hooks" in text
    status = {r["host"]: r["state"] for r in gitai_json(repo, "agents", "status")}
    assert status == {host: "installed" if host in ("claude-code", "codex") else "missing" for host in HOSTS}
    assert gitai(repo, "agents", "uninstall", env={"CLAUDECODE": "1"}).returncode == 2
    as_person(repo, "agents", "uninstall")
    assert gitai(repo, "agents", "install", "vim").returncode == 2


def test_gate_refuses_a_commit_that_changes_its_own_scope(repo: Path) -> None:
    gitai(repo, "select", "INT-001")
    text = (repo / ".orchestration/active_intents.yaml").read_text()
    write(repo, ".orchestration/active_intents.yaml", text.replace('"src/auth/**"', '"src/**"'))
    refused = commit(repo, "widen my scope", check=False)
    assert refused.returncode != 0 and "changes the owned_scope of INT-001" in refused.stderr
    gitai(repo, "clear")
    base = git(repo, "rev-parse", "HEAD").stdout.strip()
    commit(repo, "a person widens INT-001")
    check = gitai_json(repo, "check", "--range", f"{base}..HEAD")  # reported, not a violation
    assert check["ok"] and check["scope_changes"][0]["intent_id"] == "INT-001"
    assert check["scope_changes"][0]["after"][0] == "src/**"
    # The same change committed under INT-001 (e.g. with --no-verify) is a violation of the range check.
    write(repo, ".orchestration/active_intents.yaml", text)
    git(repo, "add", "-A")
    git(repo, "commit", "-n", "-m", "narrow again\n\nIntent: INT-001")
    check = gitai_json(repo, "check", "--range", "HEAD~1..HEAD", code=1)
    assert check["violations"][0]["reason"] == "scope_changed_under_own_intent"


def test_person_commands_and_brain(repo: Path) -> None:
    assert gitai(repo, "done", "INT-003", env={"GEMINI_CLI": "1"}).returncode == 2
    blocked = as_person(repo, "block", "INT-003", "--reason", "waiting: legal", "--json")
    assert json.loads(blocked.stdout)["status"] == "BLOCKED"
    text = (repo / ".orchestration/active_intents.yaml").read_text()
    assert 'blocked_reason: "waiting: legal"' in text and "# team catalogue" in text
    assert json.loads(as_person(repo, "done", "INT-003", "--json").stdout)["previous_status"] == "BLOCKED"
    assert gitai(repo, "block", "INT-001").returncode == 2  # --reason is required
    shown = gitai_json(repo, "intent", "show", "INT-001")
    assert shown["intent_id"] == "INT-001" and shown["approved"] is False
    assert not (repo / ".git/gitai/active").exists()  # show does not select
    gitai(repo, "select", "INT-001")
    gitai(repo, "lesson", "Tokens live in src/auth/tokens.py", env={"GITAI_AGENT": "claude-code"})
    gitai(repo, "lesson", "Docs use sentence case", "--intent", "INT-002")
    brain = (repo / ".orchestration/AGENT.md").read_text()
    assert "# Shared brain" in brain and "[INT-001] agent:claude-code: Tokens live" in brain
    context = gitai_json(repo, "context")
    assert context["intent"]["intent_id"] == "INT-001" and context["lessons"][-1]["text"].startswith("Tokens")
    assert [s["intent_id"] for s in gitai_json(repo, "context", "--intent", "nope")["selectable"]][0] == "INT-001"
    owners = gitai_json(repo, "owners", "src/auth/a.py", "src/auth/vendor/x.py", ".orchestration/AGENT.md")
    assert [p["owners"] for p in owners["paths"]] == [["INT-001"], [], []]
    assert owners["paths"][2]["exempt"] and not owners["paths"][2]["agents_may_write"]


def test_hook_path_imports(repo: Path) -> None:
    """The hook path stays lean: no yaml, pathspec, pygit2, click; tree-sitter only for shell commands."""
    gitai(repo, "select", "INT-001")
    gitai(repo, "status")  # warm the policy cache
    probe = ("import sys, io, json\nfrom gitai.agents.hook_entry import run\n"
             "run('claude-code', None, sys.stdin.buffer.read())\n"
             "print(json.dumps(sorted(m.split('.')[0] for m in sys.modules)))")
    def modules(payload: dict[str, object]) -> set[str]:
        proc = subprocess.run([sys.executable, "-c", probe], input=json.dumps(payload), capture_output=True,
                              text=True, cwd=repo, check=True)
        return set(json.loads(proc.stdout))
    base = {"cwd": str(repo), "hook_event_name": "PreToolUse", "session_id": "s"}
    write_mods = modules({**base, "tool_name": "Write", "tool_input": {"file_path": str(repo / "src/auth/a.py")}})
    shell_mods = modules({**base, "tool_name": "Bash", "tool_input": {"command": "ls && git status"}})
    for banned in ("yaml", "pathspec", "pygit2", "click"):
        assert banned not in write_mods and banned not in shell_mods, banned
    assert "typing" not in write_mods  # tree_sitter itself imports typing: only the shell path pays it
    assert "tree_sitter" not in write_mods and "tree_sitter_bash" in shell_mods


def test_init_writes_the_agent_instructions_once(repo: Path) -> None:
    text = (repo / "AGENTS.md").read_text()
    assert "gitai select INT-ID" in text and text.count("gitai:begin") == 1
    write(repo, "CLAUDE.md", "# Project notes\nKeep it short.\n")
    assert gitai_json(repo, "init")["agent_instructions"] == ["CLAUDE.md"]
    assert gitai_json(repo, "init")["agent_instructions"] == []  # idempotent
    claude = (repo / "CLAUDE.md").read_text()
    assert claude.startswith("# Project notes\nKeep it short.\n\n<!-- gitai:begin") and claude.count("gitai:end") == 1


def test_no_writes_through_cloned_links(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (repo / "AGENTS.md").unlink()
    (repo / "AGENTS.md").symlink_to(outside / "AGENTS.md")
    (repo / ".claude").symlink_to(outside, target_is_directory=True)
    for argv in (("init",), ("agents", "install", "claude-code")):
        proc = gitai(repo, *argv)
        assert proc.returncode == 2 and "symbolic link" in proc.stderr, proc.stderr
    assert list(outside.iterdir()) == []
