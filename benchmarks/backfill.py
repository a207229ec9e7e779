"""`gitai backfill` of pallets/click's full history against `git log -p` over it, same run.

The yardstick reads every diff of the history once; backfill reads them too and then classifies
every changed file, keeps line origins and writes a record per commit. Target: backfill <= 10x
`git log -p` (wall), on this 2-core machine.

Clones SOURCE (a local clone or bare copy of https://github.com/pallets/click; nothing is fetched
here: `make bench` skips this benchmark when there is none) once, then runs RUNS pairs, the order
alternating (A B, B A, ...): `git log -p` in that clone, and `gitai backfill` in a fresh clone of
it with `gitai init --no-hooks` and an eight-intent catalogue (not timed). Prints each pair (wall,
CPU of the process and its children, the load average before it) and the medians: of the walls,
of the CPU seconds, and of the ratios pair by pair. Wall times mean little on a loaded machine: the
ratio within a pair less so, the CPU ratio least.

Usage: .venv/bin/python benchmarks/backfill.py [SOURCE] [--runs N] [--jobs N]
       (default SOURCE /work/.mirror/pallets+click/repo, 5 runs)
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import ENV, run, scratch
from backfill_click import CATALOGUE, SOURCE

TARGET = 10.0


def load() -> str:
    return "/".join(f"{value:.1f}" for value in os.getloadavg())


def measured(args: list[str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds (the process and its children) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(args, cwd=cwd, env=ENV, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def fresh_clone(base: Path, target: Path) -> Path:
    run(["git", "clone", "-q", str(base), str(target)], base.parent)
    run(["gitai", "init", "--no-hooks"], target)
    (target / ".orchestration" / "active_intents.yaml").write_text(CATALOGUE)
    return target


def median(pairs: list[dict[str, tuple[float, float]]], which: str, part: int) -> float:
    """The median over the pairs of one command's wall (part 0) or CPU (part 1) seconds."""
    return statistics.median(p[which][part] for p in pairs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", default=SOURCE)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--jobs", help="passed to gitai backfill (default: its own choice)")
    args = parser.parse_args()
    if not Path(args.source).exists():
        print(f"backfill: skipped, no clone of pallets/click at {args.source} (give one as SOURCE)")
        return
    jobs = ["--jobs", args.jobs] if args.jobs else []
    for tmp in scratch():
        base = tmp / "click"
        run(["git", "clone", "-q", args.source, str(base)], tmp)
        commits = int(run(["git", "rev-list", "--count", "HEAD"], base).stdout)
        print(f"backfill of click ({commits} commits) against git log -p, {os.cpu_count()} cores, "
              f"{args.runs} pairs, backfill {' '.join(jobs) or '(default jobs)'}")
        pairs = []
        for number in range(args.runs):
            clone = fresh_clone(base, tmp / f"run{number}")
            before = load()
            timings: dict[str, tuple[float, float]] = {}
            order = ["log", "backfill"] if number % 2 == 0 else ["backfill", "log"]
            for which in order:
                if which == "log":
                    timings[which] = measured(["git", "log", "-p", "--no-color", "--format=%H"], base)
                else:
                    timings[which] = measured(["gitai", "backfill", "--json", *jobs], clone)
            (log_wall, log_cpu), (fill_wall, fill_cpu) = timings["log"], timings["backfill"]
            pairs.append(timings)
            print(f"  pair {number + 1}: git log -p {log_wall:.2f} s ({log_cpu:.2f} s CPU), backfill {fill_wall:.1f} s "
                  f"({fill_cpu:.1f} s CPU): {fill_wall / log_wall:.1f}x wall, {fill_cpu / log_cpu:.1f}x CPU "
                  f"(load {before} before, {load()} after)")
            subprocess.run(["rm", "-rf", str(clone)], check=True)

        wall_ratio = statistics.median(p["backfill"][0] / p["log"][0] for p in pairs)
        cpu_ratio = statistics.median(p["backfill"][1] / p["log"][1] for p in pairs)
        print(f"medians: git log -p {median(pairs, 'log', 0):.2f} s wall, {median(pairs, 'log', 1):.2f} s CPU; "
              f"backfill {median(pairs, 'backfill', 0):.1f} s wall, {median(pairs, 'backfill', 1):.1f} s CPU")
        print(f"backfill / git log -p: {wall_ratio:.1f}x wall, {cpu_ratio:.1f}x CPU (median of pairs; "
              f"target <= {TARGET:.0f}x wall: {'met' if wall_ratio <= TARGET else 'not met'}); load now {load()}")


if __name__ == "__main__":
    main()
