"""Where `gitai backfill`'s CPU goes, stage by stage, on pallets/click's full history.

Backfill runs here, in this process, with `--jobs 1` (every stage in one process, so one clock
sees them all; with workers the same work is split between processes, plus what passing it
costs), on a fresh clone of SOURCE with `gitai init --no-hooks` and the eight-intent catalogue
of backfill_click.py. Each stage is a function of gitai wrapped to add up its CPU seconds (user
and system, `time.process_time`); nested stages are indented under the one they are part of, so
their seconds are counted in it too. The git processes' CPU (the diff stream, `cat-file`,
`fast-import`, ...) is what the children used by the end. The wrapping costs a few percent.

Usage: .venv/bin/python benchmarks/backfill_budget.py [SOURCE]
       (default SOURCE /work/.mirror/pallets+click/repo; nothing is fetched)
"""

from __future__ import annotations

import importlib
import os
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _common import ENV, run, scratch
from backfill_click import CATALOGUE, SOURCE

STAGES: list[tuple[int, str, str, str]] = [  # (depth, module, function, what it is)
    (0, "gitai.backfill", "commit_changes", "reading commits: diffs, blobs"),
    (0, "gitai.recording", "classify", "classification"),
    (1, "gitai.syntax.hash_cache", "parse", "full parses (also those a reparse falls back to)"),
    (1, "gitai.syntax.hash_cache", "reparse", "parses from the previous version's tree"),
    (2, "gitai.syntax.hash_cache", "_line_edits", "the hunks as byte edits"),
    (1, "gitai.syntax.hash_cache", "find_definitions", "finding definitions"),
    (1, "gitai.syntax.hash_cache", "hash_tree", "normal-form hashing"),
    (1, "gitai.syntax.hash_cache", "top_level_statements", "top-level statements (reasons)"),
    (1, "gitai.syntax.classify", "_match_definitions", "matching definitions"),
    (1, "gitai.syntax.hash_cache", "write_atomic", "hash-cache writes"),
    (0, "gitai.recording", "build_record", "building records"),
    (0, "gitai.recording", "new_origins", "line origins: the step"),
    (0, "gitai.recording", "keep_origins", "line origins: cache writes"),
    (1, "gitai.blame.origin_cache", "encode", "encoding"),
    (1, "gitai.blame.origin_cache", "write_atomic", "writing files"),
    (0, "gitai.recording", "store_records", "notes and ledger"),
]


def wrapped(function: Callable[..., Any], totals: list[float]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            totals[0] += time.process_time() - start
            totals[1] += 1
    return timed


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    source = sys.argv[1] if len(sys.argv) > 1 else SOURCE
    if not Path(source).exists():
        print(f"backfill budget: skipped, no clone of pallets/click at {source} (give one as SOURCE)")
        return
    totals: dict[tuple[str, str], list[float]] = {}
    for _, module_name, name, _ in STAGES:
        module = importlib.import_module(module_name)
        if (module_name, name) not in totals:
            totals[module_name, name] = [0.0, 0]
            if hasattr(module, name):  # (an older gitai may not have it: then nothing is counted there)
                setattr(module, name, wrapped(getattr(module, name), totals[module_name, name]))
    for tmp in scratch():
        clone = tmp / "click"
        run(["git", "clone", "-q", source, str(clone)], tmp)
        run(["gitai", "init", "--no-hooks"], clone)
        (clone / ".orchestration" / "active_intents.yaml").write_text(CATALOGUE)
        os.environ.update({"PATH": ENV["PATH"], "GIT_CONFIG_NOSYSTEM": "1"})
        os.chdir(clone)
        from gitai.cli import main as gitai

        load = "/".join(f"{value:.1f}" for value in os.getloadavg())
        cpu, children, wall = time.process_time(), children_cpu(), time.perf_counter()
        try:
            with open(os.devnull, "w") as quiet:
                sys.stdout = quiet
                gitai(["backfill", "--jobs", "1", "--json"])
        except SystemExit as exit:
            if exit.code:
                sys.exit(f"backfill failed (exit {exit.code})")
        finally:
            sys.stdout = sys.__stdout__
        cpu, children, wall = time.process_time() - cpu, children_cpu() - children, time.perf_counter() - wall
        print(f"gitai backfill --jobs 1 of click: {wall:.1f} s wall, {cpu + children:.1f} s CPU "
              f"(load {load} before)")
        print(f"{cpu:7.2f} s  gitai (this process)")
        for depth, module_name, name, what in STAGES:
            seconds, calls = totals[module_name, name]
            print(f"{seconds:7.2f} s  {'  ' * (depth + 1)}{what} ({calls:.0f} calls)")
        print(f"{children:7.2f} s  git processes")


if __name__ == "__main__":
    main()
