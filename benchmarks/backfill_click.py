"""Adopting gitai on a real history: backfill of pallets/click's full history.

Clones SOURCE (a local clone or bare copy of https://github.com/pallets/click; nothing is fetched
here) into a scratch directory, writes an eight-intent catalogue (uncommitted), then measures:
- `gitai backfill` of every commit: wall and CPU seconds (CPU: gitai and its git children), peak
  memory, the attribution counts, `.git` and cache sizes before and after (target: < 25 s);
- as a reference in the same run, `git log -p` over the same history (reads every diff once);
- the first `blame-intent` in a fresh clone (notes fetched, no line origins or notes index kept)
  on src/click/core.py against `git blame` of the same file in that clone right after (target:
  <= 2x; medians over seven clones), and a warm run.
The machine's load average is printed before and after: wall times mean little on a loaded machine
(CPU seconds less so), so compare the wall against the `git log -p` reference of the same run.
Usage: .venv/bin/python benchmarks/backfill_click.py [SOURCE] [--jobs N]   (default /work/.mirror/pallets+click/repo)
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import ENV, median_ms, run, scratch, timed

from gitai.syntax.hash_cache import DIRECTORY as SYNTAX_CACHE

SOURCE = "/work/.mirror/pallets+click/repo"
FILE = "src/click/core.py"
FRESH_CLONES = 7  # each: the first blame-intent, then git blame, alternating (medians)
CATALOGUE = """\
active_intents:
  - {id: CORE, name: Core, status: IN_PROGRESS, owned_scope: ["src/click/core.py", "click/core.py",
     "src/click/decorators.py", "click/decorators.py", "src/click/parser.py", "click/parser.py"]}
  - {id: TYPES, name: Types, status: IN_PROGRESS, owned_scope: ["src/click/types.py", "click/types.py"]}
  - {id: TERM, name: Terminal, status: IN_PROGRESS, owned_scope: ["src/click/termui.py", "click/termui.py",
     "src/click/_termui_impl.py", "click/_termui_impl.py", "src/click/_compat.py", "click/_compat.py",
     "src/click/_winconsole.py", "click/_winconsole.py"]}
  - {id: SHELL, name: Completion, status: IN_PROGRESS, owned_scope: ["src/click/shell_completion.py",
     "click/_bashcomplete.py", "src/click/_bashcomplete.py"]}
  - {id: DOCS, name: Docs, status: IN_PROGRESS, owned_scope: ["docs/**", "*.rst", "*.md", "examples/**"]}
  - {id: TESTS, name: Tests, status: IN_PROGRESS, owned_scope: ["tests/**", "src/click/testing.py", "click/testing.py"]}
  - {id: UTIL, name: Utilities, status: IN_PROGRESS, owned_scope: ["src/click/utils.py", "click/utils.py",
     "src/click/exceptions.py", "click/exceptions.py", "src/click/formatting.py", "click/formatting.py",
     "src/click/globals.py", "click/globals.py", "src/click/__init__.py", "click/__init__.py",
     "src/click/_textwrap.py", "click/_textwrap.py"]}
  - {id: BUILD, name: Build, status: IN_PROGRESS, owned_scope: [".github/**", "setup.py", "setup.cfg",
     "pyproject.toml", "tox.ini", "requirements/**", ".pre-commit-config.yaml", "Makefile", "MANIFEST.in",
     ".travis.yml", "*.txt", ".gitignore", ".readthedocs.yaml", ".editorconfig", ".flake8"]}
"""


def size_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1024 / 1024 if path.exists() else 0.0


def load() -> str:
    return "/".join(f"{value:.1f}" for value in os.getloadavg())


def main() -> None:
    args = sys.argv[1:]
    jobs = []
    if "--jobs" in args:
        at = args.index("--jobs")
        jobs = ["--jobs", args[at + 1]]
        del args[at : at + 2]
    source = args[0] if args else SOURCE
    for tmp in scratch():
        repo = tmp / "click"
        run(["git", "clone", "-q", source, str(repo)], tmp)
        run(["gitai", "init", "--no-hooks"], repo)
        (repo / ".orchestration" / "active_intents.yaml").write_text(CATALOGUE)
        commits = int(run(["git", "rev-list", "--count", "HEAD"], repo).stdout)
        git_before = size_mb(repo / ".git")
        reference = timed(run, ["git", "log", "-p", "--no-color", "--format=%H"], repo)

        load_before = load()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", "gitai", "backfill", "--json", *jobs], cwd=repo, env=ENV,
                              capture_output=True, check=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        peak = int(proc.stderr.decode().strip().splitlines()[-1]) / 1024
        result = json.loads(proc.stdout)
        state = repo / ".git" / "gitai"
        print(f"click: {commits} commits, {os.cpu_count()} cores, load average {load_before} before, {load()} after")
        print(f"  backfill {' '.join(jobs) or '(default jobs)'}: {wall:.1f} s wall (target < 25 s), {cpu:.1f} s CPU "
              f"(gitai, its workers and git), peak {peak:.0f} MB (largest process)")
        print(f"  git log -p over the same history: {reference:.1f} s wall; "
              f"backfill / git log -p = {wall / reference:.1f}")
        print(f"  intent from: {result['intent_from']}, {result['several_intents']} commits span several intents")
        print(f"  .git {git_before:.0f} MB -> {size_mb(repo / '.git'):.0f} MB; caches: origins "
              f"{size_mb(state / 'origins-v1'):.1f} MB, syntax {size_mb(state / SYNTAX_CACHE):.1f} MB, "
              f"notes objects packed by fast-import")

        firsts, blames = [], []
        for number in range(FRESH_CLONES):  # the first run in each fresh clone, then git blame there
            fresh = tmp / f"fresh{number}"
            run(["git", "clone", "-q", str(repo), str(fresh)], tmp)
            run(["git", "fetch", "-q", "origin", "refs/notes/gitai:refs/notes/gitai"], fresh)
            firsts.append(timed(run, ["gitai", "blame-intent", "--rev", "HEAD", FILE, "--json"], fresh))
            blames.append(timed(run, ["git", "blame", "--porcelain", "HEAD", "--", FILE], fresh))
        first = median_ms(firsts) / 1000
        warm = median_ms([timed(run, ["gitai", "blame-intent", "--rev", "HEAD", FILE, "--json"], fresh)
                          for _ in range(3)])
        blame = median_ms(blames)
        print(f"  blame-intent {FILE} in a fresh clone: first {first * 1000:.0f} ms, warm {warm:.0f} ms; "
              f"git blame {blame:.0f} ms (first/git {first * 1000 / blame:.2f}, warm/git {warm / blame:.2f})")
        rows = json.loads(run(["gitai", "blame-intent", "--rev", "HEAD", FILE, "--json"], fresh).stdout)
        attributed = sum(1 for r in rows if r["intent_id"])
        print(f"  {FILE}: {attributed} of {len(rows)} lines have an intent "
              f"({sum(1 for r in rows if r['intent_source'] == 'scope')} inferred)")


if __name__ == "__main__":
    main()
