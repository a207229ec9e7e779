"""The hooks against prek running a no-op hook, paired in one run: each gitai hook and prek's no-op
pre-commit hook run in turn (A B, then B A: the order alternates), and each pair gives a ratio;
the figure is the median of the ratios (and of each side's times), so the machine's drift during
the run cancels out. The load average is printed before and after. Beside the wall-time ratio, the
median ratio of CPU time (user + system of the hook and the processes it waited for), which other
work on a loaded machine disturbs less.

Measured, in a clone of SOURCE (pallets/click, a local copy: nothing is fetched; without SOURCE a
small generated repository, which the output says) with 3 staged files:
- the pre-commit scope gate: gitai's installed `.git/hooks/pre-commit`, run as git runs it;
- `git commit` with every gate hook (pre-commit and commit-msg) against `git commit` with prek's
  hook, for what a person waits for (informational);
- `gitai hook claude-code` answering a Claude Code PreToolUse Write in scope (its session started,
  its transcript naming the model, as in a real session);
- `gitai hook claude-code` answering SessionStart (a new session each run), and the same as the
  first session start after a commit (the recent-commits cache is keyed by HEAD).
Targets: gate <= 1.2x, before-write <= 1.0x, session-start <= 3.0x prek's no-op.

Which gitai runs: the one beside this Python (the development virtualenv, gitai installed editable, with
the test tools), or with `--venv DIR` the one in that virtualenv, as a user has it: `make smoke` leaves
build/smoke/venv, the built wheel installed non-editable by pip into a plain `python -m venv`. The output
names which.

Usage: .venv/bin/python benchmarks/hook_latency.py [SOURCE] [--runs N] [--venv DIR]   (N >= 31; default 31)
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
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import BIN, CATALOGUE, ENV, hooks_dir, new_repo, remove_hooks, run, scratch

# As a user's environment has it: gitai hook keeps its modules in one file beside their bytecode
# (gitai/entry.py), which this variable (set on some build machines) turns off.
ENV.pop("PYTHONDONTWRITEBYTECODE", None)

TARGETS = {"pre-commit gate": 1.2, "agent before-write": 1.0, "agent session-start": 3.0}
NOOP_CONFIG = """\
repos:
  - repo: local
    hooks:
      - id: noop
        name: noop
        entry: "true"
        language: system
        pass_filenames: false
        always_run: true
"""
CLICK_CATALOGUE = """\
active_intents:
  - id: INT-001
    name: Core work
    status: IN_PROGRESS
    owned_scope: ["src/**", "tests/**"]
  - id: INT-002
    name: Docs
    status: IN_PROGRESS
    owned_scope: ["docs/**", "*.md", "*.rst"]
