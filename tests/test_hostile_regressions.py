"""Regression tests for hostile input, through the real `gitai` command and real hooks.
The table of bad input x command is test_hostile_input.py; these are the cases that need hooks,
several processes, a peer, history rewrites or an odd repository."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from testing.commands import GITAI, git, gitai, gitai_json
from testing.repos import commit, head, write
from testing.traces import ledger, note, notes, validate


def one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert len(lines) == 1 and lines[0].startswith("gitai: error: "), proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    return lines[0]


def verify(repo: Path) -> dict:  # type: ignore[type-arg]
    proc = gitai(repo, "trace", "verify", "--json")
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


# --- 1. committed symlinks ---------------------------------------------------------------------


def test_symlinked_ledger_never_written_hook_keeps_the_note(repo: Path, tmp_path: Path) -> None:
    target = tmp_path / "stolen.jsonl"
    ledger_path = repo / ".orchestration" / "agent_trace.jsonl"
    ledger_path.unlink()
    os.symlink(target, ledger_path)
    write(repo, "src/auth/a.py", "a = 1\n")
    done = commit(repo, "under a linked ledger", env={"GITAI_INTENT": "INT-001"})
    assert not target.exists()
    assert "symbolic link" in done.stderr and "note only" in done.stderr
    assert note(repo)["metadata"]["dev.gitai"]["intent_id"] == "INT-001"  # the note is still written
    assert "symbolic link" in one_error_line(gitai(repo, "trace", "rebuild"))
    assert not target.exists()


def test_symlinked_orchestration_is_refused_by_init_and_hooks(bare_repo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, bare_repo / ".orchestration")
    assert "symbolic link" in one_error_line(gitai(bare_repo, "init"))
    assert list(elsewhere.iterdir()) == []
    assert gitai(bare_repo, "hooks", "install").returncode == 0
    write(bare_repo, "a.txt", "a\n")
    commit(bare_repo, "commit with hooks", extra=("--no-verify",))
    assert list(elsewhere.iterdir()) == []  # neither ledger nor .gitignore written through the link
    assert notes(bare_repo)  # ... but the commit is traced in its note


# --- 2 and the malicious peer: crafted notes through sync ----------------------------------------


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_sync_with_a_malicious_peer(repo: Path, tmp_path: Path) -> None:
    """A peer pushes deep, wrongly typed and huge notes, then forces the notes ref: nothing crashes,
    bad records are reported (bad_record) and never trusted, and no record of ours is lost."""
    write(repo, "src/auth/mine.py", "def mine():\n    return 1\n")
    commit(repo, "mine", env={"GITAI_INTENT": "INT-001"})
    ours = note(repo)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "origin", "main")
    assert gitai_json(repo, "sync")["pushed"] is True

    peer = tmp_path / "peer"
    git(tmp_path, "clone", "-q", str(remote), str(peer))
    git(peer, "fetch", "-q", "origin", "refs/notes/gitai:refs/notes/gitai")
    write(peer, "src/auth/p1.py", "x = 1\n")
    git(peer, "add", "-A")
    git(peer, "commit", "-q", "-m", "p1")
    write(peer, "docs/p2.md", "y\n")
    git(peer, "add", "-A")
    git(peer, "commit", "-q", "-m", "p2")
    write(peer, "docs/p3.md", "z\n")
    git(peer, "add", "-A")
    git(peer, "commit", "-q", "-m", "p3")
    p1, p2, p3 = (git(peer, "rev-parse", f"HEAD~{n}").stdout.strip() for n in (2, 1, 0))
    wrong_types = json.loads(json.dumps(ours))
    wrong_types["vcs"]["revision"] = p2
    wrong_types["id"] = "wrong-types"
    wrong_types["metadata"]["dev.gitai"]["files"] = ["src/auth/p1.py"]
    wrong_types["metadata"]["dev.gitai"]["intent_id"] = 7
    deep = tmp_path / "deep.txt"
    deep.write_text(_deep(100_000))
    git(peer, "notes", "--ref", "gitai", "add", "-f", "-F", str(deep), p1)
    git(peer, "notes", "--ref", "gitai", "add", "-f", "-m", json.dumps(wrong_types), p2)
    huge = tmp_path / "huge.txt"
    huge.write_text("[" * (33 * 1024 * 1024) + "\n")
    git(peer, "notes", "--ref", "gitai", "add", "-f", "-F", str(huge), p3)
    git(peer, "push", "-q", "origin", "main", "refs/notes/gitai:refs/notes/gitai")
    git(repo, "pull", "-q", "--no-rebase", "origin", "main")

    assert gitai_json(repo, "sync")["received"] == 0  # nothing valid arrived, nothing crashed
    result = verify(repo)
    assert {p["commit"] for p in result["problems"] if p["kind"] == "bad_record"} == {p1, p2, p3}
    for command in (["show", p1], ["show", p2], ["log"], ["map"], ["blame-intent", "docs/p2.md"], ["trace", "rebuild"],
                    ["backfill"]):
        proc = gitai(repo, *command)
        assert proc.returncode in (0, 1), (command, proc.stderr)
        assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, (command, proc.stderr)
    blamed = gitai_json(repo, "blame-intent", "docs/p2.md")
    assert all(isinstance(line["intent_id"], (str, type(None))) for line in blamed)
    assert verify(repo)["ok"] is True  # backfill replaced the crafted notes with records of its own

    # The peer replaces the notes wholesale and forces them onto the remote: ours are not lost
    git(peer, "update-ref", "-d", "refs/notes/gitai")
    git(peer, "notes", "--ref", "gitai", "add", "-f", "-m", "{}", p1)
    git(peer, "push", "-q", "-f", "origin", "refs/notes/gitai:refs/notes/gitai")
    gitai_json(repo, "sync")
    assert ours["id"] in {r.get("id") for records in notes(repo).values() for r in records}
    assert ours["id"] in {r["id"] for r in ledger(repo)}


# --- 3. a forced notes fetch, and the repair that keeps data ----------------------------------------


def test_forced_notes_fetch_is_recovered_not_deleted(repo: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    write(repo, "src/auth/a.py", "a = 1\n")
    commit(repo, "synced", env={"GITAI_INTENT": "INT-001"})
    git(repo, "push", "-q", "origin", "main")
    gitai(repo, "sync")
    write(repo, "src/auth/b.py", "b = 1\n")
    commit(repo, "unsynced 1", env={"GITAI_INTENT": "INT-001"})
    write(repo, "src/auth/c.py", "c = 1\n")
    commit(repo, "unsynced 2", env={"GITAI_INTENT": "INT-001"})
    before = {r["id"] for r in ledger(repo)}
    git(repo, "fetch", "-q", "origin", "+refs/notes/*:refs/notes/*")  # the common mistake
    result = verify(repo)
    lost = [p for p in result["problems"] if p["kind"] == "ledger_only"]
    assert len(lost) == 2 and all("gitai trace recover" in p["message"] for p in lost)
    refused = one_error_line(gitai(repo, "trace", "rebuild"))  # the last copies: never dropped silently
    assert "gitai trace recover" in refused and "--force" in refused
    assert {r["id"] for r in ledger(repo)} == before

    # the ledger is damaged too: only the notes reflog still holds one of them
    path = repo / ".orchestration" / "agent_trace.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-1]))
    recovered = gitai_json(repo, "trace", "recover")
    assert recovered["restored_to_notes"] == 2 and recovered["from_reflog"] == 1
    assert recovered["appended_to_ledger"] == 1
    assert verify(repo)["ok"] is True
    assert {r["id"] for r in ledger(repo)} == before
    assert gitai_json(repo, "trace", "recover")["restored_to_notes"] == 0  # idempotent
    assert gitai_json(repo, "trace", "rebuild")["records"] == len(before)


# --- 4. amend, reword, revert: the scope rule or intent_verified: false ------------------------------


def test_amend_and_revert_under_a_foreign_intent_are_marked_unverified(repo: Path) -> None:
    write(repo, "src/auth/a.py", "a = 1\n")
    commit(repo, "auth work", env={"GITAI_INTENT": "INT-001"})
    assert "intent_verified" not in note(repo)["metadata"]["dev.gitai"]  # the gate checked it
    git(repo, "commit", "--amend", "-q", "-m", "amended\n\nIntent: INT-002", env={"GITAI_INTENT": "INT-002"})
    amended = note(repo)
    assert amended["metadata"]["dev.gitai"]["intent_id"] == "INT-002"
    assert amended["metadata"]["dev.gitai"]["intent_verified"] is False
    validate(amended)

    write(repo, "docs/x.md", "x\n")
    commit(repo, "docs", env={"GITAI_INTENT": "INT-002"})
    git(repo, "revert", "--no-edit", "HEAD", env={"GITAI_INTENT": "INT-001"})
    reverted = note(repo)
    assert reverted["metadata"]["dev.gitai"]["intent_id"] == "INT-001"
    assert reverted["metadata"]["dev.gitai"]["intent_verified"] is False
    shown = gitai(repo, "show")
    assert "unverified" in shown.stdout


def test_reword_to_a_foreign_intent_is_marked_unverified(repo: Path, tmp_path: Path) -> None:
    write(repo, "src/auth/a.py", "a = 1\n")
    commit(repo, "auth work", env={"GITAI_INTENT": "INT-001"})
    editor = tmp_path / "reword.sh"
    editor.write_text('#!/bin/sh\nsed -i "s/^Intent: INT-001/Intent: INT-002/" "$1"\n')
    editor.chmod(0o755)
    git(repo, "rebase", "-q", "-i", "HEAD~1",
        env={"GIT_SEQUENCE_EDITOR": "sed -i 's/^pick/reword/'", "GIT_EDITOR": str(editor)})
    reworded = note(repo)
    assert reworded["metadata"]["dev.gitai"]["intent_id"] == "INT-002"
    assert reworded["metadata"]["dev.gitai"]["intent_verified"] is False


# --- 5. concurrent backfills ---------------------------------------------------------------------


def test_concurrent_backfills_never_duplicate(bare_repo: Path) -> None:
    for n in range(30):
        write(bare_repo, f"f{n}.txt", f"{n}\n")
        git(bare_repo, "add", "-A")
        git(bare_repo, "commit", "-q", "-m", f"c{n}")
    runs = [subprocess.Popen([GITAI, "backfill", "--json"], cwd=bare_repo, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outputs = [run.communicate() for run in runs]
    assert all(run.returncode == 0 for run in runs), outputs
    assert sum(json.loads(out)["traced"] for out, _ in outputs) == 30
    assert len(ledger(bare_repo)) == 30
    assert all(len(records) == 1 for records in notes(bare_repo).values())
    assert verify(bare_repo)["ok"] is True


# --- 6. sync: the remote is a remote, never an option ----------------------------------------------


def test_sync_remote_is_never_an_option_and_a_path_works(repo: Path, tmp_path: Path) -> None:
    pwned = tmp_path / "pwned"
    for bad in (f"--upload-pack=touch {pwned}", f"ext::sh -c touch% {pwned}", "-q"):
        one_error_line(gitai(repo, "sync", "--", bad))
    assert not pwned.exists()
    remote = tmp_path / "by-path.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    write(repo, "src/auth/a.py", "a = 1\n")
    commit(repo, "a", env={"GITAI_INTENT": "INT-001"})
    assert gitai_json(repo, "sync", str(remote))["pushed"] is True
    assert git(remote, "rev-parse", "refs/notes/gitai").stdout.strip()
    assert gitai_json(repo, "sync", f"file://{remote}")["pushed"] is True


# --- 7, 9, 10, 12: the pre-commit hook on a hostile catalogue or active intent ----------------------


def test_hook_refuses_a_deep_catalogue_with_one_line(repo: Path) -> None:
    write(repo, ".orchestration/active_intents.yaml", "active_intents: " + "[" * 50_000 + "]" * 50_000)
    write(repo, "src/auth/a.py", "a = 1\n")
    done = commit(repo, "a", env={"GITAI_INTENT": "INT-001"}, check=False)
    assert done.returncode != 0
    errors = [line for line in done.stderr.splitlines() if line.startswith("gitai:")]
    assert len(errors) == 1 and "nested more than" in errors[0], done.stderr
    assert "Traceback" not in done.stderr


def test_hook_refuses_a_catalogue_that_is_a_directory_with_one_line(repo: Path) -> None:
    path = repo / ".orchestration" / "active_intents.yaml"
    path.unlink()
    path.mkdir()
    write(repo, "src/auth/a.py", "a = 1\n")
    done = commit(repo, "a", env={"GITAI_INTENT": "INT-001"}, check=False)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("gitai:")]
    assert len(errors) == 1 and "active_intents.yaml" in errors[0] and "internal" not in errors[0], done.stderr


def test_non_utf8_active_intent_file_is_repairable(repo: Path) -> None:
    state = Path(git(repo, "rev-parse", "--path-format=absolute", "--git-path", "gitai").stdout.strip())
    state.mkdir(exist_ok=True)
    (state / "active").write_bytes(b"INT-\xff\xfe\n")
    status = gitai(repo, "status")
    assert status.returncode == 0 and "not in the catalogue" in status.stdout, status.stderr
    write(repo, "src/auth/a.py", "a = 1\n")
    refused = commit(repo, "a", check=False)
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert gitai(repo, "select", "INT-001").returncode == 0  # the command that repairs it works
    commit(repo, "a")


# --- 8. SHA-256 repositories -------------------------------------------------------------------------


def test_sha256_repository_reads_without_pygit2(tmp_path: Path) -> None:
    path = tmp_path / "sha256"
    path.mkdir()
    git(path, "init", "-q", "--object-format=sha256", "-b", "main")
    assert gitai(path, "init").returncode == 0
    write(path, ".orchestration/active_intents.yaml",
          "active_intents:\n  - id: A\n    name: a\n    status: IN_PROGRESS\n    owned_scope: ['src/**']\n")
    commit(path, "catalogue")
    write(path, "src/a.py", "a = 1\n")
    commit(path, "a", env={"GITAI_INTENT": "A"})
    write(path, "src/b.py", "b = 1\n")
    commit(path, "untraced", env={"GITAI_INTENT": "A"}, extra=("--no-verify",))
    git(path, "notes", "--ref", "gitai", "remove", "HEAD")
    sha = head(path)
    assert len(sha) == 64
    result = verify(path)
    assert result["missing_commits"] == [sha] and result["problems"] != []  # the removed note's ledger line
    assert gitai_json(path, "backfill")["traced"] == 1
    assert [e["intent_id"] for e in gitai_json(path, "log")][:2] == ["A", "A"]
    assert gitai_json(path, "show")[0]["vcs"]["revision"] == sha
    assert gitai_json(path, "trace", "rebuild", "--force")["records"] == 3
    assert verify(path)["ok"] is True


# --- 11. ranges and paths ------------------------------------------------------------------------------


def test_blame_never_follows_a_committed_symlink(repo: Path) -> None:
    os.symlink("/etc/hostname", repo / "src-link")
    commit(repo, "a link", extra=("--no-verify",))
    line = one_error_line(gitai(repo, "blame-intent", "src-link"))
    assert "symbolic link" in line
    os.symlink("/etc", repo / "etc-dir")
    one_error_line(gitai(repo, "blame-intent", "etc-dir/hostname"))


# --- 13. a note holding a duplicated line ---------------------------------------------------------------


def test_duplicated_note_line_is_repaired_by_rebuild(repo: Path) -> None:
    write(repo, "src/auth/a.py", "a = 1\n")
    commit(repo, "a", env={"GITAI_INTENT": "INT-001"})
    body = git(repo, "notes", "--ref", "gitai", "show", "HEAD").stdout
    git(repo, "notes", "--ref", "gitai", "add", "-f", "-m", body.strip() + "\n" + body.strip(), "HEAD")
    gitai(repo, "trace", "rebuild")
    assert verify(repo)["ok"] is True
    assert len(ledger(repo)) == len({r["id"] for r in ledger(repo)})


# --- 14. a stale refs/notes/gitai.lock --------------------------------------------------------------------


def test_stale_notes_lock_is_broken_and_a_live_one_is_named(repo: Path) -> None:
    lock = Path(git(repo, "rev-parse", "--path-format=absolute", "--git-path", "refs/notes/gitai.lock").stdout.strip())
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text("")
    old = time.time() - 3600
    os.utime(lock, (old, old))
    write(repo, "src/auth/a.py", "a = 1\n")
    commit(repo, "after a kill", env={"GITAI_INTENT": "INT-001"})
    assert not lock.exists()
    assert note(repo)["metadata"]["dev.gitai"]["intent_id"] == "INT-001"
    lock.write_text("")  # fresh: a git process may be updating the ref right now
    write(repo, "src/auth/b.py", "b = 1\n")
    done = commit(repo, "while locked", env={"GITAI_INTENT": "INT-001"})
    assert str(lock) in done.stderr and "remove" in done.stderr
    lock.unlink()


# --- also: verify reports commits without a record; the ledger byte for byte; backfill --all ---------


def untraced_commit(repo: Path, path: str, message: str) -> str:
    write(repo, path, message + "\n")
    git(repo, "add", "-A")
    git(repo, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", message)
    return head(repo)


def test_verify_counts_missing_commits_and_is_strict_about_the_ledger(repo: Path) -> None:
    untraced = untraced_commit(repo, "src/auth/a.py", "untraced on main")
    git(repo, "checkout", "-q", "-b", "side")
    side = untraced_commit(repo, "src/auth/side.py", "untraced on a side branch")
    git(repo, "checkout", "-q", "main")
    listed = gitai(repo, "trace", "verify", "--missing")
    assert listed.returncode == 0, listed.stdout
    assert f"missing: {untraced}" in listed.stdout and "1 commits reachable from HEAD have no record" in listed.stdout
    assert "gitai backfill" in listed.stdout and side not in listed.stdout  # only HEAD's history counts
    assert gitai_json(repo, "backfill")["commits"] == [untraced]
    assert verify(repo)["missing"] == 0
    assert gitai_json(repo, "backfill", "--all")["commits"] == [side]

    path = repo / ".orchestration" / "agent_trace.jsonl"
    original = path.read_bytes()
    path.write_bytes(original.replace(b"\n", b"\r\n", 1))
    assert "ledger_line" in [p["kind"] for p in verify(repo)["problems"]]
    path.write_bytes(original + b"\n")
    assert "ledger_line" in [p["kind"] for p in verify(repo)["problems"]]
    path.write_bytes(original)
    assert verify(repo)["ok"] is True


@pytest.mark.parametrize("argv", [["show", "HEAD~1..HEAD"], ["check", "--range", ""], ["backfill", "--range", ""],
                                  ["blame-intent", ".git/config"]])
def test_ranges_and_paths_through_the_real_cli(repo: Path, argv: list[str]) -> None:
    one_error_line(gitai(repo, *argv))


def test_nul_in_catalogue_and_newline_in_intent_are_one_line(repo: Path) -> None:
    write(repo, ".orchestration/active_intents.yaml", "active_intents:\n  - id: A\x00\n")
    one_error_line(gitai(repo, "intents"))
    write(repo, ".orchestration/active_intents.yaml", "active_intents: []\n")
    line = one_error_line(gitai(repo, "select", "INT\n001"))
    assert "INT\\n001" in line


def test_notes_on_commits_git_no_longer_has_are_orphaned_not_problems(repo: Path) -> None:
    dangling = git(repo, "commit-tree", "HEAD^{tree}", "-m", "dangling").stdout.strip()
    record = note(repo)
    record["vcs"]["revision"], record["id"] = dangling, "0rphan00-0000-4000-8000-000000000000"
    git(repo, "notes", "--ref", "gitai", "add", "-m", json.dumps(record), dangling)
    git(repo, "prune", "--expire=now")
    result = verify(repo)
    assert result["orphaned"] == [dangling]
    assert [p["kind"] for p in result["problems"]] == ["note_only"]  # orphaned is not a problem
