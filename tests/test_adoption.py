"""Adopting gitai on a real history: honest (per-file, marked) backfill and where intents came from."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.commands import git, gitai, gitai_json
from testing.repos import commit, write
from testing.traces import note, validate

CATALOGUE = ("active_intents:\n"
             "  - id: A\n    name: a\n    status: IN_PROGRESS\n    owned_scope: [a/**]\n"
             "  - id: B\n    name: b\n    status: IN_PROGRESS\n    owned_scope: [b/**]\n")


@pytest.fixture
def spanning(bare_repo: Path) -> Path:
    """Plain-git history (no hooks): a commit per intent, then one spanning both, then one declared."""
    repo = bare_repo
    write(repo, ".orchestration/active_intents.yaml", CATALOGUE)
    commit(repo, "catalogue")
    write(repo, "a/x.py", "def x():\n    return 1\n")
    commit(repo, "a only")
    write(repo, "a/x.py", "def x():\n    return 2\n")
    write(repo, "b/y.py", "def y():\n    return 3\n")
    write(repo, "notes.txt", "unowned\n")
    commit(repo, "spans a and b")
    write(repo, "b/y.py", "def y():\n    return 4\n")
    commit(repo, "declared\n\nIntent: B")
    return repo


def test_backfill_gives_each_file_its_owner_and_says_it_inferred(spanning: Path) -> None:
    result = gitai_json(spanning, "backfill")
    assert result["intent_from"] == {"trailer": 1, "scope": 2, "unattributed": 1} and result["several_intents"] == 1
    record = note(spanning, "HEAD~1")
    meta = record["metadata"]["dev.gitai"]
    assert "intent_id" not in meta and meta["intent_source"] == "scope"  # compact form: no null values
    assert meta["intents"] == {"a/x.py": "A", "b/y.py": "B", "notes.txt": None}
    related = {f["path"]: f["conversations"][0].get("related") for f in record["files"]}
    assert related == {"a/x.py": [{"type": "intent", "url": "gitai:intent/A"}],
                       "b/y.py": [{"type": "intent", "url": "gitai:intent/B"}], "notes.txt": None}
    single = note(spanning, "HEAD~2")["metadata"]["dev.gitai"]
    assert single["intent_id"] == "A" and single["intent_source"] == "scope" and "intents" not in single
    declared = note(spanning, "HEAD")["metadata"]["dev.gitai"]
    assert declared["intent_id"] == "B" and declared["intent_source"] == "trailer"
    assert "intent_source" not in note(spanning, "HEAD~3")["metadata"]["dev.gitai"]  # catalogue: exempt

    # blame-intent: per-file intents of the spanning commit, inferred ones marked
    rows = gitai_json(spanning, "blame-intent", "a/x.py")
    assert [(r["intent_id"], r["intent_source"]) for r in rows] == [("A", "scope"), ("A", "scope")]
    assert [r["intent_id"] for r in gitai_json(spanning, "blame-intent", "b/y.py")] == ["B", "B"]
    assert gitai_json(spanning, "blame-intent", "b/y.py")[1]["intent_source"] == "trailer"
    assert "~A " in gitai(spanning, "blame-intent", "a/x.py").stdout
    hidden = gitai_json(spanning, "blame-intent", "--declared-only", "b/y.py")
    assert [(r["intent_id"], r["intent_source"]) for r in hidden] == [(None, None), ("B", "trailer")]

    # log and map read per-file intents; --declared-only leaves the inferred out
    by_b = gitai_json(spanning, "log", "B")
    assert [(e["subject"], e["files"], e["intent_source"]) for e in by_b] == [
        ("declared", ["b/y.py"], "trailer"), ("spans a and b", ["b/y.py"], "scope")]
    assert [e["subject"] for e in gitai_json(spanning, "log", "--declared-only")] == ["declared", "catalogue"]
    assert "~A" in gitai(spanning, "log").stdout
    mapped = {i["intent_id"]: i["files"] for i in gitai_json(spanning, "map")["intents"]}
    assert [(f["path"], f["intent_source"]) for f in mapped["A"]] == [("a/x.py", "scope")]
    assert [(f["path"], f["intent_source"]) for f in mapped["B"]] == [("b/y.py", "trailer")]
    assert "| ~" in (spanning / ".orchestration/intent_map.md").read_text()
    declared_map = {i["intent_id"] for i in gitai_json(spanning, "map", "--declared-only")["intents"]}
    assert declared_map == {"B"}
    assert gitai(spanning, "trace", "verify").returncode == 0


def test_backfill_infer_none_declares_nothing_it_was_not_told(spanning: Path) -> None:
    result = gitai_json(spanning, "backfill", "--infer", "none")
    assert result["intent_from"] == {"trailer": 1, "scope": 0, "unattributed": 3}
    meta = note(spanning, "HEAD~1")["metadata"]["dev.gitai"]
    assert not {"intent_id", "intent_source", "intents"} & set(meta)
    assert gitai(spanning, "backfill", "--infer", "guess").returncode == 2


def test_hooks_say_whether_the_trailer_or_the_selection_named_the_intent(repo: Path) -> None:
    gitai(repo, "select", "INT-001")
    write(repo, "src/auth/a.py", "a\n")
    commit(repo, "declared by the commit-msg hook's trailer")
    assert note(repo)["metadata"]["dev.gitai"]["intent_source"] == "trailer"
    write(repo, "src/auth/a.py", "b\n")
    commit(repo, "no commit-msg hook", extra=("--no-verify",))
    assert "Intent:" not in git(repo, "log", "-1", "--format=%B").stdout
    record = note(repo)
    validate(record)
    assert record["metadata"]["dev.gitai"]["intent_id"] == "INT-001"
    assert record["metadata"]["dev.gitai"]["intent_source"] == "active"
    assert "(active)" in gitai(repo, "show").stdout
