"""`gitai gc`: the local caches stay within a bound, and everything still works after a trim."""

from __future__ import annotations

import os
from pathlib import Path

from testing.commands import gitai, gitai_json
from testing.repos import commit, write

from gitai.blame.origin_cache import DIRECTORY as ORIGINS
from gitai.syntax.hash_cache import DIRECTORY as SYNTAX


def _sizes(state: Path, name: str) -> int:
    """Disk usage, as gc counts it."""
    if not (state / name).exists():
        return 0
    return sum(f.stat().st_blocks * 512 for f in (state / name).rglob("*") if f.is_file())


def test_gc_trims_oldest_first_to_the_bound_and_drops_outdated_caches(repo: Path) -> None:
    gitai(repo, "select", "INT-001")
    for number in range(3):
        write(repo, f"src/auth/m{number}.py", f"def f{number}():\n    return {number}\n")
        commit(repo, f"module {number}")
    for number in range(3):
        assert gitai(repo, "blame-intent", f"src/auth/m{number}.py").returncode == 0
    state = repo / ".git" / "gitai"
    stale = state / "origins-v0" / "ab"
    stale.mkdir(parents=True)
    (stale / "old.json.z").write_bytes(b"x" * 1000)
    origins = sorted((f for f in (state / ORIGINS).rglob("*.z")), key=lambda f: f.stat().st_mtime)
    assert len(origins) >= 3 and _sizes(state, SYNTAX) > 0
    os.utime(origins[0], (1, 1))  # the least recently written
    total = sum(f.stat().st_blocks * 512 for f in state.rglob("*") if f.is_file() and (
        ORIGINS in f.parts or SYNTAX in f.parts or f.name.startswith("notes-")))
    limit = total - 1
    result = gitai_json(repo, "gc", "--max-size", str(limit))
    assert not (state / "origins-v0").exists()
    assert not origins[0].exists() and all(f.exists() for f in origins[1:])
    assert result["bytes_after"] <= limit and result["removed_files"] == 2 and result["limit"] == limit
    assert gitai_json(repo, "gc", "--max-size", "0")["bytes_after"] == 0
    assert _sizes(state, ORIGINS) == 0 and _sizes(state, SYNTAX) == 0
    rows = gitai_json(repo, "blame-intent", "src/auth/m0.py")  # rebuilt on demand
    assert [r["intent_id"] for r in rows] == ["INT-001", "INT-001"]
    assert gitai(repo, "gc", "--max-size", "lots").returncode == 2
    assert "caches:" in gitai(repo, "gc").stdout
