"""Scope checks: staged changes (the pre-commit gate), a commit range (the CI gate), or given paths.

Lean on purpose: the pre-commit hook imports this module on every commit.
"""

from __future__ import annotations

import os

from gitai.gate.policy import Policy
from gitai.git.runner import git_process, rev_list, run_git, split_z
from gitai.git.trailers import commit_intents
from gitai.intents.statuses import CLOSED
from gitai.layout import Layout

OUT_OF_SCOPE = "out_of_scope"
NO_ACTIVE_INTENT = "no_active_intent"
CLOSED_INTENT = "intent_closed"  # DONE or BLOCKED: no new work under it
NO_TRAILER = "no_intent_trailer"
UNKNOWN_INTENT = "unknown_intent"
SCOPE_SELF_CHANGE = "scope_changed_under_own_intent"  # a commit widens (or narrows) the scope it is checked against
CATALOGUE_PATH = ".orchestration/active_intents.yaml"


TYPE_CHECKING = False  # no typing import on the hook path
if TYPE_CHECKING:
    from typing import Any


class Violation:
    """A path that is not in the scope it was checked against."""

    __slots__ = ("path", "owners", "reason", "commit", "intent_id")

    def __init__(
        self, path: str, owners: list[str], reason: str = OUT_OF_SCOPE, commit: str | None = None,
        intent_id: str | None = None,
    ) -> None:
        self.path = path
        self.owners = owners
        self.reason = reason
        self.commit = commit
        self.intent_id = intent_id  # the intent the path was checked against

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"path": self.path, "owners": self.owners, "reason": self.reason}
        if self.commit:
            data["commit"] = self.commit
            data["intent_id"] = self.intent_id
        return data


class CheckResult:
    """The outcome of one check; `to_json` is the `gitai check --json` shape (docs/schemas/check.schema.json)."""

    def __init__(self, intent_id: str | None, unit: str = "paths") -> None:
        self.intent_id = intent_id
        self.unit = unit  # what was checked one by one: "paths" or "commits" (a range)
        self.violations: list[Violation] = []
        self.checked = 0
        self.exempt: list[str] = []  # paths no intent needs to own (.orchestration/**, .intentignore)
        self.scope_changes: list[dict[str, Any]] | None = None  # a range: commits that changed an owned_scope
        self.bot_commits: list[str] = []  # a range: commits by the catalogue's bot_authors, not checked
        self.bot_author: str | None = None  # staged: the author on bot_authors the commit was let through for

    @property
    def ok(self) -> bool:
        return not self.violations

    def to_json(self) -> dict[str, Any]:
        data = {"ok": self.ok, "intent_id": self.intent_id, f"{self.unit}_checked": self.checked,
                "exempt": sorted(set(self.exempt)), "violations": [v.to_json() for v in self.violations]}
        if self.scope_changes:
            data["scope_changes"] = self.scope_changes
        if self.bot_commits:
            data["bot_commits"] = self.bot_commits
        if self.bot_author:
            data["bot_author"] = self.bot_author
        return data


def _scopes_at(root: str, revision: str) -> dict[str, list[str]]:
    """Each intent's owned_scope in the catalogue at `revision` (`:` for the index); {} when absent or unreadable."""
    import yaml

    proc = git_process(["show", f"{revision}:{CATALOGUE_PATH}"], root)
    if proc.returncode != 0:
        return {}
    try:
        data = yaml.safe_load(proc.stdout.decode("utf-8", "replace"))
    except yaml.YAMLError:
        return {}
    entries = data.get("active_intents", data.get("intents")) if isinstance(data, dict) else None
    scopes = {}
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("id"), str):
            scope = entry.get("owned_scope")
            scopes[entry["id"]] = [str(p) for p in scope] if isinstance(scope, list) else []
    return scopes


def scope_changes(root: str, before: str | None, after: str) -> dict[str, tuple[list[str], list[str]]]:
    """Intents whose owned_scope differs between two catalogue versions: id -> (before, after)."""
    old = _scopes_at(root, before) if before else {}
    new = _scopes_at(root, after)
    return {i: (old.get(i, []), new.get(i, [])) for i in dict.fromkeys([*old, *new]) if old.get(i) != new.get(i)}


STAGED_DIFF = ("diff", "--cached", "--name-only", "-z", "--no-renames", "--no-ext-diff")  # also in gitai-hook.sh


def staged_paths(layout: Layout, piped: bytes | None = None) -> list[str]:
    """Every path the index changes against HEAD: added, modified, deleted, both sides of renames.

    Honours GIT_INDEX_FILE (inherited by git); on an unborn branch everything staged is new.
    While a merge is being concluded, only the merge's own work counts: paths where the index
    differs from git's automatic merge (conflict resolutions, extra changes), not the other
    branch's work, which was checked where it was committed.
    `piped`: the output of `git STAGED_DIFF` followed by its exit status, which the installed
    pre-commit hook runs beside Python's start-up (in a large repository git's reading of the
    index is most of the gate's extra time); anything but a success is not trusted: git runs again.
    """
    try:
        with open(os.path.join(layout.repo.git_dir, "MERGE_HEAD"), encoding="ascii") as handle:
            heads = handle.read().split()
    except (FileNotFoundError, UnicodeDecodeError):
        if piped is not None:
            listing, _, status = piped.rpartition(b"\0")
            if status == b"0":
                return split_z(listing)
        return _cached_diff(layout, [])
    if len(heads) == 1:
        merged = git_process(["merge-tree", "--write-tree", "HEAD", heads[0]], layout.root)
        tree = merged.stdout.split(b"\n", 1)[0].decode("ascii", "replace")
        if merged.returncode in (0, 1) and len(tree) == 40:  # 1: conflicts, the tree holds their markers
            return _cached_diff(layout, [tree])
    paths = _cached_diff(layout, [])  # an octopus merge, or no merge-tree: differ from every side
    for head in heads:
        other = set(_cached_diff(layout, [head]))
        paths = [p for p in paths if p in other]
    return paths


