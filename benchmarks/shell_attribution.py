"""What attributing shell-made edits costs the agent hooks: `gitai hook claude-code` before and after
a shell command that may write (`sed -i`: the work tree's changed files are listed with `git status`
before and after, and the command's changes checkpointed) against the same hooks for a reader
(`cat`: no snapshot), in a repository of FILES tracked files with DIRTY of them changed and a few
checkpointed by an agent. Alternating, medians of RUNS. The difference is the price of the feature.
Usage: .venv/bin/python benchmarks/shell_attribution.py [RUNS] [FILES]
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import BIN, ENV, gitai_repo, median_ms, run, scratch, timed

DIRTY = 20


def hook(repo: Path, payload: dict[str, object]) -> float:
    data = json.dumps(payload).encode()
    return timed(lambda: subprocess.run([str(BIN / "gitai"), "hook", "claude-code"], input=data, cwd=repo, env=ENV,
                                        capture_output=True, check=True))


def main(runs: int, files: int) -> int:
    with contextlib.contextmanager(scratch)() as tmp:
        repo = gitai_repo(tmp, "repo")
        for i in range(files):
            (repo / "src" / f"d{i % 50}").mkdir(parents=True, exist_ok=True)
            (repo / "src" / f"d{i % 50}" / f"f{i}.py").write_text(f"VALUE_{i} = 1\n" * 20)
        run(["git", "add", "-A"], repo)
        run(["git", "commit", "-qm", "files", "--no-verify"], repo)
        for i in range(DIRTY):  # a person's uncommitted work
            (repo / "src" / f"d{i % 50}" / f"f{i}.py").write_text(f"VALUE_{i} = 2\n" * 20)
        base = {"session_id": "bench", "cwd": str(repo), "tool_use_id": "t1"}
        written = repo / "src" / "agent.py"
        for n in range(5):  # an agent's files, checkpointed
            path = repo / "src" / f"agent{n}.py"
            path.write_text("x = 1\n" * 50)
            hook(repo, {**base, "hook_event_name": "PostToolUse", "tool_name": "Write",
                        "tool_input": {"file_path": str(path)}, "tool_response": {"success": True}})
        written.write_text("a = 1\n" * 50)
        samples: dict[str, list[float]] = {name: [] for name in ("reader before", "reader after", "writer before",
                                                                 "writer after")}
        for n in range(runs + 1):
            writer = f"sed -i 's/^a = {n}$/a = {n + 1}/' src/agent.py"
            for kind, command in (("reader", "cat src/agent.py"), ("writer", writer)):
                shell = {**base, "tool_name": "Bash", "tool_input": {"command": command}}
                before = hook(repo, {**shell, "hook_event_name": "PreToolUse"})
                run(["bash", "-c", command], repo)
                after = hook(repo, {**shell, "hook_event_name": "PostToolUse", "tool_response": {"stdout": ""}})
                if n:  # the first round warms the caches
                    samples[f"{kind} before"].append(before)
                    samples[f"{kind} after"].append(after)
        med = {k: median_ms(v) for k, v in samples.items()}
    print(f"{files} tracked files, {DIRTY} changed, 6 checkpointed; median of {runs} runs, alternating")
    for name, value in med.items():
        print(f"  {name:<14} {value:7.1f} ms")
    extra = med["writer before"] + med["writer after"] - med["reader before"] - med["reader after"]
    print(f"a shell command that may write costs {extra:.1f} ms more than a reader (both hooks)")
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 20, int(sys.argv[2]) if len(sys.argv) > 2 else 1000))
