"""The speed promise of the hooks: their paths import nothing the answer does not need.

The pre-commit gate, run as the installed hook runs it (`python -I -S`, the hook's own sys.path, the
staged paths piped in), imports no module beyond the interpreter's own start-up set but `marshal`: no
`re`, no `json`, no `subprocess`, no `zlib` when it lets a commit through. The agent hooks (`gitai
hook`, run through the `gitai` console script) import neither click, YAML, pathspec, `typing` nor
`subprocess` to answer a before-write or a session start, and a before-write, let through or refused,
imports neither `json`, `re` (nor what `re` brings: enum, functools, collections), `hashlib` nor `zlib`,
and neither does the after-shell hook of a command that reads no file whole (docs/development.md, "Where
the time goes"). Beyond those, a before-write loads no module outside a short list named here.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from testing.commands import git, gitai_ok
from testing.repos import write

HEAVY = {"typing", "yaml", "pathspec", "pygit2", "click", "dataclasses", "tree_sitter", "pathlib"}
HEAVY_FOR_GATE = HEAVY | {"json", "re", "subprocess", "enum", "collections", "functools", "zlib"}
HEAVY_AGENT = HEAVY | {"subprocess", "urllib", "xml", "email", "importlib", "tree_sitter_bash", "threading"}
HEAVY_FOR_WRITE = HEAVY_AGENT | {"json", "re", "enum", "functools", "collections", "hashlib", "_hashlib", "zlib"}
GATE_PROBE = """
import sys
sys.path[:0] = sys.argv[1].split("\\n")
from gitai.hook_main import main
code = main(["pre-commit", "--staged-stdin"])
print(code, ",".join(sorted({m.split(".")[0] for m in sys.modules} & set(sys.argv[2].split(",")))))
"""
HOOK_RUN = """
from gitai.entry import main
os._exit = sys.exit  # the hook leaves without the interpreter's shutdown: here the probe still reports
sys.argv = ["gitai", "hook", "claude-code"]
try:
    main()
except SystemExit:
    pass
