"""The pre-commit gate: refuse staged paths outside the active intent's scope.

Runs on every commit, so it touches only the lean modules: no YAML or pathspec unless the
catalogue changed since the last commit (see gitai.policy), no pygit2, no tree-sitter.
"""

from __future__ import annotations

import sys

from gitai.errors import EXIT_OK, EXIT_PROBLEM
from gitai.gate.check import (
    CATALOGUE_PATH,
    CLOSED_INTENT,
    NO_ACTIVE_INTENT,
    CheckResult,
    check_paths,
    pass_bot_author,
    staged_paths,
)
from gitai.gate.policy import Policy, load_policy
from gitai.git.runner import head_commit
from gitai.intents.active import active_intent
from gitai.intents.patterns import is_exempt
from gitai.layout import Layout
from gitai.util.text import display_path

TYPE_CHECKING = False  # no typing import on the hook path
if TYPE_CHECKING:
    from typing import TextIO

    from gitai.refusal import Refusal


def run_gate(layout: Layout, out: TextIO = sys.stderr, piped: bytes | None = None) -> int:
    """Exit status for the pre-commit hook; explains a refusal on `out` (`piped`: see staged_paths)."""
    paths = staged_paths(layout, piped)
    if CATALOGUE_PATH in paths:
        load_policy(layout)  # a malformed catalogue is reported first, naming its line
        refusal = _scope_self_change(layout)
        if refusal:
            out.write(refusal.for_terminal())
            return EXIT_PROBLEM
    if all(is_exempt(p) for p in paths):
        return EXIT_OK  # e.g. the team's first commit of its catalogue
    policy = load_policy(layout)
    active = active_intent(layout)
    unapproved = _unapproved(layout, policy, active.id if active else None)
    if unapproved:
        out.write(unapproved.for_terminal())
        return EXIT_PROBLEM
    result = check_paths(policy, active.id if active else None, paths)
    pass_bot_author(layout, policy, result)
    if result.ok:
        return EXIT_OK
    out.write(refusal_message(policy, result, unborn=head_commit(layout.root) is None).for_terminal())
    from gitai.intents.events import record_event

    record_event(
        layout,
        "refusal",
        intent_id=result.intent_id,
        violations=[v.to_json() for v in result.violations],
    )
    return EXIT_PROBLEM


def _unapproved(layout: Layout, policy: Policy, intent_id: str | None) -> Refusal | None:
    """Refuse work under an intent that requires a person's approval before it has one, however the
    intent was named (GITAI_INTENT, `gitai select`, an `Intent:` trailer)."""
    intent = policy.intents.get(intent_id or "")
    if intent is None or not intent.requires_approval:
        return None
    from gitai.intents.approval import is_approved

    if is_approved(layout, intent.id):
        return None
    from gitai.refusal import Refusal

    return Refusal(f"commit refused: intent {intent.id} ({intent.name}) requires a person's approval first",
                   hints=[f"a person runs, in their own terminal: gitai approve {intent.id}"])


def _scope_self_change(layout: Layout) -> Refusal | None:
    """Refuse a commit that changes the owned_scope of the intent it is committed under: that is
    how an agent would widen its own scope."""
    from gitai.gate.check import scope_changes

    active = active_intent(layout)
    if active is None:
        return None
    changes = scope_changes(layout.root, "HEAD", "")
    if active.id not in changes:
        return None
    before, after = changes[active.id]
    if not before:
        return None  # the intent is new (e.g. a repository's first commit): no scope to widen
    from gitai.intents.events import record_event

    record_event(layout, "refusal", intent_id=active.id, reason="scope_changed_under_own_intent",
                 before=before, after=after)
    from gitai.refusal import Refusal

    return Refusal(f"commit refused: it changes the owned_scope of {active.id}, the intent it is committed under",
                   [f"before: {', '.join(before) or '(none)'}", f"after:  {', '.join(after) or '(none)'}"],
                   ["a scope change is a person's decision, committed on its own: unstage the other paths, "
                    "'gitai clear', commit the catalogue, then 'gitai select' again."])


def refusal_message(policy: Policy, result: CheckResult, unborn: bool = False) -> Refusal:
    """What an agent (or a person) needs to correct itself; every command in it works as printed
    (`unborn`: before the first commit, where `git restore --staged` has no HEAD to restore from)."""
    from gitai.refusal import Refusal

    width = max(len(display_path(v.path)) for v in result.violations)
    rows = []
    for v in result.violations:
        owners = ", ".join(v.owners) if v.owners else "no intent (add it to an owned_scope or .intentignore)"
        rows.append(f"{display_path(v.path):<{width}}  owned by: {owners}")
    owning = sorted({o for v in result.violations for o in v.owners})
    if result.violations[0].reason == NO_ACTIVE_INTENT:
        summary = "commit refused: no active intent. Select the intent this work serves first:"
        hints = [f"gitai select {owning[0] if len(owning) == 1 else 'INT-ID'}   (see 'gitai intents')"]
    elif result.violations[0].reason == CLOSED_INTENT:
        intent = policy.intents[result.intent_id or ""]
        summary = f"commit refused: intent {intent.id} ({intent.name}) is {intent.status}; no new work goes under it:"
        hints = ["select an intent that is DRAFT or IN_PROGRESS: gitai select INT-ID   (see 'gitai intents')"]
    else:
        intent = policy.intents[result.intent_id or ""]
        count = len(result.violations)
        summary = (f"commit refused: {count} staged path{'s' if count > 1 else ''} outside the scope of "
                   f"{intent.id} ({intent.name}):")
        unstage = "git rm --cached -- PATH" if unborn else "git restore --staged -- PATH"
        hints = [f"unstage them:        {unstage}"]
        if owning:
            hints.append(f"or commit them under their intent: gitai select {owning[0]}"
                         + (" (or " + ", ".join(owning[1:]) + ")" if owning[1:] else ""))
        hints.append(f"or widen the scope:  edit owned_scope of {intent.id} in .orchestration/active_intents.yaml")
    return Refusal(summary, rows, hints)
