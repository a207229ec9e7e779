"""An old git: every command refuses with one line naming the version found and the one needed.

The `git` earlier on PATH only reports an old version and hands everything else to the real git:
this tests gitai's check, not an imitation of an old git's behaviour."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from testing.commands import gitai
from testing.repos import new_repo

from gitai.git.version import MINIMUM, parse_version

COMMANDS = [("init",), ("status",), ("intents",), ("show",), ("log",), ("check", "--staged"), ("sync",),
            ("blame-intent", "a.py"), ("ci", "github"), ("hooks", "status")]


def old_git_on_path(tmp_path: Path, version: str) -> dict[str, str]:
    real = shutil.which("git")
    assert real
    fake = tmp_path / "old-git" / "git"
    fake.parent.mkdir(parents=True)
    fake.write_text(f'#!/bin/sh\ncase "$1" in --version|version) echo "git version {version}"; exit 0;; esac\n'
                    f'exec {real} "$@"\n')
    fake.chmod(0o755)
    return {"PATH": f"{fake.parent}{os.pathsep}{os.environ['PATH']}"}


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c))
def test_every_command_names_the_git_found_and_the_one_needed(tmp_path: Path, command: tuple[str, ...]) -> None:
    repo = new_repo(tmp_path / "repo")
    proc = gitai(repo, *command, env=old_git_on_path(tmp_path, "2.30.2"))
    assert proc.returncode == 2
    assert proc.stderr == "gitai: error: git 2.30.2 found on PATH; gitai needs git 2.38 or later\n"
    assert proc.stdout == ""
    assert sorted(p.name for p in repo.iterdir()) == [".git"]  # nothing written
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()


def test_the_minimum_itself_and_vendor_builds_pass(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    for version in ("2.38.0", "2.45.1.windows.1", "3.0.0"):
        proc = gitai(repo, "intents", env=old_git_on_path(tmp_path / version, version))
        assert "needs git" not in proc.stderr, proc.stderr


def test_parse_version() -> None:
    assert parse_version("git version 2.39.5\n") == (2, 39, 5)
    assert parse_version("git version 2.37.1 (Apple Git-137.1)") == (2, 37, 1)
    assert parse_version("hub version 2") is None
    assert MINIMUM == (2, 38)
