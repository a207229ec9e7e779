"""Backfill's worker processes: each file's classification split in the part that reads its
contents (in a worker, which owns the file for the whole run) and the commit's part (in the
parent) classifies as the whole does; a worker dying leaves the run complete, with the same
records and line origins."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from testing.commands import git, gitai_ok
from testing.repos import commit, kept_origins, records_by_commit, write

import gitai.backfill
from gitai.backfill import FileOwners, _prepare_files, backfill
from gitai.gate.policy import load_policy
from gitai.git.objects import ObjectReader, commit_parents
from gitai.layout import find_layout
from gitai.syntax.classify import FileChange, for_record, prepare_file
from gitai.trace.changes import commit_changes
from gitai.trace.classify_commit import changed_lines, classify, classify_prepared_files, file_changes

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
    """Reformats (unchanged definitions holding changed lines), changes, moves between files and
    inside one, an import changed, a parse error, a rename, a file deleted once its definitions
    moved out, a file added."""
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


def test_the_workers_part_and_the_parents_classify_as_the_whole_does(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    generate(repo)
    shas = git(repo, "rev-list", "--reverse", "HEAD").stdout.split()
    cut = 0
    with ObjectReader(str(repo)) as reader:
        for sha in shas:
            changes = commit_changes(str(repo), reader, sha, commit_parents(reader, sha))
            prepared = [prepare_file(change) for change in file_changes(changes)]
            whole = sum(len(work.entries) for work in prepared)
            answers = [for_record(work, lines) for work, lines in zip(prepared, changed_lines(changes), strict=True)]
            cut += whole - sum(len(work.entries) for work in answers)
            assert all(not (work.old and work.old.definitions) for work in answers)
            assert classify_prepared_files(changes, answers) == classify(changes), sha
    assert cut > 0  # the unchanged definitions holding no changed line were left out


def test_a_files_versions_go_to_one_worker_through_renames() -> None:
    owners = FileOwners(2)
    big = FileChange(None, "big.py", None, b"x" * 1000)
    assert owners.of(big) == 0
    assert owners.of(FileChange(None, "small.py", None, b"y")) == 1  # the one given less so far
    assert owners.of(FileChange(None, "other.py", None, b"z")) == 1
    assert owners.of(FileChange("big.py", "big.py", b"x", b"x" * 2000)) == 0
    assert owners.of(FileChange("big.py", "moved.py", b"x", b"x")) == 0  # a rename keeps its worker
    assert owners.of(FileChange("moved.py", None, b"x", None)) == 0  # deleted
    assert owners.of(FileChange("small.py", "small.py", b"y", b"yy")) == 1


def test_a_new_file_goes_to_the_worker_with_less_work_counting_each_change_not_only_its_bytes() -> None:
    owners = FileOwners(2)
    assert owners.of(FileChange(None, "big.py", None, b"x" * 30_000)) == 0
    for name in ("a.py", "b.py", "c.py"):  # three changes of one byte each: more work than 30 KB
        assert owners.of(FileChange(None, name, None, b"y")) == 1
    assert owners.of(FileChange(None, "new.py", None, b"z")) == 0


_tasks = 0


def _dying(task: object) -> object:
    """A worker's task that kills its process at its second task (the process really exits); its
    first is the real `_prepare_files`, imported here before the module's is patched to this."""
    global _tasks
    _tasks += 1
    if _tasks >= 2:
        os._exit(1)
    return _prepare_files(task)  # type: ignore[arg-type]


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
    monkeypatch.setattr(gitai.backfill, "_prepare_files", _dying)
    layout = find_layout(str(clones["dying"]))
    import gc

    assert gc.isenabled()
    result = backfill(layout, load_policy(layout), jobs=2)
    assert gc.isenabled()  # backfill runs without the cycle collector and gives it back, also on this path
    assert _tasks == 0  # only the workers died
    commits = git(source, "rev-list", "HEAD").stdout.split()
    assert sorted(result.traced) == sorted(commits)
    assert records_by_commit(clones["dying"]) == records_by_commit(clones["whole"])
    assert kept_origins(clones["dying"]) == kept_origins(clones["whole"])


def _gitai_children(pid: int) -> list[int]:
    """The children of `pid` running gitai; a child that ends while it is read (a git process) is
    not one."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as handle:
                stat = handle.read()
            with open(f"/proc/{name}/cmdline", "rb") as handle:
                command = handle.read()
        except OSError:
            continue
        if int(stat[stat.rfind(")") + 2:].split()[1]) == pid and b"gitai" in command:
            found.append(int(name))
    return found


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            stat = handle.read()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
def test_workers_end_with_a_backfill_killed_outright(tmp_path: Path) -> None:
    """A backfill killed by SIGKILL (or the OOM killer) runs no clean-up: its workers, waiting for
    their next task, must not stay behind."""
    import signal
    import subprocess
    import time

    from testing.commands import GITAI

    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    stream = "".join(
        f"commit refs/heads/main\ncommitter A <a@example.com> {1700000000 + n} +0000\ndata 2\nc\n"
        + f"M 100644 inline src/m{n % 7}.py\ndata <<EOF\n{module(['f', 'g', 'h'], n)}EOF\n\n"
        for n in range(600))
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=stream.encode(), check=True)
    git(repo, "checkout", "-q", "main")
    gitai_ok(repo, "init", "--no-hooks")
    run = subprocess.Popen([GITAI, "backfill", "--jobs", "2"], cwd=repo, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        workers: list[int] = []
        deadline = time.monotonic() + 30
        while len(workers) < 2 and run.poll() is None and time.monotonic() < deadline:
            workers = _gitai_children(run.pid)
            time.sleep(0.01)
        assert len(workers) == 2, "the backfill ended before its workers were seen: nothing tested"
        os.kill(run.pid, signal.SIGKILL)
        run.wait()
        deadline = time.monotonic() + 10
        while any(_running(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = [pid for pid in workers if _running(pid)]
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        assert not left
    finally:
        if run.poll() is None:
            run.kill()
