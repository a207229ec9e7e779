"""`gitai init`: the `.orchestration/` skeleton. Idempotent; never overwrites a file."""

from __future__ import annotations

import os
from pathlib import Path

from gitai.agents.hosts import INSTRUCTIONS
from gitai.errors import GitaiError
from gitai.layout import (
    CATALOGUE,
    EVENTS,
    HOOK_MADE_GITIGNORE,
    INTENTIGNORE,
    LEDGER,
    LOCAL_FILES_GITIGNORE,
    SHARED_BRAIN,
    Layout,
)

CATALOGUE_TEMPLATE = """\
# gitai intent catalogue: the work items this repository's changes are traced to.
# Every commit must stay inside the owned_scope of the active intent (`gitai select ID`).
# Patterns use .gitignore syntax, relative to the repository root; '!' excludes.
#
# active_intents:
#   - id: INT-001
#     name: JWT auth migration
#     status: DRAFT              # DRAFT | IN_PROGRESS | DONE | BLOCKED
#     owned_scope:
#       - "src/auth/**"
#       - "!src/auth/vendor/**"
#     description: Replace session cookies with signed JWTs.
#     constraints:
#       - Keep the public login() signature.
#     acceptance_criteria:
#       - All auth tests pass with JWT sessions.
#     related_specs: [docs/auth-spec.md]
active_intents: []
"""

INTENTIGNORE_TEMPLATE = """\
# Paths no intent needs to own (gitignore syntax): commits may touch them under any intent.
# .orchestration/** is always exempt.
# The agent instructions `gitai init` writes (its section in each host's file):
""" + "".join(f"{name}\n" for name in INSTRUCTIONS) + """\
# Examples:
# *.lock
# docs/changelog.md
"""

AGENT_TEMPLATE = """\
# Shared brain

Append-only lessons for agents and people working in this repository. Add, never rewrite.
"""


def check_orchestration_dir(layout: Layout) -> None:
    """Refuse early when `.orchestration` exists but is not a directory, or any file gitai would
    create there is a symbolic link (a clone must never make gitai write outside the repository)."""
    layout.guard(layout.orchestration)
    if os.path.lexists(layout.orchestration) and not os.path.isdir(layout.orchestration):
        raise GitaiError(f"{layout.relative(layout.orchestration)} exists and is not a directory")
    for name in (CATALOGUE, INTENTIGNORE, ".gitignore", SHARED_BRAIN, LEDGER, EVENTS):
        layout.guard(os.path.join(layout.orchestration, name))


def init_orchestration(layout: Layout) -> list[Path]:
    """Create the missing skeleton files; returns the ones created."""
    check_orchestration_dir(layout)
    orchestration = Path(layout.orchestration)
    files = {
        orchestration / CATALOGUE: CATALOGUE_TEMPLATE,
        orchestration / INTENTIGNORE: INTENTIGNORE_TEMPLATE,
        orchestration / ".gitignore": LOCAL_FILES_GITIGNORE,
        orchestration / SHARED_BRAIN: AGENT_TEMPLATE,
    }
    created = []
    orchestration.mkdir(parents=True, exist_ok=True)
    hook_made = orchestration / ".gitignore"
    if hook_made.exists() and hook_made.read_text(encoding="utf-8") == HOOK_MADE_GITIGNORE:
        hook_made.unlink()
    for path, text in files.items():
        if not os.path.lexists(path):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            created.append(path)
    return created
