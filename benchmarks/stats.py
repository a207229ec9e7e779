"""`gitai stats` over a whole backfilled history against `git log --numstat` over it, same run.

Clones REPO (a git dir or URL; e.g. the bare mirror of pallets/click) into a scratch directory,
`gitai init --no-hooks`, `gitai backfill` (not timed), then alternates `gitai stats --json` (whole
branch) and `git log --numstat --format=%H`; medians of RUNS. The first stats run (which builds
the notes index) is timed apart. Target: stats <= 2x git log --numstat.
Usage: .venv/bin/python benchmarks/stats.py REPO [RUNS]
"""

from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import BIN, median_ms, run, scratch, timed

TARGET = 2.0


def main(source: str, runs: int) -> int:
    with contextlib.contextmanager(scratch)() as tmp:
        repo = tmp / "clone"
        run(["git", "clone", "-q", source, str(repo)], tmp)
        commits = int(run(["git", "rev-list", "--count", "HEAD"], repo).stdout)
        run([str(BIN / "gitai"), "init", "--no-hooks"], repo)
        start = time.perf_counter()
        run([str(BIN / "gitai"), "backfill", "--json"], repo)
        backfill = time.perf_counter() - start
        stats = [str(BIN / "gitai"), "stats", "--json"]
        first = timed(run, stats, repo)
        samples: dict[str, list[float]] = {"gitai stats": [], "git log --numstat": []}
        for _ in range(runs):
            samples["gitai stats"].append(timed(run, stats, repo))
            samples["git log --numstat"].append(timed(run, ["git", "log", "--numstat", "--format=%H"], repo))
        med = {k: median_ms(v) for k, v in samples.items()}
    ratio = med["gitai stats"] / med["git log --numstat"]
    print(f"{commits} commits; backfill {backfill:.1f} s; first gitai stats (builds the index) {first * 1000:.0f} ms")
    print(f"median of {runs} runs, alternating")
    for name, value in med.items():
        print(f"  {name:<18} {value:7.1f} ms")
    print(f"  ratio {ratio:.2f}x (target <= {TARGET})")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 7))
