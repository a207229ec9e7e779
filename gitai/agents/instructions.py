"""The gitai section `gitai init` writes into AGENTS.md (and into the instructions file of each
other host, CLAUDE.md, GEMINI.md, QWEN.md, when the project has one; `gitai agents install` creates
the file of a host that reads no AGENTS.md, GEMINI.md for Gemini CLI): the loop an agent follows,
in a few lines. Idempotent: the section sits between two markers and is
replaced in place when it changed, never duplicated; the rest of the file is left as it is."""

from __future__ import annotations

import os

from gitai.agents.hosts import INSTRUCTIONS

BEGIN = "<!-- gitai:begin (written by `gitai init`; edits inside are replaced) -->"
END = "<!-- gitai:end -->"
SECTION = f"""{BEGIN}
## Working with gitai

Every change here serves an intent (a work item with an owned scope, `.orchestration/active_intents.yaml`).
1. `gitai owners PATH...` tells which intent owns the files you need; `gitai context` shows yours.
2. `gitai select INT-ID` before you write: writes outside the selected intent's scope are refused.
3. Work inside the scope; commit normally (never `--no-verify`). Ask a person to widen a scope.
4. `gitai lesson "what the next agent should know"` before you finish.
{END}
"""


def write_instructions(root: str, create: tuple[str, ...] = ()) -> list[str]:
    """Write or refresh the section; returns the files (relative to `root`) that changed. AGENTS.md and
    the files named in `create` are created; the other hosts' files only refreshed where they exist."""
    changed = []
    for name in INSTRUCTIONS:
        always = name == "AGENTS.md" or name in create
        path = os.path.join(root, name)
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            if not always:
                continue
            text = ""
        start, end = text.find(BEGIN), text.find(END)
        if start != -1 and end > start:
            new = text[:start] + SECTION.rstrip("\n") + text[end + len(END):]
        else:
            new = text + ("\n" if text and not text.endswith("\n") else "") + ("\n" if text else "") + SECTION
        if new != text:
            from gitai.util.files import refuse_links, write_atomic

            refuse_links(root, path)  # a clone's AGENTS.md may be a link: never write through it
            write_atomic(path, new)
            changed.append(name)
    return changed
