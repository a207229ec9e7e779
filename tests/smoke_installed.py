"""Smoke test of an installed gitai (`make smoke`): every command runs once from the built wheel,
installed non-editable, in a scratch repository with a bare remote.

Not a pytest module: it runs under the smoke virtualenv's own Python, which has only the wheel and
its dependencies, so a module the wheel lacks fails here even though the editable install has it.
Usage: python tests/smoke_installed.py /path/to/venv/bin/gitai
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

# Each invocation with the exit codes it may give. Every command that `gitai help --json` lists
# must appear (checked below), so a new command cannot ship without running here once.
PAYLOAD = json.dumps({"session_id": "smoke", "hook_event_name": "PreToolUse", "tool_name": "Write",
                      "tool_input": {"file_path": "src/auth/x.py", "content": "x = 1\n"}, "cwd": "."})
RUNS: list[tuple[list[str], tuple[int, ...]]] = [
    (["help", "--json"], (0,)),
    (["intents"], (0,)),
    (["intent", "show", "INT-001"], (0,)),
    (["select", "INT-001"], (0,)),
    (["status"], (0,)),
    (["context"], (0,)),
    (["check", "--staged"], (0,)),
    (["COMMIT"], (0,)),
    (["show"], (0,)),
    (["log"], (0,)),
    (["blame-intent", "src/auth/login.py"], (0,)),
    (["classify"], (0,)),
    (["owners", "src/auth/login.py", "docs/a.md"], (0,)),
    (["coverage"], (0, 1)),
    (["stats"], (0,)),
    (["map"], (0,)),
    (["report", "-o", "report.html"], (0,)),
    (["export", "--format", "jsonl", "-o", "trace.jsonl"], (0,)),
    (["backfill"], (0,)),
    (["carry", "HEAD~1..HEAD", "--to", "main"], (0, 1)),
    (["trace", "verify"], (0,)),
    (["trace", "rebuild"], (0,)),
    (["trace", "recover"], (0,)),
    (["sync", "origin"], (0,)),
    (["gc"], (0,)),
    (["lesson", "Run the tests before committing", "--intent", "INT-001"], (0,)),
    (["hook", "claude-code"], (0,)),
    (["hooks", "status"], (0,)),
    (["hooks", "uninstall"], (0,)),
    (["hooks", "install"], (0,)),
    (["agents", "install", "claude-code"], (0,)),
    (["agents", "status"], (0,)),
    (["agents", "uninstall", "claude-code"], (0,)),
    (["ci", "github"], (0,)),
    (["ci", "gitlab"], (0,)),
    (["clear"], (0,)),
    (["approve", "INT-002"], (0,)),
    (["block", "INT-002", "--reason", "waiting"], (0,)),
    (["done", "INT-001"], (0,)),
    (["run", "INT-002", "--", "true"], (0,)),
    (["exec", "--session", "claude-code-smoke", "--", "true"], (0,)),
]
# Person-only commands ask for a confirmation on the controlling terminal: a pty, answered "yes".
PERSON_ONLY = (["approve"], ["block"], ["done"], ["hooks", "uninstall"], ["agents", "uninstall"])
CATALOGUE = """\
active_intents:
  - id: INT-001
    name: Auth
    status: IN_PROGRESS
    owned_scope: ["src/auth/**"]
  - id: INT-002
    name: Docs
    owned_scope: ["docs/**"]
"""


def _run(gitai: str, argv: list[str], repo: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    if not any(argv[:len(words)] == list(words) for words in PERSON_ONLY):
        return subprocess.run([gitai, *argv], cwd=repo, env=env, capture_output=True, text=True,
                              input=PAYLOAD if argv[0] == "hook" else "", timeout=120)
    master, slave = os.openpty()
    name = os.ttyname(slave)
    try:
        os.write(master, b"yes\n")
        return subprocess.run([gitai, *argv], cwd=repo, env=env, capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL, start_new_session=True,
                              preexec_fn=lambda: os.close(os.open(name, os.O_RDWR)))
    finally:
        os.close(master)
        os.close(slave)


def main(gitai: str) -> int:
    listed = json.loads(subprocess.run([gitai, "help", "--json"], capture_output=True, text=True,
                                       check=True).stdout)["subcommands"]
    covered = {argv[0] for argv, _ in RUNS} | {"init"}  # init makes the repository, below
    missing = sorted(set(listed) - covered)
    if missing:
        print(f"smoke: commands with no smoke run: {', '.join(missing)}")
        return 1
    with tempfile.TemporaryDirectory(prefix="gitai-smoke-") as scratch:
        env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": scratch, "GIT_AUTHOR_NAME": "Smoke",
               "GIT_AUTHOR_EMAIL": "smoke@example.com", "GIT_COMMITTER_NAME": "Smoke",
               "GIT_COMMITTER_EMAIL": "smoke@example.com"}
        env = {k: v for k, v in env.items() if not k.startswith("GITAI_")}
        repo = os.path.join(scratch, "repo")
        remote = os.path.join(scratch, "remote.git")

        def git(*args: str) -> None:
            subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)

        os.makedirs(os.path.join(repo, "src", "auth"))
        subprocess.run(["git", "init", "-q", "--bare", "-b", "main", remote], check=True, env=env)
        git("init", "-q", "-b", "main")
        git("remote", "add", "origin", remote)
        failures = []
        done = subprocess.run([gitai, "init"], cwd=repo, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            failures.append(f"gitai init: exit {done.returncode}: {done.stderr.strip()}")
        with open(os.path.join(repo, ".orchestration", "active_intents.yaml"), "w", encoding="utf-8") as handle:
            handle.write(CATALOGUE)
        git("add", ".orchestration")
        git("commit", "-qm", "catalogue")
        for argv, allowed in RUNS:
            if argv == ["COMMIT"]:
                with open(os.path.join(repo, "src", "auth", "login.py"), "w", encoding="utf-8") as handle:
                    handle.write("def login(user):\n    return user\n")
                git("add", "-A")
                git("commit", "-qm", "login")
                git("push", "-q", "origin", "main")
                continue
            done = _run(gitai, argv, repo, env)
            broken = "Traceback" in done.stdout + done.stderr or "internal error" in done.stderr
            if done.returncode not in allowed or broken:
                failures.append(f"gitai {' '.join(argv)}: exit {done.returncode}: "
                                f"{(done.stderr or done.stdout).strip()[-400:]}")
        for line in failures:
            print(f"smoke: {line}")
        print(f"smoke: {len(RUNS) + 1 - len(failures)} passed, {len(failures)} failed")
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(os.path.abspath(sys.argv[1])))
