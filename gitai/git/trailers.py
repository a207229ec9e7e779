"""Reading the `Intent:` trailer of commits (git matches the key case-insensitively)."""

from __future__ import annotations

from gitai.git.runner import git_process

FORMAT = "%(trailers:key=Intent,valueonly,separator=%x02)"


def commit_intent(root: str, commit: str) -> str | None:
    """The commit's first `Intent:` trailer, if any."""
    return commit_intents(root, [commit]).get(commit)


def commit_intents(root: str, commits: list[str]) -> dict[str, str]:
    """Each commit's first `Intent:` trailer, with one `git log` for all of them (a commit the
    repository lacks, as in a shallow clone or named by a note from elsewhere, has none)."""
    if not commits:
        return {}
    args = ["log", "--no-walk=unsorted", "--stdin", "-z", f"--format=%H%x01{FORMAT}"]
    proc = git_process(args, root, input="\n".join(commits).encode())
    if proc.returncode != 0:  # one is missing: git refuses them all
        present = _present_commits(root, commits)
        if not present:
            return {}
        proc = git_process(args, root, input="\n".join(present).encode())
    out = proc.stdout if proc.returncode == 0 else b""
    found = {}
    for item in out.decode("utf-8", "replace").split("\0"):
        sha, _, values = item.strip("\n").partition("\x01")
        first = next((v.strip() for v in values.split("\x02") if v.strip()), None)
        if sha and first:
            found[sha] = first
    return found


def _present_commits(root: str, commits: list[str]) -> list[str]:
    listing = git_process(["cat-file", "--batch-check=%(objectname) %(objecttype)"], root,
                          input="\n".join(commits).encode()).stdout.decode().splitlines()
    return [fields[0] for fields in (line.split() for line in listing) if fields[1:] == ["commit"]]
