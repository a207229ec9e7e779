"""Classification through the real hooks: records, `gitai classify`, `gitai map`."""

from __future__ import annotations

from pathlib import Path

from testing.commands import git, gitai, gitai_json, gitai_ok
from testing.repos import commit, write
from testing.traces import note

from gitai.trace.record import TraceRecord

APP = "def area(w, h):\n    return w * h\n\n\ndef perimeter(w, h):\n    return 2 * (w + h)\n"


def test_records_carry_classes_per_commit_file_and_definition(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/geo.py", APP)
    write(repo, "src/auth/ui.js", "export function greet(name) { return 'hi ' + name; }\n")
    commit(repo, "add")
    first = note(repo)["metadata"]["dev.gitai"]
    assert first["classification"] == "INTENT_EVOLUTION"
    assert {d["name"]: d["status"] for d in first["files"]["src/auth/geo.py"]["definitions"]} == {
        "area": "added", "perimeter": "added"}

    # reformat + reorder + quote style: meaning kept
    write(repo, "src/auth/geo.py",
          "def perimeter(w,h):\n    return 2*(w+h)\n\ndef area(w, h):  # m2\n    return (w * h)\n")
    write(repo, "src/auth/ui.js", 'export function greet(name) {\n  return "hi " + name;\n}\n')
    commit(repo, "reformat")
    record = note(repo)
    meta, files = record["metadata"]["dev.gitai"], TraceRecord(record).file_meta
    assert meta["classification"] == "AST_REFACTOR"
    assert "classification" not in meta["files"]["src/auth/geo.py"]  # the commit's: left out of the note
    assert files["src/auth/geo.py"]["classification"] == "AST_REFACTOR"
    assert files["src/auth/ui.js"]["language"] == "javascript"
    assert {d["status"] for d in files["src/auth/geo.py"]["definitions"]} == {"unchanged"}

    # one changed operator makes the commit an evolution, the other file stays a refactor
    write(repo, "src/auth/geo.py",
          "def perimeter(w,h):\n    return 2*(w-h)\n\ndef area(w, h):  # m2\n    return (w * h)\n")
    write(repo, "src/auth/ui.js", 'export function greet(name) {\n  return "hi " + name; // hello\n}\n')
    commit(repo, "bug")
    record = note(repo)
    meta, files = record["metadata"]["dev.gitai"], TraceRecord(record).file_meta
    assert meta["classification"] == "INTENT_EVOLUTION"
    assert meta["files"]["src/auth/ui.js"]["classification"] == "AST_REFACTOR"
    defs = {d["name"]: d["status"] for d in files["src/auth/geo.py"]["definitions"]}
    assert defs == {"perimeter": "modified"}  # records list what changed only
    assert "reason" not in meta["files"]["src/auth/geo.py"]  # its definitions say it
    assert files["src/auth/geo.py"]["reason"] == "modified: function perimeter (lines 1-2)"
    assert gitai(repo, "trace", "verify").returncode == 0


def test_move_between_files_and_syntax_error(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/geo.py", APP)
    commit(repo, "add")
    write(repo, "src/auth/geo.py", "def area(w, h):\n    return w * h\n")
    write(repo, "src/auth/edges.py", "def perimeter(w, h):\n    return 2 * (w + h)\n")
    commit(repo, "move")
    result = gitai_json(repo, "classify")
    assert result["classification"] == "AST_REFACTOR"
    moved = {f["path"]: f for f in result["files"]}["src/auth/edges.py"]["definitions"][0]
    assert moved["status"] == "moved" and moved["moved_from"] == {"path": "src/auth/geo.py", "name": "perimeter"}
    assert note(repo)["metadata"]["dev.gitai"]["classification"] == "AST_REFACTOR"
    write(repo, "src/auth/geo.py", "def area(w, h:\n    return w * h\n")
    commit(repo, "broken")
    info = TraceRecord(note(repo)).file_meta["src/auth/geo.py"]
    assert info["classification"] == "INTENT_EVOLUTION" and "parse error" in info.get("reason", "")


def test_classify_staged_and_bad_revision(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/geo.py", APP)
    commit(repo, "add")
    write(repo, "src/auth/geo.py", APP.replace("return w * h", "return w*h  # same"))
    git(repo, "add", "-A")
    staged = gitai_json(repo, "classify", "--staged")
    assert staged["commit"] is None and staged["classification"] == "AST_REFACTOR"
    human = gitai(repo, "classify", "--staged").stdout
    assert human.startswith("staged: AST_REFACTOR")
    assert gitai(repo, "classify", "nope").returncode == 2
    assert gitai(repo, "classify", "HEAD", "--staged").returncode == 2


def test_map_is_regenerated_deterministically(repo: Path) -> None:
    write(repo, "src/auth/a.py", "def a():\n    return 1\n")
    commit(repo, "a", env={"GITAI_INTENT": "INT-001"})
    write(repo, "src/billing/b.py", "def b():\n    return 2\n")
    commit(repo, "b", env={"GITAI_INTENT": "INT-003"})
    write(repo, "src/billing/b.py", "def b():\n    return 2  # reformat only\n")
    write(repo, "src/auth/a.py", "def a():\n    return 1  # reformat only\n")
    commit(repo, "refactor", extra=("--no-verify",), env={"GITAI_INTENT": "INT-003"})
    data = gitai_json(repo, "map")
    by_id = {i["intent_id"]: i for i in data["intents"]}
    assert [f["path"] for f in by_id["INT-001"]["files"]] == ["src/auth/a.py"]
    assert [f["path"] for f in by_id["INT-003"]["files"]] == ["src/billing/b.py"]  # the refactor does not count
    assert by_id["INT-003"]["files"][0]["commit"] == git(repo, "rev-parse", "HEAD~1").stdout.strip()
    assert by_id["INT-001"]["name"] == "JWT auth migration"
    text = (repo / ".orchestration" / "intent_map.md").read_text()
    assert "## INT-001: JWT auth migration" in text and "`src/billing/b.py`" in text
    gitai_ok(repo, "map")
    assert (repo / ".orchestration" / "intent_map.md").read_text() == text
