"""Rewrite one intent's `status:` in the catalogue without losing comments or key order.

The edit is textual (one scalar replaced, or one line inserted) and is re-parsed before it
is written; when that cannot be done safely the caller is told and the file is untouched.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from gitai.util.files import write_atomic


def set_status_text(text: str, intent_id: str, status: str, list_key: str) -> str | None:
    """The catalogue text with `intent_id`'s status set, or None when no safe edit exists."""
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
        if "status" in fields:
            value = fields["status"][1]
            if not isinstance(value, yaml.ScalarNode) or value.start_mark.line != value.end_mark.line:
                return None
            quote = {"'": "'", '"': '"'}.get(value.style or "", "")
            return text[: value.start_mark.index] + f"{quote}{status}{quote}" + text[value.end_mark.index :]
        id_key, id_value = fields["id"]
        lines = text.splitlines(keepends=True)
        after = id_value.end_mark.line  # 0-based line holding the end of the id value
        if id_value.start_mark.line != after or after >= len(lines):
            return None
        indent = " " * id_key.start_mark.column  # siblings align with "id", also after "- "
        newline = "\r\n" if lines[after].endswith("\r\n") else "\n"
        if not lines[after].endswith(("\n", "\r")):
            lines[after] += newline
        lines.insert(after + 1, f"{indent}status: {status}{newline}")
        return "".join(lines)
    return None


def write_status(path: Path, intent_id: str, status: str, list_key: str) -> bool:
    """Set the status in the file; False (file untouched) when no safe edit exists."""
    text = path.read_bytes().decode("utf-8")
    edited = set_status_text(text, intent_id, status, list_key)
    if edited is None:
        return False
    check = yaml.safe_load(edited)
    entries = check.get(list_key) if isinstance(check, dict) else None
    original = yaml.safe_load(text)
    if not isinstance(entries, list) or len(entries) != len(original[list_key]):
        return False
    if not all(
        after == ({**before, "status": status} if before.get("id") == intent_id else before)
        for before, after in zip(original[list_key], entries)
    ):
        return False
    write_atomic(str(path), edited)
    return True
