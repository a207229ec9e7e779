"""A team on one bare remote: a fresh clone sees the records, backfill never duplicates them, and
records two clones both made for one commit are found and brought back to one."""

from __future__ import annotations

import json
from pathlib import Path

from testing.commands import git, gitai, gitai_json, gitai_ok
from testing.repos import CATALOGUE, commit, head, write
from testing.traces import ledger, notes


def _pre_gitai_history(tmp_path: Path) -> tuple[Path, Path]:
    """A bare remote holding a history made before gitai (a catalogue, files of two intents and a
    commit touching both), and the first clone, where gitai is then set up."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    first = tmp_path / "first"
    git(tmp_path, "clone", "-q", str(remote), str(first))
    git(first, "checkout", "-q", "-b", "main")
    write(first, ".orchestration/active_intents.yaml", CATALOGUE)
    commit(first, "catalogue")
    write(first, "src/auth/login.py", "def login():\n    return 1\n")
    commit(first, "auth")
    write(first, "src/billing/pay.py", "def pay():\n    return 2\n")
    write(first, "src/auth/login.py", "def login():\n    return 3\n")
    commit(first, "auth and billing at once")
    git(first, "push", "-q", "-u", "origin", "main")
    return remote, first


def _clone(tmp_path: Path, remote: Path, name: str, *init_args: str) -> Path:
    path = tmp_path / name
    git(tmp_path, "clone", "-q", "-b", "main", str(remote), str(path))
    gitai_ok(path, "init", *init_args)
    return path


def _own_records(repo: Path) -> dict[str, list[str]]:
    return {sha: [r["id"] for r in records if r["vcs"]["revision"] == sha] for sha, records in notes(repo).items()}


def test_a_fresh_clone_sees_the_teams_records_and_backfill_adds_none(tmp_path: Path) -> None:
    remote, first = _pre_gitai_history(tmp_path)
    gitai_ok(first, "init")
    assert json.loads(gitai_ok(first, "backfill", "--json").stdout)["traced"] == 3
    gitai_ok(first, "sync")
    team = _own_records(first)
    assert len(team) == 3

    second = tmp_path / "second"
    git(tmp_path, "clone", "-q", "-b", "main", str(remote), str(second))
    init = gitai_json(second, "init")
    assert init["records_received"] == 3
    assert _own_records(second) == team  # init fetched and merged the team's notes
    assert len(ledger(second)) == 3
    shown = gitai(second, "show", "HEAD")
    assert shown.returncode == 0 and "backfill" not in shown.stdout
    assert "no traced commits" not in gitai_ok(second, "log", "--no-pager").stdout
    blame = gitai_json(second, "blame-intent", "src/auth/login.py")
    assert {line["intent_id"] for line in blame} == {"INT-001"}
    assert gitai_json(second, "backfill")["traced"] == 0

    # a teammate's new commit arrives through a plain fetch: no hook merges it, readers still see it
    write(first, "src/billing/pay.py", "def pay():\n    return 4\n")
    commit(first, "billing", env={"GITAI_INTENT": "INT-003"})
    git(first, "push", "-q")
    git(second, "fetch", "-q")  # the notes reach gitai's tracking ref; no hook runs
    before = notes(second)
    refused = gitai(second, "backfill")
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines() == [
        "gitai: error: the records fetched from origin are not merged yet (backfill would duplicate them); "
        "run 'gitai sync origin' first"]
    assert notes(second) == before  # nothing written
    shown = gitai(second, "show", "origin/main")  # a reader merges what was fetched first
    assert shown.returncode == 0 and "INT-003" in shown.stdout
    assert _own_records(second) == _own_records(first)
    assert gitai_json(second, "backfill")["traced"] == 0
    assert gitai_json(second, "trace", "verify")["ok"]


def test_two_clones_backfills_meet_once_and_duplicates_are_found_and_removed(tmp_path: Path) -> None:
    remote, first = _pre_gitai_history(tmp_path)
    gitai_ok(first, "init")
    second = _clone(tmp_path, remote, "second")  # the remote holds no notes yet
    assert notes(second) == {}
    show = gitai(second, "show", "HEAD")
    assert "gitai sync origin" in show.stdout  # a remote might hold records: backfill is not advised alone
    gitai_ok(first, "backfill")
    gitai_ok(second, "backfill")
    firsts, seconds = _own_records(first), _own_records(second)
    assert firsts.keys() == seconds.keys() and not set(sum(firsts.values(), [])) & set(sum(seconds.values(), []))
    gitai_ok(first, "sync")

    # the raw union of both clones' notes (as a plain `git notes merge` makes it): verify reports it
    git(second, "fetch", "-q")
    git(second, "-c", "user.name=t", "-c", "user.email=t@t", "notes", "--ref", "gitai", "merge", "-q",
        "-s", "cat_sort_uniq", "refs/gitai/remotes/origin/notes")
    result = gitai_json(second, "trace", "verify", code=1)
    duplicates = sorted(p["commit"] for p in result["problems"] if p["kind"] == "duplicate_record")
    assert duplicates == sorted(firsts)
    assert "duplicate_record" in gitai(second, "trace", "verify").stdout
    # rebuild keeps one record per commit: both backfilled, so the earlier one (first's) wins
    gitai_ok(second, "trace", "rebuild")
    assert _own_records(second) == firsts
    assert sorted(r["id"] for r in ledger(second)) == sorted(sum(firsts.values(), []))
    assert gitai_json(second, "trace", "verify")["ok"]
    assert gitai_json(second, "trace", "recover")["restored_to_notes"] == 0  # a removed duplicate stays removed


def test_sync_of_two_backfills_leaves_one_record_per_commit_on_the_remote(tmp_path: Path) -> None:
    remote, first = _pre_gitai_history(tmp_path)
    gitai_ok(first, "init")
    second = _clone(tmp_path, remote, "second")
    gitai_ok(first, "backfill")
    gitai_ok(second, "backfill")
    firsts = _own_records(first)
    gitai_ok(first, "sync")
    gitai_ok(second, "sync")  # merges first's records with its own, keeps one per commit, pushes
    assert _own_records(second) == firsts
    assert _own_records(remote) == firsts
    assert sorted(r["id"] for r in ledger(second)) == sorted(sum(firsts.values(), []))
    assert gitai_json(second, "trace", "verify")["ok"]
    gitai_ok(first, "sync")
    assert gitai_json(first, "trace", "verify")["ok"]
    stats = gitai_json(second, "stats")
    assert stats["commits_traced"] == 3 and head(second) == head(first)
