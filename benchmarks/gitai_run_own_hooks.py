"""What `gitai run`'s pointer to gitai's own hooks directory costs each hook call of Gemini CLI inside it.

`gitai run INT -- gemini` sets GIT_CONFIG_PARAMETERS to `'core.hooksPath=<common dir>/gitai/hooks'` for the
whole session, and every `gitai hook gemini` inherits it. Alternating, medians of RUNS, in one scratch
repository: a before-shell hook call (`ls`) marked as inside a domain (GITAI_DOMAIN), with that variable
and without it; and the same call with another core.hooksPath there, which git must be asked about (what
every call paid before repository discovery learnt to read gitai's own pointer from the files).
Wall times swing with the machine's load; the CPU column (user + system time of the processes) less so.
Usage: .venv/bin/python benchmarks/gitai_run_own_hooks.py [RUNS]
"""

from __future__ import annotations

import contextlib
import json
import resource
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import BIN, ENV, gitai_repo, median_ms, scratch, timed


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    with contextlib.contextmanager(scratch)() as tmp:
        repo = gitai_repo(tmp, "repo")
        payload = json.dumps({"hook_event_name": "BeforeTool", "session_id": "bench", "cwd": str(repo),
                              "tool_name": "run_shell_command", "tool_input": {"command": "ls"}}).encode()
        inside = {**ENV, "GITAI_DOMAIN": "INT-001"}
        own = f"'core.hooksPath={repo / '.git' / 'gitai' / 'hooks'}'"
        environments = {"no hooks path": inside, "gitai's own hooks path": {**inside, "GIT_CONFIG_PARAMETERS": own},
                        "another hooks path": {**inside, "GIT_CONFIG_PARAMETERS": f"'core.hooksPath={tmp}'"}}
        samples: dict[str, list[float]] = {name: [] for name in environments}
        cpu: dict[str, list[float]] = {name: [] for name in environments}
        for _ in range(runs):
            for name, env in environments.items():
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                samples[name].append(timed(subprocess.run, [str(BIN / "gitai"), "hook", "gemini"], input=payload,
                                           cwd=repo, env=env, capture_output=True, check=True))
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu[name].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        print(f"{'':24} {'wall':>10} {'cpu':>10}   (medians of {runs}; cpu: user + system of the processes)")
        for name, values in samples.items():
            print(f"{name:24} {median_ms(values):7.1f} ms {median_ms(cpu[name]):7.1f} ms")


if __name__ == "__main__":
    main()
