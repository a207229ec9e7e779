"""A synthetic monorepo, generated with `git fast-import`, for gitai at scale (issue 14).

The issue asks for 100,000 commits, 50,000 files and 200 intents. The defaults here are smaller
(20,000 commits, 10,000 files, 200 intents, a file with 2,000 versions) so that the run fits the
shared 2-core machine; every size is a parameter. Measured in one run:
- gate latency: the installed pre-commit hook on a one-file staged change, median of RUNS, against
  the same in a 100-file repository (target: ratio <= 1.3);
- backfill throughput over the last BACKFILL commits (commits per second, CPU seconds);
- notes-index update after new notes arrive (as after a pull): +0, +10, +100 notes, and a full
  rebuild, to show the update is proportional to the new notes;
- blame-intent on the file with VERSIONS versions: first run (no line origins kept) and warm,
  against `git blame` on the same file;
- peak memory (max RSS) of every gitai process run (target: < 500 MB).
Usage: .venv/bin/python benchmarks/monorepo.py [--commits N] [--files N] [--intents N]
       [--versions N] [--backfill N] [--runs N]
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import ENV, median_ms, run, scratch, timed  # noqa: E402

HOT = "svc000/hot.py"


def catalogue(intents: int) -> str:
    return "active_intents:\n" + "".join(
        f"  - id: INT-{i:03}\n    name: service {i}\n    status: IN_PROGRESS\n    owned_scope: ['svc{i:03}/**']\n"
        for i in range(intents))


def module(number: int, version: int) -> bytes:
    return (f"def f{number}(x):\n    return x + {version}\n\n\ndef g{number}(y):\n    return y * {number}\n").encode()


def generate(repo: Path, commits: int, files: int, intents: int, versions: int, seed: int = 14) -> None:
    """One initial commit with every file and the catalogue, then one-file commits with trailers;
    every (commits // versions)-th commit edits HOT."""
    rng = random.Random(seed)
    paths = [f"svc{n % intents:03}/pkg{(n // intents) % 50}/m{n}.py" for n in range(files)]
    hot_lines = [f"line_{i} = {i}" for i in range(200)]
    hot_every = max(1, commits // max(versions, 1))
    out: list[bytes] = []
    stamp = 1_700_000_000

    def blob(path: str, data: bytes) -> None:
        out.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")

    def header(message: str, number: int) -> None:
        text = message.encode()
        out.append(f"commit refs/heads/main\ncommitter Bench <bench@example.com> {stamp + number} +0000\n"
                   f"data {len(text)}\n".encode() + text + b"\n")

    header("initial import\n", 0)
    blob(".orchestration/active_intents.yaml", catalogue(intents).encode())
    for number, path in enumerate(paths):
        blob(path, module(number, 0))
    blob(HOT, ("\n".join(hot_lines) + "\n").encode())
    for number in range(1, commits):
        if number % hot_every == 0:
            spot = rng.randrange(len(hot_lines))
            hot_lines[spot] = f"line_{spot} = {number}  # v{number}"
            if rng.random() < 0.3:
                hot_lines.insert(spot, f"extra_{number} = {number}")
            header(f"hot edit {number}\n\nIntent: INT-000\n", number)
            blob(HOT, ("\n".join(hot_lines) + "\n").encode())
        else:
            target = rng.randrange(files)
            header(f"edit {number}\n\nIntent: INT-{target % intents:03}\n", number)
            blob(paths[target], module(target, number))
    out.append(b"done\n")
    subprocess.run(["git", "fast-import", "--quiet", "--done"], cwd=repo, input=b"".join(out), check=True, env=ENV)
    run(["git", "checkout", "-q", "-f", "main"], repo)


def peak_kb(args: list[str], cwd: Path) -> tuple[float, int]:
    """Wall seconds and max RSS (KB) of one command, through GNU time."""
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", *args], cwd=cwd, env=ENV, capture_output=True, check=True)
    return time.perf_counter() - start, int(proc.stderr.decode().strip().splitlines()[-1])


def index_ms(repo: Path) -> float:
    """load_index alone (the notes index refresh), timed inside one Python process."""
    code = ("import time; from gitai.layout import find_layout; from gitai.trace.summary_index import load_index; "
            "t = time.perf_counter(); load_index(find_layout()); print((time.perf_counter() - t) * 1000)")
    return float(run([sys.executable, "-c", code], repo).stdout)


def gate_ms(repo: Path, path: str, runs: int) -> float:
    """The installed pre-commit hook on one staged change (median)."""
    (repo / path).write_text((repo / path).read_text() + "# touched\n")
    run(["git", "add", path], repo)
    hook = repo / ".git" / "hooks" / "pre-commit"
    env = {**ENV, "GITAI_INTENT": f"INT-{int(path[3:6]):03}"}
    subprocess.run([str(hook)], cwd=repo, env=env, check=True)  # warm: the compiled scope cache
    samples = [timed(lambda: subprocess.run([str(hook)], cwd=repo, env=env, check=True)) for _ in range(runs)]
    return median_ms(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--commits", type=int, default=20_000)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--intents", type=int, default=200)
    parser.add_argument("--versions", type=int, default=2_000)
    parser.add_argument("--backfill", type=int, default=300)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    peaks: dict[str, int] = {}
    for tmp in scratch():
        big = tmp / "mono"
        big.mkdir()
        run(["git", "init", "-q", "-b", "main"], big)
        started = time.perf_counter()
        generate(big, args.commits, args.files, args.intents, args.versions)
        print(f"generated {args.commits} commits, {args.files} files, {args.intents} intents, "
              f"{HOT} with ~{args.versions} versions in {time.perf_counter() - started:.1f} s")
        run(["gitai", "init"], big)
        small = tmp / "small"
        small.mkdir()
        run(["git", "init", "-q", "-b", "main"], small)
        generate(small, 20, 100, 10, 5)
        run(["gitai", "init"], small)
        big_gate = gate_ms(big, "svc007/pkg0/m7.py", args.runs)
        small_gate = gate_ms(small, "svc007/pkg0/m7.py", args.runs)
        run(["git", "reset", "-q", "--hard"], big)
        print(f"gate: {big_gate:.0f} ms in the monorepo vs {small_gate:.0f} ms in a 100-file repository: "
              f"ratio {big_gate / small_gate:.2f} (target <= 1.3)")

        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall, peaks["backfill"] = peak_kb(["gitai", "backfill", "--range", f"HEAD~{args.backfill}..HEAD"], big)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        print(f"backfill: {args.backfill} commits in {wall:.1f} s wall, {cpu:.1f} s CPU: "
              f"{args.backfill / wall:.1f} commits/s")

        index = big / ".git" / "gitai" / "notes-index.json"
        _, peaks["map"] = peak_kb(["gitai", "map", "--json"], big)
        traced = args.backfill
        for new in (0, 10, 100):
            if new:
                older = f"HEAD~{traced + new}..HEAD~{traced}"
                run(["gitai", "backfill", "--range", older], big)  # new notes, as a pull brings them
                traced += new
                _, peaks[f"map +{new}"] = peak_kb(["gitai", "map", "--json"], big)  # the index as of before the pull
                run(["gitai", "backfill", "--range", f"HEAD~{traced + new}..HEAD~{traced}"], big)
                traced += new
            print(f"notes index update with {new} new notes ({traced} in all): {index_ms(big):.0f} ms")
        index.unlink()
        print(f"notes index full rebuild ({traced} notes): {index_ms(big):.0f} ms")

        shutil.rmtree(big / ".git" / "gitai" / "origins-v1", ignore_errors=True)
        cold, peaks["blame-intent cold"] = peak_kb(["gitai", "blame-intent", "--rev", "HEAD", HOT, "--json"], big)
        warm = median_ms([timed(lambda: run(["gitai", "blame-intent", "--rev", "HEAD", HOT, "--json"], big))
                          for _ in range(args.runs)])
        blame = median_ms([timed(lambda: run(["git", "blame", "--porcelain", "HEAD", "--", HOT], big))
                           for _ in range(args.runs)])
        print(f"blame-intent on {HOT}: first {cold * 1000:.0f} ms, warm {warm:.0f} ms; git blame {blame:.0f} ms "
              f"(first/git {cold * 1000 / blame:.2f}, warm/git {warm / blame:.2f})")
        worst = max(peaks.items(), key=lambda item: item[1])
        print("peak memory: " + ", ".join(f"{k} {v / 1024:.0f} MB" for k, v in peaks.items())
              + f"; max {worst[1] / 1024:.0f} MB ({worst[0]}; target < 500 MB)")


if __name__ == "__main__":
    main()
