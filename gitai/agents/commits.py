"""An agent's `git commit` where git may run no hooks: Gemini CLI's shell sets an empty
core.hooksPath through GIT_CONFIG_* (docs/agents.md, "Seen in the real hosts"), and so does any
host started in an environment that does.

Before such a command, the before-shell hook runs the pre-commit gate's scope check itself on what the
commit will hold, and refuses the command where that cannot be told from its text (it stages in a way
not read here: staging and committing then go in two commands); after any commit command, the
after-shell hook records each new commit that has no record, so nothing an agent commits goes
unrecorded. Its `Intent:` trailer comes from gitai's own commit-msg hook, which git runs where
`gitai exec` or `gitai run` points it there (gitai/sandbox/enter.py) and which gates the commit again
under the intent it writes (the agent's command may name another); elsewhere the commit carries none,
and its record names the session's intent.

A program can commit by itself (a script, a `make` target, `python -c ...`): where git runs no hooks,
HEAD is remembered before every command that may write (`may_write`), and a new commit such a command
made, which nothing gated, is recorded all the same, then checked against the session intent's scope:
paths outside it are told to the agent and logged as an `agent-commit-ungated-outside-scope` event
for a person to look at (nothing is undone).
Lean: `gitai hook` imports this for commit commands, and where git runs no hooks, for any that may write.
"""

from __future__ import annotations

import os
import subprocess
import sys

from gitai.agents import budget
from gitai.agents.sessions import current_head, forget_head
from gitai.agents.shell_reads import segments
from gitai.gate.check import check_paths, staged_paths
from gitai.git.repository import without_config_overrides
from gitai.git.runner import run_git, split_z

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitai.agents.sessions import Session
    from gitai.gate.policy import Policy
    from gitai.layout import Layout

STAGE_NOTHING = ("status", "diff", "log", "show", "rev-parse", "ls-files", "push")  # git subcommands
ADD_OPTIONS = ("-A", "--all", "-u", "--update", "--", "-N", "--intent-to-add", "-f", "--force", "-v", "--verbose")
COMMIT_VALUE_LETTERS = ("m", "F", "C", "c", "t")  # `-amMSG`, `-am MSG`: the rest of the cluster, or the next word
COMMIT_VALUE_OPTIONS = ("-m", "-F", "-C", "-c", "-t", "--message", "--file", "--author", "--date", "--template",
                        "--reuse-message", "--reedit-message", "--fixup", "--squash", "--trailer", "--cleanup")
# Short letters that change nothing about what is committed (`-a` and `-p` add the tracked changes),
# and the long options alike: any other option (`--pathspec-from-file`, a prefix such as `--al`) is unknown.
COMMIT_FLAG_LETTERS = "apqvsneSuz"
COMMIT_FLAGS = ("--all", "--patch", "--amend", "--no-edit", "--edit", "--quiet", "--verbose", "--signoff",
                "--no-signoff", "--allow-empty", "--allow-empty-message", "--reset-author", "--no-gpg-sign",
                "--status", "--no-status", "--dry-run", "--short", "--branch", "--porcelain", "--long", "--null",
                "--verify")
COMMIT_FLAG_PREFIXES = ("--gpg-sign", "--untracked-files")  # with or without `=VALUE`
RUN_NOTHING = ("true", ":", "echo", "pwd")  # builtins that neither stage nor set a variable
WITH_VARIABLES = ("GITAI_INTENT",)  # `VAR=... git commit`: names the intent, changes nothing git stages


def paths_to_commit(layout: Layout, command: str, cwd: str) -> list[str] | None:
    """The paths a commit command may commit: the staged ones, what its `git add`s would stage
    (`git add --dry-run`), the tracked changes for `commit -a`; None where the command may stage in a
    way not read here (any other program or git subcommand, a word the shell expands): what the
    commit will hold is then unknown."""
    added = _staged_by(layout, command, cwd)
    if added is None:
        return None
    return list(dict.fromkeys([*staged_paths(layout), *added]))


