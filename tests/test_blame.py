"""blame-intent over histories made through the real hooks."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.commands import as_person, git, gitai, gitai_json, gitai_ok
from testing.repos import commit, head, new_repo, write
from testing.templates import Templates

CATALOGUE = """\
active_intents:
  - id: A
    name: Auth
    status: IN_PROGRESS
    owned_scope: ["src/**"]
  - id: B
    name: Billing
    status: IN_PROGRESS
    owned_scope: ["src/**"]
  - id: C
    name: Cleanup
    status: IN_PROGRESS
    owned_scope: ["src/**"]
"""

ORIGINAL = """\
def login(user):
    token = make_token(user)
    return token


def logout(user):
    drop(user)
    return True
"""

REFORMATTED = """\
def login( user ):
    # tokens are short-lived
    token = make_token( user )
    return token

def logout( user ):
    drop( user )
    return True
"""


def two_intents(repo: Path) -> None:
    """auth.py written under A, then a function added under B."""
    new_repo(repo)
    gitai_ok(repo, "init")
    write(repo, ".orchestration/active_intents.yaml", CATALOGUE)
    commit(repo, "catalogue")
    write(repo, "src/auth.py", ORIGINAL)
    commit(repo, "A writes auth", env={"GITAI_INTENT": "A"})
    write(repo, "src/auth.py", ORIGINAL + "\n\ndef charge(user):\n    return bill(user, 10)\n")
    commit(repo, "B adds charge", env={"GITAI_INTENT": "B"})


@pytest.fixture
def history(tmp_path: Path, templates: Templates) -> Path:
    return templates.make("blame-history", tmp_path / "repo", two_intents)


def blame(repo: Path, *args: str) -> list[dict]:
    return gitai_json(repo, "blame-intent", *args)


def intents(rows: list[dict]) -> list[str | None]:
    return [r["intent_id"] for r in rows]


def test_two_intents_then_reformat_is_looked_through(history: Path) -> None:
    rows = blame(history, "src/auth.py")
    assert intents(rows) == ["A"] * 8 + ["B"] * 4
    assert set(rows[0]) == {"line", "intent_id", "intent_source", "commit", "classification", "contributor", "content"}
    assert rows[0] == {"line": 1, "intent_id": "A", "intent_source": "trailer",
                       "commit": git(history, "rev-parse", "HEAD~1").stdout.strip(),
                       "classification": "INTENT_EVOLUTION",
                       "contributor": {"type": "human", "model_id": None, "session": None},
                       "content": "def login(user):"}
    write(history, "src/auth.py", REFORMATTED + "\n\ndef charge( user ):\n    return bill( user, 10 )\n")
    commit(history, "C reformats", env={"GITAI_INTENT": "C"})
    reformat = gitai_json(history, "show")[0]
    assert reformat["metadata"]["dev.gitai"]["classification"] == "AST_REFACTOR"
    rows = blame(history, "src/auth.py")
    by_content = {r["content"].strip(): r["intent_id"] for r in rows}
    assert "C" not in intents(rows)
    assert by_content["token = make_token( user )"] == "A"
    assert by_content["return bill( user, 10 )"] == "B"
    assert by_content["def logout( user ):"] == "A"


def test_changed_literal_belongs_to_the_new_intent(history: Path) -> None:
    text = (history / "src/auth.py").read_text().replace("bill(user, 10)", "bill(user, 12)")
    write(history, "src/auth.py", text)
    commit(history, "C changes the price", env={"GITAI_INTENT": "C"})
    rows = blame(history, "src/auth.py")
    changed = next(r for r in rows if "bill(user, 12)" in r["content"])
    assert changed["intent_id"] == "C" and changed["classification"] == "INTENT_EVOLUTION"
    assert next(r for r in rows if r["content"] == "def charge(user):")["intent_id"] == "B"


def test_function_moved_to_another_file_keeps_its_intent(history: Path) -> None:
    text = (history / "src/auth.py").read_text()
    logout = "def logout(user):\n    drop(user)\n    return True\n"
    write(history, "src/auth.py", text.replace(logout, ""))
    write(history, "src/session.py", logout)
    commit(history, "C moves logout", env={"GITAI_INTENT": "C"})
    assert gitai_json(history, "show")[0]["metadata"]["dev.gitai"]["classification"] == "AST_REFACTOR"
    rows = blame(history, "src/session.py")
    assert intents(rows) == ["A", "A", "A"]
    moved_from = git(history, "rev-parse", "HEAD~2").stdout.strip()
    assert {r["commit"] for r in rows} == {moved_from}


def test_trailer_only_commits_and_untraced_history(history: Path) -> None:
    as_person(history, "hooks", "uninstall")
    write(history, "src/auth.py", (history / "src/auth.py").read_text() + "\nEXTRA = 1\n")
    commit(history, "plain git, with trailer\n\nIntent: B")
    write(history, "src/auth.py", (history / "src/auth.py").read_text() + "OTHER = 2\n")
    commit(history, "plain git, no trailer")
    rows = blame(history, "src/auth.py")
    assert rows[-2]["intent_id"] == "B" and rows[-2]["classification"] is None
    assert rows[-1]["intent_id"] is None and rows[-1]["commit"] == head(history)


def test_uncommitted_lines_get_the_active_intent(history: Path) -> None:
    gitai_ok(history, "select", "C")
    write(history, "src/auth.py", (history / "src/auth.py").read_text() + "PENDING = True\n")
    rows = blame(history, "src/auth.py")
    assert rows[-1] == {"line": 13, "intent_id": "C", "intent_source": "active", "commit": None,
                        "classification": None, "contributor": None, "content": "PENDING = True"}
    human = gitai(history, "blame-intent", "src/auth.py").stdout.splitlines()
    assert human[-1].split()[:4] == ["C", "uncommit", "-", "13)"]  # "-": no contributor yet
    assert "\x1b[" not in "".join(human)  # no colour when not on a terminal
    summary = {(r["intent_id"], r["uncommitted"]): r["lines"]
               for r in gitai_json(history, "blame-intent", "src/auth.py", "--summary")}
    assert summary == {("A", False): 8, ("B", False): 4, ("C", True): 1}
    write(history, "src/new.py", "x = 1\ny = 2\n")  # no history at all
    assert intents(blame(history, "src/new.py")) == ["C", "C"]


def test_range_revision_and_porcelain(history: Path) -> None:
    rows = blame(history, "src/auth.py", "-L", "10,12")
    assert [r["line"] for r in rows] == [10, 11, 12] and intents(rows) == ["B"] * 3
    assert intents(blame(history, "src/auth.py", "-L", "8,9")) == ["A", "B"]
    old = blame(history, "src/auth.py", "--rev", "HEAD~1")
    assert len(old) == 8 and intents(old) == ["A"] * 8
    porcelain = gitai(history, "blame-intent", "src/auth.py", "--porcelain", "-L", "1,2").stdout
    sha = git(history, "rev-parse", "HEAD~1").stdout.strip()
    assert porcelain == (f"1\tA\t{sha}\tINTENT_EVOLUTION\tdef login(user):\n"
                         f"2\tA\t{sha}\tINTENT_EVOLUTION\t    token = make_token(user)\n")
    gitai_ok(history, "select", "C")
    write(history, "src/auth.py", (history / "src/auth.py").read_text() + "x = 1\n")
    last = gitai(history, "blame-intent", "src/auth.py", "--porcelain", "-L", "13,13").stdout
    assert last == "13\tC\t\t\tx = 1\n"


def test_repository_without_notes(bare_repo: Path) -> None:
    write(bare_repo, "a.txt", "one\ntwo\n")
    commit(bare_repo, "plain")
    rows = blame(bare_repo, "a.txt")
    assert intents(rows) == [None, None] and rows[0]["commit"] == head(bare_repo)


@pytest.mark.parametrize("args, fragment", [
    (("missing.py",), "no such file"),
    (("../outside.py",), "outside the repository"),
    (("src/auth.py", "--rev", "no-such-rev"), "unknown revision"),
    (("src/auth.py", "-L", "5,99"), "has only 12 lines"),
    (("src/auth.py", "-L", "x"), "expected START,END"),
    (("src/blob.bin",), "binary file"),
    (("src/auth.py", "--rev", "HEAD~2"), "does not exist at"),
])
def test_bad_input(history: Path, args: tuple[str, ...], fragment: str) -> None:
    write(history, "src/blob.bin", b"\x00\x01binary")
    proc = gitai(history, "blame-intent", *args)
    assert proc.returncode == 2
    assert proc.stderr.startswith("gitai: error: ") and fragment in proc.stderr and len(proc.stderr.splitlines()) == 1


def test_refactor_is_looked_through_in_a_file_with_an_unusual_name(bare_repo: Path) -> None:
    repo = bare_repo
    gitai_ok(repo, "init")
    write(repo, ".orchestration/active_intents.yaml", CATALOGUE)
    commit(repo, "catalogue")
    name = "src/é b.py"
    write(repo, name, "def a():\n    return 1\n\n\ndef b():\n    return 2\n")
    commit(repo, "A writes", env={"GITAI_INTENT": "A"})
    write(repo, name, "def b():\n    return 2\n\n\ndef a():\n    return 1\n")
    commit(repo, "C reorders", env={"GITAI_INTENT": "C"})
    assert gitai_json(repo, "show")[0]["metadata"]["dev.gitai"]["classification"] == "AST_REFACTOR"
    assert set(intents(blame(repo, name))) == {"A"}


def test_uncommitted_lines_do_not_spread_to_committed_neighbours(bare_repo: Path) -> None:
    repo = bare_repo
    gitai_ok(repo, "init")
    write(repo, ".orchestration/active_intents.yaml", CATALOGUE)
    commit(repo, "catalogue")
    write(repo, "src/m.py", "def f():\n    return 1\n\n\ndef g():\n    return 2\n")
    commit(repo, "A writes", env={"GITAI_INTENT": "A"})
    write(repo, "src/m.py", "def g():\n    return 2\n\n\n# separator comment\n\ndef f():\n    return 1\n")
    commit(repo, "C reorders", env={"GITAI_INTENT": "C"})
    text = (repo / "src/m.py").read_text().replace("# separator comment", "X = 5\n# separator comment")
    write(repo, "src/m.py", text)
    rows = blame(repo, "src/m.py")
    committed = [r for r in rows if r["content"] != "X = 5"]
    assert all(r["commit"] is not None and r["intent_id"] == "A" for r in committed), rows
    assert next(r for r in rows if r["content"] == "X = 5")["commit"] is None
