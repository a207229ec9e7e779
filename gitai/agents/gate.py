"""The decisions taken before an agent acts: the scope gate before a write, the stale-write lock,
and command risk before a shell command. Each returns an Answer with a reason the model can act on
(each path, who owns it, the allowed scope, the ways forward). Lean: no YAML, no pathspec.
"""

from __future__ import annotations

import os

from gitai.agents.hosts import PROJECT_CONFIGS as AGENT_CONFIG_FILES  # an agent that edits them can switch gitai off
from gitai.agents.protocol import ALLOW, ASK, DENY, Answer
from gitai.intents.patterns import is_exempt
from gitai.intents.statuses import CLOSED
from gitai.util.text import display_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitai.agents.sessions import Session
    from gitai.gate.policy import Policy
    from gitai.layout import Layout


def repo_relative(layout: Layout, path: str) -> str | None:
    """`path` relative to the worktree root with `/` separators, or None when outside it."""
    for candidate in (path, os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))):
        rel = os.path.relpath(candidate, layout.root)
        if rel != ".." and not rel.startswith(".." + os.sep) and not os.path.isabs(rel):
            return "." if rel == "." else rel.replace(os.sep, "/")
    return None


def selectable(policy: Policy) -> list[str]:
    return [f"  {i.id}  {i.name} ({i.status}{', needs approval' if i.requires_approval else ''}): "
            f"{', '.join(i.scope)}" for i in policy.intents.values() if i.status not in CLOSED]


def no_intent_reason(policy: Policy, what: str, paths: list[str]) -> str:
    owners = sorted({o for p in paths for o in policy.owners(p)})
    pick = owners[0] if len(owners) == 1 else "INT-ID"
    lines = [f"gitai: {what} refused: this session has no intent selected, so no write is allowed yet.",
             *(f"  {display_path(p)}  owned by: {', '.join(policy.owners(p)) or 'no intent'}" for p in paths),
             "Selectable intents:", *(selectable(policy) or ["  (none: ask a person to add one to .orchestration/active_intents.yaml)"]),
             f"Select the one this work serves by running this shell command: gitai select {pick}",
             "(`gitai context` shows the details; `gitai owners PATH` tells who owns a path.)"]
    return "\n".join(lines)


def scope_reason(policy: Policy, intent_id: str, what: str, outside: list[str]) -> str:
    intent = policy.intents[intent_id]
    owning = sorted({o for p in outside for o in policy.owners(p) if o != intent_id})
    width = max(len(display_path(p)) for p in outside)
    lines = [f"gitai: {what} refused: {len(outside)} path{'s' if len(outside) > 1 else ''} outside the scope of "
             f"{intent.id} ({intent.name}):"]
    for path in outside:
        owners = ", ".join(policy.owners(path)) or "no intent"
        lines.append(f"  {display_path(path):<{width}}  owned by: {owners}")
    lines.append(f"Allowed scope of {intent.id}: {', '.join(intent.scope)}")
    lines.append("Ways forward:")
    lines.append(f"  - stay in scope: change only paths matching {', '.join(intent.scope)}")
    if owning:
        lines.append(f"  - if this work belongs to {' or '.join(owning)}, switch: gitai select {owning[0]}")
    lines.append(f"  - or ask a person to widen {intent.id}'s owned_scope or to add the path to .orchestration/.intentignore")
    return "\n".join(lines)


def check_write_paths(layout: Layout, policy: Policy, intent_id: str | None, rel_paths: list[str],
                      what: str = "write") -> Answer:
    """The scope gate for paths an agent is about to write (repository-relative)."""
    protected = [p for p in rel_paths if p == ".git" or p.startswith(".git/")]
    if protected:
        return Answer(DENY, f"gitai: {what} refused: {', '.join(map(display_path, protected))} is inside the git "
                            "directory (hooks, refs and notes are not for agents).")
    configs = [p for p in rel_paths if p in AGENT_CONFIG_FILES]
    if configs:
        return Answer(DENY, f"gitai: {what} refused: {', '.join(configs)} holds the agent hooks that run gitai; "
                            "only a person changes it (`gitai agents install|uninstall`).")
    orchestration = [p for p in rel_paths if is_exempt(p)]
    if orchestration:
        hints = []
        for p in orchestration:
            if p.endswith("AGENT.md"):
                hints.append(f"  {p}: add a lesson with: gitai lesson \"TEXT\"")
            elif p.endswith(("active_intents.yaml", ".intentignore")):
                hints.append(f"  {p}: the catalogue and .intentignore decide every scope: ask a person to change them")
            else:
                hints.append(f"  {p}: gitai's own files are written by gitai commands only")
        return Answer(DENY, "\n".join([f"gitai: {what} refused: agents do not edit .orchestration/ directly:", *hints]))
    governed = [p for p in rel_paths if p != "." and not policy.is_exempt(p)]
    if not governed:
        return Answer(ALLOW)
    if intent_id is None:
        return Answer(DENY, no_intent_reason(policy, what, governed))
    if intent_id not in policy.intents:
        return Answer(DENY, f"gitai: {what} refused: the session's intent {intent_id} is not in the catalogue; "
                            "select another: gitai select INT-ID (see `gitai context`)")
    intent = policy.intents[intent_id]
    if intent.status in CLOSED:
        return Answer(DENY, f"gitai: {what} refused: intent {intent.id} ({intent.name}) is {intent.status}; no new work "
                            "goes under it. Select an open intent: gitai select INT-ID (see `gitai context`)")
    outside = [p for p in governed if not policy.in_scope(intent_id, p)]
    if outside:
        return Answer(DENY, scope_reason(policy, intent_id, what, outside))
    return Answer(ALLOW)


