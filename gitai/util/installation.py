"""What runs when a hook runs gitai: the hooks name it by name, so the first `gitai` on PATH, and then
gitai's own installation (its package, the environment it runs from, the site directories it imports
from). An agent that writes any of them decides what every later hook does, so the before-write gate
(gitai/agents/gate.py) and the kernel domain (gitai/sandbox/domain.py) keep them out of its reach.
Lean: the agent hook's before-write path imports it."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

PROGRAM_NAMES = ("gitai", "gitai.exe")


def installation_dirs() -> list[str]:
    """The running gitai's package, the site directories it imports from (a `.pth` file there runs at
    every start) and, in a virtualenv, all of it (its Python, its console script). Not a system
    Python's prefix (`/usr`): a repository may live beneath it."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    found = [package, *(p for p in sys.path if p.endswith("-packages"))]
    if sys.prefix != sys.base_prefix:
        found.append(sys.prefix)
    return list(dict.fromkeys(found))


def interpreter_programs() -> list[str]:
    """The Python gitai runs on and the console script beside it."""
    return [sys.executable, os.path.join(os.path.dirname(sys.executable), "gitai")]


def path_programs(environ: Mapping[str, str]) -> list[str]:
    """Each place a `gitai` found by name could be: every PATH directory's `gitai` (and `gitai.exe`),
    whether or not one is there yet (an empty entry is the current directory, as in the shell), and in
    the two HOME directories a login shell's profile puts on PATH once they exist (Codex runs `bash -lc`)."""
    found = []
    home = environ.get("HOME", "")
    login = [os.path.join(home, "bin"), os.path.join(home, ".local", "bin")] if home.startswith("/") else []
    for entry in [*environ.get("PATH", "").split(os.pathsep), *login]:
        directory = os.path.abspath(entry or ".")
        found += [os.path.join(directory, name) for name in PROGRAM_NAMES]
    return list(dict.fromkeys(found))
