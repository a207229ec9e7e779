"""Rewrite one intent's `status:` (and `blocked_reason:`) in the catalogue without losing comments or key order.

The edit is textual (one scalar replaced, or one line inserted) and is re-parsed before it
is written; when that cannot be done safely the caller is told and the file is untouched.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from gitai.util.files import write_atomic


def set_status_text(text: str, intent_id: str, status: str, list_key: str) -> str | None:
    """The catalogue text with `intent_id`'s status set, or None when no safe edit exists."""
    return set_field_text(text, intent_id, "status", status, list_key)


def set_field_text(text: str, intent_id: str, key: str, value: str, list_key: str) -> str | None:
    """The text with one scalar field of the intent set (free text is written double-quoted)."""
    literal = value if key == "status" else json.dumps(value, ensure_ascii=False)
    node = yaml.compose(text, Loader=yaml.SafeLoader)
    if not isinstance(node, yaml.MappingNode):
        return None
    entries = next((v for k, v in node.value if k.value == list_key), None)
    if not isinstance(entries, yaml.SequenceNode):
        return None
    for entry in entries.value:
        if not isinstance(entry, yaml.MappingNode):
            continue
        fields = {k.value: (k, v) for k, v in entry.value}
        if "id" not in fields or fields["id"][1].value != intent_id:
            continue
        if entry.flow_style:
            return None
        if key in fields:
            node_value = fields[key][1]
            if not isinstance(node_value, yaml.ScalarNode) or node_value.start_mark.line != node_value.end_mark.line:
                return None
            quote = {"'": "'", '"': '"'}.get(node_value.style or "", "") if key == "status" else ""
            return text[: node_value.start_mark.index] + f"{quote}{literal}{quote}" + text[node_value.end_mark.index :]
        id_key, id_value = fields["id"]
        lines = text.splitlines(keepends=True)
        after = id_value.end_mark.line  # 0-based line holding the end of the id value
        if id_value.start_mark.line != after or after >= len(lines):
            return None
        indent = " " * id_key.start_mark.column  # siblings align with "id", also after "- "
        newline = "\r\n" if lines[after].endswith("\r\n") else "\n"
        if not lines[after].endswith(("\n", "\r")):
            lines[after] += newline
        lines.insert(after + 1, f"{indent}{key}: {literal}{newline}")
        return "".join(lines)
    return None


def write_status(path: Path, intent_id: str, status: str, list_key: str) -> bool:
    """Set the status in the file; False (file untouched) when no safe edit exists."""
    return write_fields(path, intent_id, {"status": status}, list_key)


def write_fields(path: Path, intent_id: str, values: dict[str, str], list_key: str) -> bool:
    """Set scalar fields of one intent; False (file untouched) when no safe edit exists."""
    text = path.read_bytes().decode("utf-8")
    edited: str | None = text
    for key, value in values.items():
        edited = set_field_text(edited, intent_id, key, value, list_key) if edited is not None else None
    if edited is None:
        return False
    check = yaml.safe_load(edited)
    entries = check.get(list_key) if isinstance(check, dict) else None
    original = yaml.safe_load(text)
    if not isinstance(entries, list) or len(entries) != len(original[list_key]):
        return False
    if not all(
        after == ({**before, **values} if before.get("id") == intent_id else before)
        for before, after in zip(original[list_key], entries, strict=True)
    ):
        return False
    write_atomic(str(path), edited)
    return True
