"""`gitai stats`: lines added by ai / mixed / human / unknown over a commit, a range or a branch,
grouped by intent (each file's own: a commit whose files serve several intents counts each file's
lines under its intent, as the report and the export do), contributor, model or file. Read from
the notes index (one `git rev-list`, and the cached summary of every note: no process per commit)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gitai.layout import Layout

TYPES = ("ai", "mixed", "human", "unknown")
GROUPS = ("intent", "contributor", "model", "file")


@dataclass
class Tally:
    lines: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TYPES, 0))
    commits: set[str] = field(default_factory=set)

    def add(self, kind: str, n: int, commit: str) -> None:
        self.lines[kind if kind in self.lines else "unknown"] += n
        self.commits.add(commit)

    def to_json(self) -> dict[str, Any]:
        ai, mixed, human = self.lines["ai"], self.lines["mixed"], self.lines["human"]
        known = ai + mixed + human
        return {"lines": dict(self.lines), "total": sum(self.lines.values()), "commits": len(self.commits),
                "ai_share": round((ai + mixed) / known, 4) if known else None,
                "accepted_as_written": round(ai / (ai + mixed), 4) if ai + mixed else None}


@dataclass
class Stats:
    scope: str
    by: str
    commits: int  # commits in the scope
    traced: int  # of which have a record
    totals: Tally
    groups: dict[str | None, Tally]

    def to_json(self) -> dict[str, Any]:
        rows = [{"key": key, **tally.to_json()} for key, tally in self.groups.items()]
        rows.sort(key=lambda row: (-row["total"], str(row["key"])))
        return {"scope": self.scope, "by": self.by, "commits": self.commits, "commits_traced": self.traced,
                "totals": self.totals.to_json(), "rows": rows}


def scope_commits(layout: Layout, rev: str | None) -> list[str]:
    """The commits of REV (one commit), A..B (a range) or, without REV, the whole current branch."""
    from gitai.errors import GitaiError
    from gitai.git.runner import rev_list, verify_commit

    if rev is not None and (not rev.strip() or rev.startswith("-")):
        raise GitaiError(f"not a revision: {rev!r}")
    if rev is None:
        return rev_list(layout.root, "HEAD")
    if ".." in rev:
        return rev_list(layout.root, rev)
    return [verify_commit(layout.root, rev)]


def compute_stats(layout: Layout, rev: str | None, by: str) -> Stats:
    from gitai.trace.summary_index import info_intent, load_index

    commits = scope_commits(layout, rev)
    index = load_index(layout).commits
    totals, groups = Tally(), dict[str | None, Tally]()
    traced = 0
    scope = set(commits)
    # one pass over the index (not a look-up per commit of a long branch), keeping no summary
    infos = index.items() if len(scope) > 1000 else ((c, index[c]) for c in scope if c in index)
    for commit, info in infos:
        if commit not in scope:
            continue
        traced += 1
        for path, entry in info.get("files", {}).items():
            for kind, model, _session, n in entry.get("who", []):
                totals.add(kind, n, commit)
                key = {"intent": info_intent(info, path), "contributor": kind, "model": model, "file": path}[by]
                groups.setdefault(key, Tally()).add(kind, n, commit)
    return Stats(rev or "HEAD (whole branch)", by, len(commits), traced, totals, groups)
