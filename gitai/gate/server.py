"""The server-side gate: a pre-receive hook in a bare repository (`gitai hooks install --server`).

Every pushed branch is checked like `gitai check --range`: each commit new to the repository
against the intent of its `Intent:` trailer. The scopes are the catalogue of the branch as it
was before the push (for a new branch: the default branch's), never the pushed one, so a push
cannot widen its own scope: a scope change is pushed (and reviewed) first. A branch whose base has
no catalogue accepts only `.orchestration/` changes (the catalogue comes first); an empty
repository judges its first push by the catalogue that push brings. Lean: no repository layout
(a bare repository has no work tree), no pygit2.
"""

from __future__ import annotations

import os
import sys
import tempfile

from gitai.errors import EXIT_OK, EXIT_PROBLEM
from gitai.gate.check import CheckResult, check_commits
from gitai.gate.policy import Policy, compile_policy
from gitai.git.runner import git_process, run_git
from gitai.layout import CATALOGUE, INTENTIGNORE, ORCHESTRATION
from gitai.refusal import Refusal
from gitai.util.text import display_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

ZERO = "0" * 40


def _blob(root: str, commit: str, path: str) -> bytes | None:
    proc = git_process(["cat-file", "blob", f"{commit}:{path}"], root)
    return proc.stdout if proc.returncode == 0 else None


def policy_at(root: str, commit: str) -> Policy | None:
    """The scopes as `commit` has them (None: it has no catalogue)."""
    catalogue = _blob(root, commit, f"{ORCHESTRATION}/{CATALOGUE}")
    if catalogue is None:
        return None
    ignore = _blob(root, commit, f"{ORCHESTRATION}/{INTENTIGNORE}")
    with tempfile.TemporaryDirectory(prefix="gitai-gate-") as scratch:
        path = os.path.join(scratch, CATALOGUE)
        with open(path, "wb") as handle:
            handle.write(catalogue)
        return compile_policy(path, None, ignore, f"{commit[:12]}:{ORCHESTRATION}/{INTENTIGNORE}")


class UnbornHead(Exception):
    """The repository has branches but HEAD names none of them: a new branch has no base to judge it by."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.summary)
        self.refusal = refusal


def _base_of(root: str, old: str, new: str, has_branches: bool) -> str:
    """The commit whose catalogue rules a push: the branch before it, else the default branch
    (HEAD); in an empty repository, the pushed commit itself (the team's first push brings the
    catalogue)."""
    if old.strip("0"):
        return old
    head = git_process(["rev-parse", "-q", "--verify", "HEAD^{commit}"], root).stdout.decode().strip()
    if head:
        return head
    if has_branches:
        raise _unborn_head(root)
    return new


def _unborn_head(root: str) -> UnbornHead:
    name = git_process(["symbolic-ref", "-q", "HEAD"], root).stdout.decode().strip() or "HEAD"
    return UnbornHead(Refusal(f"push refused: the server's HEAD names {name}, which does not exist, so a new "
                              "branch has no catalogue to be checked against",
                              hints=["on the server: git symbolic-ref HEAD refs/heads/<the default branch>"]))


def check_push(root: str, updates: list[tuple[str, str, str]]) -> list[tuple[str, CheckResult]]:
    """(ref, result) per pushed branch that has commits no branch holds yet.

    Every commit that becomes reachable from a branch is checked, however it reached the repository
    first (a tag, another ref, the parent of a notes commit): only what the branches already hold
    was checked before. A base with no catalogue has no intents, so only `.orchestration/` passes.
    Raises UnbornHead when a new branch has no default branch to be judged by."""
    has_branches = bool(run_git(["for-each-ref", "--count=1", "--format=%(refname)", "refs/heads/"], root).strip())
    results = []
    for old, new, ref in updates:
        if not ref.startswith("refs/heads/") or not new.strip("0"):
            continue  # tags, notes (refs/notes/gitai), deletions: checked when a branch takes their commits
        base = _base_of(root, old, new, has_branches)
        policy = policy_at(root, base) or Policy([], [])
        commits = run_git(["rev-list", "--reverse", "--topo-order", "--parents", new, "--not", "--branches"],
                          root).decode().splitlines()
        if commits:
            results.append((ref, check_commits(root, policy, commits)))
    return results


def refusal_message(results: list[tuple[str, CheckResult]]) -> Refusal:
    """What the pusher needs to correct the push, in the words of the pre-commit gate."""
    violations = [(ref, v) for ref, result in results for v in result.violations]
    commits = {v.commit for _, v in violations}
    width = max(len(display_path(v.path)) for _, v in violations)
    rows = []
    for ref, v in violations:
        owners = ", ".join(v.owners) if v.owners else "no intent (add it to an owned_scope or .intentignore)"
        said = {"no_intent_trailer": "no Intent: trailer", "unknown_intent": f"unknown intent {v.intent_id}",
                "out_of_scope": f"Intent: {v.intent_id}"}.get(v.reason, v.reason)
        rows.append(f"{(v.commit or '')[:12]} {ref.removeprefix('refs/heads/')}: {display_path(v.path):<{width}}"
                    f"  owned by: {owners}  ({said})")
    owning = sorted({o for _, v in violations for o in v.owners})
    hints = ["give each commit the intent that owns its paths: git rebase -i, reword, Intent: "
             + (" or ".join(owning) if owning else "INT-ID"),
             "or split a commit that spans intents, one commit per intent (gitai select INT-ID before each)",
             "or widen the scope: push a change to owned_scope in .orchestration/active_intents.yaml first",
             "check before pushing again: gitai check --range <remote branch>..HEAD"]
    return Refusal(f"push refused: {len(commits)} commit{'s' if len(commits) > 1 else ''} outside the scope of "
                   "the intent named by their Intent: trailer:", rows, hints)


def run_pre_receive(root: str, stdin: str, out: TextIO = sys.stderr) -> int:
    updates = [tuple(line.split()[:3]) for line in stdin.splitlines() if len(line.split()) >= 3]
    try:
        results = [(ref, r) for ref, r in check_push(root, updates) if not r.ok]  # type: ignore[arg-type]
    except UnbornHead as exc:
        out.write(exc.refusal.for_terminal())
        return EXIT_PROBLEM
    if not results:
        return EXIT_OK
    out.write(refusal_message(results).for_terminal())
    return EXIT_PROBLEM
