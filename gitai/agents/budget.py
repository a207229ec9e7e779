"""The work budget of one hook call. Hosts let a call through when the hook times out, so a hook
that runs long is a hole: every loop whose length the agent controls (command text, files under a
deleted directory, patch files) charges this budget, and a call that spends it is denied.
"""

from __future__ import annotations

import time

SECONDS = 3.0  # well under the 10 s timeout `gitai agents install` writes into the hosts' configs
MAX_COMMAND = 512 * 1024  # a longer shell command is not parsed at all


class BudgetSpent(Exception):
    """The call needs more work than its budget: the hook denies it."""


_deadline = time.monotonic() + SECONDS


def start() -> None:
    global _deadline
    _deadline = time.monotonic() + SECONDS


def charge() -> None:
    """Raise BudgetSpent once the call's time is up (cheap: call it in loops)."""
    if time.monotonic() > _deadline:
        raise BudgetSpent(f"checking this call needs more than the hook's {SECONDS:g} s budget")


def remaining() -> float:
    """Seconds left for a subprocess the call waits on (at least a little, so it can answer)."""
    return max(0.1, _deadline - time.monotonic())
