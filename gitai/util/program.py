"""Where the running gitai is: a host that runs its model's commands in a login shell rebuilding PATH
(Codex: `bash -lc`) does not find a gitai installed in a virtualenv by name there, so the commands its
agent is told to run name gitai by its absolute path (its hooks keep the host's PATH and name it `gitai`)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys

from gitai.commands.registry import COMMANDS

_NAMES = "|".join(map(re.escape, sorted(COMMANDS)))
COMMAND_WORD = re.compile(rf"(?<![\w./-])gitai (?=(?:{_NAMES})(?![\w-]))")
"""`gitai select ...`: gitai followed by one of its commands, not by a word of prose or the `gitai:` prefix."""


def gitai_program() -> str:
    """The absolute path of the gitai executable beside this Python (or on PATH), shell-quoted;
    plain `gitai` when neither is found."""
    beside = os.path.join(os.path.dirname(sys.executable), "gitai")
    found = beside if os.access(beside, os.X_OK) else shutil.which("gitai")
    return shlex.quote(os.path.abspath(found)) if found else "gitai"


def with_program(text: str) -> str:
    """`text` with each `gitai COMMAND` it tells someone to run naming gitai by its absolute path."""
    program = gitai_program()
    return COMMAND_WORD.sub(lambda _: program + " ", text) if program != "gitai" else text


def program_note() -> str:
    """For an agent whose shell rebuilds PATH, at session start: the one way to run gitai there, in so
    many words (the project's AGENTS.md, shared by everyone, names it `gitai`); "" when gitai is on PATH only."""
    program = gitai_program()
    if program == "gitai":
        return ""
    return (f"\nRun gitai in your shell as `{program}` (your shell rebuilds PATH and does not find gitai by name), "
            f"e.g. `{program} select INT-ID`.")
