"""The cost of gitai's agent hooks inside each real host (tests/realhosts: the pinned npm packages,
offline against the scripted model): the same scripted session with gitai's hooks installed and
without, in paired alternating runs, for a session of no tool call and one of CALLS tool calls (half
in-scope writes, half shell commands). Per host, medians of wall time:
  session cost  = with - without, for the empty session (SessionStart, prompt and end hooks);
  per tool call = ((with - without) for CALLS calls - session cost) / CALLS.
The load average is printed beside each host: on a shared machine it dominates the figures.
Needs `make realhosts`. Usage: .venv/bin/python benchmarks/realhost_cost.py [PAIRS] [HOST...]
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path.insert(0, str(TESTS))
from conftest import CATALOGUE  # noqa: E402
from realhosts.harness import HOSTS, Session, available  # noqa: E402

CALLS = 10


def one_run(host: str, hooks: bool, calls: int) -> float:
    """Wall time of one headless session: set-up outside the timing."""
    with tempfile.TemporaryDirectory(prefix="gitai-realhost-") as tmp:
        s = Session(host, Path(tmp), CATALOGUE, hooks=hooks)
        s.gitai("select", "INT-001")
        steps = [s.host.write(f"src/auth/f{i}.py", f"x = {i}\n") if i % 2 == 0 else s.host.shell("ls src/auth")
                 for i in range(calls)]
        start = time.perf_counter()
        result = s.run(steps)
        elapsed = time.perf_counter() - start
        if result.returncode != 0 or len(result.tool_results()) != calls:
            raise SystemExit(f"{host}: the session did not run its {calls} tool calls: {result.stderr[-1500:]}")
        return elapsed


def median_difference(host: str, calls: int, pairs: int) -> tuple[float, float, float]:
    """Medians with and without hooks, alternating which goes first, and the median of the pair differences."""
    with_hooks: list[float] = []
    without: list[float] = []
    for i in range(pairs):
        order = (True, False) if i % 2 == 0 else (False, True)
        for hooks in order:
            (with_hooks if hooks else without).append(one_run(host, hooks, calls))
    diffs = [a - b for a, b in zip(with_hooks, without, strict=True)]
    return statistics.median(with_hooks), statistics.median(without), statistics.median(diffs)


def main() -> None:
    pairs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    hosts = sys.argv[2:] or list(HOSTS)
    print(f"gitai hook cost inside the real hosts: medians of {pairs} alternating pairs; {CALLS} tool calls; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'host':<12} {'empty with':>10} {'without':>8} {'session':>8}   "
          f"{f'{CALLS} calls with':>14} {'without':>8} {'per call':>9}")
    for host in hosts:
        if not available(host):
            print(f"{host:<12} not installed (make realhosts)")
            continue
        e_with, e_without, e_diff = median_difference(host, 0, pairs)
        c_with, c_without, c_diff = median_difference(host, CALLS, pairs)
        per_call = (c_diff - e_diff) / CALLS
        print(f"{host:<12} {e_with:>9.2f}s {e_without:>7.2f}s {e_diff * 1000:>6.0f}ms   "
              f"{c_with:>13.2f}s {c_without:>7.2f}s {per_call * 1000:>7.0f}ms   (load {os.getloadavg()[0]:.1f})",
              flush=True)


if __name__ == "__main__":
    main()
