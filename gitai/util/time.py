"""Timestamps in the one form gitai writes: RFC 3339, UTC, with a `Z` (lean: hooks import this)."""

from __future__ import annotations

import time


def utc_now() -> str:
    """RFC 3339 UTC timestamp with microseconds and a `Z` (the Agent Trace form)."""
    now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1_000_000):06d}Z"
