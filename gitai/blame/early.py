"""Start a fresh clone's `git blame` before Python has loaded the command line.

In a clone with no line origins kept, `blame-intent` spends most of its time in one `git blame` of
the file, and about 60 ms before it loading click and gitai. `gitai blame-intent` therefore reads
FILE and `--rev` from its arguments first, starts that `git blame` (gitai.git.blame.start_blame),
and lets the command take it up. Anything unusual in the arguments, or origins kept (the
command may then need no `git blame` at all), and nothing is started: the command runs as
always. Imports only what a start needs.
"""

from __future__ import annotations

import os
import subprocess

VALUE_OPTIONS = ("-L", "--rev")
FLAGS = ("--porcelain", "--summary", "--declared-only", "--json")
ORIGINS_DIRECTORY = "origins-v1"  # gitai.blame.origin_cache.DIRECTORY, without importing it


def start_blame_ahead(args: list[str]) -> None:
    """`args`: blame-intent's arguments. Best effort: the command reports whatever goes wrong here
    (no git, say) in its own words."""
    try:
        _start(args)
    except Exception:  # noqa: BLE001 - the command runs as always, without a blame started ahead
        return


def _start(args: list[str]) -> None:
    found = _file_and_rev(args)
    if found is None:
        return
    file, rev = found
    where = subprocess.run(["git", "rev-parse", "--path-format=absolute", "--git-common-dir", "--show-toplevel",
                            "--show-prefix", f"{rev}^{{commit}}"],  # (rev: no leading -)
                           capture_output=True, check=False)
    lines = where.stdout.decode("utf-8", "surrogateescape").split("\n")
    if where.returncode != 0 or len(lines) < 4:
        return
    common_dir, root, prefix, commit = lines[:4]
    if os.path.isdir(os.path.join(common_dir, "gitai", ORIGINS_DIRECTORY)):
        return
    path = os.path.normpath(os.path.join(root, prefix, file))
    relative = os.path.relpath(path, root)
    if relative.startswith(".."):
        return
    from gitai.git.blame import start_blame

    start_blame(root, commit, relative.replace(os.sep, "/"))


def _file_and_rev(args: list[str]) -> tuple[str, str] | None:
    """FILE and the revision (HEAD without `--rev`) as click will read them; None when unsure."""
    file, rev = None, "HEAD"
    rest = iter(args)
    for arg in rest:
        if arg in VALUE_OPTIONS:
            value = next(rest, None)
            if value is None:
                return None
            if arg == "--rev":
                rev = value
        elif arg.startswith("--rev="):
            rev = arg.removeprefix("--rev=")
        elif arg.startswith("-L") or arg in FLAGS:
            continue
        elif arg.startswith("-") or file is not None:
            return None  # --help, `--`, an option of a later version, a second FILE...
        else:
            file = arg
    return (file, rev) if file and not rev.startswith("-") else None
