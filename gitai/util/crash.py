"""Keeping the traceback of an internal error where a person can find it, so that the terminal
(and an agent parsing stderr) gets one line and the details stay available."""

from __future__ import annotations

import os
import sys

LOG_NAME = "errors.log"


def log_traceback(state_dir: str | None, label: str) -> str | None:
    """Append the current exception's traceback, with versions, to `<state_dir>/errors.log`;
    the log's path, or None when it could not be written (no repository, read-only)."""
    if state_dir is None:
        return None
    try:
        import time
        import traceback

        from gitai import __version__

        os.makedirs(state_dir, exist_ok=True)
        path = os.path.join(state_dir, LOG_NAME)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"--- {stamp} {label} (gitai {__version__}, Python {sys.version.split()[0]})\n")
            handle.write(traceback.format_exc() + "\n")
        return path
    except Exception:  # noqa: BLE001 - the log is best effort: the one-line error still goes out
        return None
