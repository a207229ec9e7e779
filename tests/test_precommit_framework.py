"""gitai through the pre-commit framework, with the real pre-commit and prek in real repositories:
a framework-only install traces as fully as `gitai init`; next to gitai's own hooks (installed
before or after the framework) nothing runs twice and `gitai init` changes nothing the second time."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from testing.commands import as_person, git, gitai, gitai_json, gitai_ok
from testing.repos import commit, head, new_repo, write
from testing.traces import note, notes

from gitai.hooks.install import HOOK_NAMES

MANIFEST = Path(__file__).parent.parent / ".pre-commit-hooks.yaml"
BIN = str(Path(sys.executable).parent)
CATALOGUE = """\
active_intents:
  - id: INT-001
    name: Auth
    status: IN_PROGRESS
    owned_scope: ["src/auth/**"]
"""


def framework(name: str) -> str:
    found = shutil.which(name, path=BIN) or shutil.which(name)
    if found is None:
        reason = f"FRAMEWORK TEST NOT RUN: {name} missing (pip extra 'test')"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return found


@pytest.fixture(params=["pre-commit", "prek"])
def tool(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ['PATH']}")  # the hooks find `gitai` on PATH
    return framework(request.param)


def framework_repo(path: Path) -> Path:
    """A repository whose framework config lists gitai's manifest hooks as they are (run from PATH,
    as `repo: local`, instead of the framework building gitai into an environment of its own)."""
    repo = new_repo(path)
    manifest = yaml.safe_load(MANIFEST.read_text())
    config = {"default_install_hook_types": list(HOOK_NAMES),
              "repos": [{"repo": "local", "hooks": [{**hook, "language": "system"} for hook in manifest]}]}
    write(repo, ".pre-commit-config.yaml", yaml.safe_dump(config, sort_keys=False))
    return repo


def catalogue_first(repo: Path) -> None:
    write(repo, ".orchestration/active_intents.yaml", CATALOGUE)
    git(repo, "add", "-A")
    git(repo, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "catalogue")
    gitai_ok(repo, "select", "INT-001")


def hooks_layout(repo: Path) -> dict[str, str]:
    hooks = repo / ".git" / "hooks"
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in hooks.iterdir() if not p.name.endswith(".sample")}


def assert_traces_fully(repo: Path) -> None:
    """Trailer, record (note and ledger), refusal once, amend and rebase followed."""
    write(repo, "src/auth/a.py", "def a():\n    return 1\n")
    commit(repo, "add a")
    assert git(repo, "log", "-1", "--format=%(trailers:key=Intent,valueonly)").stdout.strip() == "INT-001"
    record = note(repo)
    assert record["metadata"]["dev.gitai"]["intent_id"] == "INT-001"
    ledger = (repo / ".orchestration" / "agent_trace.jsonl").read_text().splitlines()
    assert sum(record["id"] in line for line in ledger) == 1
    before = head(repo)
    write(repo, "README.md", "readme\n")
    refused = commit(repo, "readme", check=False)
    assert refused.returncode != 0 and head(repo) == before
    assert (refused.stdout + refused.stderr).count("gitai: commit refused") == 1  # the gate ran once
    git(repo, "rm", "-q", "--cached", "README.md")
    (repo / "README.md").unlink()
    write(repo, "src/auth/a.py", "def a():\n    return 2\n")
    git(repo, "commit", "-q", "-a", "--amend", "-m", "add a, amended")
    amended = note(repo)
    assert amended["metadata"]["dev.gitai"]["rewritten_from"] == [before]
    git(repo, "checkout", "-q", "-b", "topic", "HEAD~1")
    write(repo, "src/auth/b.py", "B = 1\n")
    commit(repo, "add b")
    git(repo, "rebase", "-q", "main")
    rebased = note(repo)
    assert len(rebased["metadata"]["dev.gitai"]["rewritten_from"]) == 1
    assert all(len(records) == 1 for records in notes(repo).values())  # nothing recorded twice


def test_a_framework_only_install_traces_as_fully_as_gitai_init(tmp_path: Path, tool: str) -> None:
    repo = framework_repo(tmp_path / "repo")
    gitai_ok(repo, "init", "--no-hooks")
    catalogue_first(repo)
    proc = subprocess.run([tool, "install"], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    states = {h["hook"]: h for h in gitai_json(repo, "hooks", "status")["hooks"]}
    assert {h["state"] for h in states.values()} == {"framework"}
    assert_traces_fully(repo)


@pytest.mark.parametrize("order", ["gitai-first", "framework-first"])
def test_next_to_gitai_init_in_either_order_nothing_runs_twice(tmp_path: Path, tool: str, order: str) -> None:
    repo = framework_repo(tmp_path / "repo")
    steps = [lambda: gitai_ok(repo, "init"), lambda: subprocess.run([tool, "install"], cwd=repo, check=True,
                                                                      capture_output=True)]
    for step in steps if order == "gitai-first" else steps[::-1]:
        step()
    hooks = repo / ".git" / "hooks"
    for name in HOOK_NAMES:  # the framework's hook runs gitai's, kept as HOOK.legacy
        assert "gitai-managed-hook" in (hooks / f"{name}.legacy").read_text()
        assert "gitai-managed-hook" not in (hooks / name).read_text()
    layout = hooks_layout(repo)
    gitai_ok(repo, "init")
    subprocess.run([tool, "install"], cwd=repo, check=True, capture_output=True)
    gitai_ok(repo, "init")
    assert hooks_layout(repo) == layout  # no third layer, either way
    states = gitai_json(repo, "hooks", "status")["hooks"]
    assert {(h["state"], h["framework"], h["chained"]) for h in states} == {("installed", Path(tool).name, False)}
    assert all(h["path"].endswith(".legacy") for h in states)
    catalogue_first(repo)
    assert_traces_fully(repo)
    as_person(repo, "hooks", "uninstall")
    assert not any(p.name.endswith(".legacy") for p in hooks.iterdir())
    assert {h["state"] for h in gitai_json(repo, "hooks", "status")["hooks"]} == {"framework"}


def test_a_foreign_legacy_hook_stays_chained_behind_gitai(tmp_path: Path, tool: str) -> None:
    repo = framework_repo(tmp_path / "repo")
    hooks = repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    mine = "#!/bin/sh\necho lint ok >>\"$(git rev-parse --git-dir)/lint.log\"\n"
    (hooks / "pre-commit").write_text(mine)
    (hooks / "pre-commit").chmod(0o755)
    subprocess.run([tool, "install"], cwd=repo, check=True, capture_output=True)  # mine -> pre-commit.legacy
    gitai_ok(repo, "init")
    assert (hooks / "pre-commit.gitai-chained").read_text() == mine
    catalogue_first(repo)
    write(repo, "src/auth/a.py", "A = 1\n")
    commit(repo, "a")
    assert (repo / ".git" / "lint.log").read_text() == "lint ok\n"
    as_person(repo, "hooks", "uninstall")
    assert (hooks / "pre-commit.legacy").read_text() == mine  # back where the framework keeps it


def test_hooks_run_outside_a_framework_is_the_installed_hook(repo: Path) -> None:
    """`gitai hooks run` where gitai's own hooks are installed does nothing (git runs them)."""
    write(repo, "README.md", "x\n")
    git(repo, "add", "README.md")
    assert gitai(repo, "hooks", "run", "pre-commit").returncode == 0
    as_person(repo, "hooks", "uninstall")
    refused = gitai(repo, "hooks", "run", "pre-commit")
    assert refused.returncode == 1 and "gitai: commit refused: no active intent" in refused.stderr
