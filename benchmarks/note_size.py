"""Mean size of gitai's notes over a repository's whole history (issue 13: under 1.5 KB on click).

Clones REPO (a path or a bare git dir, e.g. /work/.mirror/pallets+click/repo) into a scratch
directory, writes a small intent catalogue over its top-level directories, runs `gitai backfill`
over every commit, and prints the count, total and mean size of the notes.
Usage: .venv/bin/python benchmarks/note_size.py REPO [--keep DIR]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
CATALOGUE = """\
active_intents:
  - id: INT-001
    name: Library code
    status: IN_PROGRESS
    owned_scope: ["src/**", "click/**"]
  - id: INT-002
    name: Tests
    status: IN_PROGRESS
    owned_scope: ["tests/**"]
  - id: INT-003
    name: Documentation
    status: IN_PROGRESS
    owned_scope: ["docs/**", "*.rst", "*.md"]
  - id: INT-004
    name: Project upkeep
    status: IN_PROGRESS
    owned_scope: ["**"]
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True).stdout.decode()


def measure(source: str, work: Path) -> None:
    clone = work / "clone"
    subprocess.run(["git", "clone", "-q", source, str(clone)], check=True)
    (clone / ".orchestration").mkdir(exist_ok=True)
    (clone / ".orchestration" / "active_intents.yaml").write_text(CATALOGUE)
    commits = len(git(clone, "rev-list", "HEAD").split())
    started = time.perf_counter()
    subprocess.run([str(BIN / "gitai"), "backfill"], cwd=clone, check=True, capture_output=True)
    elapsed = time.perf_counter() - started
    blobs = git(clone, "notes", "--ref", "gitai", "list").split()[::2]
    sizes = [int(s) for s in subprocess.run(["git", "cat-file", "--batch-check=%(objectsize)"], cwd=clone,
                                            input="\n".join(blobs).encode(), check=True,
                                            capture_output=True).stdout.split()]
    print(f"{commits} commits, {len(sizes)} notes, backfill {elapsed:.0f} s")
    print(f"total {sum(sizes) / 1e6:.1f} MB, mean {statistics.mean(sizes) / 1024:.2f} KB, "
          f"median {statistics.median(sizes) / 1024:.2f} KB, max {max(sizes) / 1024:.0f} KB")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo")
    parser.add_argument("--keep", type=Path, help="work in this directory and keep it")
    args = parser.parse_args()
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        measure(args.repo, args.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="gitai-notes-") as work:
            measure(args.repo, Path(work))
    return 0


if __name__ == "__main__":
    sys.exit(main())
