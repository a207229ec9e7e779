"""The speed promise of the pre-commit gate: its path imports none of the heavy modules."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from conftest import git, gitai_ok, write

HEAVY = {"typing", "yaml", "pathspec", "pygit2", "click", "dataclasses", "tree_sitter", "pathlib"}
PROBE = """
import sys
sys.path[:0] = sys.argv[1].split("\\n")
from gitai.hook_main import main
code = main(["pre-commit"])
print(code, ",".join(sorted({m.split(".")[0] for m in sys.modules} & set(sys.argv[2].split(",")))))
"""


def _run_gate_as_installed(repo: Path) -> tuple[int, set[str]]:
    """Run the gate the way the installed hook does: `python -I -S` with the hook's own sys.path."""
    hook = (repo / ".git" / "hooks" / "pre-commit").read_text()
    python = re.search(r"^GITAI_PYTHON='(.*)'$", hook, re.M)
    path = re.search(r"^GITAI_PATH='(.*?)'$", hook, re.M | re.S)
    assert python and path
    proc = subprocess.run([python.group(1), "-I", "-S", "-c", PROBE, path.group(1), ",".join(sorted(HEAVY))],
                          cwd=repo, capture_output=True, text=True)
    code, _, loaded = proc.stdout.strip().partition(" ")
    assert code.isdigit(), proc.stderr
    return int(code), set(filter(None, loaded.split(",")))


def test_pre_commit_gate_imports_no_heavy_module(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/a.py", "x = 1\n")
    git(repo, "add", "-A")
    _run_gate_as_installed(repo)  # the first run after a catalogue change compiles the policy cache
    assert _run_gate_as_installed(repo) == (0, set())
    write(repo, "docs/x.md", "x\n")
    git(repo, "add", "-A")
    assert _run_gate_as_installed(repo) == (1, set())  # the refusal path too
