"""Where the running gitai is: a host that runs its model's commands in a login shell rebuilding PATH
(Codex: `bash -lc`) does not find a gitai installed in a virtualenv by name there, so the commands its
agent is told to run name gitai by its absolute path (its hooks keep the host's PATH and name it `gitai`).

Lean: the agent hook asks for gitai's path before every wrapped shell command, so `re`, `shlex`,
`shutil` and the command list are imported only where a path needs quoting, gitai is not beside its
Python, or a text is rewritten."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

# The characters `shlex.quote` leaves a word unquoted with (its `[^\w@%+=:,./-]`, ASCII).
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-")


def gitai_program() -> str:
    """The absolute path of the gitai executable beside this Python (or on PATH), shell-quoted;
    plain `gitai` when neither is found."""
    beside = os.path.join(os.path.dirname(sys.executable), "gitai")
    if os.access(beside, os.X_OK):
        found: str | None = beside
    else:
        import shutil

        found = shutil.which("gitai")
    if not found:
        return "gitai"
    path = os.path.abspath(found)
    if set(path) <= _SAFE:
        return path
    import shlex

    return shlex.quote(path)


def command_word() -> re.Pattern[str]:
    """`gitai select ...`: gitai followed by one of its commands, not by a word of prose or the `gitai:` prefix."""
    import re

    from gitai.commands.registry import COMMANDS

    names = "|".join(map(re.escape, sorted(COMMANDS)))
    return re.compile(rf"(?<![\w./-])gitai (?=(?:{names})(?![\w-]))")


def with_program(text: str) -> str:
    """`text` with each `gitai COMMAND` it tells someone to run naming gitai by its absolute path."""
    program = gitai_program()
    return command_word().sub(lambda _: program + " ", text) if program != "gitai" else text


def program_note() -> str:
    """For an agent whose shell rebuilds PATH, at session start: the one way to run gitai there, in so
    many words (the project's AGENTS.md, shared by everyone, names it `gitai`); "" when gitai is on PATH only."""
    program = gitai_program()
    if program == "gitai":
        return ""
    return (f"\nRun gitai in your shell as `{program}` (your shell rebuilds PATH and does not find gitai by name), "
            f"e.g. `{program} select INT-ID`.")
