"""Pre-commit gate latency: `git commit` of a 3-file change under
(a) gitai's gate hooks (pre-commit + commit-msg), (b) a no-op hook run by prek,
(c) a no-op hook run by pre-commit; alternating in one run, medians of RUNS commits.

Targets: a/b <= 2.5 and a/c <= 0.35.
Usage: .venv/bin/python benchmarks/hook_latency.py [RUNS]
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import (
    BIN,
    gitai_repo,
    median_ms,
    new_repo,
    remove_hooks,
    run,
    scratch,
    timed,
)

NOOP_CONFIG = """\
repos:
  - repo: local
    hooks:
      - id: noop
        name: noop
        entry: "true"
        language: system
        pass_filenames: false
        always_run: true
"""


def framework_repo(parent: Path, name: str, tool: str) -> Path:
    repo = new_repo(parent, name)
    (repo / ".pre-commit-config.yaml").write_text(NOOP_CONFIG)
    run(["git", "add", "-A"], repo)
    run(["git", "commit", "-qm", "config", "--no-verify"], repo)
    run([str(BIN / tool), "install"], repo)
    # warm the framework's caches once, outside the measurement
    commit_change(repo, 0)
    return repo


def stage_change(repo: Path, n: int) -> None:
    for i in range(3):
        path = repo / "src" / f"file{i}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"VALUE_{i} = {n}\n")
    run(["git", "add", "src"], repo)


def commit_change(repo: Path, n: int) -> float:
    """Stage a 3-file change, then time only `git commit`."""
    stage_change(repo, n)
    return timed(lambda: run(["git", "commit", "-qm", f"change {n}"], repo))


def main(runs: int) -> int:
    with contextlib.contextmanager(scratch)() as tmp:
        gate = gitai_repo(tmp, "gitai")
        # only the gate hooks: the post-commit trace work is measured by trace_cost.py
        remove_hooks(gate, "post-commit", "post-merge", "post-rewrite")
        commit_change(gate, 0)
        repos = {"gitai": gate, "prek": framework_repo(tmp, "prek", "prek"), "pre-commit": framework_repo(tmp, "pc", "pre-commit")}
        samples: dict[str, list[float]] = {k: [] for k in repos}
        for n in range(1, runs + 1):
            for name, repo in repos.items():
                samples[name].append(commit_change(repo, n))
        med = {k: median_ms(v) for k, v in samples.items()}
    print(f"git commit of a 3-file change, median of {runs} runs")
    for name, value in med.items():
        print(f"  {name:<11} {value:7.1f} ms")
    ab, ac = med["gitai"] / med["prek"], med["gitai"] / med["pre-commit"]
    print(f"  a/b (gitai / prek no-op)       = {ab:.2f}  (target <= 2.5)")
    print(f"  a/c (gitai / pre-commit no-op) = {ac:.2f}  (target <= 0.35)")
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 9))
