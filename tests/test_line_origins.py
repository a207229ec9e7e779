"""Line origins: kept by the hooks commit by commit, computed through git blame when missing,
and the same either way; without refactor commits, the same commits as `git blame`."""

from __future__ import annotations

import json
import shutil
import zlib
from pathlib import Path

import pytest

from conftest import commit, git, gitai, gitai_json, head, write
from gitai.layout import find_layout
from gitai.origins.store import DIRECTORY, OriginStore

CATALOGUE = """\
active_intents:
  - id: A
    name: Auth
    status: IN_PROGRESS
    owned_scope: ["**"]
  - id: B
    name: Billing
    status: IN_PROGRESS
    owned_scope: ["**"]
  - id: C
    name: Cleanup
    status: IN_PROGRESS
    owned_scope: ["**"]
"""


def numbered(count: int, tag: str = "") -> str:
    return "".join(f"line {n}{tag}\n" for n in range(1, count + 1))


def origins_dir(repo: Path) -> Path:
    return repo / ".git" / "gitai" / DIRECTORY


def blame(repo: Path, path: str, *args: str) -> list[dict]:
    return gitai_json(repo, "blame-intent", path, *args)


def cold_blame(repo: Path, path: str, *args: str) -> list[dict]:
    shutil.rmtree(origins_dir(repo), ignore_errors=True)
    return blame(repo, path, *args)


def git_blame_commits(repo: Path, path: str, rev: str = "HEAD") -> list[str]:
    out = git(repo, "blame", "--porcelain", rev, "--", path).stdout.splitlines()
    commits, sha = [], ""
    for line in out:
        if line.startswith("\t"):
            commits.append(sha)
        elif len(line) > 41 and line[40] == " ":
            sha = line[:40]
    return commits


def kept_at_head(repo: Path, path: str) -> bool:
    """The hooks kept origins for the file's version at HEAD, made by HEAD."""
    blob = git(repo, "rev-parse", f"HEAD:{path}").stdout.strip()
    return head(repo) in OriginStore(find_layout(str(repo))).commits(path, blob)


@pytest.fixture
def traced(bare_repo: Path) -> Path:
    gitai(bare_repo, "init")
    write(bare_repo, ".orchestration/active_intents.yaml", CATALOGUE)
    commit(bare_repo, "catalogue")
    return bare_repo


def test_hooks_keep_origins_that_match_a_computation_from_scratch(traced: Path) -> None:
    repo = traced
    code = "def login(user):\n    return make(user)\n\n\ndef logout(user):\n    drop(user)\n    return True\n"
    write(repo, "src/auth.py", code)
    commit(repo, "A", env={"GITAI_INTENT": "A"})
    assert kept_at_head(repo, "src/auth.py")
    write(repo, "README.md", "docs\n")
    commit(repo, "another file", env={"GITAI_INTENT": "B"})
    write(repo, "src/auth.py", code.replace("make(user)", "make(user, 5)"))
    commit(repo, "B", env={"GITAI_INTENT": "B"})
    assert kept_at_head(repo, "src/auth.py")  # from the version two commits back
    write(repo, "src/auth.py", "def login( user ):\n    return make( user, 5 )\n\n\n")
    write(repo, "src/session.py", "def logout( user ):\n    drop( user )\n    return True\n")
    commit(repo, "C reformats and moves", env={"GITAI_INTENT": "C"})
    assert gitai_json(repo, "show")[0]["metadata"]["dev.gitai"]["classification"] == "AST_REFACTOR"
    assert kept_at_head(repo, "src/auth.py") and kept_at_head(repo, "src/session.py")
    git(repo, "mv", "src/session.py", "src/sessions.py")
    commit(repo, "C renames", env={"GITAI_INTENT": "C"})
    for path in ("src/auth.py", "src/sessions.py"):
        warm = blame(repo, path)
        assert warm == cold_blame(repo, path) == blame(repo, path)  # from scratch, then as kept
    assert [r["intent_id"] for r in blame(repo, "src/auth.py")] == ["A", "B", "A", "A"]
    assert [r["intent_id"] for r in blame(repo, "src/sessions.py")] == ["A", "A", "A"]


