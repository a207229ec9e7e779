"""The wording of classification reasons, without tree-sitter: `classify` writes reasons with it,
and record readers rebuild the reason a record leaves out because its definitions already say it
(docs/trace-format.md, "Compact form")."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any


def spans_text(ranges: Iterable[tuple[int, int]]) -> str:
    """`[(3, 5), (6, 6), (9, 9)]` -> "lines 3-6, 9": 1-based ranges, adjacent ones joined."""
    merged: list[list[int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    text = ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in merged)
    return ("lines " if len(merged) > 1 or merged[0][0] != merged[0][1] else "line ") + text


def definitions_reason(definitions: Sequence[Mapping[str, Any]]) -> list[str]:
    """The reason's parts the changed definitions give ("modified: function f (lines 3-9)", then
    added, then removed with their old lines), from definitions in the record's JSON form."""
    parts = []
    for status in ("modified", "added", "removed"):
        items = []
        for d in definitions:
            span = d.get("new_lines") or d.get("old_lines")
            if d.get("status") == status and span:
                where = spans_text([(span[0], span[1])])
                items.append(f"{d.get('kind')} {d.get('name')} ({'old ' if d.get('new_lines') is None else ''}{where})")
        if items:
            more = f" and {len(items) - 5} more" if len(items) > 5 else ""
            parts.append(f"{status}: {', '.join(items[:5])}{more}")
    return parts
