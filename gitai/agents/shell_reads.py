"""Files an agent reads through its shell (`cat`, `head`, `sed -n` ...): on hosts that report no
reads (Codex), that is how the agent sees a file again after a stale-write refusal. Plain words
only (shlex): a command gitai cannot read this way counts as no read, which keeps the lock shut.
"""

from __future__ import annotations

import os
import shlex

READERS = ("cat", "head", "tail", "nl", "less", "more", "bat", "sed", "awk", "grep", "rg", "wc")
SEPARATORS = ";&|()<>"


def segments(command: str) -> list[list[str]] | None:
    """The simple commands of a command line, as words (None: not read as plain words)."""
    lexer = shlex.shlex(command.replace("\n", ";"), posix=True, punctuation_chars=SEPARATORS)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:
        return None
    found: list[list[str]] = [[]]
    for word in words:
        if word and all(c in SEPARATORS for c in word):
            found.append([])
        else:
            found[-1].append(word)
    return [s for s in found if s]


def shell_reads(command: str, cwd: str) -> list[str]:
    """Absolute paths of the existing files the command's readers name (`sed -i` writes: not a read)."""
    found: list[str] = []
    for words in segments(command) or []:
        if words[0] == "cd" and len(words) == 2:
            cwd = os.path.join(cwd, words[1])
            continue
        if words[0] not in READERS or (words[0] == "sed" and any(w.startswith(("-i", "--in-place")) for w in words)):
            continue
        for word in words[1:]:
            path = os.path.normpath(os.path.join(cwd, word))
            if not word.startswith("-") and os.path.isfile(path):
                found.append(path)
    return found
