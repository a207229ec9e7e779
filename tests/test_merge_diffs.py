"""A merge's diffs in backfill: raw against every parent, hunks only for the files the merge changes
against every parent, those computed as blob pairs. What a merge's record and line origins read
must be what full diffs against each parent give: conflicts resolved, files taken whole from one
side, a file new in the merge, renames across a merge, an octopus, binary and symlinked files."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from testing.commands import git
from testing.repos import commit, write

from gitai.git.diff import DiffStream, Hunk, blob_hunks, hunks_between, merge_paths
from gitai.git.objects import ObjectReader
from gitai.trace.changes import commit_changes


def lines(count: int, tag: str = "") -> str:
    return "".join(f"line {number}{tag}\n" for number in range(count))


@pytest.fixture
def merges(bare_repo: Path) -> Path:
    repo = bare_repo
    write(repo, "conflict.py", lines(20))
    write(repo, "taken.py", lines(10))
    write(repo, "moved.py", lines(30))
    write(repo, "both.txt", lines(12))
    write(repo, "blob.bin", b"\x00\x01")
    write(repo, "octo.py", lines(8))
    os.symlink("taken.py", repo / "link.py")
    commit(repo, "root")

    git(repo, "checkout", "-q", "-b", "side")
    write(repo, "conflict.py", lines(20).replace("line 5\n", "line 5 side\n"))
    write(repo, "taken.py", lines(12, " side"))  # the merge takes this version whole
    git(repo, "mv", "moved.py", "renamed.py")  # renamed on one side, changed on the other
    write(repo, "both.txt", lines(12).replace("line 11\n", "line 11 side\n"))
    write(repo, "blob.bin", b"\x00\x02")
    commit(repo, "side")
    git(repo, "checkout", "-q", "main")
    write(repo, "conflict.py", lines(20).replace("line 5\n", "line 5 main\n"))
    write(repo, "moved.py", lines(30).replace("line 2\n", "line 2 main\n"))
    write(repo, "both.txt", lines(12).replace("line 0\n", "line 0 main\n"))
    write(repo, "blob.bin", b"\x00\x03")
    commit(repo, "main")
    git(repo, "merge", "-q", "--no-edit", "side", check=False)  # conflicts: conflict.py, blob.bin
    write(repo, "conflict.py", lines(20).replace("line 5\n", "line 5 both\nline 5 more\n"))
    write(repo, "blob.bin", b"\x00\x04")
    write(repo, "new.py", lines(3, " merge"))  # new in the merge: every line its own
    write(repo, "empty.py", "")
    (repo / "link.py").unlink()
    write(repo, "link.py", lines(2, " was a link"))  # a symlink replaced by a file
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-edit")
    assert len(git(repo, "rev-parse", "HEAD^@").stdout.split()) == 2

    for branch in ("a", "b"):  # an octopus changing a file each side changed too
        git(repo, "checkout", "-q", "-b", branch, "main")
        write(repo, "octo.py", lines(8).replace("line 3\n", f"line 3 {branch}\n") + f"{branch}\n")
        commit(repo, branch)
    git(repo, "checkout", "-q", "main")
    write(repo, "octo.py", lines(8, " main"))
    commit(repo, "main again")
    git(repo, "merge", "-q", "--no-commit", "-s", "ours", "a", "b")
    write(repo, "octo.py", lines(8, " main").replace("line 3 main\n", "line 3 a\nline 3 b\n") + "a\nb\nall\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-edit")
    assert len(git(repo, "rev-parse", "HEAD^@").stdout.split()) == 3
    return repo


def history(repo: Path) -> list[tuple[str, list[str]]]:
    out = git(repo, "rev-list", "--topo-order", "--reverse", "--parents", "HEAD").stdout.split("\n")
    return [(line.split()[0], line.split()[1:]) for line in out if line]


def test_a_merge_reads_from_the_stream_what_full_diffs_against_each_parent_give(merges: Path) -> None:
    root = str(merges)
    commits = history(merges)
    pairs: list[tuple[str | None, str]] = []
    for sha, parents in commits:
        pairs += [(parent, sha) for parent in parents] or [(None, sha)]
    with ObjectReader(root) as reader:
        plain = [commit_changes(root, reader, sha, parents) for sha, parents in commits]
        with DiffStream(root, pairs) as stream:
            streamed = [commit_changes(root, reader, sha, parents, stream) for sha, parents in commits]
    assert streamed == plain
    merged = {changes_of_merge.path: changes_of_merge for (_, parents), changes in zip(commits, plain, strict=True)
              if len(parents) > 1 for changes_of_merge in changes.files}
    # the history has what a merge must get right
    assert {"conflict.py", "new.py", "empty.py", "link.py", "renamed.py", "both.txt", "blob.bin", "octo.py"} \
        <= set(merged)
    assert "taken.py" not in merged  # taken whole from the second parent: not the merge's change
    assert merged["renamed.py"].old_path == "moved.py" and merged["renamed.py"].other_parents[0][0] == "renamed.py"
    assert merged["new.py"].added_lines == [1, 2, 3] and merged["link.py"].hunks == [(0, 0, 1, 2)]
    assert merged["conflict.py"].added_lines == [6, 7]
    assert merged["both.txt"].added_lines == [] and merged["both.txt"].other_parents[0][2]
    assert len(merged["octo.py"].other_parents) == 2 and merged["octo.py"].added_lines == [12]  # new against all


def test_a_merge_diffs_only_the_files_it_changes_against_every_parent(merges: Path) -> None:
    root = str(merges)
    commits = history(merges)
    pairs = [(parent, sha) for sha, parents in commits for parent in parents] or []
    pairs = [(None, commits[0][0]), *pairs]
    with DiffStream(root, pairs) as stream:
        got = {pair: stream(*pair) for pair in pairs}
    for sha, parents in commits:
        if len(parents) < 2:
            continue
        own, _ = merge_paths([got[parent, sha][0] for parent in parents])
        for parent in parents:
            raw, hunks = got[parent, sha]
            assert hunks is not None
            for change, found in zip(raw, hunks, strict=True):
                if change.new_path in own and change.status != "D" and change.new_mode != 0o120000:
                    assert found is not None, change
                else:
                    assert found is None, change  # taken.py among them: no hunks computed


def hash_object(repo: Path, data: bytes) -> str:
    return subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=repo, input=data, capture_output=True,
                          check=True).stdout.decode().strip()


def objects_of(repo: Path) -> list[str]:
    return sorted(str(path.relative_to(repo)) for path in (repo / ".git" / "objects").rglob("*") if path.is_file())


def test_blob_pairs_are_diffed_as_blob_hunks_diffs_them_and_nothing_is_written(bare_repo: Path) -> None:
    texts = [b"", b"a\n", b"a\nb\n", b"b\n", b"a\r\nb", b"x\x00y\nz\n", b"x\x00y\nw\nz\n", b"def f():\n    pass\n"]
    blobs = [hash_object(bare_repo, text) for text in texts]
    pairs: list[tuple[str | None, str]] = [(old, new) for old in blobs for new in blobs]
    pairs += [(None, new) for new in blobs]
    before = objects_of(bare_repo)
    found = hunks_between(str(bare_repo), pairs)
    assert objects_of(bare_repo) == before  # the trees went to an object directory of their own
    expected: list[list[Hunk]] = [blob_hunks(str(bare_repo), old, new) for old, new in pairs]
    assert found == expected
    assert any(hunks for hunks in expected) and [] in expected  # the same blob twice: no hunks
    only_new = hunks_between(str(bare_repo), [(None, blobs[2])])  # no old file at all: an empty first tree
    assert only_new == [[(0, 0, 1, 2)]]
    assert hunks_between(str(bare_repo), []) == []


def test_blob_pairs_git_cannot_read_are_left_to_the_caller(bare_repo: Path) -> None:
    write(bare_repo, "a.txt", "a\n")
    commit(bare_repo, "root")
    blob = git(bare_repo, "rev-parse", "HEAD:a.txt").stdout.strip()
    assert hunks_between(str(bare_repo), [(blob, "f" * 40)]) is None


def test_blob_pairs_are_diffed_together_in_a_repository_whose_path_holds_a_colon(tmp_path: Path) -> None:
    """':' separates GIT_ALTERNATE_OBJECT_DIRECTORIES' entries: the repository's objects are named
    to the temporary object directory by its alternates file instead, and it is left in none."""
    repo = tmp_path / "a:b" / "repo"
    repo.mkdir(parents=True)
    git(repo, "init", "-q")
    write(repo, "m.py", "a = 1\nb = 2\n")
    commit(repo, "one")
    write(repo, "m.py", "a = 1\nb = 3\n")
    commit(repo, "two")
    old = git(repo, "rev-parse", "HEAD~1:m.py").stdout.strip()
    new = git(repo, "rev-parse", "HEAD:m.py").stdout.strip()
    assert blob_hunks(str(repo), old, new) == [(2, 1, 2, 1)]
    assert hunks_between(str(repo), [(old, new)]) == [[(2, 1, 2, 1)]]  # None: git failed
    assert not [name for name in os.listdir(repo / ".git" / "gitai") if name.startswith("gitai-trees-")]


def test_an_object_directory_a_killed_run_left_is_removed_by_the_next(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    write(repo, "m.py", "a = 1\n")
    commit(repo, "one")
    write(repo, "m.py", "a = 2\n")
    commit(repo, "two")
    left = repo / ".git" / "gitai" / "gitai-trees-left"
    (left / "info").mkdir(parents=True)
    os.utime(left, (0, 0))
    young = repo / ".git" / "gitai" / "gitai-trees-running"
    young.mkdir()
    old = git(repo, "rev-parse", "HEAD~1:m.py").stdout.strip()
    new = git(repo, "rev-parse", "HEAD:m.py").stdout.strip()
    assert hunks_between(str(repo), [(old, new)]) == [[(1, 1, 1, 1)]]
    assert not left.exists()
    assert young.exists()  # another run's, still going


def _two_versions(repo: Path) -> tuple[str, str]:
    git(repo, "init", "-q")
    write(repo, "m.py", "a = 1\nb = 2\n")
    commit(repo, "one")
    write(repo, "m.py", "a = 1\nb = 3\n")
    commit(repo, "two")
    return git(repo, "rev-parse", "HEAD~1:m.py").stdout.strip(), git(repo, "rev-parse", "HEAD:m.py").stdout.strip()


def test_blob_pairs_are_diffed_in_a_linked_worktree_of_a_repository_whose_path_is_not_utf8(tmp_path: Path) -> None:
    repo = Path(os.fsdecode(bytes(tmp_path) + b"/r\xff"))
    repo.mkdir()
    old, new = _two_versions(repo)
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "w")
    assert hunks_between(str(tmp_path / "wt"), [(old, new)]) == [[(2, 1, 2, 1)]]


def test_blob_pairs_are_diffed_together_in_a_repository_whose_path_holds_a_newline(tmp_path: Path) -> None:
    repo = tmp_path / "new\nline"
    repo.mkdir()
    old, new = _two_versions(repo)
    assert hunks_between(str(repo), [(old, new)]) == [[(2, 1, 2, 1)]]


def test_blob_pairs_are_left_to_the_caller_where_the_gitai_directory_cannot_be_made(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    old, new = _two_versions(repo)
    (repo / ".git" / "gitai").write_text("")  # a file where the directory would be
    assert hunks_between(str(repo), [(old, new)]) in (None, [[(2, 1, 2, 1)]])
