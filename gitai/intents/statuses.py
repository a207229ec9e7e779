"""The one home of the intent status rules (lean: the pre-commit gate imports this)."""

from __future__ import annotations

STATUSES = ("DRAFT", "IN_PROGRESS", "DONE", "BLOCKED")
SELECTABLE = ("DRAFT", "IN_PROGRESS")  # `gitai select` accepts these (a DRAFT moves to IN_PROGRESS)
CLOSED = ("DONE", "BLOCKED")  # no new work goes under these: commits and selection are refused
