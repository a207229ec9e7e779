"""A child process that must not outlive the gitai that started it (a parent killed by SIGKILL or
the OOM killer runs no clean-up of its own)."""

from __future__ import annotations

import signal

_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """Have the kernel send this process SIGKILL when its parent ends (Linux; elsewhere nothing is
    asked). The parent may have ended before: the caller compares `os.getppid()`, or what it knows."""
    import ctypes

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (AttributeError, OSError):  # no prctl: not Linux
        return
    prctl(ctypes.c_int(_PR_SET_PDEATHSIG), ctypes.c_ulong(signal.SIGKILL), ctypes.c_ulong(0), ctypes.c_ulong(0),
          ctypes.c_ulong(0))