def _cached_diff(layout: Layout, against: list[str]) -> list[str]:
    out = run_git([*STAGED_DIFF, *against], layout.root)
    return split_z(out)


def check_paths(policy: Policy, intent_id: str | None, paths: list[str]) -> CheckResult:
    """Check paths against one intent's scope (or refuse all non-exempt paths when none is active)."""
    closed = intent_id is not None and policy.require(intent_id).status in CLOSED
    result = CheckResult(intent_id)
    result.checked = len(paths)
    for path in paths:
        if policy.is_exempt(path):
            result.exempt.append(path)
            continue
        if intent_id is None:
            result.violations.append(Violation(path, policy.owners(path), NO_ACTIVE_INTENT))
        elif closed:
            result.violations.append(Violation(path, policy.owners(path), CLOSED_INTENT, intent_id=intent_id))
        elif not policy.in_scope(intent_id, path):
            result.violations.append(Violation(path, policy.owners(path), OUT_OF_SCOPE, intent_id=intent_id))
    return result


def pass_bot_author(layout: Layout, policy: Policy, result: CheckResult) -> None:
    """Let a refused staged check through when the commit's author is on the catalogue's
    `bot_authors` (asked of git only then: the gate's usual path costs nothing more)."""
    if result.ok or not policy.bot_authors:
        return
    proc = git_process(["var", "GIT_AUTHOR_IDENT"], layout.root)
    ident = proc.stdout.decode("utf-8", "replace").strip()
    name, _, rest = ident.partition(" <")
    email = rest.partition(">")[0]
    if proc.returncode == 0 and policy.is_bot(name, email):
        result.violations = []
        result.bot_author = f"{name} <{email}>"


def _bot_commits(root: str, policy: Policy, commits: list[str]) -> set[str]:
    if not policy.bot_authors or not commits:
        return set()
    out = run_git(["log", "--no-walk=unsorted", "--stdin", "-z", "--format=%H%x01%an%x01%ae"], root,
                  input="\n".join(commits).encode())
    found = set()
    for item in out.decode("utf-8", "replace").split("\0"):
        sha, _, who = item.strip("\n").partition("\x01")
        name, _, email = who.partition("\x01")
        if sha and policy.is_bot(name, email):
            found.add(sha)
    return found


def check_range(layout: Layout, policy: Policy, revision_range: str, intent_override: str | None) -> CheckResult:
    """Check every commit of A..B against the intent named by its trailer (or `--intent`).

    A merge is checked on the paths that differ from every parent: its own resolutions.
    """
    if intent_override is not None:
        policy.require(intent_override)
    commits = rev_list(layout.root, revision_range, "--reverse", "--parents")
    return check_commits(layout.root, policy, commits, intent_override)


def check_commits(root: str, policy: Policy, commits: list[str], intent_override: str | None = None) -> CheckResult:
    """Check commits (`rev-list --parents` lines, oldest first) against their trailers' intents;
    `root` may be a bare repository (the server gate)."""
    trailers = {} if intent_override else commit_intents(root, [line.split()[0] for line in commits])
    result = CheckResult(intent_override, unit="commits")
    result.scope_changes = []
    bots = _bot_commits(root, policy, [line.split()[0] for line in commits])
    for sha, *parents in (line.split() for line in commits):
        result.checked += 1
        if sha in bots:
            result.bot_commits.append(sha)
            continue
        paths = _changed_paths(root, sha, parents)
        intent_id = intent_override or trailers.get(sha)
        if CATALOGUE_PATH in paths:
            for changed, (old, new) in scope_changes(root, parents[0] if parents else None, sha).items():
                result.scope_changes.append({"commit": sha, "intent_id": changed, "before": old, "after": new,
                                             "committed_under": trailers.get(sha)})
                if changed == intent_id and old:  # an existing intent's scope, changed under itself
                    result.violations.append(Violation(CATALOGUE_PATH, [changed], SCOPE_SELF_CHANGE, sha, intent_id))
        if intent_id is None:
            reason = NO_TRAILER
        elif intent_id not in policy.intents:
            reason = UNKNOWN_INTENT
        else:
            reason = OUT_OF_SCOPE
        for path in paths:
            if policy.is_exempt(path):
                result.exempt.append(path)
                continue
            if reason != OUT_OF_SCOPE or not policy.in_scope(intent_id or "", path):
                result.violations.append(Violation(path, policy.owners(path), reason, sha, intent_id))
    return result


def _changed_paths(root: str, sha: str, parents: list[str]) -> list[str]:
    """Paths the commit changes; for a merge, its own work: what differs from git's automatic
    merge of its parents (`--remerge-diff`), or for an octopus, what differs from every parent."""
    if len(parents) <= 1:
        return split_z(run_git(
            ["diff-tree", "--root", "-r", "--no-commit-id", "--name-only", "-z", "--no-renames", sha], root))
    if len(parents) == 2:
        return split_z(run_git(["show", "--remerge-diff", "--name-only", "--format=", "-z", sha], root))
    common: set[str] | None = None
    for parent in parents:
        changed = set(split_z(run_git(["diff-tree", "-r", "--name-only", "-z", "--no-renames", parent, sha], root)))
        common = changed if common is None else common & changed
    return sorted(common or ())
