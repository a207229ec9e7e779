"""A synthetic monorepo, generated with `git fast-import`, for gitai at scale.

The defaults are the issue's sizes: 100,000 commits, 50,000 files, 200 intents, and a file
(svc000/hot.py) with 2,000 versions; generation streams into one `git fast-import` (about a minute).
`--dir D` keeps the generated repositories in D and `--reuse` uses them again (gitai's state is
reset first), so repeated runs skip the generation. Measured in one run:
- gate latency: the installed pre-commit hook on a one-file staged change, against the same in a
  100-file repository, samples alternating between the two, median of RUNS (target: ratio <= 1.3);
- backfill throughput over the last BACKFILL commits (commits per second, CPU seconds of gitai and git);
- blame-intent on the file with VERSIONS versions: first run (no line origins kept) and warm,
  against `git blame` on the same file;
- then every other commit gets a note (copies of the backfilled records, re-addressed to each
  commit, its path and its intent: a fully traced history in seconds instead of an hour), and:
  the notes-index update after +0, +10, +100, +1000 new notes (backfilled, as a pull brings them),
  against a full rebuild: the update must grow with the new notes, not with the trace;
- status, log, stats, map and report at that scale: wall time and peak memory (then the readers
  again with a commit-graph, as `git gc` leaves one);
- peak memory (GNU time's max RSS: the largest of gitai and the git processes it waits for) of every
  gitai command (target: < 500 MB).
Usage: .venv/bin/python benchmarks/monorepo.py [--commits N] [--files N] [--intents N]
       [--versions N] [--backfill N] [--runs N] [--dir D [--reuse]]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import ENV, median_ms, run, scratch, timed

HOT = "svc000/hot.py"


def catalogue(intents: int) -> str:
    return "active_intents:\n" + "".join(
        f"  - id: INT-{i:03}\n    name: service {i}\n    status: IN_PROGRESS\n    owned_scope: ['svc{i:03}/**']\n"
        for i in range(intents))


def module(number: int, version: int) -> bytes:
    return (f"def f{number}(x):\n    return x + {version}\n\n\ndef g{number}(y):\n    return y * {number}\n").encode()


def generate(repo: Path, commits: int, files: int, intents: int, versions: int, seed: int = 14) -> None:
    """One initial commit with every file and the catalogue, then one-file commits with trailers;
    every (commits // versions)-th commit edits HOT. Streamed into one `git fast-import` (nothing
    is held in memory but the hot file)."""
    rng = random.Random(seed)
    paths = [f"svc{n % intents:03}/pkg{(n // intents) % 50}/m{n}.py" for n in range(files)]
    hot_lines = [f"line_{i} = {i}" for i in range(200)]
    hot_every = max(1, commits // max(versions, 1))
    stamp = 1_700_000_000
    proc = subprocess.Popen(["git", "fast-import", "--quiet", "--done"], cwd=repo, stdin=subprocess.PIPE, env=ENV)
    assert proc.stdin is not None
    out = proc.stdin

    def blob(path: str, data: bytes) -> None:
        out.write(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")

    def header(message: str, number: int) -> None:
        text = message.encode()
        out.write(f"commit refs/heads/main\ncommitter Bench <bench@example.com> {stamp + number} +0000\n"
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
    out.write(b"done\n")
    out.close()
    if proc.wait() != 0:
        raise SystemExit(f"git fast-import failed in {repo}")
    run(["git", "checkout", "-q", "-f", "main"], repo)


CPU: dict[str, float] = {}  # CPU seconds (user + sys, with the git processes waited for) of the last peak_kb


def peak_kb(args: list[str], cwd: Path) -> tuple[float, int]:
    """Wall seconds and max RSS (KB) of one command, through GNU time (its CPU seconds in CPU["last"]:
    on a shared machine the wall time says more about the load than about the command)."""
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", *args], cwd=cwd, env=ENV, capture_output=True,
                          check=True)
    rss, user, system = proc.stderr.decode().strip().splitlines()[-1].split()
    CPU["last"] = float(user) + float(system)
    return time.perf_counter() - start, int(rss)


def index_ms(repo: Path) -> float:
    """load_index alone (the notes index brought up to date), timed inside one Python process."""
    code = ("import time; from gitai.layout import find_layout; from gitai.trace.summary_index import load_index; "
            "t = time.perf_counter(); load_index(find_layout()); print((time.perf_counter() - t) * 1000)")
    return float(run([sys.executable, "-c", code], repo).stdout)


def stage(repo: Path, path: str) -> dict[str, str]:
    """Stage a one-line change of `path`; the environment that selects its intent."""
    (repo / path).write_text((repo / path).read_text() + "# touched\n")
    run(["git", "add", path], repo)
    return {**ENV, "GITAI_INTENT": f"INT-{int(path[3:6]):03}"}


def gate_ms(big: Path, small: Path, path: str, runs: int) -> tuple[float, float]:
    """The installed pre-commit hook on one staged change in each repository, samples alternating
    (so a change of the machine's load hits both alike); medians."""
    envs = {repo: stage(repo, path) for repo in (big, small)}
    samples: dict[Path, list[float]] = {big: [], small: []}
    for number in range(runs + 1):
        for repo in (big, small):
            hook = repo / ".git" / "hooks" / "pre-commit"
            took = timed(subprocess.run, [str(hook)], cwd=repo, env=envs[repo], check=True)
            if number:  # the first round warms the compiled scope cache
                samples[repo].append(took)
    for repo in (big, small):
        run(["git", "reset", "-q", "--hard"], repo)
    return median_ms(samples[big]), median_ms(samples[small])


def reset(repo: Path) -> None:
    """A reused repository as generated: no notes, no gitai state, no hooks."""
    for ref in run(["git", "for-each-ref", "--format=%(refname)", "refs/notes", "refs/gitai"], repo).stdout.split():
        run(["git", "update-ref", "-d", ref.decode()], repo)
    shutil.rmtree(repo / ".git" / "gitai", ignore_errors=True)
    (repo / ".git" / "objects" / "info" / "commit-graph").unlink(missing_ok=True)
    for hook in (repo / ".git" / "hooks").iterdir():
        if not hook.name.endswith(".sample"):
            hook.unlink()
    run(["git", "reset", "-q", "--hard", "main"], repo)
    run(["git", "clean", "-qfd"], repo)


def prepare(repo: Path, reuse: bool, sizes: tuple[int, int, int, int]) -> None:
    marker = repo / ".git" / "bench-sizes"
    if reuse and marker.is_file() and marker.read_text() == repr(sizes):
        reset(repo)
        print(f"reused {repo} ({sizes[0]} commits, {sizes[1]} files, {sizes[2]} intents)")
    else:
        shutil.rmtree(repo, ignore_errors=True)
        repo.mkdir(parents=True)
        run(["git", "init", "-q", "-b", "main"], repo)
        started = time.perf_counter()
        generate(repo, *sizes)
        marker.write_text(repr(sizes))
        print(f"generated {sizes[0]} commits, {sizes[1]} files, {sizes[2]} intents, {HOT} with ~{sizes[3]} versions "
              f"in {time.perf_counter() - started:.1f} s ({load()})")
    run(["gitai", "init"], repo)


def load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def fill_notes(repo: Path, below: str) -> int:
    """A note for every commit reachable from `below` but the root: a copy of a backfilled record
    (of a hot edit for hot edits, else of another edit) with its commit, path and intent replaced.
    Written through one `git fast-import`; returns how many."""
    listing = run(["git", "notes", "--ref", "gitai", "list"], repo).stdout.decode().split()
    traced = dict(zip(listing[1::2], listing[::2], strict=True))
    touched: dict[str, str] = {}
    log = run(["git", "log", "--format=%x00%H", "--name-only", "--no-renames", "main"], repo).stdout
    for chunk in log.split(b"\0"):
        lines = chunk.decode().split()
        if len(lines) == 2:
            touched[lines[0]] = lines[1]
    templates: dict[bool, tuple[str, str, bytes]] = {}
    for sha, blob in traced.items():
        if sha in touched:
            note = run(["git", "cat-file", "blob", blob], repo).stdout
            templates.setdefault(touched[sha] == HOT, (sha, touched[sha], note))
    tip = run(["git", "rev-parse", "refs/notes/gitai"], repo).stdout.decode().strip()
    stream = [f"commit refs/notes/gitai\ncommitter Bench <bench@example.com> 1700000000 +0000\n"
              f"data 5\nfill\nfrom {tip}\n".encode()]
    count = 0
    for sha in run(["git", "rev-list", below], repo).stdout.decode().split():
        if sha not in touched or sha in traced:
            continue
        template_sha, template_path, body = templates[touched[sha] == HOT]
        intent = re.escape(f"INT-{template_path[3:6]}")
        text = re.sub(intent, f"INT-{touched[sha][3:6]}", body.decode().replace(template_sha, sha)
                      .replace(template_path, touched[sha])).encode()
        stream.append(f"N inline {sha}\ndata {len(text)}\n".encode() + text + b"\n")
        count += 1
    stream.append(b"done\n")
    subprocess.run(["git", "fast-import", "--quiet", "--done"], cwd=repo, input=b"".join(stream), env=ENV, check=True)
    return count


def command_peaks(repo: Path, peaks: dict[str, int], suffix: str = "", report: bool = True) -> None:
    commands = [("status", ["status", "--json"]), ("log -n 20", ["log", "-n", "20", "--json"]),
                ("log", ["log", "--json"]), ("stats", ["stats", "--json"]), ("map", ["map", "--json"])]
    if report:
        commands.append(("report", ["report", "-o", str(repo.parent / "report.html"), "--json"]))
    for name, args in commands:
        wall, peaks[name + suffix] = peak_kb(["gitai", *args], repo)
        print(f"  gitai {' '.join(args)}: {wall:.2f} s ({CPU['last']:.2f} s CPU), {peaks[name + suffix] / 1024:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--commits", type=int, default=100_000)
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--intents", type=int, default=200)
    parser.add_argument("--versions", type=int, default=2_000)
    parser.add_argument("--backfill", type=int, default=300)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--dir", type=Path, help="keep the generated repositories here (outside any repository)")
    parser.add_argument("--reuse", action="store_true", help="reuse the repositories --dir holds")
    args = parser.parse_args()
    peaks: dict[str, int] = {}
    for tmp in ([args.dir.resolve()] if args.dir else scratch()):
        big, small = tmp / "mono", tmp / "small"
        prepare(big, args.reuse, (args.commits, args.files, args.intents, args.versions))
        prepare(small, args.reuse, (20, 100, 10, 5))
        big_gate, small_gate = gate_ms(big, small, "svc007/pkg0/m7.py", args.runs)
        print(f"gate: {big_gate:.0f} ms in the monorepo vs {small_gate:.0f} ms in a 100-file repository: "
              f"ratio {big_gate / small_gate:.2f} (target <= 1.3; {load()})")

        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall, peaks["backfill"] = peak_kb(["gitai", "backfill", "--range", f"HEAD~{args.backfill}..HEAD"], big)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        print(f"backfill: {args.backfill} commits in {wall:.1f} s wall, {cpu:.1f} s CPU: "
              f"{args.backfill / wall:.1f} commits/s, {args.backfill / cpu:.1f} per CPU second ({load()})")

        shutil.rmtree(big / ".git" / "gitai" / "origins-v1", ignore_errors=True)
        cold, peaks["blame-intent cold"] = peak_kb(["gitai", "blame-intent", "--rev", "HEAD", HOT, "--json"], big)
        warm = median_ms([timed(run, ["gitai", "blame-intent", "--rev", "HEAD", HOT, "--json"], big)
                          for _ in range(args.runs)])
        blame = median_ms([timed(run, ["git", "blame", "--porcelain", "HEAD", "--", HOT], big)
                           for _ in range(args.runs)])
        print(f"blame-intent on {HOT}: first {cold * 1000:.0f} ms, warm {warm:.0f} ms; git blame {blame:.0f} ms "
              f"(first/git {cold * 1000 / blame:.2f}, warm/git {warm / blame:.2f}; {load()})")

        pending = 10 + 100 + 1000  # commits left for the new notes of the index update
        start = args.backfill + pending
        started = time.perf_counter()
        filled = fill_notes(big, f"HEAD~{start}")
        print(f"filled {filled} more notes in {time.perf_counter() - started:.1f} s "
              f"({filled + args.backfill} traced commits)")
        print(f"notes index update after the fill ({filled} new notes): {index_ms(big):.0f} ms")
        for new in (0, 10, 100, 1000):
            if new:
                run(["gitai", "backfill", "--range", f"HEAD~{start}..HEAD~{start - new}"], big)  # as a pull brings them
                start -= new
            print(f"notes index update after {new} new notes: {index_ms(big):.0f} ms")
        (big / ".git" / "gitai" / "notes-index.sqlite").unlink()
        print(f"notes index full rebuild ({filled + args.backfill + pending} notes): {index_ms(big):.0f} ms ({load()})")
        print(f"commands with {filled + args.backfill + pending} traced commits:")
        command_peaks(big, peaks)
        run(["git", "commit-graph", "write", "--reachable"], big)  # as `git gc` or `git maintenance` leave it
        print(f"the same with a commit-graph (git walks the history without reading every commit; {load()}):")
        command_peaks(big, peaks, " (commit-graph)", report=False)
        (big / ".git" / "objects" / "info" / "commit-graph").unlink()
        worst = max(peaks.items(), key=lambda item: item[1])
        print("peak memory: " + ", ".join(f"{k} {v / 1024:.0f} MB" for k, v in peaks.items())
              + f"; max {worst[1] / 1024:.0f} MB ({worst[0]}; target < 500 MB)")


if __name__ == "__main__":
    main()
