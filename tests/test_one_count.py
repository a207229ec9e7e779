"""One count everywhere: `stats --by intent`, the report, the export and the map give each file's
lines to the file's own intent, on a backfilled history whose commits serve several intents."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from testing.commands import git, gitai_json, gitai_ok
from testing.repos import CATALOGUE, commit, new_repo, write


def _multi_intent_backfilled(tmp_path: Path) -> Path:
    repo = new_repo(tmp_path / "repo")
    write(repo, ".orchestration/active_intents.yaml", CATALOGUE)
    commit(repo, "catalogue")
    write(repo, "src/auth/login.py", "def login():\n    return 1\n")
    write(repo, "src/billing/pay.py", "def pay():\n    return 2\n\n\ndef refund():\n    return 3\n")
    commit(repo, "auth and billing at once")
    write(repo, "src/auth/login.py", "def login():\n    return 10\n\n\ndef logout():\n    return 11\n")
    write(repo, "src/billing/pay.py", "def pay():\n    return 20\n\n\ndef refund():\n    return 3\n")
    write(repo, "docs/guide.md", "# guide\n\nhow to pay\n")
    write(repo, "misc/notes.txt", "owned by nobody\n")
    commit(repo, "three intents and none")
    write(repo, "src/auth/login.py", "def login():\n    return 100\n\n\ndef logout():\n    return 11\n")
    commit(repo, "auth only")
    gitai_ok(repo, "init")
    gitai_ok(repo, "backfill")
    return repo


def test_stats_report_export_and_map_agree_per_files_intent(tmp_path: Path) -> None:
    repo = _multi_intent_backfilled(tmp_path)
    stats = {row["key"]: row["total"] for row in gitai_json(repo, "stats", "--by", "intent")["rows"]}

    out = tmp_path / "trace.jsonl"
    gitai_ok(repo, "export", "--format", "jsonl", "-o", str(out))
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    reachable = {(r["commit_id"], r["record_id"]) for r in rows
                 if r["table"] == "commits" and r["reachable"] and not r["stale"]}
    exported: Counter[str | None] = Counter()
    for r in rows:
        if r["table"] == "files" and (r["commit_id"], r["record_id"]) in reachable and r["lines"]:
            exported[r["intent_id"]] += r["lines"]

    page = tmp_path / "report.html"
    gitai_ok(repo, "report", "-o", str(page))
    data = json.loads(page.read_text().split('id="gitai-data">', 1)[1].split("</script>", 1)[0])
    reported: Counter[str | None] = Counter()
    for _commit, _path, lines, _class, _who, intent, *_ in data["changes"]:
        if lines:
            reported[data["intents"][intent]["id"] if intent >= 0 else None] += lines

    assert stats == dict(exported) == dict(reported)
    assert stats["INT-001"] == 2 + 5 + 1 and stats["INT-003"] == 6 + 1 and stats["INT-002"] == 3
    # the catalogue (exempt) and misc/notes.txt (owned by nobody): not the multi-intent commits' lines
    assert stats[None] == CATALOGUE.count("\n") + 1

    mapped = {(intent["intent_id"], f["path"]) for intent in gitai_json(repo, "map", "--format", "json")["intents"]
              for f in intent["files"]}
    evolved = {(r["intent_id"], r["path"]) for r in rows if r["table"] == "files" and r["intent_id"]
               and r["classification"] == "INTENT_EVOLUTION" and (r["commit_id"], r["record_id"]) in reachable}
    assert mapped == evolved
    assert {intent for intent, _ in mapped} == {"INT-001", "INT-002", "INT-003"}
    assert git(repo, "rev-list", "--count", "HEAD").stdout.strip() == "4"
