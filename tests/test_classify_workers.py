"""Backfill's worker processes: a worker dying leaves the run complete, with the records and line
origins a run without workers gives (what is left is classified in the parent)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from testing.commands import git, gitai_ok
from testing.repos import commit, kept_origins, records_by_commit, write

import gitai.backfill
from gitai.backfill import backfill
from gitai.gate.policy import load_policy
from gitai.layout import find_layout

CATALOGUE = """\
active_intents:
  - {id: CORE, name: Core, status: IN_PROGRESS, owned_scope: ["src/**"]}
"""


def define(name: str, value: int = 0, spaced: bool = False) -> str:
    pad = "  " if spaced else ""
    return f"def {name}(a):\n    return ({pad}a + {value}{pad})\n\n\n"


def module(names: list[str], value: int = 0, spaced: bool = False, header: str = "import os\n") -> str:
    return header + "\n\n" + "".join(define(name, value, spaced) for name in names)


def generate(repo: Path, rounds: int = 10) -> None:
    """Reformats, changes, moves between files and inside one, an import changed, a parse error, a
    rename, a file deleted once its definitions moved out, a file added."""
    names = [f"f{n}" for n in range(8)]
    write(repo, "src/a.py", module(names))
    write(repo, "src/b.py", module(["g"]))
    write(repo, "src/gone.py", module(["h"], header=""))
    commit(repo, "root")
    for number in range(1, rounds + 1):
        write(repo, "src/a.py", module(names, number // 2, spaced=number % 2 == 1))  # change, then reformat
        write(repo, "src/b.py", module(["g"], number, header="import sys\n" if number % 3 else "import os\n"))
        commit(repo, f"a and b {number}")
    write(repo, "src/a.py", module(names[1:] + names[:1], 9))  # f0 moved inside the file
    write(repo, "src/b.py", module(["g", "h"], 9, header=""))  # h moved in from gone.py, deleted
    git(repo, "rm", "-q", "src/gone.py")
    commit(repo, "moves")
    write(repo, "src/b.py", module(["g", "h"], 9, header="") + "def broken(:\n")
    commit(repo, "parse error")
    git(repo, "mv", "src/b.py", "src/c.py")
    write(repo, "src/d.py", module(["k"]))
    commit(repo, "rename, and a file added")
    for number in range(rounds):
        write(repo, "src/a.py", module(names, 20 + number // 2, spaced=number % 2 == 0))
        write(repo, "src/d.py", module(["k", f"m{number % 3}"], number))
        commit(repo, f"late {number}")


_tasks = 0


def _dying(task: object) -> object:
    """A worker's task that kills its process at its second task (the process really exits)."""
    global _tasks
    _tasks += 1
    if _tasks >= 2:
        os._exit(1)
    from gitai.backfill import _classify_chunk

    return _classify_chunk(task)  # type: ignore[arg-type]


def test_a_worker_dying_leaves_the_run_complete(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "source"
    source.mkdir()
    git(source, "init", "-q", "-b", "main")
    generate(source, rounds=40)
    clones = {}
    for name in ("whole", "dying"):
        clones[name] = tmp_path / name
        git(tmp_path, "clone", "-q", str(source), name)
        gitai_ok(clones[name], "init", "--no-hooks")
        (clones[name] / ".orchestration" / "active_intents.yaml").write_text(CATALOGUE)
    gitai_ok(clones["whole"], "backfill", "--jobs", "1")
    monkeypatch.setattr(gitai.backfill, "_classify_chunk", _dying)
    layout = find_layout(str(clones["dying"]))
    result = backfill(layout, load_policy(layout), jobs=2)
    assert _tasks == 0  # only the workers died
    commits = git(source, "rev-list", "HEAD").stdout.split()
    assert sorted(result.traced) == sorted(commits)
    assert records_by_commit(clones["dying"]) == records_by_commit(clones["whole"])
    assert kept_origins(clones["dying"]) == kept_origins(clones["whole"])
