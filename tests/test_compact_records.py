"""Records say only what the commit changed: the compact form of
docs/trace-format.md, and every reader reading it and the verbose form of earlier versions alike."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from testing.commands import git, gitai, gitai_json, gitai_ok
from testing.repos import commit, write
from testing.templates import copy_repository
from testing.traces import note, notes, validate

from gitai.syntax.reasons import definitions_reason
from gitai.trace.record import TraceRecord, compact

PYTHON_FILE = "".join(f"def f{n}(x):\n    return x + {n}\n\n\n" for n in range(80))


def assert_compact(record: dict[str, Any]) -> None:
    """No value a reader puts back: no null (but a file's intent), no empty list or object (but the
    ones the Agent Trace schema requires), no unknown contributor, no file classification equal to the commit's, no
    definition status "modified", no reason the definitions give."""
    validate(record)

    def walk(value: Any, key: str) -> None:
        if key == "intents":
            return  # a file serving no intent says null there
        assert value is not None, f"null {key}"
        if isinstance(value, (list, dict)):
            assert value or key in ("files", "ranges"), f"empty {key}"
        for name, item in value.items() if isinstance(value, dict) else ((key, v) for v in value) if isinstance(
                value, list) else ():
            walk(item, name)

    walk(record, "")
    for entry in record["files"]:
        assert all(c.get("contributor") != {"type": "unknown"} for c in entry["conversations"])
    meta = record["metadata"]["dev.gitai"]
    expanded = TraceRecord(record).file_meta
    for path, info in meta.get("files", {}).items():
        assert info.get("classification") != meta["classification"]
        assert all(d.get("status") != "modified" for d in info.get("definitions", []))
        if "reason" in info:
            assert info["reason"] != "; ".join(definitions_reason(expanded[path]["definitions"]))


def test_a_one_line_change_to_a_big_file_lists_one_definition(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/big.py", PYTHON_FILE)
    write(repo, "src/auth/small.py", PYTHON_FILE[: PYTHON_FILE.index("def f3")])
    commit(repo, "add")
    sizes = {}
    for path in ("src/auth/big.py", "src/auth/small.py"):
        text = (repo / path).read_text()
        write(repo, path, text.replace("return x + 1\n", "return x - 1\n"))
        commit(repo, f"fix {path}")
        record = note(repo)
        assert_compact(record)
        assert record["metadata"]["dev.gitai"]["files"] == {path: {"language": "python", "definitions": [
            {"kind": "function", "name": "f1", "old_lines": [5, 6], "new_lines": [5, 6]}]}}
        info = TraceRecord(record).file_meta[path]
        assert info["classification"] == "INTENT_EVOLUTION" and info["definitions"][0]["status"] == "modified"
        assert info["reason"] == "modified: function f1 (lines 5-6)"
        sizes[path] = len(git(repo, "notes", "--ref", "gitai", "show", "HEAD").stdout)
    # the note does not grow with the definitions the change left alone (80 against 3)
    assert abs(sizes["src/auth/big.py"] - sizes["src/auth/small.py"]) < 16, sizes


def test_backfilled_history_is_compact_and_verifies(bare_repo: Path) -> None:
    repo = bare_repo
    write(repo, "a.py", PYTHON_FILE[:200])
    write(repo, "notes.txt", "one\n")
    commit(repo, "first")
    write(repo, "a.py", PYTHON_FILE[:200].replace("return x + 1", "return x + 2"))
    git(repo, "mv", "notes.txt", "notes.md")
    commit(repo, "change and rename")
    git(repo, "rm", "-q", "a.py")
    commit(repo, "delete")
    gitai_ok(repo, "init")
    assert gitai_json(repo, "backfill")["traced"] == 3
    records = [r for rs in notes(repo).values() for r in rs]
    for record in records:
        assert_compact(record)
        assert "contributor" not in json.dumps(record["files"])  # unknown: left out
    deleted = next(r for r in records if r["metadata"]["dev.gitai"].get("deleted"))
    assert deleted["metadata"]["dev.gitai"]["deleted"] == ["a.py"]
    renamed = next(r for r in records if "notes.md" in TraceRecord(r).file_meta)
    assert TraceRecord(renamed).file_meta["notes.md"]["renamed_from"] == "notes.txt"
    shown = gitai_json(repo, "log")
    assert all(entry["classification"] for entry in shown)
    assert "by:      unknown" in gitai_ok(repo, "show", "HEAD~1").stdout
    assert gitai(repo, "trace", "verify").returncode == 0


def verbose(record: dict[str, Any]) -> dict[str, Any]:
    """The record as versions before the compact form wrote it: every key, nulls and defaults."""
    old = copy.deepcopy(record)
    meta = old["metadata"]["dev.gitai"]
    for key in ("intent_id", "intent_source"):
        meta.setdefault(key, None)
    meta["files"] = {path: dict(info) for path, info in TraceRecord(record).file_meta.items()}
    meta.setdefault("deleted", [])
    for entry in old["files"]:
        for conversation in entry["conversations"]:
            conversation.setdefault("contributor", {"type": "unknown"})
    return old


def test_an_old_verbose_record_reads_as_it_was_written() -> None:
    """A record from before the compact form (unchanged definitions with hashes, nulls, a reason
    worded by an older version): the accessors give back what it says, and compacting it keeps it."""
    old = {"version": "0.1.0", "id": "4c183c94-3b9e-400c-bbf2-26e83a1f388b", "timestamp": "2026-11-01T10:00:00Z",
           "vcs": {"type": "git", "revision": "32ddbb11f210dd679439241c6619cad8bcafca67"},
           "tool": {"name": "gitai", "version": "0.1.0"},
           "files": [{"path": "src/a.py", "conversations": [{"contributor": {"type": "unknown"}, "ranges": [
               {"start_line": 3, "end_line": 3, "content_hash": "sha256:" + "0" * 64}]}]},
               {"path": "README", "conversations": [{"contributor": {"type": "unknown"}, "ranges": []}]}],
           "metadata": {"dev.gitai": {
               "intent_id": None, "intent_source": None, "classification": "INTENT_EVOLUTION", "files": {
                   "src/a.py": {"classification": "INTENT_EVOLUTION", "language": "python",
                                "reason": "changed definitions: f",
                                "definitions": [
                                    {"kind": "function", "name": "f", "status": "modified", "hash": "ts:1",
                                     "old_lines": [2, 3], "new_lines": [2, 3]},
                                    {"kind": "function", "name": "g", "status": "unchanged", "hash": "ts:2",
                                     "old_lines": [5, 6], "new_lines": [5, 6]}]},
                   "README": {"classification": "INTENT_EVOLUTION", "language": None, "definitions": []}},
               "deleted": [], "backfilled": True}}}
    validate(old)
    expanded = TraceRecord(old).file_meta
    assert expanded == old["metadata"]["dev.gitai"]["files"]
    small = compact(copy.deepcopy(old))
    validate(small)
    assert TraceRecord(small).file_meta == expanded
    assert len(json.dumps(small)) < len(json.dumps(old))


@pytest.fixture
def history_copy(history: Path, tmp_path: Path) -> Path:
    copy_path = copy_repository(history, tmp_path / "repo")
    git(copy_path, "rm", "-q", "src/billing/refund.py")
    commit(copy_path, "drop refund", extra=("--no-verify",))
    return copy_path


def test_every_reader_reads_old_verbose_records_as_the_compact_ones(history_copy: Path) -> None:
    repo = history_copy

    def readings() -> dict[str, Any]:
        return {"log": gitai_json(repo, "log", "--merges"), "stats": gitai_json(repo, "stats"),
                "map": gitai_json(repo, "map"), "show": [gitai_ok(repo, "show", c).stdout for c in commits],
                "blame": gitai_json(repo, "blame-intent", "src/auth/login.py"),
                "export": (gitai_ok(repo, "export", "--format", "jsonl", "-o", str(repo.parent / "t.jsonl")),
                           re.sub(r'"exported_at": "[^"]*"', "", (repo.parent / "t.jsonl").read_text()))[1]}

    records = notes(repo)
    commits = sorted(records)
    for rs in records.values():
        for record in rs:
            assert_compact(record)
    before = readings()
    for sha, rs in records.items():
        body = "".join(json.dumps(verbose(r), separators=(",", ":")) + "\n" for r in rs)
        git(repo, "notes", "--ref", "gitai", "add", "-f", "-m", body, sha)
    assert all(n == [verbose(r) for r in records[sha]] for sha, n in notes(repo).items())
    assert readings() == before
