"""The intent catalogue: `.orchestration/active_intents.yaml` (docs/concepts.md, "Intents and the catalogue").

Loading keeps YAML line numbers so every error names the file, line and key.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from gitai.errors import GitaiError
from gitai.intents.patterns import PatternError, compile_pattern
from gitai.intents.statuses import STATUSES

ID_RE = re.compile(r"^[A-Za-z0-9._-]+$")
LIST_KEYS = ("owned_scope", "constraints", "acceptance_criteria", "related_specs")
TEXT_KEYS = ("description", "blocked_reason", "parent_intent")
RISK_CLASSES = ("read_only", "writes", "destructive", "circumvention")
DECISIONS = ("allow", "ask", "deny")
MAX_BYTES = 4 * 1024 * 1024  # a catalogue is a few KB; bigger is refused before parsing
MAX_DEPTH = 32  # the catalogue needs 4 levels; deeper nesting is refused before the (recursive) composer

try:  # the C loader is several times faster when libyaml is present
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on the PyYAML build
    _Loader = yaml.SafeLoader


@dataclass(frozen=True)
class Intent:
    """One work item of the catalogue."""

    id: str
    name: str
    status: str
    owned_scope: tuple[str, ...]
    description: str = ""
    constraints: tuple[str, ...] = ()
    acceptance_criteria: tuple[str, ...] = ()
    related_specs: tuple[str, ...] = ()
    parent_intent: str | None = None
    requires_approval: bool = False
    blocked_reason: str | None = None
    line: int = 0  # 1-based line of the intent's entry in the YAML file

    def to_json(self) -> dict[str, Any]:
        return {
            "intent_id": self.id,
            "name": self.name,
            "status": self.status,
            "owned_scope": list(self.owned_scope),
            "description": self.description,
            "constraints": list(self.constraints),
            "acceptance_criteria": list(self.acceptance_criteria),
            "related_specs": list(self.related_specs),
            "parent_intent": self.parent_intent,
            "requires_approval": self.requires_approval,
            "blocked_reason": self.blocked_reason,
        }


@dataclass(frozen=True)
class Catalogue:
    """All intents of one catalogue file, in file order."""

    path: Path
    intents: tuple[Intent, ...]
    list_key: str  # "active_intents" or "intents", as written in the file
    # Top-level `agent_policy:` (docs/agents.md): decision per command-risk class for agents.
    agent_policy: dict[str, str] = field(default_factory=dict, compare=False)
    # Top-level `bot_authors:` (docs/concepts.md): authors (name or email, `*` any text) whose
    # commits need no intent: the pre-commit gate and `gitai check --range` read this one list.
    bot_authors: tuple[str, ...] = ()

    def get(self, intent_id: str) -> Intent:
        for intent in self.intents:
            if intent.id == intent_id:
                return intent
        known = ", ".join(i.id for i in self.intents) or "none"
        raise GitaiError(f"unknown intent '{intent_id}' (known: {known})")


def _where(path: Path, node: yaml.Node | None, root: str | Path | None) -> str:
    shown = os.path.relpath(path, root) if root else str(path)
    return f"{shown}:{node.start_mark.line + 1}" if node is not None else shown


def load_catalogue(path: str | Path, root: str | Path | None = None) -> Catalogue:
    """Parse and validate the catalogue at `path`; raise GitaiError naming file, line and key."""
    path = Path(path)
    shown = os.path.relpath(path, root) if root else str(path)
    if not path.exists():
        raise GitaiError(f"no intent catalogue at {shown}; run 'gitai init' to create one")
    if not path.is_file():
        raise GitaiError(f"{shown} is not a file: the intent catalogue must be a YAML file")
    if path.stat().st_size > MAX_BYTES:
        raise GitaiError(f"{shown}: {path.stat().st_size} bytes is too large for an intent catalogue "
                         f"(at most {MAX_BYTES})")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GitaiError(f"{_where(path, None, root)}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    loader = _Loader(text)
    try:
        _check_depth(text, shown)
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f":{mark.line + 1}" if mark else ""
        shown = os.path.relpath(path, root) if root else str(path)
        context = ""
        if exc.context and exc.context_mark and exc.problem_mark and exc.context_mark.line != exc.problem_mark.line:
            context = f" ({exc.context} started at line {exc.context_mark.line + 1})"
        raise GitaiError(f"{shown}{line}: malformed YAML: {exc.problem or exc.context}{context}") from None
    except yaml.YAMLError as exc:
        raise GitaiError(f"{_where(path, None, root)}: malformed YAML: {exc}") from None
    finally:
        loader.dispose()
    return _validate(path, root, node, data)


def _check_depth(text: str, shown: str) -> None:
    """Refuse nesting deeper than MAX_DEPTH from the parser's event stream (iterative, unlike the
    composer, which recursed until a 50,000-deep catalogue crashed the interpreter)."""
    try:
        _count_depth(text, shown, _Loader)
    except yaml.YAMLError:
        if _Loader is yaml.SafeLoader:
            raise
        # libyaml (PyYAML 6.0.3+) may refuse deep nesting in its own words while reading ahead, before
        # the event that counts here: count again with the pure-Python parser, which has no such limit,
        # so the refusal is gitai's one line whatever PyYAML build is installed.
        try:
            _count_depth(text, shown, yaml.SafeLoader)
        except yaml.YAMLError:
            pass  # malformed, not too deep: libyaml's own message, below, says where
        raise


def _count_depth(text: str, shown: str, loader: type) -> None:
    events = loader(text)
    depth = 0
    try:
        while events.check_event():
            event = events.get_event()
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    line = f":{event.start_mark.line + 1}" if event.start_mark else ""
                    raise GitaiError(f"{shown}{line}: nested more than {MAX_DEPTH} levels deep; "
                                     "an intent catalogue needs only a few")
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
    finally:
        events.dispose()


def _mapping_items(node: yaml.Node) -> dict[str, tuple[yaml.Node, yaml.Node]]:
    """Key text -> (key node, value node) for a YAML mapping node."""
    return {str(k.value): (k, v) for k, v in node.value} if isinstance(node, yaml.MappingNode) else {}


def _validate(path: Path, root: str | Path | None, node: yaml.Node | None, data: Any) -> Catalogue:
    def fail(at: yaml.Node | None, message: str) -> GitaiError:
        return GitaiError(f"{_where(path, at, root)}: {message}")

    if data is None:
        data, node = {"active_intents": []}, None
    if not isinstance(data, dict):
        raise fail(node, "the catalogue must be a mapping with an 'active_intents:' list")
    keys = [k for k in ("active_intents", "intents") if k in data]
    if len(keys) == 2:
        raise fail(node, "use either 'active_intents:' or 'intents:', not both")
    if not keys:
        raise fail(node, "missing key 'active_intents' (a list of intents)")
    list_key = keys[0]
    top = _mapping_items(node) if node is not None else {}
    list_node = top[list_key][1] if list_key in top else None
    entries = data[list_key] or []
    if not isinstance(entries, list):
        raise fail(list_node, f"key '{list_key}' must be a list of intents")
    item_nodes = list_node.value if isinstance(list_node, yaml.SequenceNode) else [None] * len(entries)
    intents: list[Intent] = []
    seen: dict[str, int] = {}
    for entry, entry_node in zip(entries, item_nodes, strict=True):
        intent = _validate_intent(entry, entry_node, fail)
        if intent.id in seen:
            raise fail(entry_node, f"key 'id': duplicate intent id '{intent.id}' (first at line {seen[intent.id]})")
        seen[intent.id] = intent.line
        intents.append(intent)
    return Catalogue(path, tuple(intents), list_key, _agent_policy(data.get("agent_policy"), top, fail),
                     _bot_authors(data.get("bot_authors"), top, fail))


def _bot_authors(value: Any, top: dict[str, tuple[yaml.Node, yaml.Node]], fail: Any) -> tuple[str, ...]:
    at = top["bot_authors"][1] if "bot_authors" in top else None
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise fail(at, "key 'bot_authors' must be a list of author names or emails ('*' matches any text)")
    return tuple(v.strip() for v in value)


def _agent_policy(value: Any, top: dict[str, tuple[yaml.Node, yaml.Node]], fail: Any) -> dict[str, str]:
    at = top["agent_policy"][1] if "agent_policy" in top else None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise fail(at, f"key 'agent_policy' must be a mapping of {', '.join(RISK_CLASSES)} to allow, ask or deny")
    for key, decision in value.items():
        if key not in RISK_CLASSES:
            raise fail(at, f"key 'agent_policy': unknown class {key!r} (known: {', '.join(RISK_CLASSES)})")
        if decision not in DECISIONS:
            raise fail(at, f"key 'agent_policy.{key}': {decision!r} is not one of {', '.join(DECISIONS)}")
    return dict(value)


def _validate_intent(entry: Any, node: yaml.Node | None, fail: Any) -> Intent:
    if not isinstance(entry, dict):
        raise fail(node, "each intent must be a mapping with id, name and owned_scope")
    fields = _mapping_items(node) if node is not None else {}

    def at(key: str) -> yaml.Node | None:
        return fields[key][1] if key in fields else node

    intent_id = entry.get("id")
    if intent_id is None:
        raise fail(node, "key 'id' is required")
    if not isinstance(intent_id, str) or not ID_RE.match(intent_id):
        raise fail(at("id"), f"key 'id': {intent_id!r} is not an id of [A-Za-z0-9._-]+")
    label = f"intent {intent_id}: key"
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise fail(at("name"), f"{label} 'name' is required (a non-empty string)")
    status = entry.get("status", "DRAFT")
    if status not in STATUSES:
        raise fail(at("status"), f"{label} 'status': {status!r} is not one of {', '.join(STATUSES)}")
    lists: dict[str, tuple[str, ...]] = {}
    for key in LIST_KEYS:
        value = entry.get(key, [] if key != "owned_scope" else None)
        if value is None:
            raise fail(at(key), f"{label} '{key}' is required (a list of path patterns)")
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise fail(at(key), f"{label} '{key}' must be a list of strings")
        lists[key] = tuple(value)
    scope_node = at("owned_scope")
    pattern_nodes = scope_node.value if isinstance(scope_node, yaml.SequenceNode) else []
    patterns = 0
    for index, pattern in enumerate(lists["owned_scope"]):
        try:
            patterns += compile_pattern(pattern) is not None
        except PatternError as exc:
            where = pattern_nodes[index] if index < len(pattern_nodes) else scope_node
            raise fail(where, f"{label} 'owned_scope': {exc}") from None
    if not patterns:  # [] or only blank / comment entries: owns nothing
        raise fail(scope_node, f"{label} 'owned_scope' is empty: an intent must own at least one pattern "
                               "(blank and '#' comment entries do not count)")
    texts: dict[str, str | None] = {}
    for key in TEXT_KEYS:
        value = entry.get(key)
        if value is not None and not isinstance(value, str):
            raise fail(at(key), f"{label} '{key}' must be a string")
        texts[key] = value
    approval = entry.get("requires_approval", False)
    if not isinstance(approval, bool):
        raise fail(at("requires_approval"), f"{label} 'requires_approval' must be true or false")
    return Intent(
        id=intent_id,
        name=name,
        status=status,
        owned_scope=lists["owned_scope"],
        description=texts["description"] or "",
        constraints=lists["constraints"],
        acceptance_criteria=lists["acceptance_criteria"],
        related_specs=lists["related_specs"],
        parent_intent=texts["parent_intent"],
        requires_approval=approval,
        blocked_reason=texts["blocked_reason"],
        line=node.start_mark.line + 1 if node is not None else 0,
    )
