"""Where the agent before-write hook's time goes: `gitai hook claude-code` answering a Claude Code
Write in scope (as in hook_latency.py), against processes that stop after each step of its start-up,
and prek's no-op hook. Each step's cost is the difference of its median to the step before; the
medians are of CPU time (user + system of the process and what it waited for: less disturbed by
other work than wall time) and wall time, over RUNS rounds in which the commands run in turn, the
order reversed every other round.

Steps: the interpreter alone (`python -I -S`); with `site` and the virtualenv's `.pth` files, as
the `gitai` console script starts; with gitai's hook entry imported; with every module the
before-write loads imported; the whole hook (the payload read, the decision, the answer). Each ends
with `os._exit`, as the hook does; the last line is what Python's own shutdown of those modules would
add (the hook skips it).

Usage: .venv/bin/python benchmarks/hook_budget.py [SOURCE] [--runs N] [--venv DIR]   (as in hook_latency.py)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import ENV, hooks_dir, scratch
from hook_latency import STAGED, describe, gitai_repo, load, prek_repo, stage, use_venv

# Each step's process ends as the hook does, by os._exit (gitai/entry.py): the interpreter's own shutdown,
# which the hook skips, is measured apart, as the last line.
EXIT = "import os; os._exit(0)"
# Where gitai keeps the hook's modules in one file (gitai/entry.py), the steps import them from it,
# as `gitai hook` does.
BUNDLED = "from gitai.entry import serve; serve(); "
EVERY = "+ every module the before-write loads"
SHUTDOWN = "(skipped) Python's shutdown of them"
PROBE = """
import sys
before = set(sys.modules)
exec(sys.argv[1])
from gitai.agents.hook_entry import run
run("claude-code", None, sys.stdin.buffer.read())
print(" ".join(sorted(set(sys.modules) - before)))
"""


def cpu_and_wall(args: list[str], cwd: Path, stdin: bytes) -> tuple[float, float]:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(args, cwd=cwd, env=ENV, input=stdin, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({proc.returncode}): {proc.stderr.decode()[-500:]}")
    return after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime, wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", nargs="?", help="a local copy of pallets/click to clone (a git dir or path)")
    parser.add_argument("--runs", type=int, default=31)
    parser.add_argument("--venv", help="measure the gitai of this virtualenv (e.g. build/smoke/venv)")
    args = parser.parse_args()
    gitai = use_venv(args.venv)
    python = str(gitai.parent / "python")
    print(f"load average before: {load()}")
    with contextlib.contextmanager(scratch)() as tmp:
        agent = gitai_repo(args.source, tmp, "agent", gitai)
        prek = prek_repo(args.source, tmp)
        stage(prek, STAGED if args.source else ("src/a.py", "src/b.py", "src/c.py"), 0)
        transcript = tmp / "transcript.jsonl"
        transcript.write_text(json.dumps({"type": "assistant", "message": {"model": "claude-sonnet-4-5"}}) + "\n")
        base = {"session_id": "bench", "transcript_path": str(transcript), "cwd": str(agent)}
        folder = "src/click" if args.source else "src"
        write = json.dumps({**base, "hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": {
            "file_path": str(agent / folder / "bench_new.py"), "content": "VALUE = 2\n"}}).encode()
        hook = [str(gitai), "hook", "claude-code"]
        cpu_and_wall(hook, agent, json.dumps({**base, "hook_event_name": "SessionStart"}).encode())
        bundled = subprocess.run([python, "-c", "from gitai.entry import serve"], env=ENV,
                                 capture_output=True).returncode == 0
        as_the_hook = BUNDLED if bundled else ""
        loaded = subprocess.run([python, "-c", PROBE, as_the_hook], cwd=agent, env=ENV, input=write,
                                capture_output=True, check=True).stdout.decode().split()
        steps: list[tuple[str, list[str], Path, bytes]] = [
            ("prek's no-op pre-commit hook", [str(hooks_dir(prek) / "pre-commit")], prek, b""),
            ("the interpreter: python -I -S", [python, "-I", "-S", "-c", EXIT], agent, b""),
            ("+ site and the venv's .pth files", [python, "-c", EXIT], agent, b""),
            ("+ gitai.agents.hook_entry imported",
             [python, "-c", f"{as_the_hook}import gitai.agents.hook_entry; {EXIT}"], agent, b""),
            (EVERY, [python, "-c", f"{as_the_hook}import {', '.join(loaded)}; {EXIT}"], agent, b""),
            ("+ the rest: the whole hook", hook, agent, write),
            (SHUTDOWN, [python, "-c", f"{as_the_hook}import " + ", ".join(loaded)], agent, b""),
        ]
        cpu: list[list[float]] = [[] for _ in steps]
        wall: list[list[float]] = [[] for _ in steps]
        for _ in range(2):  # warm the caches and the bytecode
            for _, command, cwd, stdin in steps:
                cpu_and_wall(command, cwd, stdin)
        for n in range(max(args.runs, 1)):
            order = list(enumerate(steps))
            for i, (_, command, cwd, stdin) in order if n % 2 == 0 else reversed(order):
                c, w = cpu_and_wall(command, cwd, stdin)
                cpu[i].append(c)
                wall[i].append(w)
    print(f"load average after: {load()}")
    print(f"{'pallets/click clone' if args.source else 'generated repository'}; medians of {args.runs} rounds, ms; "
          f"gitai: {describe(gitai)}")
    print(f"  {'step':<40} {'CPU':>6} {'step':>6}   {'wall':>6} {'step':>6}")
    previous = (0.0, 0.0)
    medians = {name: (statistics.median(cpu[i]) * 1000, statistics.median(wall[i]) * 1000)
               for i, (name, *_rest) in enumerate(steps)}
    for name, (c, w) in medians.items():
        if name == steps[0][0]:
            print(f"  {name:<40} {c:6.1f} {'':>6}   {w:6.1f}")
            continue
        if name == SHUTDOWN:  # beside the steps: against the same imports ended by os._exit
            previous = medians[EVERY]
        print(f"  {name:<40} {c:6.1f} {c - previous[0]:+6.1f}   {w:6.1f} {w - previous[1]:+6.1f}")
        previous = (c, w)
    print(f"modules the before-write loads beyond `python -c pass`: {len(loaded)}: {' '.join(loaded)}")
    print(f"python: {sys.version.split()[0]}; load average now {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
