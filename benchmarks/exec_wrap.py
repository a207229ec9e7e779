"""What the second way into the kernel domain costs each Bash call of a Claude Code agent.

Alternating, medians of RUNS, in one scratch repository with INT-001 selected by the session:
- hook: `gitai hook claude-code` on a Bash before-shell that it wraps, against the same call with
  GITAI_NO_LANDLOCK=1 (no wrap): what the wrap adds to the hook;
- exec: `gitai exec --session KEY -- true` (the lean entry), against `python -m gitai exec ...` through
  the click CLI, and against `true` alone;
- call: the whole wrapped command (`ls`) run the way Claude Code runs one (`bash -c "eval CMD && pwd -P
  >| FILE"`, which the line entering the domain, `gitai exec --again`, runs again inside it), against
  the unwrapped command the same way: what a Bash call pays in all.
Wall times swing with the machine's load; the CPU column (user + system time of the processes) less so.
Usage: .venv/bin/python benchmarks/exec_wrap.py [RUNS]
"""

from __future__ import annotations

import contextlib
import json
import resource
import shlex
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import BIN, ENV, gitai_repo, median_ms, scratch, timed


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    with contextlib.contextmanager(scratch)() as tmp:
        repo = gitai_repo(tmp, "repo")
        sessions = repo / ".git" / "gitai" / "sessions"
        sessions.mkdir(parents=True, exist_ok=True)
        (sessions / "claude-code-bench.json").write_text(json.dumps({"host": "claude-code", "intent_id": "INT-001"}))
        payload = json.dumps({"hook_event_name": "PreToolUse", "session_id": "bench", "cwd": str(repo),
                              "tool_name": "Bash", "tool_input": {"command": "ls"}}).encode()
        gitai = str(BIN / "gitai")
        answer = subprocess.run([gitai, "hook", "claude-code"], input=payload, cwd=repo, env=ENV,
                                capture_output=True, check=True).stdout
        wrapped = json.loads(answer)["hookSpecificOutput"]["updatedInput"]["command"]
        (tmp / "host-tmp").mkdir()  # the host's temporary directory: writable inside the domain
        cwd_file = tmp / "host-tmp" / "cwd"

        def as_claude(command: str) -> subprocess.CompletedProcess[bytes]:
            line = f"eval {shlex.quote(command)} < /dev/null && pwd -P >| {shlex.quote(str(cwd_file))}"
            return subprocess.run(["bash", "-c", line], cwd=repo, env=ENV, capture_output=True, check=True)

        cases = {
            "hook, wraps": lambda: subprocess.run([gitai, "hook", "claude-code"], input=payload, cwd=repo, env=ENV,
                                                  capture_output=True, check=True),
            "hook, no wrap": lambda: subprocess.run([gitai, "hook", "claude-code"], input=payload, cwd=repo,
                                                    env={**ENV, "GITAI_NO_LANDLOCK": "1"}, capture_output=True,
                                                    check=True),
            "gitai exec (lean)": lambda: subprocess.run([gitai, "exec", "--session", "claude-code-bench", "--", "true"],
                                                        cwd=repo, env=ENV, capture_output=True, check=True),
            "gitai exec (click)": lambda: subprocess.run([sys.executable, "-c", "import sys; sys.argv[0] = 'gitai'; "
                                                          "from gitai.cli import main; main()", "exec", "--session",
                                                          "claude-code-bench", "--", "true"],
                                                         cwd=repo, env=ENV, capture_output=True, check=True),
            "true": lambda: subprocess.run(["true"], cwd=repo, env=ENV, capture_output=True, check=True),
            "Bash call, wrapped": lambda: as_claude(wrapped),
            "Bash call, plain": lambda: as_claude("ls"),
        }
        samples: dict[str, list[float]] = {name: [] for name in cases}
        cpu: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(runs):
            for name, case in cases.items():
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                samples[name].append(timed(case))
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu[name].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        print(f"{'':22} {'wall':>10} {'cpu':>10}   (medians of {runs}; cpu: user + system of the processes)")
        for name, values in samples.items():
            print(f"{name:22} {median_ms(values):7.1f} ms {median_ms(cpu[name]):7.1f} ms")


if __name__ == "__main__":
    main()
