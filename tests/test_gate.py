"""The pre-commit gate and commit-msg trailer, through real `git commit`."""

from __future__ import annotations

import json
import os
from pathlib import Path

from testing.commands import git, gitai, gitai_json, gitai_ok
from testing.repos import commit, head, new_repo, write


def events(repo: Path) -> list[dict]:
    path = repo / ".orchestration" / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_in_scope_commit_passes_and_gets_one_trailer(repo: Path) -> None:
    assert gitai(repo, "select", "INT-001").returncode == 0
    write(repo, "src/auth/login.py", "def login():\n    return 1\n")
    commit(repo, "add login")
    message = git(repo, "log", "-1", "--format=%B").stdout
    assert message.count("Intent: INT-001") == 1
    # amend keeps exactly one trailer
    write(repo, "src/auth/login.py", "def login():\n    return 2\n")
    git(repo, "add", "-A")
    git(repo, "commit", "--amend", "--no-edit")
    assert git(repo, "log", "-1", "--format=%B").stdout.count("Intent:") == 1


def test_existing_trailer_is_kept(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    write(repo, ".orchestration/.intentignore", "*.txt\n")
    write(repo, "notes.txt", "x = 1\n")  # exempt: fits any intent
    commit(repo, "work\n\nIntent: INT-003")
    trailers = git(repo, "log", "-1", "--format=%(trailers:key=Intent,valueonly)").stdout.split()
    assert trailers == ["INT-003"]


def test_out_of_scope_refused_naming_owners(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    before = head(repo)
    write(repo, "src/auth/ok.py", "x = 1\n")
    write(repo, "docs/guide.md", "text\n")
    write(repo, "tools/x.sh", "echo\n")
    proc = commit(repo, "mixed", check=False)
    assert proc.returncode != 0
    assert head(repo) == before
    assert "outside the scope of INT-001" in proc.stderr
    assert "docs/guide.md  owned by: INT-002" in proc.stderr
    assert "tools/x.sh" in proc.stderr and "no intent" in proc.stderr
    assert "src/auth/ok.py" not in proc.stderr
    assert "gitai select INT-002" in proc.stderr
    refusal = [e for e in events(repo) if e["event"] == "refusal"][-1]
    assert {v["path"] for v in refusal["violations"]} == {"docs/guide.md", "tools/x.sh"}


def test_deletion_and_both_sides_of_rename_are_checked(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-002")
    write(repo, "docs/a.md", "a\n")
    commit(repo, "docs")
    gitai_ok(repo, "select", "INT-001")
    git(repo, "rm", "-q", "docs/a.md")
    proc = git(repo, "commit", "-m", "delete docs", check=False)
    assert proc.returncode != 0 and "docs/a.md" in proc.stderr
    git(repo, "reset", "-q", "--hard")
    (repo / "src/auth").mkdir(parents=True)
    git(repo, "mv", "docs/a.md", "src/auth/a.md")
    proc = git(repo, "commit", "-m", "move docs into auth", check=False)
    assert proc.returncode != 0
    assert "docs/a.md" in proc.stderr and "src/auth/a.md" not in proc.stderr


def test_negated_pattern_and_intentignore(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/vendor/lib.py", "x = 1\n")
    proc = commit(repo, "vendor", check=False)
    assert proc.returncode != 0 and "src/auth/vendor/lib.py" in proc.stderr
    write(repo, ".orchestration/.intentignore", "# vendored code is anyone's\nsrc/auth/vendor/\n*.lock\n")
    write(repo, "poetry.lock", "lock\n")
    commit(repo, "vendor and lock")
    assert "Intent: INT-001" in git(repo, "log", "-1", "--format=%B").stdout


def test_no_active_intent_refused_but_orchestration_only_passes(repo: Path) -> None:
    write(repo, "src/auth/a.py", "x = 1\n")
    proc = commit(repo, "no intent", check=False)
    assert proc.returncode != 0
    assert "no active intent" in proc.stderr and "src/auth/a.py" in proc.stderr
    git(repo, "reset", "-q")
    write(repo, ".orchestration/AGENT.md", "# lesson\n")
    commit(repo, "lesson", ".orchestration")
    assert "Intent:" not in git(repo, "log", "-1", "--format=%B").stdout


def test_empty_repository_first_commit_goes_through_the_gate(bare_repo: Path) -> None:
    assert gitai(bare_repo, "init").returncode == 0
    write(bare_repo, ".orchestration/active_intents.yaml",
          "active_intents:\n  - id: A\n    name: a\n    owned_scope: [src/**]\n")
    write(bare_repo, "src/x.py", "x = 1\n")
    proc = commit(bare_repo, "first", check=False)
    assert proc.returncode != 0 and "no active intent" in proc.stderr
    assert gitai(bare_repo, "select", "A").returncode == 0
    commit(bare_repo, "first")
    assert "Intent: A" in git(bare_repo, "log", "-1", "--format=%B").stdout


def test_gitai_intent_env_overrides_worktree_selection(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/billing/pay.py", "x = 1\n")
    assert commit(repo, "billing", check=False).returncode != 0
    commit(repo, "billing", env={"GITAI_INTENT": "INT-003"})
    assert "Intent: INT-003" in git(repo, "log", "-1", "--format=%B").stdout


def test_linked_worktree_has_its_own_selection(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    git(repo, "worktree", "add", "-q", "-b", "billing", str(other))
    gitai_ok(repo, "select", "INT-001")
    assert gitai(other, "status", "--json").returncode == 0
    assert gitai_json(other, "status")["intent_id"] is None
    gitai_ok(other, "select", "INT-003")
    assert gitai_json(repo, "status")["intent_id"] == "INT-001"
    write(other, "src/billing/a.py", "x = 1\n")
    commit(other, "billing in worktree")
    assert "Intent: INT-003" in git(other, "log", "-1", "--format=%B").stdout
    write(other, "src/auth/b.py", "x = 1\n")
    assert commit(other, "auth in billing worktree", check=False).returncode != 0


def test_paths_with_spaces_unicode_and_newlines(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/with space.py", "a = 1\n")
    write(repo, "src/auth/ünïcode.py", "b = 1\n")
    write(repo, "src/auth/new\nline.py", "c = 1\n")
    commit(repo, "odd names")
    write(repo, "docs/odd\nname.md", "d\n")
    proc = commit(repo, "odd out of scope", check=False)
    assert proc.returncode != 0
    assert '"docs/odd\\nname.md"' in proc.stderr
    result = gitai_json(repo, "check", "--staged", code=1)
    assert result["violations"] == [{"path": "docs/odd\nname.md", "owners": ["INT-002"], "reason": "out_of_scope"}]


def test_detached_head_commit(repo: Path) -> None:
    git(repo, "checkout", "-q", "--detach")
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/d.py", "x = 1\n")
    commit(repo, "detached")
    assert "Intent: INT-001" in git(repo, "log", "-1", "--format=%B").stdout


def test_empty_message_still_aborts(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/e.py", "x = 1\n")
    git(repo, "add", "-A")
    proc = git(repo, "commit", "-m", "", check=False)
    assert proc.returncode != 0
    assert git(repo, "log", "-1", "--format=%s").stdout.strip() == "add catalogue"


def test_check_range_flags_no_verify_commits(repo: Path) -> None:
    base = head(repo)
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/a.py", "x = 1\n")
    commit(repo, "good")
    write(repo, "docs/sneaky.md", "x\n")
    commit(repo, "sneaky", extra=("--no-verify",))
    sneaky = head(repo)
    write(repo, "docs/tagged.md", "x\n")
    commit(repo, "tagged but out of scope\n\nIntent: INT-001", extra=("--no-verify",))
    result = gitai_json(repo, "check", "--range", f"{base}..HEAD", code=1)
    assert result["ok"] is False
    by_path = {v["path"]: v for v in result["violations"]}
    assert by_path["docs/sneaky.md"]["reason"] == "no_intent_trailer"
    assert by_path["docs/sneaky.md"]["commit"] == sneaky
    assert by_path["docs/tagged.md"]["reason"] == "out_of_scope"
    assert by_path["docs/tagged.md"]["owners"] == ["INT-002"]
    assert "src/auth/a.py" not in by_path
    assert gitai(repo, "check", "--range", f"{base}..{base}").returncode == 0


def test_check_paths_and_staged_with_custom_index(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    assert gitai_json(repo, "check", "src/auth/x.py", ".orchestration/x") == {
        "ok": True, "intent_id": "INT-001", "paths_checked": 2, "exempt": [".orchestration/x"], "violations": []}
    out = gitai_json(repo, "check", "README.md", "--intent", "INT-001", code=1)
    assert out["violations"][0]["owners"] == ["INT-002"]
    write(repo, "docs/x.md", "x\n")
    index = repo / ".git" / "alt-index"
    env = {"GIT_INDEX_FILE": str(index)}
    git(repo, "read-tree", "HEAD", env=env)
    git(repo, "add", "docs/x.md", env=env)
    assert gitai_json(repo, "check", "--staged", code=0) == {
        "ok": True, "intent_id": "INT-001", "paths_checked": 0, "exempt": [], "violations": []}
    out = gitai_json(repo, "check", "--staged", env=env, code=1)
    assert [v["path"] for v in out["violations"]] == ["docs/x.md"]


def test_status_lists_staged_paths(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/a.py", "x\n")
    write(repo, "docs/b.md", "x\n")
    git(repo, "add", "-A")
    status = gitai_json(repo, "status")
    assert status["intent_id"] == "INT-001" and status["source"] == "worktree" and status["ok"] is False
    rows = {r["path"]: r for r in status["staged"]}
    assert rows["src/auth/a.py"]["scope"] == "in"
    assert rows["docs/b.md"] == {"path": "docs/b.md", "scope": "out", "owners": ["INT-002"]}
    human = gitai(repo, "status").stdout
    assert "OUT" in human and "docs/b.md" in human and "INT-001" in human


def test_missing_gitai_installation_fails_with_one_line(repo: Path) -> None:
    hook = Path(git(repo, "rev-parse", "--git-path", "hooks").stdout.strip())
    if not hook.is_absolute():
        hook = repo / hook
    script = (hook / "pre-commit").read_text()
    (hook / "pre-commit").write_text(script.replace("GITAI_PYTHON='", "GITAI_PYTHON='/nonexistent"))
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/a.py", "x\n")
    proc = commit(repo, "x", check=False)
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if line.startswith("gitai:")]
    assert len(lines) == 1 and "gitai hooks install" in lines[0]


def test_submodule_gets_its_own_hooks(repo: Path, tmp_path: Path) -> None:
    lib = new_repo(tmp_path / "lib")
    write(lib, "lib.py", "x = 1\n")
    git(lib, "add", "-A")
    git(lib, "commit", "-qm", "lib")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "ext/lib")
    sub = repo / "ext" / "lib"
    assert gitai(sub, "init").returncode == 0
    hooks_dir = git(sub, "rev-parse", "--path-format=absolute", "--git-path", "hooks").stdout.strip()
    assert "modules" in hooks_dir and os.path.exists(os.path.join(hooks_dir, "pre-commit"))
    write(sub, ".orchestration/active_intents.yaml", "intents:\n  - id: L\n    name: lib\n    owned_scope: ['*.py']\n")
    commit(sub, "catalogue")
    gitai_ok(sub, "select", "L")
    write(sub, "lib.py", "x = 2\n")
    commit(sub, "lib change")
    assert "Intent: L" in git(sub, "log", "-1", "--format=%B").stdout


def test_hand_written_trailer_must_fit_its_intent(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/a.py", "x = 1\n")
    before = head(repo)
    proc = commit(repo, "claims billing\n\nIntent: INT-003", check=False)
    assert proc.returncode != 0 and head(repo) == before
    assert "outside the scope of INT-003" in proc.stderr and "src/auth/a.py" in proc.stderr
    write(repo, "src/billing/b.py", "y = 1\n")
    git(repo, "reset", "-q")
    commit(repo, "billing after all\n\nIntent: INT-003", "src/billing/b.py", env={"GITAI_INTENT": "INT-003"})
    assert git(repo, "log", "-1", "--format=%(trailers:key=Intent,valueonly)").stdout.split() == ["INT-003"]


def test_concluding_a_merge_checks_only_the_resolution(repo: Path) -> None:
    write(repo, "src/shared/conf.py", "a = 1\nb = 2\n")
    commit(repo, "shared", env={"GITAI_INTENT": "INT-003"})
    git(repo, "checkout", "-q", "-b", "docs")
    write(repo, "docs/guide.md", "guide\n")
    write(repo, "src/shared/conf.py", "a = 1\nb = 3\n")
    commit(repo, "docs work", env={"GITAI_INTENT": "INT-002"}, extra=("--no-verify",))
    git(repo, "checkout", "-q", "main")
    write(repo, "src/shared/conf.py", "a = 1\nb = 4\n")
    commit(repo, "billing work", env={"GITAI_INTENT": "INT-003"})
    assert git(repo, "merge", "-q", "docs", check=False).returncode != 0  # conflict in conf.py
    write(repo, "src/shared/conf.py", "a = 1\nb = 5\n")
    git(repo, "add", "-A")
    # docs/guide.md comes from the other branch: not this merge's work; conf.py is, and fits INT-003
    proc = git(repo, "commit", "-q", "--no-edit", check=False, env={"GITAI_INTENT": "INT-003"})
    assert proc.returncode == 0, proc.stderr
    git(repo, "checkout", "-q", "-b", "again", "HEAD~1")
    assert git(repo, "merge", "-q", "docs", check=False).returncode != 0
    write(repo, "src/shared/conf.py", "a = 1\nb = 6\n")
    git(repo, "add", "-A")
    proc = git(repo, "commit", "-q", "--no-edit", check=False, env={"GITAI_INTENT": "INT-001"})
    assert proc.returncode != 0 and "src/shared/conf.py" in proc.stderr and "docs/guide.md" not in proc.stderr


def test_check_range_sees_an_evil_merge(repo: Path) -> None:
    base = head(repo)
    git(repo, "checkout", "-q", "-b", "side")
    write(repo, "src/auth/side.py", "s = 1\n")
    commit(repo, "side", env={"GITAI_INTENT": "INT-001"})
    git(repo, "checkout", "-q", "main")
    write(repo, "src/auth/main.py", "m = 1\n")
    commit(repo, "main", env={"GITAI_INTENT": "INT-001"})
    git(repo, "merge", "-q", "--no-commit", "side")
    write(repo, "docs/evil.md", "not part of either side\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "merge side\n\nIntent: INT-001")
    result = gitai_json(repo, "check", "--range", f"{base}..HEAD", code=1)
    assert [(v["path"], v["reason"]) for v in result["violations"]] == [("docs/evil.md", "out_of_scope")]
    assert result["violations"][0]["commit"] == head(repo)


def test_closed_intents_take_no_commits(repo: Path) -> None:
    write(repo, "blocked/x.py", "x\n")
    proc = commit(repo, "blocked work", env={"GITAI_INTENT": "INT-005"}, check=False)
    assert proc.returncode != 0 and "INT-005 (Waiting) is BLOCKED" in proc.stderr
    result = gitai_json(repo, "check", "blocked/x.py", "--intent", "INT-005", code=1)
    assert result["violations"][0]["reason"] == "intent_closed"


def test_intentignore_leading_slash_anchors(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    write(repo, ".orchestration/.intentignore", "/dist/\n")
    write(repo, "dist/bundle.js", "x\n")
    commit(repo, "root dist is anyone's")
    write(repo, "src/auth/dist/x.js", "x\n")
    write(repo, "lib/dist/y.js", "y\n")
    proc = commit(repo, "nested dist is not exempt", check=False)
    assert proc.returncode != 0 and "lib/dist/y.js" in proc.stderr


def test_clean_merge_of_a_file_both_sides_edited_is_not_the_merges_work(repo: Path) -> None:
    base = head(repo)
    write(repo, "src/auth/a.py", "".join(f"line{i}\n" for i in range(9)))
    commit(repo, "a", env={"GITAI_INTENT": "INT-001"})
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, "src/auth/a.py", (repo / "src/auth/a.py").read_text().replace("line8", "line8 feature"))
    commit(repo, "feature edit", env={"GITAI_INTENT": "INT-001"})
    git(repo, "checkout", "-q", "main")
    write(repo, "src/auth/a.py", (repo / "src/auth/a.py").read_text().replace("line0", "line0 main"))
    commit(repo, "main edit", env={"GITAI_INTENT": "INT-001"})
    git(repo, "merge", "-q", "--no-commit", "--no-ff", "feature")
    proc = git(repo, "commit", "-q", "--no-edit", check=False, env={"GITAI_INTENT": "INT-003"})
    assert proc.returncode == 0, proc.stderr
    trailers = git(repo, "log", "-1", "--format=%(trailers:key=Intent,valueonly)").stdout.split()
    assert trailers == ["INT-003"]
    assert gitai_json(repo, "check", "--range", f"{base}..HEAD") == {
        "ok": True, "intent_id": None, "commits_checked": 4, "exempt": [], "violations": []}


def test_merge_commit_made_by_git_merge_gets_a_real_trailer(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, "src/auth/f.py", "f\n")
    commit(repo, "feature")
    git(repo, "checkout", "-q", "main")
    write(repo, "src/auth/m.py", "m\n")
    commit(repo, "main")
    git(repo, "merge", "-q", "--no-edit", "feature")
    assert git(repo, "log", "-1", "--format=%(trailers:key=Intent,valueonly)").stdout.split() == ["INT-001"]


def test_blank_gitai_intent_is_no_intent(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/a.py", "a\n")
    commit(repo, "work", env={"GITAI_INTENT": "   "})
    assert git(repo, "log", "-1", "--format=%(trailers:key=Intent,valueonly)").stdout.split() == ["INT-001"]


def test_branch_without_orchestration_is_still_gated_and_traced(repo: Path) -> None:
    git(repo, "checkout", "-q", "--orphan", "old")
    git(repo, "rm", "-rq", "--cached", ".")
    import shutil

    shutil.rmtree(repo / ".orchestration")
    write(repo, "src/auth/a.py", "a\n")
    proc = commit(repo, "on a branch that predates gitai", "src/auth/a.py", check=False)
    assert proc.returncode != 0 and "no intent catalogue" in proc.stderr  # the gate still runs
    proc = commit(repo, "skip the gate", "src/auth/a.py", extra=("--no-verify",))
    assert "warning" not in proc.stderr
    assert gitai_json(repo, "show")[0]["vcs"]["revision"] == head(repo)  # and the trace too


def test_merge_in_a_linked_worktree_gets_a_real_trailer(repo: Path, tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", "-b", "work", str(linked))
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, "src/auth/f.py", "f\n")
    commit(repo, "feature", env={"GITAI_INTENT": "INT-001"})
    write(linked, "src/auth/w.py", "w\n")
    commit(linked, "work", env={"GITAI_INTENT": "INT-001"})
    git(linked, "merge", "-q", "--no-edit", "feature", env={"GITAI_INTENT": "INT-001"})
    assert git(linked, "log", "-1", "--format=%(trailers:key=Intent,valueonly)").stdout.split() == ["INT-001"]


def test_a_catalogue_edit_of_the_same_size_reaches_the_gate_through_its_cache(repo: Path) -> None:
    """The compiled scopes are cached in the git dir; an edit that keeps the catalogue's size still
    recompiles them (the cache keeps the very bytes it was compiled from)."""
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/a.py", "x = 1\n")
    commit(repo, "in scope")  # compiles and caches the scopes
    catalogue = repo / ".orchestration" / "active_intents.yaml"
    text = catalogue.read_text()
    edited = text.replace('"src/auth/**"', '"src/autx/**"', 1)
    assert edited != text and len(edited) == len(text)
    catalogue.write_text(edited)
    before = head(repo)
    write(repo, "src/auth/b.py", "x = 2\n")
    proc = commit(repo, "now out of scope", "src/auth/b.py", check=False)  # the edit itself stays unstaged
    assert proc.returncode != 0 and "src/auth/b.py" in proc.stderr
    assert head(repo) == before
