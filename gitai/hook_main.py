"""Entry point of the installed hooks (gitai/hooks/gitai-hook.sh calls `main`), and of the pre-commit
framework's (`gitai hooks run`, which gitai/entry.py sends to `run_for_framework` without click).

The hooks run Python with `-I -S` and an explicit sys.path, and each hook imports only
what it needs, so the pre-commit gate starts fast. (commit-msg is plain shell.) The post-*
hooks never fail a commit: an internal error is reported on stderr and logged under
the git dir (`gitai/errors.log`, as the command's internal errors).
"""

from __future__ import annotations

import os
import sys

from gitai.errors import EXIT_PROBLEM, EXIT_USAGE, GIT_HOOK, NEVER_FAIL, GitaiError, error_handler
from gitai.layout import Layout, find_layout


def _pre_commit(layout: Layout, args: list[str]) -> int:
    from gitai.agents.hosts import AGENT_VARIABLES
    from gitai.gate.pre_commit import run_gate

    # --staged-stdin: the hook script pipes the staged-paths query in (gitai/gate/check.py staged_paths)
    piped = sys.stdin.buffer.read() if args == ["--staged-stdin"] else None
    if any(os.environ.get(name) for name in AGENT_VARIABLES):  # inside an agent host: did its hooks run?
        from gitai.agents.ungoverned import ungoverned_refusal

        refusal = ungoverned_refusal(layout, os.environ)
        if refusal:
            sys.stderr.write(refusal)
            return EXIT_PROBLEM
    return run_gate(layout, piped=piped)


def _post_commit(layout: Layout, args: list[str]) -> int:
    from gitai.hooks.post_hooks import after_commit, after_unhooked_commits

    if args[:1] == ["--since"] and len(args) == 2:  # an agent's commits that git ran no hooks for
        recorded = after_unhooked_commits(layout, args[1])
        sys.stdout.write("".join(f"{commit}\n" for commit in recorded))  # which ones: gitai/agents/commits.py
    else:
        after_commit(layout)
    return 0


def _merge_fetched_notes(layout: Layout) -> None:
    """The end of a `git pull`: merge the notes its fetch brought (gitai.trace.travel)."""
    from gitai.trace.travel import after_pull

    try:
        after_pull(layout)
    except GitaiError as exc:
        print(f"gitai: warning: fetched notes not merged ({exc}); later: gitai sync", file=sys.stderr)


def _post_merge(layout: Layout, args: list[str]) -> int:
    from gitai.hooks.post_hooks import after_merge

    _merge_fetched_notes(layout)
    after_merge(layout, args[0] if args else "0")
    return 0


def _post_rewrite(layout: Layout, args: list[str]) -> int:
    from gitai.hooks.post_hooks import after_rewrite, rewritten_from_state

    rewritten = sys.stdin.read()
    if not rewritten.strip():
        rewritten = rewritten_from_state(layout, args[0] if args else "")
    if args[:1] == ["rebase"]:
        _merge_fetched_notes(layout)  # `git pull --rebase`
    after_rewrite(layout, args[0] if args else "", rewritten)
    return 0


def _pre_push(layout: Layout, args: list[str]) -> int:
    from gitai.trace.travel import before_push

    if args:
        before_push(layout, args[0])
    return 0


def _pre_receive() -> int:
    """The server gate, in a bare repository (no work tree, so no layout): refuse out-of-scope pushes."""
    from gitai.gate.server import run_pre_receive

    root = os.getcwd()  # git runs pre-receive in the repository's git dir
    handled = error_handler(GIT_HOOK, "pre-receive hook", state_dir=os.path.join(root, "gitai"))
    with handled:
        return run_pre_receive(root, sys.stdin.read())
    return handled.code


HOOKS = {
    "pre-commit": _pre_commit,
    "post-commit": _post_commit,
    "post-merge": _post_merge,
    "post-rewrite": _post_rewrite,
    "pre-push": _pre_push,
}


# What the pre-commit framework tells its hooks in the environment instead of git's arguments
# (pre-commit's names, and prek's where they differ).
FRAMEWORK_ARGUMENTS = {
    "post-merge": (("PRE_COMMIT_IS_SQUASH_MERGE", "PRE_COMMIT_SQUASH_MERGE"),),
    "post-rewrite": (("PRE_COMMIT_REWRITE_COMMAND",),),
    "pre-push": (("PRE_COMMIT_REMOTE_NAME",), ("PRE_COMMIT_REMOTE_URL",)),
}
FRAMEWORK_HOOKS = ("pre-commit", "commit-msg", *HOOKS)


def run_for_framework(hook: str, args: list[str]) -> int:
    """`gitai hooks run HOOK [ARGS]`: gitai's hook HOOK as the installed one runs it, for the pre-commit
    framework; nothing when git already runs gitai's own HOOK (so nothing runs twice). In this process,
    but commit-msg, which is the hook template's shell."""
    from gitai.hooks.markers import runs_from_git

    handled = error_handler(NEVER_FAIL if _never_fails(hook) else GIT_HOOK, f"{hook} hook")
    with handled:
        layout = find_layout()
        runs_already = runs_from_git(layout.repo.hooks_dir, hook)  # the hooks dir may ask git, which may fail
    if handled.failed or runs_already:
        return handled.code
    given = list(args)
    if not given:  # the framework passes these in its environment
        for names in FRAMEWORK_ARGUMENTS.get(hook, ()):
            given.append(next((os.environ[n] for n in names if os.environ.get(n)), ""))
        while given and not given[-1]:
            given.pop()
    if hook != "commit-msg":
        with open(os.devnull) as nothing:  # post-rewrite reads its list from the git dir: the framework passes none
            sys.stdin = nothing
            return main([hook, *given])
    import subprocess

    from gitai.hooks.install import render_hook

    # $0 names no directory with a chained hook: the framework runs the others itself.
    return subprocess.run(["sh", "-c", render_hook(hook), os.path.join(os.devnull, hook), *given],
                          cwd=layout.root, stdin=subprocess.DEVNULL).returncode


def _never_fails(hook: str) -> bool:
    """The hooks that run after git has done its work, and pre-push: notes travel never stops a push."""
    return hook.startswith("post-") or hook == "pre-push"


def main(argv: list[str]) -> int:
    if not argv or (argv[0] not in HOOKS and argv[0] != "pre-receive"):
        print(f"gitai: error: unknown hook {argv[:1]}", file=sys.stderr)
        return EXIT_USAGE
    hook, args = argv[0], argv[1:]
    if hook == "pre-receive":
        return _pre_receive()
    if hook == "pre-commit" and os.environ.get("GITAI_HOOKS", "").lower() == "off":
        from gitai.intents.approval import agent_variable

        if agent_variable() is None:  # a person's escape hatch; never an agent's (docs/agents.md)
            print("gitai: warning: GITAI_HOOKS=off: the scope gate is skipped for this commit", file=sys.stderr)
            return 0
    handled = error_handler(NEVER_FAIL if _never_fails(hook) else GIT_HOOK, f"{hook} hook")
    with handled:
        layout = find_layout()
        handled.state_dir = layout.shared_state_dir
        if not layout.uses_gitai():
            return 0
        return HOOKS[hook](layout, args)
    return handled.code


if __name__ == "__main__":  # `python -m gitai.hook_main HOOK ...`, for debugging a hook by hand
    sys.exit(main(sys.argv[1:]))
