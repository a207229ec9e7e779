"""`gitai export`: every record of the notes once in the tables, the documented schema and queries."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
from collections import Counter
from pathlib import Path

from testing.commands import GITAI, gitai, gitai_json
from testing.hermetic import clock
from testing.history import AGENT
from testing.repos import commit, new_repo, write
from testing.traces import notes

from gitai.report.model import TABLES

DOCS = Path(__file__).resolve().parent.parent / "docs" / "export.md"



def rows(db: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql).fetchall()


def test_sqlite_round_trip_matches_notes_and_verify(history: Path, tmp_path: Path) -> None:
    out = tmp_path / "trace.sqlite"
    result = gitai_json(history, "export", "-o", str(out))
    verify = gitai_json(history, "trace", "verify")
    assert verify["ok"]
    assert result["tables"]["commits"] == verify["records"] == len(rows(out, "SELECT * FROM commits"))
    assert result["tables"]["ranges"] == verify["ranges"]
    in_notes = Counter((sha, r["id"]) for sha, records in notes(history).items() for r in records)
    assert Counter(rows(out, "SELECT commit_id, record_id FROM commits")) == in_notes  # each exactly once
    expected_ranges = Counter(
        (sha, r["id"], f["path"], n, rg["start_line"], rg["end_line"], rg["content_hash"])
        for sha, records in notes(history).items() for r in records for f in r["files"]
        for n, conv in enumerate(f["conversations"]) for rg in conv.get("ranges", []))
    assert Counter(rows(out, "SELECT commit_id, record_id, path, conversation, start_line, end_line, content_hash "
                             "FROM ranges")) == expected_ranges
    # the agent's lines carry its model; a person's are human
    by_type = dict(rows(out, "SELECT contributor_type || coalesce(':' || model_id, ''), sum(lines) FROM contributors "
                             "GROUP BY 1"))
    assert by_type["ai:claude-sonnet-4"] > 0 and by_type["human"] > 0
    assert rows(out, "SELECT path, owner_count, owners FROM tree_files WHERE path IN "
                     "('misc/notes.txt', 'src/shared/auth_util.py') ORDER BY path") == [
        ("misc/notes.txt", 0, "[]"), ("src/shared/auth_util.py", 2, '["INT-001", "INT-003"]')]
    assert rows(out, "SELECT event, intent_id FROM events WHERE event = 'refusal'") == [("refusal", "INT-003")]
    [(repo_id,)] = rows(out, "SELECT repo_id FROM repositories")
    assert {r[0] for r in rows(out, "SELECT DISTINCT repo_id FROM commits")} == {repo_id}


def test_jsonl_holds_the_same_rows(history: Path, tmp_path: Path) -> None:
    gitai_json(history, "export", "-o", str(tmp_path / "t.sqlite"))
    gitai_json(history, "export", "--format", "jsonl", "-o", str(tmp_path / "t.jsonl"))
    lines = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    for name, columns in TABLES.items():
        if name == "repositories":
            continue  # exported_at differs between the two runs
        from_jsonl = Counter(tuple(row[c[0]] for c in columns) for row in lines if row["table"] == name)
        assert from_jsonl == Counter(rows(tmp_path / "t.sqlite", f"SELECT * FROM {name}")), name
        assert all(set(row) == {"table", *(c[0] for c in columns)} for row in lines if row["table"] == name)


def _sql_blocks(info: str) -> list[str]:
    return re.findall(rf"```{info}\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)


def test_documented_schema_and_queries_run_on_two_merged_repositories(history: Path, tmp_path: Path) -> None:
    text = DOCS.read_text(encoding="utf-8")
    for name, columns in TABLES.items():
        assert f"### {name}\n" in text
        for column, kind, _ in columns:
            assert f"| `{column}` | {kind} |" in text, (name, column)
    other = new_repo(tmp_path / "other")
    gitai(other, "init")
    write(other, "app.py", "def main():\n    return 0\n")
    commit(other, "app", env=AGENT, extra=("--no-verify",))  # no catalogue: no intent
    gitai_json(history, "export", "-o", str(tmp_path / "a.sqlite"))
    gitai_json(other, "export", "-o", str(tmp_path / "b.sqlite"))
    merged = tmp_path / "a.sqlite"
    [merge] = _sql_blocks("sql merge")
    with sqlite3.connect(merged) as conn:
        conn.execute(f"ATTACH '{tmp_path / 'b.sqlite'}' AS x")
        conn.executescript(merge)
    share, recent = _sql_blocks("sql")
    recent = recent.replace("'now'", f"{clock()}, 'unixepoch'")  # the commits are dated by the tests' clock
    result = rows(merged, share)
    # INT-001: login.py 6 + its reformat 4 + the shared helper 2 by the agent, token.py 2 by hand
    assert ("repo", "INT-001", 14, 12, 85.7) in result
    assert ("repo", "INT-003", 6, 2, 33.3) in result
    assert [r[4] for r in result if r[0] == "other"] == [100.0]
    assert {(r[0], r[1]) for r in rows(merged, recent)} >= {("repo", "INT-001"), ("repo", "INT-003")}


def test_export_refuses_a_directory(history: Path, tmp_path: Path) -> None:
    proc = gitai(history, "export", "-o", str(tmp_path))
    assert proc.returncode == 2 and proc.stderr.startswith("gitai: error:") and not proc.stdout


def test_a_path_that_is_not_utf8_exports_and_logs(repo: Path, tmp_path: Path) -> None:
    (repo / os.fsdecode(b"bad\xff.txt")).write_text("x\n")
    commit(repo, "odd name", extra=("--no-verify",))
    gitai_json(repo, "export", "-o", str(tmp_path / "t.sqlite"))
    gitai_json(repo, "export", "--format", "jsonl", "-o", str(tmp_path / "t.jsonl"))
    assert ("bad\\xff.txt",) in rows(tmp_path / "t.sqlite", "SELECT path FROM files")
    assert any(json.loads(line).get("path") == "bad\\xff.txt"
               for line in (tmp_path / "t.jsonl").read_text().splitlines())
    out = subprocess.run([GITAI, "log", "--limit", "1"], cwd=repo, capture_output=True)
    assert out.returncode == 0 and b"    bad\xff.txt\n" in out.stdout  # git's own bytes, as `git log --name-only`
