"""Hook installation: chaining foreign hooks, uninstall restoring them, core.hooksPath, worktrees."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from testing.commands import as_person, git, gitai, gitai_json, gitai_ok
from testing.repos import commit, write

FOREIGN = "#!/bin/sh\necho foreign-hook-ran >> \"$(git rev-parse --git-dir)/foreign.log\"\nexit ${FOREIGN_EXIT:-0}\n"


def test_foreign_hook_is_chained_and_restored_byte_for_byte(bare_repo: Path) -> None:
    hooks = bare_repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    foreign = hooks / "pre-commit"
    foreign.write_text(FOREIGN)
    foreign.chmod(0o750)
    assert gitai(bare_repo, "init").returncode == 0
    assert (hooks / "pre-commit.gitai-chained").read_text() == FOREIGN
    own = bare_repo / ".git" / "gitai" / "hooks"  # gitai's commit-msg alone, for hosts that turn hooks off
    assert os.listdir(own) == ["commit-msg"]  # the same hook, marked to run the pre-commit gate too
    assert (own / "commit-msg").read_text() == (hooks / "commit-msg").read_text().replace(
        "\nown_hooks=''\n", "\nown_hooks='1'\n")
    states = {h["hook"]: h for h in gitai_json(bare_repo, "hooks", "status")["hooks"]}
    assert states["pre-commit"]["state"] == "installed" and states["pre-commit"]["chained"] is True
    write(bare_repo, ".orchestration/active_intents.yaml",
          "intents:\n  - id: A\n    name: a\n    owned_scope: ['**']\n")
    commit(bare_repo, "catalogue")
    assert (bare_repo / ".git" / "foreign.log").read_text() == "foreign-hook-ran\n"
    # a failing foreign hook still blocks the commit
    gitai_ok(bare_repo, "select", "A")
    write(bare_repo, "a.txt", "a\n")
    assert commit(bare_repo, "x", env={"FOREIGN_EXIT": "3"}, check=False).returncode != 0
    # installing twice does not chain gitai to itself
    gitai_ok(bare_repo, "hooks", "install")
    assert (hooks / "pre-commit.gitai-chained").read_text() == FOREIGN
    as_person(bare_repo, "hooks", "uninstall")
    assert foreign.read_text() == FOREIGN
    assert stat.S_IMODE(foreign.stat().st_mode) == 0o750
    assert not (hooks / "pre-commit.gitai-chained").exists()
    assert not (hooks / "commit-msg").exists() and not own.exists()
    assert "refs/notes/gitai" not in git(bare_repo, "config", "--get-all", "notes.rewriteRef", check=False).stdout


def test_force_replaces_foreign_hook_and_uninstall_restores_it(bare_repo: Path) -> None:
    hooks = bare_repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "commit-msg").write_text(FOREIGN)
    (hooks / "commit-msg").chmod(0o755)
    gitai_ok(bare_repo, "hooks", "install", "--force")
    assert (hooks / "commit-msg.gitai-replaced").read_text() == FOREIGN
    assert not (hooks / "commit-msg.gitai-chained").exists()
    as_person(bare_repo, "hooks", "uninstall")
    assert (hooks / "commit-msg").read_text() == FOREIGN


def test_core_hooks_path_is_honoured(bare_repo: Path) -> None:
    git(bare_repo, "config", "core.hooksPath", ".githooks")
    data = gitai_json(bare_repo, "hooks", "install")
    assert data["core_hooks_path"] == ".githooks"
    assert Path(data["hooks_dir"]) == bare_repo / ".githooks"
    assert (bare_repo / ".githooks" / "pre-commit").exists()
    assert not (bare_repo / ".git" / "hooks" / "pre-commit").exists()
    gitai_ok(bare_repo, "init", "--no-hooks")
    write(bare_repo, ".orchestration/active_intents.yaml",
          "intents:\n  - id: A\n    name: a\n    owned_scope: [src/**]\n")
    commit(bare_repo, "catalogue", ".orchestration")
    write(bare_repo, "other.txt", "x\n")
    assert commit(bare_repo, "outside", "other.txt", check=False).returncode != 0  # the gate runs from there


def test_install_from_linked_worktree_installs_for_all(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "--detach", str(other))
    as_person(repo, "hooks", "uninstall")
    assert gitai(other, "hooks", "install").returncode == 0
    assert (repo / ".git" / "hooks" / "pre-commit").exists()
    write(other, "src/auth/x.py", "x\n")
    assert commit(other, "no intent here", check=False).returncode != 0


def test_pre_commit_framework_manifest() -> None:
    import yaml

    manifest = yaml.safe_load((Path(__file__).parent.parent / ".pre-commit-hooks.yaml").read_text())
    hook = manifest[0]
    assert hook["id"] == "gitai-scope" and hook["pass_filenames"] is False and hook["always_run"] is True
    assert hook["entry"] == "gitai hooks run pre-commit"
    from gitai.hooks.install import HOOK_NAMES

    assert [h["stages"] for h in manifest] == [[name] for name in HOOK_NAMES]


def test_hook_status_reports_missing_and_foreign(bare_repo: Path) -> None:
    hooks = bare_repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "pre-commit").write_text(FOREIGN)
    os.chmod(hooks / "pre-commit", 0o755)
    states = {h["hook"]: h["state"] for h in gitai_json(bare_repo, "hooks", "status")["hooks"]}
    assert states["pre-commit"] == "foreign" and states["commit-msg"] == "missing"


def test_colliding_hooks_are_refused_before_anything_is_written(bare_repo: Path) -> None:
    hooks = bare_repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    for name in ("post-rewrite", "post-rewrite.gitai-chained"):
        (hooks / name).write_text(FOREIGN)
        (hooks / name).chmod(0o755)
    before = sorted(p.name for p in hooks.iterdir())
    for args in (("init",), ("hooks", "install"), ("hooks", "install", "--force")):
        proc = gitai(bare_repo, *args)
        assert proc.returncode == 2 and "post-rewrite.gitai-chained already exists" in proc.stderr
        assert sorted(p.name for p in hooks.iterdir()) == before
    assert not (bare_repo / ".orchestration").exists()


def test_shared_hooks_path_leaves_other_repositories_alone(tmp_path: Path) -> None:
    from testing.repos import new_repo

    shared = tmp_path / "shared-hooks"
    git(tmp_path, "config", "--global", "core.hooksPath", str(shared))
    first = new_repo(tmp_path / "first")
    proc = gitai(first, "init")
    assert proc.returncode == 2 and "global git config" in proc.stderr and len(proc.stderr.splitlines()) == 1
    assert not shared.exists() and not (first / ".orchestration").exists()  # refused: nothing written
    gitai_ok(first, "init", "--no-hooks")
    proc = gitai_ok(first, "hooks", "install", "--force")
    assert "global git config" in proc.stderr  # still warned
    other = new_repo(tmp_path / "other")
    write(other, "a.txt", "a\n")
    commit(other, "plain repository, shared hooks")  # not refused
    assert not (other / ".orchestration").exists()
    assert git(other, "notes", "--ref", "gitai", "list", check=False).stdout == ""
    write(first, "x.txt", "x\n")
    assert commit(first, "gitai repository", check=False).returncode != 0  # the gate runs here


def test_force_never_overwrites_a_hook_kept_aside(bare_repo: Path) -> None:
    hooks = bare_repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "pre-commit").write_text("#!/bin/sh\n# A\n")
    gitai_ok(bare_repo, "hooks", "install", "--force")
    (hooks / "pre-commit").write_text("#!/bin/sh\n# B\n")
    proc = gitai(bare_repo, "hooks", "install", "--force")
    assert proc.returncode == 2 and "pre-commit.gitai-replaced already exists" in proc.stderr
    assert (hooks / "pre-commit.gitai-replaced").read_text() == "#!/bin/sh\n# A\n"


def test_init_refuses_a_file_named_orchestration(bare_repo: Path) -> None:
    write(bare_repo, ".orchestration", "not a directory\n")
    proc = gitai(bare_repo, "init")
    assert proc.returncode == 2 and "is not a directory" in proc.stderr and len(proc.stderr.splitlines()) == 1
    assert not (bare_repo / ".git" / "hooks" / "commit-msg").exists()


def test_shared_hooks_path_adds_no_trailer_elsewhere(tmp_path: Path) -> None:
    from testing.repos import new_repo

    git(tmp_path, "config", "--global", "core.hooksPath", str(tmp_path / "shared-hooks"))
    first = new_repo(tmp_path / "first")
    gitai_ok(first, "init", "--no-hooks")
    gitai_ok(first, "hooks", "install", "--force")
    other = new_repo(tmp_path / "other")
    write(other, "a.txt", "a\n")
    commit(other, "plain", env={"GITAI_INTENT": "INT-009"})
    assert "Intent:" not in git(other, "log", "-1", "--format=%B").stdout


def test_status_reports_gitais_own_commit_msg_hook(bare_repo: Path) -> None:
    """The own hooks directory (git's hooks inside the kernel domain of a host that turns hooks off) is
    reported: a repository installed before it existed has no commit-msg there, and status says so."""
    assert gitai(bare_repo, "init").returncode == 0
    own = bare_repo / ".git" / "gitai" / "hooks"
    status = gitai_json(bare_repo, "hooks", "status")
    assert status["own_hooks_dir"] == str(own)
    assert [(h["hook"], h["path"], h["state"]) for h in status["own_hooks"]] == [
        ("commit-msg", str(own / "commit-msg"), "installed")]
    (own / "commit-msg").unlink()
    assert gitai_json(bare_repo, "hooks", "status")["own_hooks"][0]["state"] == "missing"
    text = gitai(bare_repo, "hooks", "status")
    assert text.returncode == 0
    assert f"commit-msg    missing    {own / 'commit-msg'} (gitai's own" in text.stdout
    (own / "commit-msg").write_text((bare_repo / ".git" / "hooks" / "commit-msg").read_text().replace(
        "commit-msg", "commit-msg ", 1))  # ours, written by another gitai
    assert gitai_json(bare_repo, "hooks", "status")["own_hooks"][0]["state"] == "stale"
    gitai_ok(bare_repo, "hooks", "install")
    assert (own / "commit-msg").read_text() == (bare_repo / ".git" / "hooks" / "commit-msg").read_text().replace(
        "\nown_hooks=''\n", "\nown_hooks='1'\n")
    assert [h["state"] for h in gitai_json(bare_repo, "hooks", "status")["own_hooks"]] == ["installed"]
    as_person(bare_repo, "hooks", "uninstall")
    assert not own.exists()
    assert [h["state"] for h in gitai_json(bare_repo, "hooks", "status")["own_hooks"]] == ["missing"]
