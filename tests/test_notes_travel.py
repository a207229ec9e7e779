"""Notes travel with plain `git push` and `git pull`: two clones, a bare remote, concurrent pushes."""

from __future__ import annotations

import threading
from pathlib import Path

from testing.commands import git, gitai
from testing.repos import CATALOGUE, commit, head, write
from testing.traces import notes


def _clone(tmp_path: Path, remote: Path, name: str) -> Path:
    path = tmp_path / name
    git(tmp_path, "clone", "-q", "-b", "main", str(remote), str(path))
    assert gitai(path, "init").returncode == 0  # notes travel: on by default
    return path


def test_push_and_pull_carry_the_notes_and_concurrent_pushes_lose_nothing(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    first = tmp_path / "first"
    git(tmp_path, "clone", "-q", str(remote), str(first))
    git(first, "checkout", "-q", "-b", "main")
    assert "notes travel with git push and git pull (origin)" in gitai(first, "init").stdout
    assert git(first, "config", "--get-all", "remote.origin.fetch").stdout.split() == [
        "+refs/heads/*:refs/remotes/origin/*", "+refs/notes/gitai:refs/gitai/remotes/origin/notes"]
    write(first, ".orchestration/active_intents.yaml", CATALOGUE)
    commit(first, "catalogue")
    write(first, "src/auth/a.py", "a\n")
    commit(first, "auth", env={"GITAI_INTENT": "INT-001"})
    git(first, "push", "-q", "-u", "origin", "main")
    remote_notes = notes(remote)
    assert head(first) in remote_notes  # the plain push took the notes along

    second = _clone(tmp_path, remote, "second")
    write(first, "src/auth/b.py", "b\n")
    commit(first, "more auth", env={"GITAI_INTENT": "INT-001"})
    git(first, "push", "-q")
    git(second, "pull", "-q")  # a fast-forward pull: post-merge merges the fetched notes
    assert head(first) in notes(second)

    # both push at once (different branches, so both branch pushes succeed); neither loses a record
    write(first, "src/auth/c.py", "c\n")
    commit(first, "first's work", env={"GITAI_INTENT": "INT-001"})
    git(second, "checkout", "-q", "-b", "billing")
    write(second, "src/billing/d.py", "d\n")
    commit(second, "second's work", env={"GITAI_INTENT": "INT-003"})
    results = {}

    def push(clone: Path, *args: str) -> None:
        results[clone.name] = git(clone, "push", "-q", *args, check=False)

    threads = [threading.Thread(target=push, args=(first,)),
               threading.Thread(target=push, args=(second, "-u", "origin", "billing"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(r.returncode == 0 for r in results.values()), {k: r.stderr for k, r in results.items()}
    on_remote = notes(remote)
    assert head(first) in on_remote and head(second) in on_remote
    git(first, "fetch", "-q")  # a plain fetch brings the notes (an explicit `pull origin BRANCH` does not)
    git(first, "merge", "-q", "--no-edit", "origin/billing")  # post-merge merges them
    assert head(second) in notes(first)
    assert gitai(first, "trace", "verify").returncode == 0
    assert "refs/notes/gitai" not in git(first, "config", "--get-all", "remote.origin.push", check=False).stdout


def test_no_notes_travel_leaves_push_and_fetch_alone(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(remote), str(clone))
    git(clone, "checkout", "-q", "-b", "main")
    assert gitai(clone, "init", "--no-notes-travel").returncode == 0
    commit(clone, "skeleton")  # exempt: passes the gate with no intent
    git(clone, "push", "-q", "origin", "main")
    assert notes(remote) == {}
    assert len(git(clone, "config", "--get-all", "remote.origin.fetch").stdout.split()) == 1
