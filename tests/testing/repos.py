"""Real repositories in temporary directories: the test catalogue, files, commits, what gitai kept."""

from __future__ import annotations

import json
import subprocess
import zlib
from pathlib import Path
from typing import Any

from testing.commands import git, gitai_ok

CATALOGUE = """\
# team catalogue
active_intents:
  - id: INT-001
    name: JWT auth migration
    status: IN_PROGRESS
    owned_scope:
      - "src/auth/**"
      - "!src/auth/vendor/**"
    constraints: ["keep login() <stable> & documented"]
    acceptance_criteria: ["tests pass"]
  - id: INT-002
    name: Docs refresh
    status: DRAFT   # not started
    owned_scope: ["docs/**", "README.md"]
  - id: INT-003
    name: Billing
    status: IN_PROGRESS
    owned_scope: ["src/billing/**", "src/shared/**"]
  - id: INT-004
    name: Old work
    status: DONE
    owned_scope: ["old/**"]
  - id: INT-005
    name: Waiting
    status: BLOCKED
    blocked_reason: waiting for the security review
    owned_scope: ["blocked/**"]
"""



def write(repo: Path, rel: str, text: str | bytes) -> Path:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def commit(repo: Path, message: str, *paths: str, env: dict[str, str] | None = None,
           check: bool = True, extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    git(repo, "add", "-A", *(["--", *paths] if paths else []))
    return git(repo, "commit", "-m", message, *extra, check=check, env=env)


def head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").stdout.strip()


def new_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    return path


def catalogued(path: Path) -> None:
    """A new repository at `path`, gitai initialised, the test catalogue committed, no intent active."""
    new_repo(path)
    gitai_ok(path, "init")
    write(path, ".orchestration/active_intents.yaml", CATALOGUE)
    commit(path, "add catalogue")



def records_by_commit(repo: Path) -> dict[str, dict[str, Any]]:
    """Each commit's record from the notes, without what differs between runs (its id and time)."""
    found = {}
    for line in git(repo, "notes", "--ref", "gitai", "list").stdout.splitlines():
        _, commit_id = line.split()
        record = json.loads(git(repo, "notes", "--ref", "gitai", "show", commit_id).stdout)
        del record["id"], record["timestamp"]
        found[commit_id] = record
    return found


def kept_origins(repo: Path) -> list[bytes]:
    """The line-origins cache's entries, decompressed and sorted."""
    kept = repo / ".git" / "gitai" / "origins-v1"
    return sorted(zlib.decompress(path.read_bytes()) for path in kept.rglob("*.json.z"))


def tip_files(repo: Path, *revisions: str) -> set[tuple[str, str]]:
    """The (path, blob) of every file at these revisions: the versions backfill keeps in the caches."""
    files = set()
    for revision in revisions:
        for entry in git(repo, "ls-tree", "-r", "-z", "--full-tree", revision).stdout.split("\0"):
            meta, _, path = entry.partition("\t")
            if meta and meta.split()[1] == "blob":
                files.add((path, meta.split()[2]))
    return files


def origins_of(entries: list[bytes], files: set[tuple[str, str]]) -> list[bytes]:
    """The line-origins cache's entries (`kept_origins`) of these versions."""
    return [e for e in entries if (json.loads(e)["path"], json.loads(e)["blob"]) in files]
