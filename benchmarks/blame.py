"""blame-intent cost against `git blame --porcelain` on the same file, in one run, alternating.

Builds a traced history with plain git (`git fast-import`) and `gitai backfill`: a Python file of
LINES lines edited by COMMITS commits under five intents (every 25th commit reformats a quarter
of the functions, so AST_REFACTOR commits are looked through). Backfill keeps the line origins
of the versions at the branch's tip, those blame-intent of HEAD reads. Then times both commands,
alternating, medians of RUNS runs; and blame-intent once more with no line origins kept (a fresh
clone's first run, "cold").
Also reports how the ratio grows with file length and history depth (two more points each).
Target: ratio <= 1.5 at about 4,000 lines and 250 commits.
Usage: .venv/bin/python benchmarks/blame.py [RUNS]
"""

from __future__ import annotations

import contextlib
import random
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import median_ms, new_repo, run, scratch, timed

CATALOGUE = "active_intents:\n" + "".join(
    f"  - id: INT-00{i}\n    name: intent {i}\n    status: IN_PROGRESS\n    owned_scope: ['**']\n" for i in range(1, 6)
)


REFORMAT_EVERY = 25


def function(i: int, variant: int, spaced: bool) -> list[str]:
    sp = " " if spaced else ""
    return [f"def f{i}(x{sp}):", f"    a = x + {i}", f"    b = a * {variant}", "    c = b - 1", "    if c > 10:",
            "        return c", f"    d = c * {variant + 3}", "    e = d + 7", "    return e", ""]


def build(repo: Path, lines: int, commits: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    count = lines // 10
    variants = [1] * count
    spaced = [False] * count
    chunks = []
    catalogue = CATALOGUE.encode()
    chunks.append(f"commit refs/heads/main\ncommitter B <b@example.com> 1700000000 +0000\ndata 10\ncatalogue\n"
                  f"M 100644 inline .orchestration/active_intents.yaml\ndata {len(catalogue)}\n{CATALOGUE}\n")
    for n in range(commits):
        if n % REFORMAT_EVERY == REFORMAT_EVERY - 1:
            for k in rng.sample(range(count), count // 4):  # a pure reformatting commit
                spaced[k] = not spaced[k]
        else:
            for k in rng.sample(range(count), 4):
                variants[k] += 1
        body = "\n".join(line for i in range(count) for line in function(i, variants[i], spaced[i])) + "\n"
        message = f"change {n}\n\nIntent: INT-00{1 + n % 5}\n"
        chunks.append(
            f"commit refs/heads/main\ncommitter B <b@example.com> {1700000001 + n} +0000\n"
            f"data {len(message)}\n{message}\nM 100644 inline big.py\ndata {len(body)}\n{body}\n"
        )
    run(["git", "fast-import", "--quiet"], repo, input="".join(chunks).encode())
    run(["git", "reset", "-q", "--hard", "main"], repo)
    run(["gitai", "backfill", "--json"], repo)


def measure(tmp: Path, name: str, lines: int, commits: int, runs: int) -> dict[str, float]:
    """Medians of: gitai blame-intent with the line origins backfill kept ("gitai"); git blame;
    gitai blame-intent with no origins kept at all (a fresh clone: computed through git blame,
    the cache emptied before each run); gitai's start-up alone (`gitai --version`)."""
    repo = new_repo(tmp, name)
    build(repo, lines, commits)
    origins = repo / ".git" / "gitai" / "origins-v1"
    assert any(origins.rglob("*.json.z")), "backfill kept no line origins"  # the tip's versions' (see backfill)
    run(["gitai", "blame-intent", ".orchestration/active_intents.yaml"], repo)  # refresh the notes index once
    commands = {
        "gitai": ["gitai", "blame-intent", "big.py"],
        "git": ["git", "blame", "--porcelain", "big.py"],
        "cold": ["gitai", "blame-intent", "big.py"],
        "start-up": ["gitai", "--version"],
    }
    samples: dict[str, list[float]] = {k: [] for k in commands}
    for _ in range(runs):
        for key, args in commands.items():
            if key == "cold":
                shutil.rmtree(origins)
            samples[key].append(timed(run, args, repo))
    return {k: median_ms(v) for k, v in samples.items()}


def main(runs: int) -> int:
    points = [(4000, 250), (2000, 250), (8000, 250), (4000, 125), (4000, 500)]
    print(f"{'lines':>6} {'commits':>7} {'gitai ms':>9} {'git ms':>7} {'ratio':>6} | {'cold ms':>8} {'cold ratio':>10}"
          f" {'start-up':>8}   (medians of {runs})")
    with contextlib.contextmanager(scratch)() as tmp:
        for n, (lines, commits) in enumerate(points):
            m = measure(tmp, f"r{n}", lines, commits, runs)
            print(f"{lines:>6} {commits:>7} {m['gitai']:>9.1f} {m['git']:>7.1f} {m['gitai'] / m['git']:>6.2f} |"
                  f" {m['cold']:>8.1f} {m['cold'] / m['git']:>10.2f} {m['start-up']:>8.1f}")
    print("target: ratio <= 1.5 at 4000 lines / 250 commits (line origins kept, as the hooks and backfill keep them)")
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 7))