print()
"""
AGENT_PROBE = "import os, sys" + HOOK_RUN + """
print(",".join(sorted((set(sys.modules) | {m.split(".")[0] for m in sys.modules}) & set(HEAVY))))
"""


def _run_gate_as_installed(repo: Path, heavy: set[str]) -> tuple[int, set[str]]:
    """Run the gate the way the installed hook does: `python -I -S` with the hook's own sys.path,
    `git diff --cached` and its exit status piped in."""
    hook = (repo / ".git" / "hooks" / "pre-commit").read_text()
    python = re.search(r"^GITAI_PYTHON='(.*)'$", hook, re.M)
    path = re.search(r"^GITAI_PATH='(.*?)'$", hook, re.M | re.S)
    assert python and path
    staged = git(repo, "diff", "--cached", "--name-only", "-z", "--no-renames", "--no-ext-diff").stdout + "0"
    proc = subprocess.run([python.group(1), "-I", "-S", "-c", GATE_PROBE, path.group(1), ",".join(sorted(heavy))],
                          cwd=repo, capture_output=True, text=True, input=staged)
    code, _, loaded = proc.stdout.strip().partition(" ")
    assert code.isdigit(), proc.stderr
    return int(code), set(filter(None, loaded.split(",")))


def test_pre_commit_gate_imports_no_heavy_module(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/a.py", "x = 1\n")
    git(repo, "add", "-A")
    _run_gate_as_installed(repo, HEAVY_FOR_GATE)  # the first run after a catalogue change compiles the policy cache
    assert _run_gate_as_installed(repo, HEAVY_FOR_GATE) == (0, set())
    write(repo, "docs/x.md", "x\n")
    git(repo, "add", "-A")
    assert _run_gate_as_installed(repo, HEAVY) == (1, set())  # the refusal path: no heavy module either


def _agent_hook_modules(repo: Path, payload: dict[str, object], heavy: set[str] = HEAVY_AGENT,
                        env: dict[str, str] | None = None) -> tuple[str, set[str]]:
    """Run `gitai hook claude-code` in-process as the console script does; its answer and the heavy modules
    loaded (`heavy`: top-level names, or a module's full name)."""
    probe = AGENT_PROBE.replace("HEAVY", repr(sorted(heavy)))
    proc = subprocess.run([sys.executable, "-c", probe], cwd=repo, capture_output=True, text=True, env=env,
                          input=json.dumps({"session_id": "imports", "cwd": str(repo), **payload}))
    answer, _, loaded = proc.stdout.rpartition("\n\n")
    return answer, set(filter(None, loaded.strip().split(",")))


def test_agent_hooks_import_no_heavy_module(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    _agent_hook_modules(repo, {"hook_event_name": "SessionStart"})  # the first one compiles the policy cache
    answer, loaded = _agent_hook_modules(repo, {"hook_event_name": "SessionStart", "source": "startup"})
    assert "INT-001" in answer and loaded == set()
    write_call = {"hook_event_name": "PreToolUse", "tool_name": "Write"}
    answer, loaded = _agent_hook_modules(repo, {**write_call, "tool_input": {"file_path": str(repo / "src/auth/a.py")}},
                                         HEAVY_FOR_WRITE)
    assert "deny" not in answer and loaded == set()
    answer, loaded = _agent_hook_modules(repo, {**write_call, "tool_input": {"file_path": str(repo / "docs/a.md")}},
                                         HEAVY_FOR_WRITE)
    assert '"deny"' in answer and loaded == set()  # the refusal path too
    shell = {"tool_name": "Bash", "tool_use_id": "t1", "tool_input": {"command": "ls src"}}
    answer, loaded = _agent_hook_modules(repo, {**shell, "hook_event_name": "PostToolUse",
                                                "tool_response": {"stdout": "auth\n", "stderr": ""}}, HEAVY_FOR_WRITE)
    assert loaded == set()  # after a shell command that names no file to read whole: no `re` (shlex) either


# Beyond the interpreter's start-up modules and gitai's own, all a before-write may load: the JSON scanner,
# `_sha1` (a checkpoint log's name), `fcntl` and `errno` (the events log's lock, when it refuses), and `gc`
# (switched off for the hook's short life); everything else is named here first, with why.
BEFORE_WRITE_EXTRA = {"__future__", "_json", "_sha1", "gc", "fcntl", "errno", "marshal", "time"}
NEW_MODULES_PROBE = "import os, sys\nstart = set(sys.modules)" + HOOK_RUN + """
print(",".join(sorted(m for m in set(sys.modules) - start if m.split(".")[0] != "gitai")))
"""


def test_a_before_write_loads_only_the_modules_named_for_it(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    _agent_hook_modules(repo, {"hook_event_name": "SessionStart"})  # the first one compiles the policy cache
    write_call = {"session_id": "imports", "cwd": str(repo), "hook_event_name": "PreToolUse", "tool_name": "Write"}
    for path, refused in (("src/auth/a.py", False), ("docs/a.md", True), ("src/auth/a.py", False)):
        proc = subprocess.run([sys.executable, "-c", NEW_MODULES_PROBE], cwd=repo, capture_output=True, text=True,
                              input=json.dumps({**write_call, "tool_input": {"file_path": str(repo / path)}}))
        answer, _, loaded = proc.stdout.rpartition("\n\n")
        assert ('"deny"' in answer) == refused, proc.stderr
        assert set(filter(None, loaded.strip().split(","))) <= BEFORE_WRITE_EXTRA, path


def test_a_before_shell_where_git_runs_hooks_does_not_import_the_sandbox_entry(repo: Path) -> None:
    """Claude Code's shell runs git's hooks (a registry fact) and nothing gives git config through the
    environment: whether git runs no hooks is answered without gitai.sandbox.enter."""
    gitai_ok(repo, "select", "INT-001")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_CONFIG_")}
    for command in ("ls src", "make build", "git commit -m x"):
        shell = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "t1",
                 "tool_input": {"command": command}}
        answer, loaded = _agent_hook_modules(repo, shell, {"gitai.sandbox.enter"}, env)
        assert answer and loaded == set(), command