def test_without_refactors_the_commits_are_git_blames(traced: Path) -> None:
    """Merges, a rename, a revert, and commits made without the hooks in between."""
    repo = traced
    write(repo, "notes.txt", numbered(12))
    commit(repo, "A writes", env={"GITAI_INTENT": "A"})
    git(repo, "checkout", "-q", "-b", "side")
    write(repo, "notes.txt", numbered(12).replace("line 2\n", "line 2 side\n"))
    commit(repo, "B on a branch", env={"GITAI_INTENT": "B"})
    git(repo, "checkout", "-q", "main")
    write(repo, "notes.txt", numbered(12).replace("line 10\n", "line 10 main\nline 10b\n"))
    commit(repo, "A on main", env={"GITAI_INTENT": "A"})
    git(repo, "merge", "-q", "--no-ff", "-m", "merge side", "side", env={"GITAI_INTENT": "A"})
    before = (repo / "notes.txt").read_text()
    write(repo, "notes.txt", before.replace("line 5\n", "line 5 changed\n"))
    commit(repo, "B changes 5", env={"GITAI_INTENT": "B"})
    write(repo, "notes.txt", before)
    commit(repo, "A reverts", env={"GITAI_INTENT": "A"})
    git(repo, "mv", "notes.txt", "doc.txt")
    write(repo, "doc.txt", (repo / "doc.txt").read_text() + "tail\n")
    commit(repo, "B renames", env={"GITAI_INTENT": "B"})
    assert kept_at_head(repo, "doc.txt")  # kept through the merge, the revert and the rename
    assert [r["commit"] for r in blame(repo, "doc.txt")] == git_blame_commits(repo, "doc.txt")
    write(repo, "doc.txt", "head\n" + (repo / "doc.txt").read_text())
    commit(repo, "plain git", extra=("--no-verify",), env={"GIT_CONFIG_PARAMETERS": "'core.hookspath=/dev/null'"})
    write(repo, "doc.txt", (repo / "doc.txt").read_text().replace("line 7\n", "line 7 again\n"))
    commit(repo, "A after", env={"GITAI_INTENT": "A"})
    assert not kept_at_head(repo, "doc.txt")  # its parent's origins were never kept
    expected = git_blame_commits(repo, "doc.txt")
    assert len(set(expected)) >= 6
    assert [r["commit"] for r in blame(repo, "doc.txt")] == expected
    assert kept_at_head(repo, "doc.txt")  # computed once, kept
    assert [r["commit"] for r in cold_blame(repo, "doc.txt")] == expected
    for rev in ("HEAD~3", "HEAD~5"):  # the revert, the merge
        assert [r["commit"] for r in blame(repo, "notes.txt", "--rev", rev)] == git_blame_commits(repo, "notes.txt", rev)


def test_a_damaged_cache_is_a_miss(traced: Path) -> None:
    repo = traced
    write(repo, "a.py", "X = 1\nY = 2\n")
    commit(repo, "A", env={"GITAI_INTENT": "A"})
    write(repo, "a.py", "X = 1\nY = 3\nZ = 4\n")
    commit(repo, "B", env={"GITAI_INTENT": "B"})
    expected = blame(repo, "a.py")
    kept = list(origins_dir(repo).rglob("*.json.z"))
    assert kept
    for number, entry in enumerate(kept):
        data = json.loads(zlib.decompress(entry.read_bytes()))
        for version in data["versions"].values():
            version["runs"][0][0] += 3  # origins for more lines than the file has
        entry.write_bytes(zlib.compress(json.dumps(data).encode()) if number % 2 == 0 else b"not zlib")
    assert blame(repo, "a.py") == expected
    assert blame(repo, "a.py", "--rev", "HEAD") == expected
    assert [r["intent_id"] for r in expected] == ["A", "B", "B"]


def test_reformatted_lines_map_inside_their_definition(traced: Path) -> None:
    repo = traced
    write(repo, "calc.py", "def f(a, b):\n    return a + b\n")
    commit(repo, "A", env={"GITAI_INTENT": "A"})
    write(repo, "calc.py", "def f(a, b):\n    return a + b + 1\n")
    commit(repo, "B", env={"GITAI_INTENT": "B"})
    write(repo, "calc.py", "def f(\n    a,\n    b,\n):\n    # the sum, plus one\n    return a + b + 1\n")
    commit(repo, "C reformats", env={"GITAI_INTENT": "C"})
    assert gitai_json(repo, "show")[0]["metadata"]["dev.gitai"]["classification"] == "AST_REFACTOR"
    rows = blame(repo, "calc.py")
    # the split signature maps to the old signature line; the inserted comment takes the line above
    assert [r["intent_id"] for r in rows] == ["A", "A", "A", "A", "A", "B"]
    assert rows == cold_blame(repo, "calc.py")
