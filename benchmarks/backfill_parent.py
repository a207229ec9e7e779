"""The CPU of `gitai backfill`'s own process on pallets/click's full history, apart from its workers' and git's.

On two cores the parent (it reads the commits, builds the records, keeps line origins and writes
the notes, beside two classifying workers) is on the wall's critical path: each CPU-second it
saves is about a second of wall. Each run backfills a fresh clone of SOURCE (`gitai init
--no-hooks`, the catalogue of backfill_click.py) with gitai run in-process by a wrapper that
prints the process's own CPU (`getrusage(RUSAGE_SELF)`) at exit: the workers (forked, ended
without it) and git (children) are counted apart. With `--against BIN` (another gitai's venv bin
directory, such as main's), runs alternate between this gitai and that one (A B, B A, ...) and the
medians of the pairs' differences are printed. `PYTHONDONTWRITEBYTECODE` is dropped for the runs
(compiling every module at start-up would be counted otherwise). Wall times mean little on a
loaded machine; the parent's CPU less so, the pairs' differences least.

Usage: .venv/bin/python benchmarks/backfill_parent.py [SOURCE] [--runs N] [--jobs N] [--against BIN]
       (default SOURCE /work/.mirror/pallets+click/repo, 3 runs of each)
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
from _common import BIN, ENV, run, scratch
from backfill_click import CATALOGUE, SOURCE

WRAPPER = """
import atexit, os, resource, sys
def report():
    own = resource.getrusage(resource.RUSAGE_SELF)
    os.write(2, b"\\nparent-cpu %.3f\\n" % (own.ru_utime + own.ru_stime))
atexit.register(report)
sys.argv = ["gitai", *sys.argv[1:]]
from gitai.entry import main
main()
"""
"""gitai's command line in this process, its own CPU on stderr at exit (forked workers end without
running atexit handlers)."""


def load() -> str:
    return "/".join(f"{value:.1f}" for value in os.getloadavg())


def once(bin_dir: Path, base: Path, clone: Path, jobs: list[str]) -> tuple[float, float, float]:
    """Wall, the parent's CPU and its children's (workers and git) of one backfill in a fresh clone."""
    env = {**ENV, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run(["git", "clone", "-q", str(base), str(clone)], check=True, env=env)
    subprocess.run([str(bin_dir / "gitai"), "init", "--no-hooks"], cwd=clone, env=env, check=True,
                   capture_output=True)
    (clone / ".orchestration" / "active_intents.yaml").write_text(CATALOGUE)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([str(bin_dir / "python"), "-c", WRAPPER, "backfill", *jobs], cwd=clone, env=env,
                          check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    parent = float(done.stderr.decode().rsplit("parent-cpu ", 1)[1].split()[0])
    total = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    subprocess.run(["rm", "-rf", str(clone)], check=True)
    return wall, parent, total - parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", default=SOURCE)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", help="passed to gitai backfill (default: its own choice)")
    parser.add_argument("--against", type=Path, help="another gitai's venv bin directory, run alternately")
    args = parser.parse_args()
    if not Path(args.source).exists():
        print(f"backfill_parent: skipped, no clone of pallets/click at {args.source} (give one as SOURCE)")
        return
    jobs = ["--jobs", args.jobs] if args.jobs else []
    variants = {"this": BIN} | ({"against": args.against} if args.against else {})
    for tmp in scratch():
        base = tmp / "click"
        run(["git", "clone", "-q", args.source, str(base)], tmp)
        print(f"backfill of click, {os.cpu_count()} cores, {args.runs} runs of each of {', '.join(variants)}, "
              f"backfill {' '.join(jobs) or '(default jobs)'}")
        results: dict[str, list[tuple[float, float, float]]] = {name: [] for name in variants}
        for number in range(args.runs):
            order = list(variants) if number % 2 == 0 else list(variants)[::-1]
            for name in order:
                before = load()
                wall, parent, rest = once(variants[name], base, tmp / "run", jobs)
                results[name].append((wall, parent, rest))
                print(f"  {number + 1} {name}: wall {wall:.1f} s, parent {parent:.2f} CPU-s, workers and git "
                      f"{rest:.1f} CPU-s (load {before} before, {load()} after)")
        for name, found in results.items():
            print(f"{name} ({variants[name]}): medians wall {statistics.median(r[0] for r in found):.1f} s, parent "
                  f"{statistics.median(r[1] for r in found):.2f} CPU-s, workers and git "
                  f"{statistics.median(r[2] for r in found):.1f} CPU-s")
        if args.against:
            pairs = zip(results["this"], results["against"], strict=True)
            differences = [mine[1] - theirs[1] for mine, theirs in pairs]
            print(f"parent CPU, this minus against, pair by pair: {' '.join(f'{d:+.2f}' for d in differences)} "
                  f"(median {statistics.median(differences):+.2f} s); load now {load()}")


if __name__ == "__main__":
    main()
