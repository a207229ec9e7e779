"""`gitai context`: what the hooks inject at session start, and what an agent reads to orient itself.

With an intent: its context (scope, constraints, the parent intent's constraints, acceptance
criteria, related specs and who owns them), the exempt paths, its recent commits, the latest
lessons for it, and recent refusals. Without: the selectable intents and how to select one.
"""

from __future__ import annotations

import os
import re

from gitai.layout import Layout

TYPE_CHECKING = False  # no typing import on the session-start hook
if TYPE_CHECKING:
    from typing import Any

LESSON_LINE = re.compile(r"^- (\S+) \[([^\]]*)\] (\S+(?: \([^)]*\))?): (.*)$")


def lessons(layout: Layout, intent_id: str | None = None, limit: int = 5) -> list[dict[str, str]]:
    """The latest lessons of `.orchestration/AGENT.md` (for `intent_id` and general ones)."""
    path = os.path.join(layout.orchestration, "AGENT.md")
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        match = LESSON_LINE.match(line)
        if match and (intent_id is None or match.group(2) in (intent_id, "general")):
            found.append({"timestamp": match.group(1), "intent_id": match.group(2), "author": match.group(3),
                          "text": match.group(4)})
    return found[-limit:]


def recent_refusals(layout: Layout, limit: int = 5) -> list[dict[str, Any]]:
    from gitai.util.jsonl import read_jsonl

    events = [e for _, e in read_jsonl(layout.events).records if e.get("event") == "agent-denied"]
    return [{k: e.get(k) for k in ("timestamp", "intent_id", "host", "session", "reason")} for e in events[-limit:]]


RECENT_COMMITS_CACHE = "recent-commits.json"


def recent_commits(layout: Layout, intent_id: str, limit: int = 5) -> list[dict[str, str]]:
    """The latest commits whose Intent trailer names `intent_id`. Finding them walks the whole
    history when there are few, so the answer is kept per HEAD (in the git dir): a session start
    reads it from there until the next commit."""
    import json

    from gitai.git.repository import head_from_files

    head = head_from_files(layout.repo)
    cache_path = os.path.join(layout.state_dir, RECENT_COMMITS_CACHE)
    cached: dict[str, Any] = {}
    if head is not None:
        try:
            with open(cache_path, encoding="utf-8") as handle:
                cached = json.load(handle)
        except (OSError, ValueError):
            cached = {}
        if not isinstance(cached, dict) or cached.get("head") != head or cached.get("limit") != limit:
            cached = {"head": head, "limit": limit, "intents": {}}
        rows = cached["intents"].get(intent_id) if isinstance(cached.get("intents"), dict) else None
        if isinstance(rows, list):
            return rows
    rows = _recent_commits(layout, intent_id, limit)
    if head is not None and rows is not None:
        from gitai.util.files import write_atomic

        cached["intents"][intent_id] = rows
        try:
            write_atomic(cache_path, json.dumps(cached))
        except OSError:
            pass  # a read-only git dir only costs speed
    return rows or []


def _recent_commits(layout: Layout, intent_id: str, limit: int) -> list[dict[str, str]] | None:
    from gitai.git.runner import git_process

    proc = git_process(["log", f"-n{limit}", "--format=%h%x00%s", "-E", "-i",
                        f"--grep=^intent: *{re.escape(intent_id)} *$"], layout.root)
    if proc.returncode != 0:
        return None
    rows = proc.stdout.decode("utf-8", "replace").splitlines()
    return [{"commit": r.split("\0", 1)[0], "subject": r.split("\0", 1)[-1]} for r in rows if "\0" in r]