def check_stale(layout: Layout, session: Session, rel_paths: list[str]) -> Answer:
    """The stale-write lock: refuse a write to a file that changed since this session last saw it."""
    from gitai.agents.sessions import fingerprint, live_sessions

    files = session.files()
    for rel in rel_paths:
        seen = files.get(rel)
        if seen is None:
            continue
        now = fingerprint(os.path.join(layout.root, rel))
        if now == seen:
            continue
        by = "outside any agent"
        for other in live_sessions(layout):
            if other.get("key") != session.key and isinstance(other.get("files"), dict) and other["files"].get(rel) == now:
                by = f"by session {other['key']}" + (f" (intent {other['intent_id']})" if other.get("intent_id") else "")
                break
        return Answer(DENY, f"gitai: write refused: {display_path(rel)} changed since you read it ({by}): read it again, "
                            "then redo your change on the current content.")
    return Answer(ALLOW)


def check_shell(layout: Layout, policy: Policy, intent_id: str | None, command: str, cwd: str) -> tuple[Answer, object]:
    """Command risk before a shell command; returns the answer and the Risk (for the caller)."""
    from gitai.agents.shell_risk import DEFAULT_DECISIONS, DESTRUCTIVE, WRITES, classify
    from gitai.intents.approval import is_approved

    risk = classify(command, cwd, layout.root, layout.repo.git_dir)
    decisions = {**DEFAULT_DECISIONS, **policy.agent_policy}
    short = command if len(command) <= 120 else command[:117] + "..."
    for selected in risk.selects:
        intent = policy.intents.get(selected)
        if intent is not None and intent.requires_approval and not is_approved(layout, selected):
            return Answer(DENY, f"gitai: {selected} ({intent.name}) requires a person's approval before an agent "
                                f"selects it. Ask a person to run: gitai approve {selected}"), risk
    # A recursive delete is destructive when anything it would delete is outside the scope.
    for target in risk.recursive_deletes:
        outside = _outside_under(layout, policy, intent_id, target)
        if outside:
            risk.raise_to(DESTRUCTIVE, f"rm -r of {target} deletes paths outside the intent's scope (e.g. {outside})")
    decision = decisions.get(risk.klass, "allow")
    if risk.klass != WRITES and decision != ALLOW:
        label = risk.klass.replace("_", "-")
        verb = "needs a person's approval" if decision == ASK else "refused"
        why = "; ".join(risk.why())
        forward = ("a person can allow it in the prompt, or run it themselves" if decision == ASK
                   else "do it another way that keeps gitai's checks, or ask a person")
        return Answer(decision, f"gitai: command {verb} ({label}): {why}.\n  {short}\nWay forward: {forward}."), risk
    if risk.klass in (WRITES, DESTRUCTIVE) or risk.targets:
        in_repo = [t for t in risk.targets if not os.path.isabs(t)]
        if in_repo:
            answer = check_write_paths(layout, policy, intent_id, in_repo, what="command")
            if answer.decision != ALLOW:
                answer.reason += f"\n  command: {short}"
                return answer, risk
        if risk.klass == WRITES and decision != ALLOW:
            return Answer(decision, f"gitai: command {'needs approval' if decision == ASK else 'refused'} (writes): "
                                    f"{'; '.join(risk.why())}.\n  {short}"), risk
    return Answer(ALLOW), risk


def _outside_under(layout: Layout, policy: Policy, intent_id: str | None, target: str) -> str | None:
    """A path under `target` (file or directory) that the intent may not delete, if any."""
    if target == ".git" or target.startswith(".git/"):
        return target
    if intent_id is None or intent_id not in policy.intents:
        return target
    if not (policy.in_scope(intent_id, target) or policy.in_scope(intent_id, target + "/x")):
        return target
    root = os.path.join(layout.root, target)
    if not os.path.lexists(root):
        return None
    if not os.path.isdir(root) or os.path.islink(root):
        candidates = [target]
    else:
        candidates = []
        for directory, subdirs, names in os.walk(root):
            subdirs[:] = [d for d in subdirs if d != ".git"]
            if ".git" in os.listdir(directory) and directory != root:
                continue
            rel_dir = os.path.relpath(directory, layout.root).replace(os.sep, "/")
            candidates.extend(f"{rel_dir}/{n}" if rel_dir != "." else n for n in names)
            if len(candidates) > 5000:
                break
    for path in candidates:
        if path.startswith(".git/"):
            return path
        if policy.is_exempt(path) and not is_exempt(path):
            continue
        if intent_id is None or intent_id not in policy.intents or not policy.in_scope(intent_id, path):
            return path
    return None
