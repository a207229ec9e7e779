"""An agent's `git commit` where git may run no hooks: Gemini CLI's shell sets an empty
core.hooksPath through GIT_CONFIG_* (docs/agents.md, "Seen in the real hosts"), and so does any
host started in an environment that does.

Before such a command, the before-shell hook runs the pre-commit gate's scope check itself; after
any commit command, the after-shell hook records each new commit that has no record, so nothing an
agent commits goes unrecorded. Its `Intent:` trailer comes from gitai's own commit-msg hook, which
git runs where `gitai exec` or `gitai run` points it there (gitai/sandbox/enter.py) and which gates
the commit again under the intent it writes (the agent's command may name another); elsewhere the
commit carries none, and its record names the session's intent. Lean: `gitai hook` imports this for
commit commands only.
"""

from __future__ import annotations

import os
import subprocess
import sys

from gitai.agents import budget
from gitai.agents.sessions import HEAD_BEFORE
from gitai.agents.shell_reads import segments
from gitai.gate.check import check_paths, staged_paths
from gitai.git.repository import without_config_overrides
from gitai.git.runner import head_commit, run_git, split_z

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitai.agents.sessions import Session
    from gitai.gate.policy import Policy
    from gitai.layout import Layout

READ_ONLY = ("status", "diff", "log", "show", "rev-parse", "ls-files")  # read, stage nothing
ADD_OPTIONS = ("-A", "--all", "-u", "--update", "--", "-N", "--intent-to-add", "-f", "--force", "-v", "--verbose")
COMMIT_VALUE_LETTERS = ("m", "F", "C", "c", "t")  # `-amMSG`, `-am MSG`: the rest of the cluster, or the next word
COMMIT_VALUE_OPTIONS = ("-m", "-F", "-C", "-c", "-t", "--message", "--file", "--author", "--date", "--template",
                        "--reuse-message", "--reedit-message", "--fixup", "--squash", "--trailer", "--cleanup")


def paths_to_commit(layout: Layout, command: str, cwd: str) -> list[str]:
    """The paths a commit command may commit: the staged ones, what its `git add`s would stage
    (`git add --dry-run`), the tracked changes for `commit -a`; where the command stages in a way
    not read here, every changed or new path of the worktree (a wider check refuses, never lets through)."""
    paths = staged_paths(layout)
    added = _staged_by(layout, command, cwd)
    if added is None:
        changed = run_git(["diff", "--name-only", "-z", "--no-renames", "HEAD", "--"], layout.root, check=False)
        untracked = run_git(["ls-files", "--others", "--exclude-standard", "-z"], layout.root, check=False)
        added = [*split_z(changed), *split_z(untracked)]
    return list(dict.fromkeys([*paths, *added]))


def _staged_by(layout: Layout, command: str, cwd: str) -> list[str] | None:
    """The paths the command's own `git add` and `git commit -a` would stage; None when unknown."""
    found_segments = segments(command)
    if found_segments is None:
        return None
    found: list[str] = []
    for words in found_segments:
        if words[0] == "cd" and len(words) == 2:
            cwd = os.path.join(cwd, words[1])
            continue
        if words[0] != "git" or len(words) < 2:
            return None  # any other program (`A=1 git add`, `timeout 5 git add`, a script) may stage: unknown
        sub, args = words[1], words[2:]
        if sub in READ_ONLY:
            continue
        if sub not in ("add", "commit"):
            return None  # `git -C DIR ...`, `git stage`, or staging gitai does not read
        if sub == "add":
            if any(a.startswith("-") and a not in ADD_OPTIONS for a in args):
                return None  # --pathspec-from-file, --interactive, --edit ...: not run on the agent's behalf
            try:
                proc = subprocess.run(["git", "-c", "core.quotePath=false", "add", "--dry-run", *args],
                                      cwd=os.path.normpath(cwd), capture_output=True, stdin=subprocess.DEVNULL,
                                      timeout=budget.remaining())
            except subprocess.TimeoutExpired:
                raise budget.BudgetSpent("`git add --dry-run` did not answer within the hook's budget") from None
            if proc.returncode != 0:
                return None
            for line in proc.stdout.decode("utf-8", "surrogateescape").splitlines():
                verb, _, quoted = line.partition(" ")
                if verb not in ("add", "remove") or not (quoted.startswith("'") and quoted.endswith("'")):
                    return None
                found.append(quoted[1:-1])
        elif sub == "commit":
            expect_value = False
            for arg in args:
                if expect_value:
                    expect_value = False
                elif arg in COMMIT_VALUE_OPTIONS:
                    expect_value = True
                elif arg == "--all" or (arg.startswith("-") and not arg.startswith("--")):
                    letters = _short_options(arg)
                    expect_value = letters[-1:] in COMMIT_VALUE_LETTERS and arg.endswith(letters[-1])
                    if arg == "--all" or "a" in letters:
                        tracked = run_git(["diff", "--name-only", "-z", "--no-renames", "HEAD", "--"], layout.root,
                                          check=False)
                        found.extend(split_z(tracked))
                elif not arg.startswith("-") or arg == "--":
                    return None  # paths on the command line (`git commit FILE`): committed whatever the index says
    return found


def commit_refusal(layout: Layout, policy: Policy, intent_id: str | None, command: str, cwd: str) -> str | None:
    """The pre-commit gate's refusal for what the command would commit, or None."""
    from gitai.gate.pre_commit import refusal_message

    result = check_paths(policy, intent_id, paths_to_commit(layout, command, cwd))
    if result.ok:
        return None
    return refusal_message(policy, result).with_rows(
        "(checked before the command runs: this host's shell runs git without gitai's hooks)").for_agent()


def remember_head(layout: Layout, session: Session) -> None:
    """Before a commit command: the HEAD the after-shell hook compares with."""
    session.data[HEAD_BEFORE] = head_commit(layout.root) or ""


def record_new_commits(layout: Layout, session: Session) -> None:
    """After a commit command: trace each commit made since `remember_head` that has no record,
    as the session's (the post-commit hook does it, in a process that carries the agent's marks)."""
    before = session.data.pop(HEAD_BEFORE, None)
    if not isinstance(before, str):
        return
    session.save()
    now = head_commit(layout.root)
    if now is None or now == before:
        return
    env = {**without_config_overrides(), "GITAI_AGENT": str(session.data.get("host") or "agent")}
    model = session.data.get("model")
    if isinstance(model, str) and model:
        env["GITAI_MODEL"] = model
    if session.intent:
        env["GITAI_INTENT"] = session.intent
    args = ["post-commit", "--since", before] if before else ["post-commit"]
    subprocess.run([sys.executable, "-m", "gitai.hook_main", *args], cwd=layout.root, env=env,
                   stdin=subprocess.DEVNULL, capture_output=True, timeout=120, check=False)


def _short_options(arg: str) -> str:
    """The option letters of a short cluster, up to the first that takes a value (`-amfix` -> "am")."""
    letters = ""
    for ch in arg[1:]:
        letters += ch
        if ch in COMMIT_VALUE_LETTERS:
            break
    return letters
