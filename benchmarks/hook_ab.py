"""Two or more gitais' agent before-write in the same rounds: to tell a change's effect from the
machine's drift, which on a loaded machine moves prek's no-op (the yardstick of hook_latency.py) by
more than a change of a few percent. Each gitai is the one in a virtualenv (e.g. main's wheel and
this branch's, each installed as `make smoke` installs it), with its own clone of SOURCE; every round
runs prek's no-op and each gitai's `gitai hook claude-code` answering a Write in scope, the order
reversed every other round. Printed: CPU and wall medians, each against prek's no-op, and each
gitai against the first one per round (the median of the ratios).

Usage: .venv/bin/python benchmarks/hook_ab.py SOURCE NAME=VENV NAME=VENV ... [--runs N]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import hooks_dir, scratch
from hook_budget import cpu_and_wall
from hook_latency import STAGED, gitai_repo, load, prek_repo, stage


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", help="a local copy of pallets/click to clone (a git dir or path)")
    parser.add_argument("gitais", nargs="+", metavar="NAME=VENV", help="a name and a virtualenv holding gitai")
    parser.add_argument("--runs", type=int, default=61)
    args = parser.parse_args()
    venvs = dict(spec.split("=", 1) for spec in args.gitais)
    print(f"load average before: {load()}")
    with contextlib.contextmanager(scratch)() as tmp:
        prek = prek_repo(args.source, tmp)
        stage(prek, STAGED, 0)
        transcript = tmp / "transcript.jsonl"
        transcript.write_text(json.dumps({"type": "assistant", "message": {"model": "claude-sonnet-4-5"}}) + "\n")
        commands: dict[str, tuple[list[str], Path, bytes]] = {
            "prek no-op": ([str(hooks_dir(prek) / "pre-commit")], prek, b"")}
        for name, venv in venvs.items():
            gitai = Path(venv).resolve() / "bin" / "gitai"
            if not gitai.is_file():
                raise SystemExit(f"no gitai in {gitai.parent}")
            repo = gitai_repo(args.source, tmp, f"repo-{len(commands)}", gitai)
            base = {"session_id": "bench", "transcript_path": str(transcript), "cwd": str(repo)}
            hook = [str(gitai), "hook", "claude-code"]
            cpu_and_wall(hook, repo, json.dumps({**base, "hook_event_name": "SessionStart"}).encode())
            write = json.dumps({**base, "hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": {
                "file_path": str(repo / "src/click/bench_new.py"), "content": "VALUE = 2\n"}}).encode()
            commands[name] = (hook, repo, write)
        cpu: dict[str, list[float]] = {name: [] for name in commands}
        wall: dict[str, list[float]] = {name: [] for name in commands}
        names = list(commands)
        for n in range(2 + max(args.runs, 1)):  # two rounds to warm the caches first
            for name in names if n % 2 == 0 else reversed(names):
                c, w = cpu_and_wall(*commands[name])
                if n >= 2:
                    cpu[name].append(c * 1000)
                    wall[name].append(w * 1000)
    print(f"load average after: {load()}")
    print(f"pallets/click clone; the before-write, medians of {args.runs} rounds")
    width = max(map(len, names))
    print(f"  {'':<{width}} {'CPU ms':>7} {'wall ms':>8}  {'/ prek':>6} {'(CPU)':>6}  "
          f"{'/ ' + names[1]:>12} {'(CPU)':>6}")

    def ratio(a: list[float], b: list[float]) -> float:
        return statistics.median(x / y for x, y in zip(a, b, strict=True))

    for name in names:
        row = f"  {name:<{width}} {statistics.median(cpu[name]):7.1f} {statistics.median(wall[name]):8.1f}"
        if name != names[0]:
            row += f"  {ratio(wall[name], wall[names[0]]):5.2f}x {ratio(cpu[name], cpu[names[0]]):5.2f}x"
            row += f"  {ratio(wall[name], wall[names[1]]):11.3f} {ratio(cpu[name], cpu[names[1]]):6.3f}"
        print(row)
    print(f"python: {sys.version.split()[0]}; load average now {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
