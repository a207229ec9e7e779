"""What keeps gitai's costs independent of a repository's size (figures in
benchmarks/monorepo.py): the notes index follows the notes by their diff, and the gate's
staged-paths query is piped in by the hook only when git succeeded."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from testing.commands import git, gitai_ok
from testing.repos import commit, head, write

from gitai.gate.check import STAGED_DIFF, staged_paths
from gitai.layout import find_layout
from gitai.trace.summary_index import INDEX_NAME, load_index

NOTES = "refs/notes/gitai"


def _traced(repo: Path, count: int) -> list[str]:
    gitai_ok(repo, "select", "INT-001")
    commits = []
    for n in range(count):
        write(repo, f"src/auth/m{n}.py", f"def f{n}():\n    return {n}\n")
        commit(repo, f"m{n}")
        commits.append(head(repo))
    return commits


def _mark(repo: Path, sha: str) -> None:
    """Change one commit's row behind the index's back: it stays only if no update reads it again."""
    with sqlite3.connect(repo / ".git" / "gitai" / INDEX_NAME) as db:
        db.execute("UPDATE commits SET info = ? WHERE sha = ?", ('{"intent": "MARK", "files": {}}', sha))


def test_notes_index_reads_only_the_notes_that_changed(repo: Path) -> None:
    first, second, third = _traced(repo, 3)
    layout = find_layout(str(repo))
    assert {sha: load_index(layout).commits[sha]["intent"] for sha in (first, second, third)} == dict.fromkeys(
        (first, second, third), "INT-001")
    _mark(repo, first)
    body = git(repo, "notes", "--ref", NOTES, "show", second).stdout.replace("INT-001", "INT-003")
    git(repo, "notes", "--ref", NOTES, "add", "-f", "-m", body, second)  # a changed note, as a merge of notes brings
    git(repo, "notes", "--ref", NOTES, "remove", third)
    commits = load_index(layout).commits
    assert commits[first]["intent"] == "MARK"  # not read again: the update followed the notes' diff
    assert commits[second]["intent"] == "INT-003"
    assert third not in commits and len(commits) == len(list(commits))


def test_notes_index_is_rebuilt_when_its_state_is_unknown_or_damaged(repo: Path) -> None:
    first, _ = _traced(repo, 2)
    layout = find_layout(str(repo))
    load_index(layout)
    _mark(repo, first)
    with sqlite3.connect(repo / ".git" / "gitai" / INDEX_NAME) as db:  # built from a notes commit gone since
        db.execute("UPDATE meta SET value = ? WHERE key = 'notes'", ("0" * 40,))
    assert load_index(layout).commits[first]["intent"] == "INT-001"
    (repo / ".git" / "gitai" / INDEX_NAME).write_bytes(b"not a database" * 100)
    assert load_index(layout).commits[first]["intent"] == "INT-001"


def test_piped_staged_paths_are_trusted_only_after_git_succeeded(repo: Path) -> None:
    write(repo, "docs/x.md", "x\n")
    git(repo, "add", "docs/x.md")
    layout = find_layout(str(repo))
    assert staged_paths(layout, b"src/auth/a.py\0" + b"0") == ["src/auth/a.py"]
    assert staged_paths(layout, b"0") == []
    assert staged_paths(layout, b"src/auth/a.py\0" + b"128") == ["docs/x.md"]  # git failed: asked again
    assert staged_paths(layout, b"") == ["docs/x.md"]  # no status at all (git killed)
    hook = (Path(__file__).parent.parent / "gitai" / "hooks" / "gitai-hook.sh").read_text()
    assert "git " + " ".join(STAGED_DIFF) + " 2>/dev/null" in hook


def test_installed_gate_refuses_with_the_piped_query(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/ok.py", "x = 1\n")
    write(repo, "docs/out.md", "x\n")
    refused = commit(repo, "mixed", check=False)
    assert refused.returncode != 0 and "docs/out.md" in refused.stderr
    git(repo, "restore", "--staged", "--", "docs/out.md")
    assert git(repo, "commit", "-m", "in scope").returncode == 0
