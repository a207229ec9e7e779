"""`util.files.realpaths` (the agent hooks' shared resolution of many paths) answers exactly what
`os.path.realpath` answers, path by path, over real trees of links: relative and absolute targets, targets
with `..`, chains, dangling links, loops, links to the parent; and for paths it passes on (relative, `.`,
`..`, a NUL, a trailing slash). The gate compares these forms with the protected files, so one
different answer could let a write through."""

from __future__ import annotations

import itertools
import os
import random
from pathlib import Path

import pytest

from gitai.util.files import realpaths

NAMES = ("d", "e", "f", "up", "abs", "chain", "dangling", "loop", "ping", "missing", "..", ".")


def _tree(root: Path) -> None:
    (root / "d" / "e").mkdir(parents=True)
    (root / "d" / "f").write_text("x")
    (root / "d" / "e" / "f").write_text("y")
    os.symlink("d/e", root / "e")  # relative, into a subdirectory
    os.symlink("..", root / "d" / "up")  # to the parent
    os.symlink(str(root / "d"), root / "d" / "e" / "abs")  # absolute
    os.symlink("e", root / "chain")  # a link to a link
    os.symlink("nowhere/at/all", root / "d" / "dangling")
    os.symlink("loop", root / "loop")  # to itself
    os.symlink("pong", root / "d" / "ping")  # a loop of two
    os.symlink("ping", root / "d" / "pong")
    os.symlink("../up/../e", root / "d" / "e" / "twisted")  # `..` after a link


def _paths(root: Path) -> list[str]:
    found = [str(root)]
    for depth in (1, 2, 3):
        for parts in itertools.product(("d", "e", "f", "up", "abs", "chain", "dangling", "loop", "ping", "twisted",
                                        "missing"), repeat=depth):
            found.append(os.path.join(str(root), *parts))
    return found


def test_realpaths_equal_realpath_over_a_tree_of_links(tmp_path: Path) -> None:
    _tree(tmp_path)
    paths = _paths(tmp_path)
    assert realpaths(paths) == {path: os.path.realpath(path) for path in paths}
    one_by_one = {path: realpaths([path])[path] for path in paths[:200]}
    assert one_by_one == {path: os.path.realpath(path) for path in paths[:200]}


def test_realpaths_equal_realpath_for_the_paths_it_passes_on(tmp_path: Path) -> None:
    _tree(tmp_path)
    root = str(tmp_path)
    paths = [f"{root}/d/../e", f"{root}/./d/f", f"{root}/d/", f"{root}//d", "d/e", ".", "", "/", "//", "///x",
             f"/{root}/d/up/up/e", f"{root}/d/up/../d/e"]
    assert realpaths(paths) == {path: os.path.realpath(path) for path in paths}
    with pytest.raises(ValueError):  # as realpath itself: the caller's path forms skip such a path
        realpaths([f"{root}/d/\0/f"])


def test_realpaths_equal_realpath_over_random_trees(tmp_path: Path) -> None:
    rng = random.Random(20261126)
    for round_ in range(12):
        root = tmp_path / f"t{round_}"
        root.mkdir()
        directories = [root]
        for n in range(12):
            parent = rng.choice(directories)
            if rng.random() < 0.5:
                directories.append(parent / f"n{n}")
                directories[-1].mkdir()
            else:
                target = rng.choice(["..", ".", f"n{rng.randrange(12)}", f"../n{rng.randrange(12)}",
                                     str(rng.choice(directories)), f"n{rng.randrange(12)}/../..", "absent"])
                os.symlink(target, parent / f"n{n}")
        names = [f"n{n}" for n in range(12)] + ["absent"]
        paths = [os.path.join(str(rng.choice(directories)), *rng.choices(names, k=rng.randrange(1, 5)))
                 for _ in range(300)]
        assert realpaths(paths) == {path: os.path.realpath(path) for path in paths}, round_
