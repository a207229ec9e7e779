"""Errors the command line turns into one line on stderr and an exit code."""

from __future__ import annotations

EXIT_OK = 0
EXIT_PROBLEM = 1  # a check found a problem (scope violation, verify mismatch)
EXIT_USAGE = 2  # bad input or usage


class GitaiError(Exception):
    """Bad input or usage: printed as `gitai: error: <message>`, exit 2, nothing written."""

    exit_code = EXIT_USAGE
