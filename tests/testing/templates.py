"""Repositories built once and copied: by a fixture many tests start from (`Templates`, once per test
process), or by a wide fixture every test process needs (`built_once`, once per run). A copy is the
repository as the build made it (files, commits, notes, hooks, events) at its new path, and a test's
copy leaves the commit clock where the build left it, so its next commit is dated as in a build."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from testing.commands import git
from testing.hermetic import clock, set_clock

PER_TEST = ("HOME", "XDG_CONFIG_HOME", "PYTEST_CURRENT_TEST")
"""Variables that differ from test to test without changing what a build makes (what is in HOME may:
a HOME holding more than caches, a test's own git configuration say, builds afresh)."""


def copy_tree(source: Path, target: Path) -> None:
    """Copy `source` to `target`, its own absolute path in text files (an event's worktree, a remote's
    URL) made `target`'s, as if it had been made there. A binary file holding the path fails."""
    shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)
    old, new = str(source).encode(), str(target).encode()
    for path in target.rglob("*"):
        if path.is_symlink() or not path.is_file() or "objects" in path.relative_to(target).parts:
            continue
        content = path.read_bytes()
        if old in content:
            assert b"\0" not in content, f"{path} holds {source} where a copy cannot change it"
            path.write_bytes(content.replace(old, new))


def copy_repository(source: Path, target: Path) -> Path:
    copy_tree(source, target)
    git(target, "update-index", "-q", "--refresh")  # the index's file stats are the copies'
    return target


class Templates:
    """Built repositories under `root`, by what they were built from: the build's name, the commit
    clock when it started and the environment (an unknown one builds afresh)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.built: dict[tuple[str, int, frozenset[tuple[str, str]]], tuple[Path, int]] = {}

    def make(self, name: str, path: Path, build: Callable[[Path], object]) -> Path:
        """The repository `build(path)` makes at `path`: built there the first time, copied after."""
        home = Path(os.environ["HOME"])
        if home.is_dir() and any(entry.name != ".cache" for entry in home.iterdir()):
            build(path)
            return path
        key = (name, clock(), frozenset((k, v) for k, v in os.environ.items() if k not in PER_TEST))
        if key not in self.built:
            build(path)
            kept = self.root / f"{name}-{len(self.built)}" / path.name
            copy_tree(path, kept)
            self.built[key] = kept, clock()
            return path
        kept, end = self.built[key]
        copy_repository(kept, path)
        set_clock(end)
        return path


def built_once(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], object]) -> Path:
    """A repository for a fixture wider than a test: `build` runs once for the whole run, by the
    first test process to need it (the others wait for it), and each process gets a copy of its own."""
    path = factory.mktemp(name) / "repo"
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        build(path)
        return path
    shared = factory.getbasetemp().parent / "built-once"  # the run's directory, above each process's
    shared.mkdir(exist_ok=True)
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        kept = shared / name / "repo"
        if not (shared / f"{name}.done").exists():
            shutil.rmtree(kept.parent, ignore_errors=True)
            build(kept)
            (shared / f"{name}.done").touch()
    return copy_repository(kept, path)
