"""`gitai report`: the data of the HTML report, computed from the export tables (gitai.report.model).

The page filters by intent and time in the browser, so the data keeps one row per commit and per
(commit, file, contributor) rather than totals; strings (paths, contributors, intents) are
interned in lists and rows refer to them by position, which keeps a 3,000-commit history small.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime, timezone
from typing import Any

from gitai.layout import Layout
from gitai.report.model import Tables, build_tables
from gitai.trace.record import INFERRED

CLASS_CODES = {None: 0, "AST_REFACTOR": 1, "INTENT_EVOLUTION": 2}
BLAME_FILES = 8  # files whose blame-intent the report precomputes
BLAME_MAX_LINES = 3000  # ... each at most this long


def _epoch(stamp: str | None) -> int:
    """Seconds since the epoch of an RFC 3339 time (0: none, or not a time: events are a local log)."""
    if not stamp:
        return 0
    try:
        when = datetime.fromisoformat(stamp[:-1] + "+00:00" if stamp.endswith("Z") else stamp)
    except ValueError:
        return 0
    return int((when if when.tzinfo else when.replace(tzinfo=timezone.utc)).timestamp())


def contributor_label(kind: str | None, model: str | None) -> str:
    """`ai:MODEL`, `ai` (model unknown), `human`, `mixed` or `unknown`."""
    kind = kind or "unknown"
    return f"{kind}:{model}" if kind == "ai" and model else kind


class _Interned:
    def __init__(self) -> None:
        self.items: list[str] = []
        self._index: dict[str, int] = {}

    def __call__(self, value: str) -> int:
        if value not in self._index:
            self._index[value] = len(self.items)
            self.items.append(value)
        return self._index[value]


def report_data(layout: Layout, tables: Tables, blame_files: int = BLAME_FILES) -> dict[str, Any]:
    """Everything the page shows, as JSON-able data (the page's script documents the row layouts)."""
    repo = next(tables.dicts("repositories"))
    intents = list(tables.dicts("intents"))
    intent_ids = _Interned()
    for intent in intents:
        intent_ids(intent["intent_id"])
    scopes: dict[str, list[str]] = {}
    for row in tables.dicts("intent_scopes"):
        scopes.setdefault(row["intent_id"], []).append(row["pattern"])
    paths, contributors = _Interned(), _Interned()
    commits: list[list[Any]] = []
    position: dict[tuple[str, str], int] = {}
    inferred: list[int] = []  # per commit row: 1 when backfill inferred its intents from scopes
    for row in sorted(tables.dicts("commits"), key=lambda r: (r["committed_at"] or "", r["commit_id"])):
        if row["stale"] or not row["reachable"]:
            continue  # the report shows HEAD's history; the export keeps everything
        position[(row["commit_id"], row["record_id"])] = len(commits)
        inferred.append(int(row["intent_source"] == INFERRED))
        served = intent_ids(row["intent_id"]) if row["intent_id"] else -1
        commits.append([row["commit_id"][:12], _epoch(row["committed_at"]), served,
                        CLASS_CODES.get(row["classification"], 0), row["backfilled"], row["is_merge"],
                        (row["subject"] or "")[:90], []])
    files = {(r["commit_id"], r["record_id"], r["path"]): r for r in tables.dicts("files")}
    changes: list[list[int]] = []
    for row in tables.dicts("contributors"):
        at = position.get((row["commit_id"], row["record_id"]))
        if at is None:
            continue
        file = files.get((row["commit_id"], row["record_id"], row["path"]), {})
        changes.append([at, paths(row["path"]), row["lines"], CLASS_CODES.get(file.get("classification"), 0),
                        contributors(contributor_label(row["contributor_type"], row["model_id"])),
                        intent_ids(file["intent_id"]) if file.get("intent_id") else -1, inferred[at]])
    for row in files.values():
        at = position.get((row["commit_id"], row["record_id"]))
        if at is not None and row["change"] == "deleted":
            changes.append([at, paths(row["path"]), 0, 3, -1, intent_ids(row["intent_id"]) if row["intent_id"] else -1,
                            inferred[at]])  # class 3: deleted
    for change in changes:  # a commit whose files serve several intents answers to each of them
        if change[5] not in commits[change[0]][7]:
            commits[change[0]][7].append(change[5])
    for commit in commits:
        commit[7] = commit[7] or [commit[2]]  # a commit with no file (an empty merge): its own intent
    tree = []
    for row in tables.dicts("tree_files"):
        owners = [intent_ids(o) for o in json.loads(row["owners"])]
        tree.append([paths(row["path"]), row["lines"], owners, row["exempt"]])
    events = [[_epoch(e["timestamp"]), e["event"] or "?", intent_ids(e["intent_id"]) if e["intent_id"] else -1,
               e["actor"] or ""] for e in tables.dicts("events")]
    from gitai.intents.patterns import is_exempt

    blame = _blame(layout, repo["head"], tables, paths, intent_ids, blame_files)
    names = {i["intent_id"]: i for i in intents}
    return {
        "repo": {"name": repo["name"], "head": repo["head"], "generated": repo["exported_at"],
                 "repo_id": repo["repo_id"]},
        "intents": [{"id": i, "name": (names.get(i) or {}).get("name") or "",
                     "status": (names.get(i) or {}).get("status") or "not in catalogue",
                     "scope": scopes.get(i, [])} for i in intent_ids.items],
        "paths": paths.items,
        "exempt": [n for n, path in enumerate(paths.items) if is_exempt(path)],
        "contributors": contributors.items,
        "commits": commits,
        "changes": changes,
        "tree": tree,
        "events": events,
        "blame": blame,
    }


def _blame(layout: Layout, head: str | None, tables: Tables, paths: _Interned, intent_ids: _Interned,
           limit: int) -> list[dict[str, Any]]:
    """blame-intent of the code files at HEAD (not gitai's own, not exempt) that most traced commits
    touched, then with most lines changed (a bounded few; the page opens on the first)."""
    if head is None or limit <= 0:
        return []
    from gitai.blame.blame_intent import blame_intent
    from gitai.errors import GitaiError

    sizes = {r["path"]: r["lines"] for r in tables.dicts("tree_files") if not r["exempt"]}
    touched: Counter[str] = Counter()
    changed: Counter[str] = Counter()
    for r in tables.dicts("files"):
        if r["change"] == "changed":
            touched[r["path"]] += 1
            changed[r["path"]] += r["lines"] or 0
    ranked = sorted(touched, key=lambda p: (-touched[p], -changed[p], p))
    chosen = [p for p in ranked if 0 < (sizes.get(p) or 0) <= BLAME_MAX_LINES][:limit]
    out = []
    for path in chosen:  # most touched first
        try:
            lines = blame_intent(layout, path, head)
        except GitaiError:
            continue
        out.append({"path": paths(path), "lines": [
            [intent_ids(line.intent_id) if line.intent_id else -1, (line.commit or "")[:12], line.content[:200],
             int(line.inferred)]
            for line in lines]})
    return out


def build_report(layout: Layout, only: set[str] | None = None, blame_files: int = BLAME_FILES) -> str:
    """The whole HTML page."""
    from gitai.report.html import render_page

    return render_page(report_data(layout, build_tables(layout, only), blame_files))
