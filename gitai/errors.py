"""Errors the command line turns into one line on stderr and an exit code (docs/cli.md, "Exit codes"),
and the one handler every entry point runs its work in (pre-commit's `error_handler()`)."""

from __future__ import annotations

import sys

EXIT_OK = 0
EXIT_PROBLEM = 1  # a check found a problem (scope violation, verify mismatch)
EXIT_USAGE = 2  # bad input or usage, or a git command that failed
EXIT_INTERNAL = 3  # a bug in gitai: one line on stderr, the traceback logged under the git dir
EXIT_INTERRUPTED = 130  # Ctrl-C, as shells report SIGINT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import TracebackType


class GitaiError(Exception):
    """Bad input or usage: printed as `gitai: error: <message>`, exit 2, nothing written."""

    exit_code = EXIT_USAGE


# How an entry point answers when its work fails (error_handler's modes).
COMMAND = "command"  # a gitai command: one `gitai: error:` line, exit 2, 3 or 130; a closed pipe is no error
GIT_HOOK = "git-hook"  # a git hook that may stop git (pre-commit, pre-receive): as a command, but any failure stops git
NEVER_FAIL = "never-fail"  # post-commit, post-merge, post-rewrite, pre-push: one warning line, exit 0, git goes on
AGENT_HOOK = "agent-hook"  # `gitai hook`: nothing written; the caller denies with `reason` in its host's protocol


def os_error_message(exc: OSError) -> str:
    """`cannot use PATH: REASON`, the path relative to the current directory when inside it."""
    import os

    reason = exc.strerror or exc.__class__.__name__
    if exc.filename is None:
        return reason
    name = os.fsdecode(exc.filename)
    relative = os.path.relpath(name)
    return f"cannot use {relative if not relative.startswith('..') else name}: {reason}"


class error_handler:  # lower case: used as `with error_handler(mode, ...)`, as a contextlib context manager is
    """Runs an entry point's work and turns what escapes it into the entry point's contract: bad input
    (GitaiError, and an OSError: the environment, not gitai) is one `gitai: error:` line and exit 2;
    Ctrl-C is exit 130; anything else is a bug: one line, exit 3, the traceback logged under the git
    dir (`state_dir`, or where `locate` finds it), never on stdout. A NEVER_FAIL hook warns and exits 0
    whatever failed; an AGENT_HOOK writes nothing and leaves `reason` for the host's deny (unknown is
    never allowed). After the block, `code` is the exit status (EXIT_OK when nothing escaped).

    A class, not `contextlib.contextmanager`: the pre-commit gate runs in it, and contextlib costs it.
    """

    def __init__(self, mode: str, label: str, state_dir: str | None = None,
                 locate: Callable[[], str | None] | None = None) -> None:
        self.mode = mode
        self.label = label  # what ran, for the log and the message: "gitai status", "pre-commit hook"
        self.state_dir = state_dir  # where a traceback goes; the work may set it once it has found its repository
        self.locate = locate
        self.code = EXIT_OK
        self.failed = False  # something escaped the block
        self.reason = ""

    def __enter__(self) -> error_handler:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> bool:
        if exc is None or not isinstance(exc, (Exception, KeyboardInterrupt)):
            return False  # SystemExit goes on
        from gitai.util.text import one_line

        self.failed = True
        if isinstance(exc, BrokenPipeError) and self.mode == COMMAND:
            self.code = EXIT_OK  # the reader went away (`gitai log | head`): nothing to say
            return True
        if isinstance(exc, KeyboardInterrupt):
            self.code, message = EXIT_INTERRUPTED, "interrupted"
        elif isinstance(exc, GitaiError):
            self.code, message = exc.exit_code, one_line(str(exc))
        elif isinstance(exc, OSError) and self.mode in (COMMAND, GIT_HOOK):  # a full disk, a directory for a file
            self.code, message = EXIT_USAGE, one_line(os_error_message(exc))
        else:
            self.code, message = EXIT_INTERNAL, self._internal(exc)
        if self.mode == AGENT_HOOK:
            bypass = " A person can bypass gitai by starting the agent with GITAI_HOOKS=off." \
                if self.code == EXIT_INTERNAL else ""
            self.reason = f"gitai: refused: {message} (fail closed).{bypass}"
        elif self.mode == NEVER_FAIL:
            self.code = EXIT_OK
            _say(f"gitai: warning: {self.label} failed ({message}); git goes on")
        else:
            _say(f"gitai: error: {message}")
        return True

    def _internal(self, exc: BaseException) -> str:
        """The one line of a bug, its traceback logged."""
        from gitai.util.crash import log_traceback
        from gitai.util.text import one_line

        state_dir = self.state_dir
        if state_dir is None and self.locate is not None:
            try:
                state_dir = self.locate()
            except Exception:  # noqa: BLE001 - outside a repository there is nowhere to log
                state_dir = None
        logged = log_traceback(state_dir, self.label)
        where = f" (traceback in {logged})" if logged else ""
        return one_line(f"internal error in {self.label}: {exc.__class__.__name__}: {exc}") + where


def _say(line: str) -> None:
    """One line on stderr, which may itself be closed: the exit status still says it."""
    if sys.stderr is None:  # closed when the process started
        return
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
