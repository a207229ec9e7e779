"""The seal every test runs in (tests/testing/hermetic.py) and the in-process gitai (tests/testing/commands.py):
each must hold, or the other tests prove less than they say."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from testing.commands import GITAI, git, gitai, in_process
from testing.hermetic import EPOCH, agent_variables, clock, seal, set_clock
from testing.repos import catalogued, commit, head, new_repo, write
from testing.templates import Templates


def test_every_agent_variable_of_the_registry_is_cleared(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    names = agent_variables()
    assert {"CLAUDECODE", "CODEX_THREAD_ID", "GEMINI_CLI"} <= names  # the registry was read
    for name in names:
        monkeypatch.setenv(name, "1")
    seal(monkeypatch, tmp_path)
    assert not names & set(os.environ)


def _dates(tmp: Path) -> list[str]:
    repo = new_repo(tmp)
    for n in range(3):
        write(repo, "a.txt", f"{n}\n")
        commit(repo, f"c{n}")
    return git(repo, "log", "--format=%at %ct").stdout.split("\n")[:3]


def test_commits_are_dated_by_a_clock_that_moves_on_and_repeats(tmp_path: Path) -> None:
    first = _dates(tmp_path / "one")
    newest, _, oldest = (int(line.split()[0]) for line in first)
    assert EPOCH < oldest < newest  # in the order they were made, none at the same second
    assert all(line.split()[0] == line.split()[1] for line in first)  # author and committer agree
    os.environ["GIT_COMMITTER_DATE"] = os.environ["GIT_AUTHOR_DATE"] = f"{EPOCH} +0000"  # the clock restarts
    assert _dates(tmp_path / "two") == first


@pytest.fixture(scope="module")
def first_wide(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return _dates(tmp_path_factory.mktemp("first-wide"))


@pytest.fixture(scope="module")
def second_wide(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return _dates(tmp_path_factory.mktemp("second-wide"))


def test_each_fixture_wider_than_a_test_starts_the_clock_afresh(first_wide: list[str], second_wide: list[str]) -> None:
    """Its commits' dates do not depend on which wider fixtures ran before it in the process."""
    assert first_wide == second_wide


def test_a_date_the_test_gives_is_kept(bare_repo: Path) -> None:
    write(bare_repo, "a.txt", "a\n")
    commit(bare_repo, "dated", env={"GIT_COMMITTER_DATE": "2020-01-01T00:00:00Z"})
    assert git(bare_repo, "log", "-1", "--format=%cs").stdout.strip() == "2020-01-01"


@pytest.mark.parametrize("args", [("status", "--json"), ("select", "INT-404"), ("log", "--since", "never"),
                                  ("nonsense",), ("intents",), ()])
def test_in_process_answers_as_the_script_does(repo: Path, args: tuple[str, ...]) -> None:
    script = subprocess.run([GITAI, *args], cwd=repo, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    ran = in_process(repo, *args)
    assert (ran.returncode, ran.stdout, ran.stderr) == (script.returncode, script.stdout, script.stderr)


def test_in_process_leaves_the_test_as_it_found_it(repo: Path, tmp_path: Path) -> None:
    cwd, environ = os.getcwd(), dict(os.environ)
    assert gitai(repo, "select", "INT-001", env={"GITAI_EXTRA": "1"}).returncode == 0
    assert gitai(tmp_path, "status").returncode == 2  # not a repository: an error, handled as the script does
    assert os.getcwd() == cwd
    assert {k: v for k, v in os.environ.items() if not k.endswith("_DATE")} == \
        {k: v for k, v in environ.items() if not k.endswith("_DATE")}


def test_the_locale_is_pinned(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name, value in {"LC_ALL": "de_DE.UTF-8", "LANG": "fr_FR.UTF-8", "LANGUAGE": "de"}.items():
        monkeypatch.setenv(name, value)
    seal(monkeypatch, tmp_path)
    assert (os.environ["LC_ALL"], os.environ["LANG"], os.environ.get("LANGUAGE")) == ("C.UTF-8", "C.UTF-8", None)
    shown = subprocess.run(["locale"], capture_output=True, text=True, check=True).stdout
    assert "LC_MESSAGES=\"C.UTF-8\"" in shown and "LC_COLLATE=\"C.UTF-8\"" in shown


def _built_and_committed(templates: Templates, path: Path) -> tuple[str, str, int, str]:
    """A template repository at `path`, then one commit through the hooks: what a test would see."""
    set_clock(EPOCH)
    templates.make("catalogue", path, catalogued)
    write(path, "src/auth/a.py", "A = 1\n")
    commit(path, "a", env={"GITAI_INTENT": "INT-001"})
    record = json.loads(git(path, "notes", "--ref", "gitai", "show", "HEAD").stdout)
    del record["id"], record["timestamp"]
    return head(path), json.dumps(record, sort_keys=True), clock(), git(path, "status", "--porcelain").stdout


def test_a_copied_repository_is_the_one_its_build_makes(tmp_path: Path) -> None:
    """The same commits, hooks, record and clock: the next commit in a copy is the same commit."""
    templates = Templates(tmp_path / "kept")
    built = _built_and_committed(templates, tmp_path / "built")
    copies = [_built_and_committed(templates, tmp_path / f"copy{n}") for n in range(2)]
    assert len(templates.built) == 1  # built once, copied twice
    assert copies == [built, built]
    assert built[3] == ""


def test_a_template_is_not_used_where_the_environment_differs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    templates = Templates(tmp_path / "kept")
    plain = _built_and_committed(templates, tmp_path / "plain")
    monkeypatch.setenv("GITAI_INTENT", "INT-003")  # the catalogue's commit is now INT-003's
    other = _built_and_committed(templates, tmp_path / "other")
    assert len(templates.built) == 2 and plain[:2] != other[:2]
