"""Helpers shared by the benchmark scripts: scratch repositories and medians."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

BIN = Path(sys.executable).parent
ENV = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "GIT_CONFIG_NOSYSTEM": "1"}
ENV.pop("GITAI_INTENT", None)


def run(args: list[str], cwd: Path, **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(args, cwd=cwd, env=ENV, check=True, capture_output=True, **kwargs)  # type: ignore[call-overload]


def new_repo(parent: Path, name: str) -> Path:
    repo = parent / name
    repo.mkdir()
    run(["git", "init", "-q", "-b", "main"], repo)
    run(["git", "config", "user.email", "bench@example.com"], repo)
    run(["git", "config", "user.name", "Bench"], repo)
    return repo


CATALOGUE = """\
active_intents:
  - id: INT-001
    name: Benchmark work
    status: IN_PROGRESS
    owned_scope: ["src/**"]
  - id: INT-002
    name: Docs
    owned_scope: ["docs/**"]
"""


def gitai_repo(parent: Path, name: str, hooks: bool = True) -> Path:
    """A repository with a catalogue committed and INT-001 selected."""
    repo = new_repo(parent, name)
    run(["gitai", "init"] + ([] if hooks else ["--no-hooks"]), repo)
    (repo / ".orchestration" / "active_intents.yaml").write_text(CATALOGUE)
    run(["git", "add", "-A"], repo)
    run(["git", "commit", "-qm", "catalogue"], repo)
    run(["gitai", "select", "INT-001"], repo)
    return repo


def hooks_dir(repo: Path) -> Path:
    """Where git runs the repository's hooks from."""
    return repo / run(["git", "rev-parse", "--git-path", "hooks"], repo).stdout.decode().strip()


def remove_hooks(repo: Path, *names: str) -> None:
    for name in names:
        (hooks_dir(repo) / name).unlink()


def timed(fn: Callable[..., object], *args: object, **kwargs: object) -> float:
    """Seconds `fn(*args, **kwargs)` takes; the arguments are bound now (a lambda in a loop
    would read the loop's variables when called)."""
    start = time.perf_counter()
    fn(*args, **kwargs)
    return time.perf_counter() - start


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def scratch() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="gitai-bench-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
