"""Trace cost: (1) what the post-commit work adds to `git commit` of a 10-file change,
(2) backfill throughput on a generated 1,000-commit history.

(1) alternates, in one run, commits in three repositories: (a) all gitai hooks, (c) only
gitai's gate hooks (pre-commit + commit-msg), (b) no hooks; medians of RUNS commits.
post-commit cost = a - c (target < 150 ms); the ratio a/b is printed too. A fourth repository,
(d) all hooks with agent checkpoints: before each commit an agent session's after-write hook
(`gitai hook claude-code`, outside the timing) checkpoints the 10 files, then a person changes one
line in each; its post-commit work (d - c) against (a - c): target <= 1.2x.
(2) builds the history with `git fast-import` (plain git, no gitai), then times `gitai backfill`.
Target: >= 40 commits/s.
Usage: .venv/bin/python benchmarks/trace_cost.py [RUNS] [COMMITS]
"""

from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import BIN, ENV, gitai_repo, median_ms, new_repo, remove_hooks, run, scratch, timed

SOURCE = "".join(f"def function_{i}(x):\n    return x * {i}\n\n\n" for i in range(40))


def stage_change(repo: Path, n: int) -> None:
    for i in range(10):
        path = repo / "src" / f"module_{i}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(SOURCE.replace("return x * 3\n", f"return x * {n}\n", 1) + f"VERSION = {n}\n")
    run(["git", "add", "src"], repo)


def agent_writes(repo: Path, n: int) -> None:
    """An agent session writes the 10 files (after-write checkpoints), then a person edits one line each."""
    import json
    import subprocess

    for i in range(10):
        path = repo / "src" / f"module_{i}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(SOURCE.replace("return x * 3\n", f"return x * {n}\n", 1) + f"VERSION = {n}\n")
        payload = {"session_id": "bench", "cwd": str(repo), "hook_event_name": "PostToolUse", "tool_name": "Write",
                   "tool_input": {"file_path": str(path)}, "model": "claude-sonnet-4-5"}
        subprocess.run([str(BIN / "gitai"), "hook", "claude-code"], input=json.dumps(payload).encode(), cwd=repo,
                       env=ENV, capture_output=True, check=True)
        path.write_text(path.read_text().replace("return x * 7\n", f"return x * 7 + {n}\n", 1))
    run(["git", "add", "src"], repo)


def commit_cost(runs: int, tmp: Path) -> dict[str, float]:
    repos = {"all hooks": gitai_repo(tmp, "all"), "gate only": gitai_repo(tmp, "gate"),
             "no hooks": gitai_repo(tmp, "none"), "checkpoints": gitai_repo(tmp, "checkpoints")}
    remove_hooks(repos["gate only"], "post-commit", "post-merge", "post-rewrite")
    remove_hooks(repos["no hooks"], "pre-commit", "commit-msg", "post-commit", "post-merge", "post-rewrite")
    samples: dict[str, list[float]] = {k: [] for k in repos}
    for n in range(runs + 1):
        for name, repo in repos.items():
            if name == "checkpoints":
                agent_writes(repo, n)
            else:
                stage_change(repo, n)
            elapsed = timed(run, ["git", "commit", "-qm", f"change {n}"], repo)
            if n:  # the first round warms caches
                samples[name].append(elapsed)
    note = run(["git", "notes", "--ref", "gitai", "show", "HEAD"], repos["checkpoints"]).stdout
    assert b'"attribution":"checkpoints"' in note and b'"mixed"' in note, "the checkpoints were not used"
    return {k: median_ms(v) for k, v in samples.items()}


def build_history(repo: Path, commits: int) -> None:
    """A linear history of `commits` commits touching 1-3 Python files each, via fast-import."""
    chunks = []
    for n in range(commits):
        message = f"change {n}\n" + ("\nIntent: INT-001\n" if n % 3 == 0 else "")
        files = []
        for k in range(1 + n % 3):
            body = SOURCE.replace("return x * 3\n", f"return x * {n + k}\n", 1)
            data = body.encode()
            files.append(f"M 100644 inline src/module_{(n + k) % 25}.py\ndata {len(data)}\n{body}\n")
        msg = message.encode()
        chunks.append(
            f"commit refs/heads/main\ncommitter Bench <bench@example.com> {1700000000 + n} +0000\n"
            f"data {len(msg)}\n{message}\n" + "".join(files)
        )
    run(["git", "fast-import", "--quiet"], repo, input="".join(chunks).encode())
    run(["git", "reset", "-q", "--hard", "main"], repo)


def backfill_rate(commits: int, tmp: Path) -> tuple[float, float]:
    repo = new_repo(tmp, "history")
    build_history(repo, commits)
    run(["gitai", "init", "--no-hooks"], repo)
    start = time.perf_counter()
    run(["gitai", "backfill", "--json"], repo)
    elapsed = time.perf_counter() - start
    return commits / elapsed, elapsed


def main(runs: int, commits: int) -> int:
    with contextlib.contextmanager(scratch)() as tmp:
        med = commit_cost(runs, tmp)
        rate, elapsed = backfill_rate(commits, tmp)
    print(f"git commit of a 10-file change, median of {runs} runs")
    for name, value in med.items():
        print(f"  {name:<10} {value:7.1f} ms")
    print(f"  post-commit work (all hooks - gate only) = {med['all hooks'] - med['gate only']:.1f} ms  (target < 150)")
    print(f"  ratio all hooks / no hooks = {med['all hooks'] / med['no hooks']:.2f}")
    plain, with_cp = med["all hooks"] - med["gate only"], med["checkpoints"] - med["gate only"]
    print(f"  post-commit work with checkpoints = {with_cp:.1f} ms vs {plain:.1f} ms without: "
          f"{with_cp / plain:.2f}x (target <= 1.2); whole commit {med['checkpoints'] / med['all hooks']:.2f}x")
    print(f"backfill of {commits} commits: {elapsed:.1f} s = {rate:.0f} commits/s  (target >= 40)")
    return 0


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    sys.exit(main(*(args + [9, 1000][len(args):])))
