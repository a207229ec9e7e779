"""Catalogue loading, `gitai select` / `clear` / `intents`, and bad input (exit 2, one line, nothing written)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from testing.commands import git, gitai, gitai_json, gitai_ok
from testing.repos import CATALOGUE, commit, write


def snapshot(repo: Path) -> dict[str, bytes]:
    """Every file gitai could write, to prove a failed command wrote nothing."""
    files = {}
    for path in [*(repo / ".orchestration").rglob("*"), *(repo / ".git" / "gitai").rglob("*")]:
        if path.is_file():
            files[str(path)] = path.read_bytes()
    return files


def assert_one_line_error(proc, fragment: str) -> None:
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("gitai: error: ") and fragment in lines[0], lines[0]


def test_select_prints_escaped_intent_context(repo: Path) -> None:
    proc = gitai(repo, "select", "INT-001")
    assert proc.returncode == 0
    out = proc.stdout
    assert out.startswith('<intent_context id="INT-001">')
    assert "<name>JWT auth migration</name>" in out
    assert "<constraint>keep login() &lt;stable&gt; &amp; documented</constraint>" in out
    assert "<pattern>!src/auth/vendor/**</pattern>" in out
    assert "<criterion>tests pass</criterion>" in out
    assert (repo / ".git" / "gitai" / "active").read_text().strip() == "INT-001"


def test_select_json_and_events(repo: Path) -> None:
    data = gitai_json(repo, "select", "INT-001")
    assert data["intent_context"]["owned_scope"] == ["src/auth/**", "!src/auth/vendor/**"]
    assert data["intent_context"]["acceptance_criteria"] == ["tests pass"]
    assert gitai_json(repo, "clear") == {"previous_intent_id": "INT-001"}
    assert not (repo / ".git" / "gitai" / "active").exists()
    log = [json.loads(x) for x in (repo / ".orchestration" / "events.jsonl").read_text().splitlines()]
    assert [e["event"] for e in log] == ["select", "clear"]
    assert log[0]["intent_id"] == "INT-001" and log[1]["previous_intent_id"] == "INT-001"


def test_select_draft_moves_to_in_progress_keeping_comments(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-002")
    text = (repo / ".orchestration" / "active_intents.yaml").read_text()
    assert "    status: IN_PROGRESS   # not started\n" in text
    assert text.replace("IN_PROGRESS   # not started", "DRAFT   # not started") == CATALOGUE
    listed = {i["intent_id"]: i for i in gitai_json(repo, "intents")}
    assert listed["INT-002"]["status"] == "IN_PROGRESS" and listed["INT-002"]["active"] is True


def test_select_inserts_missing_status(repo: Path) -> None:
    write(repo, ".orchestration/active_intents.yaml",
          "intents:   # alias\n  - id: A\n    name: a   # keep me\n    owned_scope: [src/**]\n")
    gitai_ok(repo, "select", "A")
    assert (repo / ".orchestration/active_intents.yaml").read_text() == (
        "intents:   # alias\n  - id: A\n    status: IN_PROGRESS\n    name: a   # keep me\n    owned_scope: [src/**]\n"
    )


@pytest.mark.parametrize("intent, fragment", [
    ("INT-004", "INT-004 is DONE"),
    ("INT-005", "BLOCKED: waiting for the security review"),
    ("INT-404", "unknown intent 'INT-404'"),
])
def test_select_refusals(repo: Path, intent: str, fragment: str) -> None:
    before = snapshot(repo)
    assert_one_line_error(gitai(repo, "select", intent), fragment)
    assert snapshot(repo) == before


BAD_CATALOGUES = [
    ("active_intents:\n  - id: A\n    name: [unclosed\n",
     "malformed YAML: did not find expected ',' or ']' (while parsing a flow sequence started at line 3)"),
    ("active_intents:\n  - id: A\n    name: a\n", "active_intents.yaml:2: intent A: key 'owned_scope' is required"),
    ("active_intents:\n  - id: A\n    name: a\n    owned_scope: [src/**, 'a[']\n", "not a valid glob"),
    ("active_intents:\n  - id: A\n    name: a\n    owned_scope:\n      - ../outside/**\n",
     "active_intents.yaml:5: intent A: key 'owned_scope': '../outside/**' climbs out"),
    ("active_intents:\n  - id: A\n    name: a\n    owned_scope: [/etc/**]\n", "is absolute"),
    ("active_intents:\n  - id: A\n    name: a\n    owned_scope: [x]\n  - id: A\n    name: b\n    owned_scope: [y]\n",
     "active_intents.yaml:5: key 'id': duplicate intent id 'A' (first at line 2)"),
    ("active_intents:\n  - id: A\n    name: a\n    owned_scope: src/**\n", "key 'owned_scope' must be a list"),
    ("active_intents:\n  - id: A\n    name: a\n    status: WIP\n    owned_scope: [x]\n",
     "active_intents.yaml:4: intent A: key 'status': 'WIP' is not one of"),
    ("active_intents:\n  - id: 'bad id'\n    name: a\n    owned_scope: [x]\n", "is not an id"),
    ("- just a list\n", "must be a mapping"),
    ("active_intents:\n  - id: A\n    name: a\n    owned_scope: [x]\n    constraints: nope\n",
     "key 'constraints' must be a list"),
]


@pytest.mark.parametrize("text, fragment", BAD_CATALOGUES)
def test_bad_catalogue_is_refused_everywhere(repo: Path, text: str, fragment: str) -> None:
    write(repo, ".orchestration/active_intents.yaml", text)
    before = snapshot(repo)
    for args in (("select", "A"), ("intents",), ("check", "src/x.py", "--intent", "A"), ("status",)):
        assert_one_line_error(gitai(repo, *args), fragment)
    assert snapshot(repo) == before
    # the hook refuses too, with the same line, and nothing is committed
    write(repo, "src/x.py", "x\n")
    git(repo, "add", "-A")
    proc = git(repo, "commit", "-m", "x", check=False, env={"GITAI_INTENT": "A"})
    assert proc.returncode != 0 and fragment in proc.stderr


def test_bad_intentignore_names_the_line(repo: Path) -> None:
    write(repo, ".orchestration/.intentignore", "# ok\n*.lock\n../up\n")
    assert_one_line_error(gitai(repo, "check", "x"), ".intentignore:3: '../up' climbs out")


def test_not_a_repository_and_missing_catalogue(tmp_path: Path, bare_repo: Path) -> None:
    assert_one_line_error(gitai(tmp_path, "intents"), "not a git repository")
    assert_one_line_error(gitai(bare_repo, "select", "A"), "run 'gitai init'")
    assert not (bare_repo / ".orchestration").exists()


def test_usage_errors_are_one_line_exit_2(repo: Path) -> None:
    assert_one_line_error(gitai(repo, "select"), "Missing argument")
    assert_one_line_error(gitai(repo, "frobnicate"), "No such command")
    assert_one_line_error(gitai(repo, "check", "--range", "nope..HEAD"), "not a valid revision range")
    assert_one_line_error(gitai(repo, "check", "--staged", "--range", "HEAD..HEAD"), "use one of")
    assert_one_line_error(gitai(repo, "check", "../elsewhere.py"), "outside the repository")


def test_init_is_idempotent_and_never_overwrites(repo: Path) -> None:
    catalogue = (repo / ".orchestration/active_intents.yaml").read_bytes()
    data = gitai_json(repo, "init")
    assert data["created"] == []
    assert (repo / ".orchestration/active_intents.yaml").read_bytes() == catalogue
    ignored = git(repo, "check-ignore", ".orchestration/agent_trace.jsonl", ".orchestration/events.jsonl").stdout
    assert ignored.split() == [".orchestration/agent_trace.jsonl", ".orchestration/events.jsonl"]


def test_init_template_catalogue_is_valid(bare_repo: Path) -> None:
    gitai_ok(bare_repo, "init", "--no-hooks")
    assert gitai_json(bare_repo, "intents") == []
    assert not (bare_repo / ".git/hooks/pre-commit").exists()
    write(bare_repo, "README.md", "x\n")
    commit(bare_repo, "no hooks: plain git")


def test_repository_path_with_a_newline_is_refused(tmp_path: Path) -> None:
    odd = tmp_path / "new\nline"
    git(tmp_path, "init", "-q", str(odd))
    proc = gitai(odd, "init")
    assert_one_line_error(proc, "contains a newline")
    assert not (odd / ".orchestration").exists() and not (tmp_path / "new").exists()