def _staged_by(layout: Layout, command: str, cwd: str) -> list[str] | None:
    """The paths the command's own `git add` and `git commit -a` would stage; None when unknown."""
    found_segments = segments(command, comments=False)
    if found_segments is None:
        return None
    found: list[str] = []
    for words in found_segments:
        if any(c in word for word in words for c in "$`"):
            return None  # expanded by the shell, not by git: the words git gets are not these
        while words and words[0].partition("=")[0] in WITH_VARIABLES and "=" in words[0]:
            words = words[1:]
        if words and words[0] == "env":
            words = _without_unsets(words[1:])
        if not words:
            return None
        if words[0] == "cd" and len(words) == 2:
            cwd = os.path.join(cwd, words[1])
            continue
        if words[0] in RUN_NOTHING:
            continue
        if words[0] != "git" or len(words) < 2:
            return None  # any other program (`A=1 git add`, `timeout 5 git add`, a script) may stage: unknown
        sub, args = words[1], words[2:]
        if sub in STAGE_NOTHING:
            continue
        if sub not in ("add", "commit"):
            return None  # `git -C DIR ...`, `git stage`, `git read-tree`, `git update-index` ...: not read here
        if sub == "add":
            if any((a.startswith("-") and a not in ADD_OPTIONS) or "{" in a for a in args):
                return None  # --pathspec-from-file, --interactive, a brace the shell expands ...: not run
            added = _dry_run_add(args, cwd)
            if added is None:
                return None
            found.extend(added)
        else:
            tracked = _committed_with(args)
            if tracked is None:
                return None
            if tracked:
                changed = run_git(["diff", "--name-only", "-z", "--no-renames", "HEAD", "--"], layout.root,
                                  check=False)
                found.extend(split_z(changed))
    return found


def _without_unsets(args: list[str]) -> list[str]:
    """`env -u NAME ... git commit ...` -> the `git commit` words where each NAME is none of git's own
    variables (dropping the agent's marks changes nothing git commits); else [] (unknown)."""
    index = 0
    while index < len(args) and args[index].startswith("-"):
        arg = args[index]
        name = arg[2:] if arg.startswith("-u") else arg.partition("=")[2] if arg.startswith("--unset=") else None
        if arg in ("-u", "--unset") and index + 1 < len(args):
            name, index = args[index + 1], index + 1
        if not name or name.startswith("GIT_"):
            return []
        index += 1
    rest = args[index:]
    return rest if rest[:2] == ["git", "commit"] else []


def _dry_run_add(args: list[str], cwd: str) -> list[str] | None:
    """What `git add ARGS` in `cwd` would stage (`git add --dry-run`); None when git does not say."""
    try:
        proc = subprocess.run(["git", "-c", "core.quotePath=false", "add", "--dry-run", *args],
                              cwd=os.path.normpath(cwd), capture_output=True, stdin=subprocess.DEVNULL,
                              timeout=budget.remaining())
    except subprocess.TimeoutExpired:
        raise budget.BudgetSpent("`git add --dry-run` did not answer within the hook's budget") from None
    except OSError:
        return None  # `cd` into a directory that is not there (yet)
    if proc.returncode != 0:
        return None
    found = []
    for line in proc.stdout.decode("utf-8", "surrogateescape").splitlines():
        verb, _, quoted = line.partition(" ")
        if verb not in ("add", "remove") or not (quoted.startswith("'") and quoted.endswith("'")):
            return None
        found.append(quoted[1:-1])
    return found


def _committed_with(args: list[str]) -> bool | None:
    """For `git commit ARGS`: whether it adds the tracked changes (`-a`, `-p`); None when it may commit
    other than the index (paths on the command line, an option not read here)."""
    tracked, expect_value = False, False
    for arg in args:
        if expect_value:
            expect_value = False
        elif arg in COMMIT_VALUE_OPTIONS:
            expect_value = True
        elif arg.startswith("--"):
            option = arg.split("=", 1)[0]
            if option in COMMIT_VALUE_OPTIONS or option in COMMIT_FLAG_PREFIXES:
                continue
            if arg not in COMMIT_FLAGS:
                return None
            tracked = tracked or arg in ("--all", "--patch")
        elif arg.startswith("-") and len(arg) > 1:
            letters = _short_options(arg)
            if any(ch not in COMMIT_FLAG_LETTERS + "".join(COMMIT_VALUE_LETTERS) for ch in letters):
                return None
            expect_value = letters[-1:] in COMMIT_VALUE_LETTERS and arg.endswith(letters[-1])
            tracked = tracked or "a" in letters or "p" in letters
        else:
            return None  # paths on the command line (`git commit FILE`): committed whatever the index says
    return tracked


