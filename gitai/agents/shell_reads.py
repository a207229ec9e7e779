"""Files an agent reads whole through its shell (`cat`, `nl` ...): on hosts that report no reads
(Codex), that is how the agent sees a file again after a stale-write refusal. Plain words only
(shlex): a command gitai cannot read this way counts as no read, which keeps the lock shut.

Only a whole read counts: the lock guards whole-file writes, so a reader that shows part of a file
(`head`, `tail`, `grep`, `sed -n`, `awk`), or none of it (`wc`), or whose output is piped on (`cat F
| head`), leaves the lock as it was.
"""

from __future__ import annotations

import os

WHOLE_READERS = ("cat", "nl", "bat", "batcat", "less", "more")
SEPARATORS = ";&|()<>"


def _split(command: str, comments: bool = True) -> list[tuple[list[str], str]] | None:
    """Each simple command's words with the separator that follows it ("" at the end); None when the
    line cannot be read as plain words. `comments=False`: a `#` is a word's character, never the start
    of a comment (shlex would end `a#b` at the `#`, where the shell reads on)."""
    import shlex  # imports `re`: only for a command that may read a file whole, or may write

    lexer = shlex.shlex(command.replace("\n", ";"), posix=True, punctuation_chars=SEPARATORS)
    lexer.whitespace_split = True
    if not comments:
        lexer.commenters = ""
    try:
        words = list(lexer)
    except ValueError:
        return None
    found: list[tuple[list[str], str]] = [([], "")]
    for word in words:
        if word and all(c in SEPARATORS for c in word):
            found[-1] = (found[-1][0], word)
            found.append(([], ""))
        else:
            found[-1][0].append(word)
    return [(w, after) for w, after in found if w]


def segments(command: str, comments: bool = True) -> list[list[str]] | None:
    """The simple commands of a command line, as words (None: not read as plain words)."""
    split = _split(command, comments)
    return None if split is None else [words for words, _ in split]


def shell_reads(command: str, cwd: str) -> list[str]:
    """Absolute paths of the existing files the command shows whole (its output not piped on, nor
    redirected away)."""
    found: list[str] = []
    plain = command.replace("'", "").replace('"', "").replace("\\", "")  # `c'a't f`, `ca\t f`: the shell reads `cat f`
    if not any(reader in plain for reader in WHOLE_READERS):  # no `shlex` (and `re`) on most shell calls
        return found
    split = _split(command) or []
    for index, (words, after) in enumerate(split):
        if words[0] == "cd" and len(words) == 2:
            cwd = os.path.join(cwd, words[1])
            continue
        if after.startswith(">") and words[-1] == "2":  # `2>/dev/null`, `2>&1`: the output still shows,
            # unless what follows the redirection's target pipes it on (`cat f 2>/dev/null | head -1`)
            target_after = split[index + 1][1] if index + 1 < len(split) else ""
            words, after = words[:-1], target_after
        if words[0] not in WHOLE_READERS or after in ("|", ">", ">>", "|&", ">|", ">&"):
            continue
        if words[0] in ("bat", "batcat") and any(w.startswith(("-r", "--line-range")) for w in words[1:]):
            continue  # a range of lines is not the whole file
        for word in words[1:]:
            path = os.path.normpath(os.path.join(cwd, word))
            if not word.startswith("-") and os.path.isfile(path):
                found.append(path)
    return found