"""
STAGED = ("src/click/core.py", "src/click/types.py", "src/click/utils.py")
GENERATED = ("src/a.py", "src/b.py", "src/c.py")


def clone(source: str | None, parent: Path, name: str) -> Path:
    if source is None:
        repo = new_repo(parent, name)
        for path in GENERATED:
            (repo / path).parent.mkdir(parents=True, exist_ok=True)
            (repo / path).write_text("VALUE = 1\n")
        run(["git", "add", "-A"], repo)
        run(["git", "commit", "-qm", "start"], repo)
        return repo
    repo = parent / name
    run(["git", "clone", "-q", source, str(repo)], parent)
    run(["git", "config", "user.email", "bench@example.com"], repo)
    run(["git", "config", "user.name", "Bench"], repo)
    return repo


def stage(repo: Path, paths: tuple[str, ...], n: int) -> None:
    for path in paths:
        text = (repo / path).read_text().split("\n# bench", 1)[0]
        (repo / path).write_text(f"{text}\n# bench {n}\n")
    run(["git", "add", *paths], repo)


def use_venv(venv: str | None) -> Path:
    """The gitai to measure (see the module's docstring); its virtualenv's bin goes first on PATH."""
    if venv is None:
        return BIN / "gitai"
    bin_dir = Path(venv).resolve() / "bin"
    if not (bin_dir / "gitai").is_file():
        raise SystemExit(f"no gitai in {bin_dir} (make smoke builds build/smoke/venv)")
    ENV["PATH"] = f"{bin_dir}{os.pathsep}{ENV['PATH']}"
    return bin_dir / "gitai"


def describe(gitai: Path) -> str:
    return "the development virtualenv (editable)" if gitai == BIN / "gitai" else f"{gitai} (installed wheel)"


def gitai_repo(source: str | None, parent: Path, name: str, gitai: Path = BIN / "gitai") -> Path:
    repo = clone(source, parent, name)
    run([str(gitai), "init"], repo)
    (repo / ".orchestration" / "active_intents.yaml").write_text(CLICK_CATALOGUE if source else CATALOGUE)
    run(["git", "add", "-A"], repo)
    run(["git", "commit", "-qm", "gitai catalogue"], repo)
    run([str(gitai), "select", "INT-001"], repo)
    run([str(gitai), "agents", "install", "claude-code"], repo)
    return repo


def prek_repo(source: str | None, parent: Path) -> Path:
    repo = clone(source, parent, "prek")
    (repo / ".pre-commit-config.yaml").write_text(NOOP_CONFIG)
    run(["git", "add", "-A"], repo)
    run(["git", "commit", "-qm", "config", "--no-verify"], repo)
    run([str(BIN / "prek"), "install"], repo)
    return repo


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


LAST_CPU = [0.0]  # the CPU seconds of the last `timed` call (its wall seconds are returned)


def timed(args: list[str], cwd: Path, stdin: bytes = b"") -> float:
    cpu = cpu_seconds()
    start = time.perf_counter()
    proc = subprocess.run(args, cwd=cwd, env=ENV, input=stdin, capture_output=True)
    elapsed = time.perf_counter() - start
    LAST_CPU[0] = cpu_seconds() - cpu
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed in {cwd} ({proc.returncode}): {proc.stderr.decode()[-500:]}")
    return elapsed


def paired(runs: int, baseline: Callable[[], float], measured: Callable[[], float],
           before: Callable[[], object] = lambda: None) -> tuple[float, float, float, float]:
    """(median ms of baseline, median ms of measured, median of the pairs' wall ratios, and of their CPU
    ratios); order alternates."""
    base, mine, ratios, cpu_ratios = [], [], [], []
    for n in range(runs):
        before()
        if n % 2:
            b = baseline()
            b_cpu = LAST_CPU[0]
            m = measured()
            m_cpu = LAST_CPU[0]
        else:
            m = measured()
            m_cpu = LAST_CPU[0]
            b = baseline()
            b_cpu = LAST_CPU[0]
        base.append(b)
        mine.append(m)
        ratios.append(m / b)
        cpu_ratios.append(m_cpu / b_cpu if b_cpu else float("inf"))
    return (statistics.median(base) * 1000, statistics.median(mine) * 1000, statistics.median(ratios),
            statistics.median(cpu_ratios))


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", nargs="?", help="a local copy of pallets/click to clone (a git dir or path)")
    parser.add_argument("--runs", type=int, default=31)
    parser.add_argument("--venv", help="measure the gitai of this virtualenv (e.g. build/smoke/venv)")
    args = parser.parse_args()
    runs = max(args.runs, 1)
    gitai = use_venv(args.venv)
    staged = STAGED if args.source else GENERATED
    rows: list[tuple[str, float, float, float, float]] = []
    print(f"load average before: {load()}")
    with contextlib.contextmanager(scratch)() as tmp:
        gate = gitai_repo(args.source, tmp, "gitai", gitai)
        agent = gitai_repo(args.source, tmp, "agent", gitai)
        prek = prek_repo(args.source, tmp)
        remove_hooks(gate, "post-commit", "post-merge", "post-rewrite", "pre-push")  # post-commit: trace_cost.py
        stage(gate, staged, 0)
        stage(prek, staged, 0)
        no_op = [str(hooks_dir(prek) / "pre-commit")]

        def prek_hook() -> float:
            return timed(no_op, prek)

        for _ in range(2):  # warm: prek's caches, gitai's policy cache and bytecode
            prek_hook()
            timed([str(hooks_dir(gate) / "pre-commit")], gate)
        gate_hook = str(hooks_dir(gate) / "pre-commit")
        rows.append(("pre-commit gate", *paired(runs, prek_hook, lambda: timed([gate_hook], gate))))

        counter = iter(range(1, 1 << 30))

        def commit_with(repo: Path) -> Callable[[], float]:
            def go() -> float:
                stage(repo, staged, next(counter))
                elapsed = timed(["git", "commit", "-qm", "bench"], repo)
                cpu = LAST_CPU[0]
                run(["git", "reset", "-q", "--soft", "HEAD~1"], repo)
                LAST_CPU[0] = cpu
                return elapsed
            return go

        rows.append(("git commit, all gate hooks", *paired(runs, commit_with(prek), commit_with(gate))))

        transcript = tmp / "transcript.jsonl"
        transcript.write_text(json.dumps({"type": "assistant", "message": {"model": "claude-sonnet-4-5"}}) + "\n")
        base = {"session_id": "bench", "transcript_path": str(transcript), "cwd": str(agent)}
        start = json.dumps({**base, "hook_event_name": "SessionStart", "source": "startup"}).encode()
        write = json.dumps({**base, "hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": {
            "file_path": str(agent / staged[0].rsplit("/", 1)[0] / "bench_new.py"), "content": "VALUE = 2\n"}}).encode()
        hook = [str(gitai), "hook", "claude-code"]
        timed(hook, agent, start)  # the session the writes belong to
        out = subprocess.run(hook, cwd=agent, env=ENV, input=write, capture_output=True).stdout
        if b"deny" in out or b"ask" in out:
            raise SystemExit(f"the in-scope write was not allowed: {out.decode()}")
        rows.append(("agent before-write", *paired(runs, prek_hook, lambda: timed(hook, agent, write))))

        sessions = hooks_dir(agent).parent / "gitai" / "sessions"

        def new_session() -> float:
            key = f"bench-start-{next(counter)}"
            elapsed = timed(hook, agent, start.replace(b'"bench"', json.dumps(key).encode()))
            (sessions / f"claude-code-{key}.json").unlink()  # keep the sessions directory as a real one
            return elapsed

        rows.append(("agent session-start", *paired(runs, prek_hook, new_session)))
        rows.append(("  first after a commit", *paired(
            runs, prek_hook, new_session,
            before=lambda: run(["git", "commit", "-q", "--allow-empty", "--no-verify", "-m", "Intent: INT-001"],
                               agent))))
    print(f"load average after: {load()}")
    print(f"{'pallets/click clone' if args.source else 'generated repository'}, 3 staged files; "
          f"median of {runs} pairs against prek running a no-op pre-commit hook; gitai: {describe(gitai)}")
    print(f"  {'hook':<28} {'prek no-op':>10} {'gitai':>8}  ratio  (CPU)  target")
    for name, base_ms, gitai_ms, ratio, cpu_ratio in rows:
        target = TARGETS.get(name)
        verdict = "" if target is None else f"<= {target}  {'ok' if ratio <= target else 'OVER'}"
        print(f"  {name:<28} {base_ms:8.1f} ms {gitai_ms:6.1f} ms  {ratio:4.2f}x {cpu_ratio:5.2f}x  {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
