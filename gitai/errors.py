"""Errors the command line turns into one line on stderr and an exit code (docs/cli.md, "Exit codes")."""

from __future__ import annotations

EXIT_OK = 0
EXIT_PROBLEM = 1  # a check found a problem (scope violation, verify mismatch)
EXIT_USAGE = 2  # bad input or usage, or a git command that failed
EXIT_INTERNAL = 3  # a bug in gitai: one line on stderr, the traceback logged under the git dir
EXIT_INTERRUPTED = 130  # Ctrl-C, as shells report SIGINT


class GitaiError(Exception):
    """Bad input or usage: printed as `gitai: error: <message>`, exit 2, nothing written."""

    exit_code = EXIT_USAGE
