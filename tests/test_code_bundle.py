"""The agent hooks' modules kept as one file (gitai/entry.py): a hook serves them from it only
while their sources and directories are the ones it was written from, so the code that decides is always
the code on disk. Each test runs `gitai hook claude-code` as the console script does, from a copy of
gitai's package (edited where the test says), in a real repository."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from testing.commands import gitai_ok

import gitai

PROBE = """
import os, sys
sys.path.insert(0, sys.argv[1])
from gitai.entry import main
leave = os._exit
def answered(code):
    loaders = {m.__spec__.loader.__class__.__name__ for n, m in sys.modules.items() if n.startswith("gitai.agents.")}
    sys.stdout.write("\\n" + ",".join(sorted(loaders)) + "\\n")
    sys.stdout.flush()
    leave(code)
os._exit = answered
sys.argv = ["gitai", "hook", "claude-code"]
main()
"""


@pytest.fixture
def package(tmp_path: Path) -> Path:
    """A copy of gitai's package (no bytecode, no bundle) on a path of its own."""
    root = tmp_path / "installed"
    shutil.copytree(Path(gitai.__file__).parent, root / "gitai", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _hook(repo: Path, root: Path, path: str, **env: str) -> tuple[str, set[str]]:
    """One before-write of `path` (relative to `repo`) by the copy at `root`: its answer, and which loaders
    loaded gitai's agent modules (`Bundle`: from the bundle; `SourceFileLoader`: the normal import)."""
    payload = {"session_id": "bundle", "cwd": str(repo), "hook_event_name": "PreToolUse", "tool_name": "Write",
               "tool_input": {"file_path": str(repo / path), "content": "x = 1\n"}}
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    proc = subprocess.run([sys.executable, "-c", PROBE, str(root)], cwd=repo, capture_output=True, text=True,
                          input=json.dumps(payload), env={**environ, **env})
    assert proc.returncode == 0, proc.stderr
    answer, _, loaders = proc.stdout.rstrip("\n").rpartition("\n")
    return answer, set(loaders.split(","))


def _bundle(root: Path) -> Path:
    return root / "gitai" / "__pycache__" / f"hooks.{sys.implementation.cache_tag}.bundle"


def test_the_second_hook_loads_its_modules_from_the_bundle(repo: Path, package: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    answer, loaders = _hook(repo, package, "src/auth/a.py")
    assert '"deny"' not in answer and loaders == {"SourceFileLoader"} and _bundle(package).is_file()
    answer, loaders = _hook(repo, package, "src/auth/a.py")
    assert '"deny"' not in answer and loaders == {"Bundle"}
    answer, loaders = _hook(repo, package, "docs/a.md")  # the refusal path: from the bundle, still refused
    assert '"deny"' in answer and "INT-001" in answer and "Bundle" in loaders
    assert not (repo / "docs" / "a.md").exists()


def test_an_edited_module_runs_as_edited_not_as_bundled(repo: Path, package: Path) -> None:
    """A module whose source changed after the bundle was written is imported from its source (and
    the bundle written again): here an edit that refuses every write must refuse the next one."""
    gitai_ok(repo, "select", "INT-001")
    _hook(repo, package, "src/auth/a.py")
    assert _hook(repo, package, "src/auth/a.py")[1] == {"Bundle"}
    gate = package / "gitai" / "agents" / "gate.py"
    gate.write_text(gate.read_text() + "\n\ndef _deny_or_allow(refusal):\n"
                                       "    return Answer(DENY, 'refused by the edited gate')\n")
    answer, loaders = _hook(repo, package, "src/auth/a.py")
    assert "refused by the edited gate" in answer and "SourceFileLoader" in loaders
    answer, loaders = _hook(repo, package, "src/auth/a.py")  # the bundle written again holds the edit
    assert "refused by the edited gate" in answer and loaders == {"Bundle"}


def test_a_module_added_beside_them_drops_the_bundle(repo: Path, package: Path) -> None:
    """A directory that changed (a module added, removed or renamed, as an upgrade does) may change what an
    import finds: nothing is served from a bundle written before it."""
    gitai_ok(repo, "select", "INT-001")
    _hook(repo, package, "src/auth/a.py")
    (package / "gitai" / "agents" / "added.py").write_text("")
    answer, loaders = _hook(repo, package, "src/auth/a.py")
    assert '"deny"' not in answer and loaders == {"SourceFileLoader"}
    assert _hook(repo, package, "src/auth/a.py")[1] == {"Bundle"}


def test_a_damaged_bundle_is_not_used(repo: Path, package: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    _hook(repo, package, "src/auth/a.py")
    whole = _bundle(package).read_bytes()
    header = 4 + int.from_bytes(whole[:4], "little")
    codes_garbled = whole[:header] + bytes(b ^ 0x5A for b in whole[header:])
    for damaged in (b"", b"\xff\xff\xff\x7f", whole[:1000], whole[:header + 100], codes_garbled):
        _bundle(package).write_bytes(damaged)
        answer, loaders = _hook(repo, package, "docs/a.md")
        assert '"deny"' in answer and "INT-001" in answer, damaged[:4]
    assert _hook(repo, package, "docs/a.md")[1] == {"Bundle"}  # written again after the last one


def test_no_bundle_where_bytecode_is_not_written(repo: Path, package: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    answer, _ = _hook(repo, package, "src/auth/a.py", PYTHONDONTWRITEBYTECODE="1")
    assert '"deny"' not in answer and not _bundle(package).exists()
