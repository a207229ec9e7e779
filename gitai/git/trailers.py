"""Reading the `Intent:` trailer of commits (git matches the key case-insensitively)."""

from __future__ import annotations

from gitai.git.runner import run_git

FORMAT = "%(trailers:key=Intent,valueonly,separator=%x02)"


def commit_intent(root: str, commit: str) -> str | None:
    """The commit's first `Intent:` trailer, if any."""
    return commit_intents(root, [commit]).get(commit)


def commit_intents(root: str, commits: list[str]) -> dict[str, str]:
    """Each commit's first `Intent:` trailer, with one `git log` for all of them."""
    if not commits:
        return {}
    out = run_git(["log", "--no-walk=unsorted", "--stdin", "-z", f"--format=%H%x01{FORMAT}"], root,
                  input="\n".join(commits).encode())
    found = {}
    for item in out.decode("utf-8", "replace").split("\0"):
        sha, _, values = item.strip("\n").partition("\x01")
        first = next((v.strip() for v in values.split("\x02") if v.strip()), None)
        if sha and first:
            found[sha] = first
    return found
