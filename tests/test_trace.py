"""Trace records written by the real hooks: notes, ledger, rewrites, verify and rebuild."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from testing.commands import git, gitai, gitai_json, gitai_ok
from testing.host_simulator import Agent, HostSimulator
from testing.repos import commit, head, new_repo, write
from testing.traces import expected_ranges, ledger, note, notes, record_ranges, validate

from gitai.agents.install import install_host


def test_root_and_normal_commits_record_changed_lines(bare_repo: Path) -> None:
    gitai_ok(bare_repo, "init")
    write(bare_repo, ".orchestration/active_intents.yaml",
          "intents:\n  - id: A\n    name: a\n    owned_scope: ['**']\n")
    write(bare_repo, "src/a.py", "one\ntwo\nthree\n")
    gitai_ok(bare_repo, "select", "A")
    commit(bare_repo, "root")
    root = note(bare_repo)
    assert root["vcs"] == {"type": "git", "revision": head(bare_repo)}
    assert root["tool"]["name"] == "gitai"
    assert record_ranges(root, "src/a.py") == expected_ranges(bare_repo, "HEAD", "src/a.py")
    assert record_ranges(root, "src/a.py")[0]["start_line"] == 1 and record_ranges(root, "src/a.py")[0]["end_line"] == 3
    assert root["files"][0]["conversations"][0]["related"] == [{"type": "intent", "url": "gitai:intent/A"}]
    assert root["metadata"]["dev.gitai"]["intent_id"] == "A"

    write(bare_repo, "src/a.py", "one\nTWO\nthree\nfour\nfive")  # no final newline
    write(bare_repo, "src/crlf.txt", "a\r\nb\r\nc\r\n")
    write(bare_repo, "src/latin1.txt", "caf\xe9\n".encode("latin-1"))
    write(bare_repo, "src/blob.bin", b"\x00\x01\x02binary")
    write(bare_repo, "src/with space\nand newline.txt", "odd\n")
    os.symlink("a.py", bare_repo / "src" / "link.py")
    commit(bare_repo, "second")
    record = note(bare_repo)
    for path in ("src/a.py", "src/crlf.txt", "src/latin1.txt", "src/with space\nand newline.txt"):
        assert record_ranges(record, path) == expected_ranges(bare_repo, "HEAD", path), path
    assert [(r["start_line"], r["end_line"]) for r in record_ranges(record, "src/a.py")] == [(2, 2), (4, 5)]
    assert record_ranges(record, "src/blob.bin") == []
    assert record_ranges(record, "src/link.py") == []
    files_meta = record["metadata"]["dev.gitai"]["files"]
    assert files_meta["src/blob.bin"]["content"] == "binary"
    assert files_meta["src/link.py"]["content"] == "symlink"
    # the ledger line is the note, byte for byte
    assert ledger(bare_repo)[-1] == record
    assert [r["vcs"]["revision"] for r in ledger(bare_repo)] == [
        git(bare_repo, "rev-parse", "HEAD~1").stdout.strip(), head(bare_repo)]
    git(bare_repo, "rm", "-q", "src/crlf.txt")
    commit(bare_repo, "delete")
    assert note(bare_repo)["metadata"]["dev.gitai"]["deleted"] == ["src/crlf.txt"]
    assert gitai(bare_repo, "trace", "verify").returncode == 0


def test_unattributed_and_agent_contributor(repo: Path) -> None:
    write(repo, "src/auth/x.py", "x = 1\n")
    commit(repo, "sneak", extra=("--no-verify",))
    record = note(repo)
    assert "intent_id" not in record["metadata"]["dev.gitai"]
    assert "related" not in record["files"][0]["conversations"][0]
    assert record["files"][0]["conversations"][0]["contributor"] == {"type": "human"}
    write(repo, "src/auth/x.py", "x = 2\n")
    commit(repo, "agent", env={"GITAI_INTENT": "INT-001", "GITAI_AGENT": "claude-code",
                                "GITAI_MODEL": "anthropic/claude-sonnet-4-5"})
    contributor = note(repo)["files"][0]["conversations"][0]["contributor"]
    assert contributor == {"type": "ai", "model_id": "anthropic/claude-sonnet-4-5"}
    write(repo, "src/auth/x.py", "x = 3\n")
    install_host("claude-code", str(repo))  # a session gitai's hooks saw (else the commit is refused)
    Agent(HostSimulator("claude-code", repo, dict(os.environ)), "traced").start()
    commit(repo, "claude code", "src/auth", env={"GITAI_INTENT": "INT-001", "CLAUDECODE": "1"})
    assert note(repo)["files"][0]["conversations"][0]["contributor"] == {"type": "ai"}


def test_empty_commit_and_merge_commit(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    git(repo, "commit", "-q", "--allow-empty", "-m", "empty")
    assert note(repo)["files"] == []
    write(repo, "src/auth/m.py", "a\nb\nc\n")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "side")
    write(repo, "src/auth/m.py", "a\nb\nc side\n")
    write(repo, "src/auth/side.py", "side\n")
    commit(repo, "side")
    git(repo, "checkout", "-q", "main")
    write(repo, "src/auth/m.py", "a main\nb\nc\n")
    commit(repo, "main")
    git(repo, "merge", "-q", "--no-edit", "side")
    merge = note(repo)  # written by post-merge: git merge does not run post-commit
    # a clean merge brings nothing new of its own: every line is in one parent
    assert all(record_ranges(merge, f["path"]) == [] for f in merge["files"])
    # a conflict resolved by hand: only the resolution lines belong to the merge
    git(repo, "checkout", "-q", "-b", "side2", "HEAD~1")
    write(repo, "src/auth/m.py", "a main\nb side2\nc\n")
    commit(repo, "side2")
    git(repo, "checkout", "-q", "main")
    write(repo, "src/auth/m.py", "a main\nb main\nc side\n")
    commit(repo, "main2")
    assert git(repo, "merge", "-q", "side2", check=False).returncode != 0
    write(repo, "src/auth/m.py", "a main\nb resolved\nc side\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-edit")
    resolved = note(repo)
    assert [(r["start_line"], r["end_line"]) for r in record_ranges(resolved, "src/auth/m.py")] == [(2, 2)]
    assert gitai(repo, "trace", "verify").returncode == 0


def test_amend_records_new_commit_once(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/a.py", "a\nb\n")
    commit(repo, "first")
    old = head(repo)
    write(repo, "src/auth/a.py", "a\nb\nc\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--amend", "--no-edit")
    new = head(repo)
    record = note(repo)
    assert record["vcs"]["revision"] == new
    assert record["metadata"]["dev.gitai"]["rewritten_from"] == [old]
    assert record_ranges(record, "src/auth/a.py") == expected_ranges(repo, "HEAD", "src/auth/a.py")
    assert [r["vcs"]["revision"] for r in ledger(repo)].count(new) == 1
    assert notes(repo)[old][0]["vcs"]["revision"] == old  # the old commit keeps its own record
    assert gitai(repo, "trace", "verify").returncode == 0


def test_interactive_rebase_reorder_and_squash(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    for name in ("a", "b", "c"):
        write(repo, f"src/auth/{name}.py", f"{name} = 1\n")
        commit(repo, f"add {name}")
    olds = git(repo, "rev-list", "--reverse", "HEAD~3..HEAD").stdout.split()
    # todo: c first, then a, then b squashed into a
    editor = "python3 -c \"import sys; p=sys.argv[1]; l=[x for x in open(p) if x.startswith('pick')]; " \
             "open(p,'w').write(l[2]+l[0]+l[1].replace('pick','squash',1))\""
    git(repo, "rebase", "-q", "-i", "HEAD~3", env={"GIT_SEQUENCE_EDITOR": editor, "GIT_EDITOR": "true"})
    news = git(repo, "rev-list", "--reverse", "HEAD~2..HEAD").stdout.split()
    by_new = {sha: note(repo, sha) for sha in news}
    assert by_new[news[0]]["metadata"]["dev.gitai"]["rewritten_from"] == [olds[2]]
    assert sorted(by_new[news[1]]["metadata"]["dev.gitai"]["rewritten_from"]) == sorted([olds[0], olds[1]])
    for sha, record in by_new.items():
        assert record["metadata"]["dev.gitai"]["intent_id"] == "INT-001"
        for entry in record["files"]:
            assert record_ranges(record, entry["path"]) == expected_ranges(repo, sha, entry["path"])
    lines = [r["vcs"]["revision"] for r in ledger(repo)]
    assert all(lines.count(sha) == 1 for sha in news)
    assert gitai(repo, "trace", "verify").returncode == 0


def test_cherry_pick_takes_intent_from_trailer(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, "src/billing/p.py", "p = 1\n")
    commit(repo, "billing", env={"GITAI_INTENT": "INT-003"})
    picked = head(repo)
    git(repo, "checkout", "-q", "main")
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/diverge.py", "d\n")
    commit(repo, "diverge")
    git(repo, "cherry-pick", picked, env={"GITAI_INTENT": "INT-003"})
    record = note(repo)
    assert record["vcs"]["revision"] == head(repo) != picked
    assert record["metadata"]["dev.gitai"]["intent_id"] == "INT-003"


def test_post_commit_never_fails_a_commit(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    (repo / ".orchestration" / "agent_trace.jsonl").unlink()
    (repo / ".orchestration" / "agent_trace.jsonl").mkdir()  # the ledger cannot be written
    write(repo, "src/auth/a.py", "x\n")
    proc = commit(repo, "still committed")
    assert "gitai: warning: post-commit hook failed" in proc.stderr
    assert git(repo, "log", "-1", "--format=%s").stdout.strip() == "still committed"
    assert "Traceback" in (repo / ".git" / "gitai" / "errors.log").read_text()


def test_crash_truncated_ledger_is_detected_not_rewritten(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/a.py", "x\n")
    commit(repo, "one")
    path = repo / ".orchestration" / "agent_trace.jsonl"
    with path.open("a") as handle:
        handle.write('{"version":"0.1.0","id":"torn')
    result = gitai_json(repo, "trace", "verify", code=1)
    assert any(p["kind"] == "ledger_line" and "partial last line" in p["message"] for p in result["problems"])
    write(repo, "src/auth/a.py", "y\n")
    commit(repo, "two")
    text = path.read_text()
    assert '"id":"torn\n' in text  # kept as it was
    assert json.loads(text.splitlines()[-1])["vcs"]["revision"] == head(repo)
    result = gitai_json(repo, "trace", "verify", code=1)
    assert [p["kind"] for p in result["problems"]] == ["ledger_line"]
    assert "not valid JSON" in result["problems"][0]["message"]


def test_verify_detects_tampering_and_rebuild_matches_hooks(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    for n in range(3):
        write(repo, "src/auth/a.py", "".join(f"line {i} {n}\n" for i in range(n + 2)))
        commit(repo, f"c{n}")
    ledger_path = repo / ".orchestration" / "agent_trace.jsonl"
    written_by_hooks = ledger_path.read_bytes()
    assert gitai(repo, "trace", "rebuild").returncode == 0
    assert ledger_path.read_bytes() == written_by_hooks
    # a note whose hash no longer matches git's content
    record = note(repo)
    record["files"][0]["conversations"][0]["ranges"][0]["content_hash"] = "sha256:" + "0" * 64
    git(repo, "notes", "--ref", "gitai", "add", "-f", "-m", json.dumps(record), "HEAD")
    result = gitai_json(repo, "trace", "verify", code=1)
    kinds = {p["kind"] for p in result["problems"]}
    assert "hash_mismatch" in kinds and "ledger_differs" in kinds
    ledger_path.unlink()
    result = gitai_json(repo, "trace", "verify", code=1)
    assert {p["kind"] for p in result["problems"]} >= {"note_only"}


def test_concurrent_commits_from_four_worktrees(repo: Path, tmp_path: Path) -> None:
    trees = []
    for n in range(4):
        path = tmp_path / f"wt{n}"
        git(repo, "worktree", "add", "-q", "-b", f"b{n}", str(path))
        trees.append(path)
    errors: list[str] = []

    def work(path: Path, n: int) -> None:
        for i in range(3):
            write(path, f"src/auth/w{n}_{i}.py", f"v = {i}\n")
            proc = commit(path, f"w{n} {i}", env={"GITAI_INTENT": "INT-001"}, check=False)
            if proc.returncode != 0 or "warning" in proc.stderr:
                errors.append(proc.stderr)

    threads = [threading.Thread(target=work, args=(p, n)) for n, p in enumerate(trees)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    records = ledger(repo)  # the shared ledger of the main worktree
    all_notes = notes(repo)
    new = [r for r in records if r["metadata"]["dev.gitai"].get("intent_id") == "INT-001"]
    assert len(new) == 12 and len({r["vcs"]["revision"] for r in new}) == 12
    for record in new:
        validate(record)
        assert all_notes[record["vcs"]["revision"]] == [record]
    assert gitai(repo, "trace", "verify").returncode == 0


def test_backfill_history_made_by_plain_git(bare_repo: Path) -> None:
    write(bare_repo, ".orchestration/active_intents.yaml",
          "intents:\n  - id: A\n    name: a\n    owned_scope: [a/**]\n"
          "  - id: B\n    name: b\n    owned_scope: [b/**]\n")
    commit(bare_repo, "catalogue")
    write(bare_repo, "a/x.py", "x\n")
    commit(bare_repo, "by scope")
    write(bare_repo, "b/y.py", "y\n")
    commit(bare_repo, "by trailer\n\nIntent: A")
    write(bare_repo, "a/z.py", "z\n")
    write(bare_repo, "b/z.py", "z\n")
    commit(bare_repo, "mixed")
    first = gitai_json(bare_repo, "backfill", "--range", "HEAD~3..HEAD~1")
    assert first["traced"] == 2
    result = gitai_json(bare_repo, "backfill")
    assert result["traced"] == 2 and result["skipped"] == 2
    log = {e["subject"]: e for e in gitai_json(bare_repo, "log")}
    assert log["by scope"]["intent_id"] == "A"
    assert log["by trailer"]["intent_id"] == "A"
    assert log["mixed"]["intent_id"] is None and log["catalogue"]["intent_id"] is None
    assert log["mixed"]["intents"] == [{"path": "a/z.py", "intent_id": "A"}, {"path": "b/z.py", "intent_id": "B"}]
    assert "contributor" not in note(bare_repo)["files"][0]["conversations"][0]  # unknown: left out
    assert gitai_json(bare_repo, "backfill")["traced"] == 0
    by_a = gitai_json(bare_repo, "log", "A")
    assert [e["subject"] for e in by_a] == ["mixed", "by trailer", "by scope"]
    assert by_a[0]["files"] == ["a/z.py"]
    assert gitai(bare_repo, "trace", "verify").returncode == 0


def test_show_and_log_output(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/a.py", "a\nb\n")
    commit(repo, "auth work")
    shown = gitai(repo, "show")
    assert shown.returncode == 0
    assert "intent:  INT-001" in shown.stdout and "src/auth/a.py: 1-2" in shown.stdout
    assert gitai_json(repo, "show", "HEAD")[0]["vcs"]["revision"] == head(repo)
    untraced = gitai(repo, "show", "HEAD~1")  # the catalogue commit predates the hooks' catalogue? no: traced
    assert untraced.returncode == 0
    assert gitai(repo, "show", "no-such-rev").returncode == 2
    entries = gitai_json(repo, "log", "INT-001")
    assert entries[0]["subject"] == "auth work" and entries[0]["files"] == ["src/auth/a.py"]


def test_sync_with_divergent_clones_loses_nothing(repo: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "origin", "main")
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(remote), str(other))
    assert gitai(other, "hooks", "install").returncode == 0
    # clone A traces a commit and pushes the commit but not its notes
    write(repo, "src/auth/a.py", "a\n")
    commit(repo, "from A", env={"GITAI_INTENT": "INT-001"})
    shared = head(repo)
    git(repo, "push", "-q", "origin", "main")
    # clone B gets the commit, traces it differently (backfill), and adds its own commit
    git(other, "pull", "-q", "origin", "main")
    write(other, "src/billing/b.py", "b\n")
    commit(other, "from B", env={"GITAI_INTENT": "INT-003"})
    gitai_json(other, "backfill")
    b_only = head(other)
    assert gitai(repo, "sync").returncode == 0
    assert gitai(other, "sync").returncode == 0
    assert gitai(repo, "sync").returncode == 0
    a_notes, b_notes = notes(repo), notes(other)
    assert set(b_notes) <= set(a_notes) and set(a_notes) <= set(b_notes)
    # one record per commit, the same in both clones: A's (made at commit time) over B's backfill
    assert len(a_notes[shared]) == 1 and a_notes[shared] == b_notes[shared]
    assert "backfilled" not in a_notes[shared][0]["metadata"]["dev.gitai"]
    assert b_only in a_notes
    ids = {r["id"] for rs in a_notes.values() for r in rs}
    assert {r["id"] for r in ledger(repo)} == ids and {r["id"] for r in ledger(other)} == ids
    assert gitai(repo, "trace", "verify").returncode == 0
    assert gitai(other, "trace", "verify").returncode == 0
    assert gitai(repo, "sync", "nowhere").returncode == 2


def test_large_file_and_submodule_bump(repo: Path, tmp_path: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/big.txt", b"line\n" * (11 * 1024 * 1024 // 5))
    commit(repo, "big")
    ranges = record_ranges(note(repo), "src/auth/big.txt")
    assert ranges == expected_ranges(repo, "HEAD", "src/auth/big.txt")
    write(repo, ".orchestration/.intentignore", ".gitmodules\n")
    lib = new_repo(tmp_path / "lib")
    write(lib, "l.txt", "1\n")
    git(lib, "add", "-A")
    git(lib, "commit", "-qm", "l")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "src/auth/lib")
    git(repo, "commit", "-qm", "add submodule")
    record = note(repo)
    assert record["metadata"]["dev.gitai"]["files"]["src/auth/lib"]["content"] == "submodule"
    assert record_ranges(record, "src/auth/lib") == []


def test_path_that_is_not_utf8_is_recorded(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    name = b"caf\xe9.txt"
    (repo / "src" / "auth").mkdir(parents=True, exist_ok=True)
    (repo / "src" / "auth").joinpath(name.decode("utf-8", "surrogateescape")).write_bytes(b"latin-1 name\n")
    proc = commit(repo, "odd name")
    assert "warning" not in proc.stderr
    record = note(repo)
    assert record["files"][0]["path"] == "src/auth/" + name.decode("utf-8", "surrogateescape")
    assert ledger(repo)[-1] == record
    assert gitai(repo, "trace", "verify").returncode == 0
    assert gitai_json(repo, "show")[0] == record
    assert gitai_json(repo, "log")[0]["files"] == [record["files"][0]["path"]]


def test_rebase_that_keeps_commits_adds_no_records(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    for name in ("a", "b"):
        write(repo, f"src/auth/{name}.py", f"{name} = 1\n")
        commit(repo, f"add {name}")
    before = len(ledger(repo))
    git(repo, "rebase", "-q", "-x", "true", "HEAD~2")
    assert len(ledger(repo)) == before
    assert gitai(repo, "trace", "verify").returncode == 0


def test_separate_git_dir_worktrees_share_one_ledger(tmp_path: Path) -> None:
    main = tmp_path / "main"
    git(tmp_path, "init", "-q", "-b", "main", "--separate-git-dir", str(tmp_path / "store.git"), str(main))
    gitai_ok(main, "init")
    write(main, ".orchestration/active_intents.yaml", "intents:\n  - id: A\n    name: a\n    owned_scope: ['**']\n")
    commit(main, "catalogue")
    linked = tmp_path / "linked"
    git(main, "worktree", "add", "-q", "-b", "other", str(linked))
    write(linked, "x.txt", "x\n")
    commit(linked, "from the linked worktree", env={"GITAI_INTENT": "A"})
    # git cannot tell a linked worktree where this main worktree is: both use the common git dir
    shared = tmp_path / "store.git" / "gitai" / "agent_trace.jsonl"
    revisions = [json.loads(line)["vcs"]["revision"] for line in shared.read_text().splitlines()]
    assert revisions[-1] == head(linked) and revisions[-2] == head(main)
    assert gitai(linked, "trace", "verify").returncode == 0
    assert gitai(main, "trace", "verify").returncode == 0


def test_ledger_directory_created_by_a_hook_is_ignored(repo: Path, tmp_path: Path) -> None:
    git(repo, "checkout", "-q", "--orphan", "bare-branch")
    git(repo, "rm", "-rq", "--cached", ".")
    import shutil

    shutil.rmtree(repo / ".orchestration")
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", str(linked), "main")
    write(linked, "src/auth/a.py", "a\n")
    commit(linked, "traced from the linked worktree", env={"GITAI_INTENT": "INT-001"})
    assert (repo / ".orchestration" / "agent_trace.jsonl").exists()
    assert ".orchestration" not in git(repo, "status", "--porcelain").stdout


def test_malformed_note_from_elsewhere_is_reported_not_fatal(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/a.py", "a\n")
    commit(repo, "a")
    git(repo, "notes", "--ref", "gitai", "add", "-f", "-m", '{"vcs":"x","metadata":[]}', "HEAD~1")
    result = gitai_json(repo, "trace", "verify", code=1)
    assert [p["kind"] for p in result["problems"]] == ["bad_record", "ledger_only"]
    for args in (("log",), ("show", "HEAD~1"), ("map",), ("blame-intent", "src/auth/a.py"), ("backfill",)):
        proc = gitai(repo, *args)
        assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, (args, proc.stderr)


def test_binary_rules_follow_the_new_content(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/data", b"\x00binary\x01")
    commit(repo, "binary")
    write(repo, "src/auth/data", "now\ntext\n")
    commit(repo, "binary to text")
    assert [(r["start_line"], r["end_line"]) for r in record_ranges(note(repo), "src/auth/data")] == [(1, 2)]
    import hashlib

    assert record_ranges(note(repo), "src/auth/data")[0]["content_hash"] == (
        "sha256:" + hashlib.sha256(b"now\ntext").hexdigest())


def test_backfill_refuses_a_broken_catalogue(repo: Path) -> None:
    write(repo, ".orchestration/active_intents.yaml", "active_intents: [\n")
    proc = gitai(repo, "backfill")
    assert proc.returncode == 2 and "malformed YAML" in proc.stderr
