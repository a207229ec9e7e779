"""`gitai select` / `gitai clear`: the handshake that declares what this worktree works on."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from gitai.errors import GitaiError
from gitai.intents.active import intent_context as context_fields
from gitai.intents.active import selected_intent, write_active
from gitai.intents.catalogue import Intent, load_catalogue
from gitai.intents.events import check_events_writable, record_event
from gitai.intents.status_edit import write_status
from gitai.intents.statuses import SELECTABLE
from gitai.layout import Layout


@dataclass(frozen=True)
class Selection:
    intent: Intent
    previous: str | None
    status_changed: bool  # DRAFT -> IN_PROGRESS happened
    status_written: bool  # ... and the catalogue file was rewritten (else recorded in events only)


def select_intent(layout: Layout, intent_id: str) -> Selection:
    """Make `intent_id` this worktree's active intent (DRAFT moves to IN_PROGRESS)."""
    catalogue = load_catalogue(layout.catalogue, layout.root)
    intent = catalogue.get(intent_id)
    if intent.status not in SELECTABLE:
        reason = f": {intent.blocked_reason}" if intent.blocked_reason else ""
        raise GitaiError(f"intent {intent.id} is {intent.status}{reason}; "
                         "only DRAFT or IN_PROGRESS intents can be selected")
    if intent.requires_approval:
        from gitai.intents.approval import is_approved

        if not is_approved(layout, intent.id):  # whoever asks: who runs a process is not provable here
            raise GitaiError(f"intent {intent.id} requires a person's approval before work goes under it; "
                             f"a person runs, in their own terminal: gitai approve {intent.id}")
    previous = selected_intent(layout)
    check_events_writable(layout)
    status_changed = status_written = False
    if intent.status == "DRAFT":
        status_changed = True
        status_written = write_status(Path(layout.guard(str(catalogue.path))), intent.id, "IN_PROGRESS",
                                      catalogue.list_key)
        intent = replace(intent, status="IN_PROGRESS")
    write_active(layout, intent.id)
    record_event(
        layout,
        "select",
        strict=True,
        intent_id=intent.id,
        previous_intent_id=previous.id if previous else None,
        status_change="DRAFT->IN_PROGRESS" if status_changed else None,
        status_written=status_written if status_changed else None,
    )
    return Selection(intent, previous.id if previous else None, status_changed, status_written)


def clear_intent(layout: Layout) -> str | None:
    """Forget this worktree's active intent; returns the one that was active."""
    previous = selected_intent(layout)
    stored = previous.id if previous else None
    check_events_writable(layout)
    write_active(layout, None)
    record_event(layout, "clear", strict=True, previous_intent_id=stored)
    return stored


def intent_context(intent: Intent) -> dict[str, Any]:
    """The context an agent puts in its prompt, as data."""
    return context_fields(intent.to_json())


def intent_context_xml(intent: Intent) -> str:
    """The `<intent_context>` block printed by `gitai select`."""
    data = intent_context(intent)
    lines = [f'<intent_context id="{escape(intent.id, {chr(34): "&quot;"})}">']
    for key in ("intent_id", "name", "status", "description"):
        tag = "id" if key == "intent_id" else key
        lines.append(f"  <{tag}>{escape(str(data[key]))}</{tag}>")
    for key, item in (
        ("owned_scope", "pattern"),
        ("constraints", "constraint"),
        ("acceptance_criteria", "criterion"),
        ("related_specs", "spec"),
    ):
        if data[key]:
            lines.append(f"  <{key}>")
            lines.extend(f"    <{item}>{escape(value)}</{item}>" for value in data[key])
            lines.append(f"  </{key}>")
        else:
            lines.append(f"  <{key}/>")
    lines.append("</intent_context>")
    return "\n".join(lines)