def build_context(layout: Layout, intent_id: str | None) -> dict[str, Any]:
    """The context as data (`gitai context --json`)."""
    from gitai.gate.policy import load_policy
    from gitai.intents.active import intent_context
    from gitai.intents.statuses import CLOSED

    policy = load_policy(layout)  # the catalogue as the policy cache keeps it: no YAML at session start
    exempt = [".orchestration/** (exempt at commit time, but agents do not edit it: use `gitai lesson`)"]
    try:
        with open(layout.intentignore, encoding="utf-8", errors="replace") as handle:
            exempt += [line.strip() for line in handle if line.strip() and not line.startswith("#")]
    except OSError:
        pass
    data: dict[str, Any] = {"intent_id": intent_id, "exempt_paths": exempt,
                            "recent_refusals": recent_refusals(layout)}
    by_id = {i.id: i.details for i in policy.intents.values()}
    intent = by_id.get(intent_id) if intent_id else None
    if intent is None:
        data["intent_id"] = None
        data["selectable"] = [{"intent_id": i["intent_id"], "name": i["name"], "status": i["status"],
                               "owned_scope": list(i["owned_scope"]), "requires_approval": i["requires_approval"]}
                              for i in by_id.values() if i["status"] not in CLOSED]
        data["how_to_select"] = "gitai select INT-ID"
        data["lessons"] = lessons(layout)
        return data
    data["intent"] = intent_context(intent)
    parent = by_id.get(intent["parent_intent"]) if intent["parent_intent"] else None
    data["parent_intent"] = ({"intent_id": parent["intent_id"], "name": parent["name"],
                              "constraints": list(parent["constraints"])} if parent else None)
    data["related_specs"] = [{"path": spec, "owners": policy.owners(spec)} for spec in intent["related_specs"]]
    data["recent_commits"] = recent_commits(layout, intent["intent_id"])
    data["lessons"] = lessons(layout, intent["intent_id"])
    return data


TAG_OPEN, TAG_CLOSE = "<gitai_context>", "</gitai_context>"
# For hosts that HTML-escape what a hook adds (Gemini CLI, Qwen Code): the same text, framed without tags.
PLAIN_OPEN, PLAIN_CLOSE = "gitai context (from gitai's session-start hook):", "(end of gitai context)"


def render_text(data: dict[str, Any], tags: bool = True) -> str:
    """The context as the model reads it; `tags`: framed as <gitai_context>, else by two plain lines."""
    lines = [TAG_OPEN if tags else PLAIN_OPEN]
    if data.get("intent") is None:
        lines.append("No intent is selected: every write is refused until you select the intent your work serves.")
        lines.append("Selectable intents:")
        for i in data.get("selectable", []):
            note = ", needs a person's approval (`gitai approve`)" if i["requires_approval"] else ""
            lines.append(f"  {i['intent_id']}  {i['name']} ({i['status']}{note}): {', '.join(i['owned_scope'])}")
        if not data.get("selectable"):
            lines.append("  (none: ask a person to add one to .orchestration/active_intents.yaml)")
        lines.append("Select one by running: gitai select INT-ID   (`gitai owners PATH` tells who owns a path)")
    else:
        i = data["intent"]
        lines.append(f"Intent {i['intent_id']}: {i['name']} ({i['status']})")
        if i["description"]:
            lines.append(f"Description: {i['description']}")
        lines.append(f"Owned scope (write only here): {', '.join(i['owned_scope'])}")
        for key, label in (("constraints", "Constraints"), ("acceptance_criteria", "Acceptance criteria")):
            if i[key]:
                lines.append(f"{label}:")
                lines.extend(f"  - {c}" for c in i[key])
        parent = data.get("parent_intent")
        if parent and parent["constraints"]:
            lines.append(f"Constraints inherited from {parent['intent_id']} ({parent['name']}):")
            lines.extend(f"  - {c}" for c in parent["constraints"])
        if data.get("related_specs"):
            lines.append("Related specs:")
            lines.extend(f"  - {s['path']} (owned by {', '.join(s['owners']) or 'no intent'})"
                         for s in data["related_specs"])
        if data.get("recent_commits"):
            lines.append("Recent commits under this intent:")
            lines.extend(f"  {c['commit']} {c['subject']}" for c in data["recent_commits"])
    lines.append("Exempt paths (no intent needed): " + "; ".join(data.get("exempt_paths", [])))
    if data.get("lessons"):
        lines.append("Lessons (.orchestration/AGENT.md):")
        lines.extend(f"  - {x['timestamp'][:10]} [{x['intent_id']}] {x['text']}" for x in data["lessons"])
    if data.get("recent_refusals"):
        lines.append("Recent refusals by gitai:")
        lines.extend(f"  - {r['timestamp']} {r.get('host') or ''}: {r['reason']}" for r in data["recent_refusals"])
    lines.append("Loop: gitai owners PATH, then gitai select ID, then work in scope, "
                 "then gitai lesson \"what you learned\"")
    lines.append(TAG_CLOSE if tags else PLAIN_CLOSE)
    return "\n".join(lines)


def context_text(layout: Layout, intent_id: str | None, tags: bool = True) -> str:
    return render_text(build_context(layout, intent_id), tags)
