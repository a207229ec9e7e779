"""`gitai log`: filters, folded merges, and a pager on a terminal like git's."""

from __future__ import annotations

import os
import pty
import subprocess
from pathlib import Path

from testing.commands import GITAI, git, gitai, gitai_json
from testing.repos import commit, write


def subjects(entries: list[dict]) -> list[str]:
    return [e["subject"] for e in entries]


def test_limit_path_and_merges(history: Path) -> None:
    everything = gitai_json(history, "log")
    assert len(everything) == 11 and [e["merge"] for e in everything].count(True) == 1
    assert subjects(gitai_json(history, "log", "--limit", "2")) == subjects(everything)[:2]
    billing = subjects(gitai_json(history, "log", "--path", "src/billing"))
    assert sorted(billing) == ["billing", "pay more", "refund"] and billing[-1] == "billing"  # newest first
    assert subjects(gitai_json(history, "log", "--path", "src/billing/refund.py")) == ["refund"]
    assert subjects(gitai_json(history, "log", "INT-001", "--path", "src/auth/")) == [
        "reformat login", "token by hand", "login"]
    no_merges = gitai_json(history, "log", "--no-merges")
    assert len(no_merges) == 10 and not any(e["merge"] for e in no_merges)
    assert gitai(history, "log", "--limit", "-1").returncode == 2


def test_empty_merges_are_folded_unless_asked(history: Path) -> None:
    text = gitai(history, "log", "--limit", "2").stdout.splitlines()
    everything = gitai_json(history, "log")
    merge, after = everything[1], everything[2]
    assert merge["merge"] and merge["lines"] == 0 and merge["files"] == []
    assert text == ["{} {} INT-003 [INTENT_EVOLUTION] unowned file".format(*_head(history)), "    misc/notes.txt",
                    f"{merge['commit'][:12]} (merge without changes of its own; --merges lists them)",
                    text[3], *(f"    {path}" for path in after["files"])]  # --limit counts the commits shown in full
    assert text[3].startswith(after["commit"][:12]) and text[3].endswith(" " + after["subject"])
    full = gitai(history, "log", "--merges", "--limit", "2").stdout.splitlines()
    assert full[2].startswith(merge["commit"][:12]) and full[2].endswith(" merge side") and len(full) == 3


def _head(repo: Path) -> tuple[str, str]:
    sha, date = git(repo, "log", "-1", "--format=%H %cs").stdout.split()
    return sha[:12], date


def test_since_reads_dates_as_git_does(repo: Path) -> None:
    gitai(repo, "select", "INT-001")
    for n, date in enumerate(("2020-01-01T00:00:00Z", "2024-06-01T00:00:00Z")):
        write(repo, f"src/auth/f{n}.py", f"x = {n}\n")
        commit(repo, f"c{n}", env={"GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date})
    assert subjects(gitai_json(repo, "log", "INT-001", "--since", "2023-01-01")) == ["c1"]
    assert subjects(gitai_json(repo, "log", "INT-001", "--since", "2019-12-31")) == ["c1", "c0"]
    assert gitai_json(repo, "log", "--since", "2025-01-01", "INT-001") == []


def _on_a_terminal(repo: Path, *args: str, env: dict[str, str]) -> str:
    """Run gitai with its stdout on a pseudo-terminal; returns what reached the terminal."""
    leader, follower = pty.openpty()
    base = {k: v for k, v in os.environ.items() if k not in ("GIT_PAGER", "PAGER")}
    proc = subprocess.Popen([GITAI, *args], cwd=repo, stdout=follower, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, env={**base, **env})
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 4096)
        except OSError:  # EIO: the terminal closed
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    assert proc.wait() == 0, proc.stderr.read() if proc.stderr else ""
    return b"".join(chunks).decode()


def test_pager_on_a_terminal_like_git(history: Path, tmp_path: Path) -> None:
    paged = tmp_path / "paged.txt"
    pager = f"cat > {paged}"
    env = {"GIT_PAGER": pager, "PAGER": "false"}
    screen = _on_a_terminal(history, "log", "--limit", "1", env=env)
    assert "unowned file" in paged.read_text() and "unowned file" not in screen
    paged.unlink()
    _on_a_terminal(history, "log", "--limit", "1", "--no-pager", env=env)
    assert not paged.exists()
    _on_a_terminal(history, "log", "--limit", "1", "--json", env=env)  # machine output is never paged
    assert not paged.exists()
    git(history, "config", "core.pager", pager)  # no GIT_PAGER: core.pager, then PAGER
    try:
        _on_a_terminal(history, "log", "--limit", "1", env={"PAGER": "false"})
        assert "unowned file" in paged.read_text()
    finally:
        git(history, "config", "--unset", "core.pager")
    paged.unlink()
    screen = _on_a_terminal(history, "log", "--limit", "1", env={"GIT_PAGER": "cat"})
    assert "unowned file" in screen and not paged.exists()
    assert "unowned file" in gitai(history, "log", env=env).stdout and not paged.exists()  # not a terminal
