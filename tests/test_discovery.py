"""The repository found from its files answers as `git rev-parse` does, in every layout the hooks meet;
where the files cannot say for certain, git is asked (the answer is then git's by construction)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from testing.commands import git
from testing.repos import new_repo

from gitai.errors import GitaiError
from gitai.git import repository
from gitai.git.repository import discover, head_from_files

QUERIES = ["--show-toplevel", "--git-dir", "--git-common-dir", "--git-path", "hooks"]


def _git_answer(cwd: Path) -> list[str]:
    out = git(cwd, "rev-parse", "--path-format=absolute", *QUERIES).stdout
    return out.splitlines()


def _layouts(tmp_path: Path) -> dict[str, Path]:
    main = new_repo(tmp_path / "main")
    git(main, "commit", "-q", "--allow-empty", "-m", "start")
    (main / "a" / "b").mkdir(parents=True)
    git(main, "worktree", "add", "-q", str(tmp_path / "linked"))
    lib = new_repo(tmp_path / "lib")
    git(lib, "commit", "-q", "--allow-empty", "-m", "lib")
    git(main, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "ext/lib")
    git(tmp_path, "init", "-q", "--separate-git-dir", str(tmp_path / "sep.git"), str(tmp_path / "separate"))
    os.symlink(main, tmp_path / "link")
    hooked = new_repo(tmp_path / "hooked")
    git(hooked, "config", "core.hooksPath", ".githooks")
    return {"main": main, "subdirectory": main / "a" / "b", "linked worktree": tmp_path / "linked",
            "submodule": main / "ext" / "lib", "separate git dir": tmp_path / "separate",
            "through a symbolic link": tmp_path / "link" / "a", "core.hooksPath": hooked}


def test_the_files_answer_as_git_does(tmp_path: Path) -> None:
    from_files = []
    for name, where in _layouts(tmp_path).items():
        found = discover(str(where))
        assert [found.worktree, found.git_dir, found.common_dir, found.hooks_dir] == _git_answer(where), name
        if repository._from_files(str(where)) is not None:
            from_files.append(name)
    # the usual layouts need no git process; core.worktree (the submodule) and core.hooksPath ask git
    assert from_files == ["main", "subdirectory", "linked worktree", "separate git dir", "through a symbolic link",
                          "core.hooksPath"]
    assert repository._from_files(str(tmp_path / "hooked")) is not None  # found from the files...
    assert repository._from_files(str(tmp_path / "hooked"))._hooks_dir is None  # ...but its hooks dir from git


@pytest.mark.parametrize("variable", ["GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES"])
def test_a_variable_that_moves_git_leaves_the_answer_to_git(tmp_path: Path, variable: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    repo = new_repo(tmp_path / "repo")
    monkeypatch.setenv(variable, str(repo / ".git") if variable == "GIT_DIR" else str(repo))
    assert repository._from_files(str(repo)) is None


def test_gitais_own_hooks_path_from_gitai_run_still_lets_the_files_answer(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """`gitai run` sets GIT_CONFIG_PARAMETERS to core.hooksPath=<common dir>/gitai/hooks for a host whose shell
    turns hooks off: it moves no repository, and the repository's own hooks are the ones its files name, so
    every hook call under it still needs no git process. Any other value in it is left to git."""
    repo = new_repo(tmp_path / "repo")
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.hooksPath={repo / '.git' / 'gitai' / 'hooks'}'")
    found = repository._from_files(str(repo))
    assert found is not None and found._hooks_dir == str(repo / ".git" / "hooks")
    assert discover(str(repo)).hooks_dir == str(repo / ".git" / "hooks")
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.hooksPath={repo / 'elsewhere'}'")
    found = repository._from_files(str(repo))
    assert found is not None and found._hooks_dir is None  # git is asked for the hooks path
    assert discover(str(repo)).hooks_dir == str(repo / "elsewhere")
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.worktree={tmp_path}'")
    assert repository._from_files(str(repo)) is None


def test_outside_any_repository_and_inside_git_dir(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    for where in (tmp_path, repo / ".git", repo / ".git" / "hooks"):
        assert repository._from_files(str(where)) is None
        assert subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=where, capture_output=True).returncode
        with pytest.raises(GitaiError, match="not a git repository"):
            discover(str(where))


def test_head_from_the_files(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    paths = discover(str(repo))
    assert head_from_files(paths) is None  # unborn
    git(repo, "commit", "-q", "--allow-empty", "-m", "one")
    assert head_from_files(paths) == git(repo, "rev-parse", "HEAD").stdout.strip()
    git(repo, "pack-refs", "--all")
    assert head_from_files(paths) == git(repo, "rev-parse", "HEAD").stdout.strip()  # from packed-refs
    git(repo, "checkout", "-q", "--detach")
    git(repo, "commit", "-q", "--allow-empty", "-m", "two")
    assert head_from_files(paths) == git(repo, "rev-parse", "HEAD").stdout.strip()  # detached


@pytest.mark.parametrize("line", ["[core] hooksPath = ../elsewhere", "[core]worktree = ../../w2", "[core] bare = true"])
def test_a_setting_on_the_section_header_line_is_read_as_git_reads_it(tmp_path: Path, line: str) -> None:
    """git reads `[core] hooksPath = X` as core.hooksPath: the files cannot be trusted to have seen every
    setting then, so git answers (a missed hooks path would let the framework hook skip the gate)."""
    repo = new_repo(tmp_path / "repo")
    (tmp_path / "w2").mkdir()
    with open(repo / ".git" / "config", "a", encoding="utf-8") as config:
        config.write(line + "\n")
    assert repository._from_files(str(repo)) is None or repository._from_files(str(repo))._hooks_dir is None
    if "bare" not in line:
        assert [discover(str(repo)).worktree, discover(str(repo)).hooks_dir] == [
            _git_answer(repo)[0], _git_answer(repo)[-1]]