def commit_refusal(layout: Layout, policy: Policy, intent_id: str | None, command: str, cwd: str) -> str | None:
    """The pre-commit gate's refusal for what the command would commit, or None. Where the command may
    stage in a way gitai does not read (`git read-tree`, `git update-index`, `git rm`, a script ...),
    what the commit will hold is unknown before it runs, and git runs no hook to check it after: refused."""
    from gitai.gate.pre_commit import refusal_message
    from gitai.refusal import Refusal

    paths = paths_to_commit(layout, command, cwd)
    if paths is None:
        return Refusal("commit refused: this command may change what is staged in a way gitai cannot read before "
                       "it runs (another program, a git command other than add, a word the shell expands), and this "
                       "host's shell runs git without its hooks, so what it would commit cannot be checked.",
                       hints=["stage in one command (`git add PATHS`), then commit in the next with `git commit -m "
                              "MESSAGE` alone: that commit is checked against what is staged"]).for_agent()
    result = check_paths(policy, intent_id, paths)
    if result.ok:
        return None
    return refusal_message(policy, result).with_rows(
        "(checked before the command runs: this host's shell runs git without gitai's hooks)").for_agent()


def record_new_commits(layout: Layout, session: Session, intent_id: str | None) -> str:
    """After a command that may have committed: trace each commit made since `remember_head`
    (gitai/agents/sessions.py) that has
    no record, as the session's (the post-commit hook does it, in a process that carries the agent's
    marks). Where nothing gated the command's commits, what they hold outside `intent_id`'s scope is
    told: the warning for the agent, "" when there is none."""
    before, ungated = forget_head(session)
    if before is None:
        return ""
    session.save()
    now = current_head(layout)
    if not now or now == before:
        return ""
    env = {**without_config_overrides(), "GITAI_AGENT": str(session.data.get("host") or "agent")}
    model = session.data.get("model")
    if isinstance(model, str) and model:
        env["GITAI_MODEL"] = model
    if session.intent:
        env["GITAI_INTENT"] = session.intent
    proc = subprocess.run([sys.executable, "-m", "gitai.hook_main", "post-commit", "--since", before],
                          cwd=layout.root, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=120,
                          check=False)
    if not ungated:
        return ""
    # Only the commits that had no record before: one a person made meanwhile in their own terminal,
    # recorded there by their hooks, is not the agent's.
    recorded = set(proc.stdout.decode("ascii", "replace").split())
    return _ungated_outside_scope(layout, session, intent_id, before, now, recorded)


def _ungated_outside_scope(layout: Layout, session: Session, intent_id: str | None, before: str, now: str,
                           recorded: set[str]) -> str:
    """The new commits of a command nothing gated (those of `recorded`, recorded now as the session's),
    checked as the pre-commit gate would have: each one with paths outside `intent_id`'s scope is logged
    as an event and named in the warning returned. HEAD and the work tree are left as they are: undoing
    a commit is a person's decision."""
    from gitai.gate.policy import load_policy
    from gitai.intents.events import record_event

    policy = load_policy(layout)
    new = run_git(["rev-list", "--reverse", "--no-merges", now, *([f"^{before}"] if before else [])],
                  layout.root, check=False).decode().split()
    commits = [commit for commit in new if commit in recorded]
    if not commits:
        return ""
    found = []
    for commit in commits:
        paths = split_z(run_git(["diff-tree", "-r", "-z", "--root", "--no-commit-id", "--name-only", "--no-renames",
                                 commit], layout.root, check=False))
        outside = [v.path for v in check_paths(policy, intent_id, paths).violations]
        if outside:
            found.append(f"{commit[:12]}: {', '.join(outside[:20])}")
            host = str(session.data.get("host") or "agent")
            record_event(layout, "agent-commit-ungated-outside-scope", False, actor=f"agent:{host}",
                         intent_id=intent_id, host=host, session=session.key, commit=commit, paths=outside[:50])
    if not found:
        return ""
    return ("gitai: warning: a program your command ran made a commit without gitai's pre-commit gate "
            "(git runs no hooks in this shell), and it holds paths outside the scope of "
            f"{intent_id or 'no intent'}: " + "; ".join(found) + ". It is recorded as this session's, and "
            "logged for a person to look at. Commit with `git commit` in a command of its own: gitai checks "
            "that one first.")


def _short_options(arg: str) -> str:
    """The option letters of a short cluster, up to the first that takes a value (`-amfix` -> "am")."""
    letters = ""
    for ch in arg[1:]:
        letters += ch
        if ch in COMMIT_VALUE_LETTERS or ch in "Su":  # `-Skey`, `-uno`: the rest is its value
            break
    return letters
