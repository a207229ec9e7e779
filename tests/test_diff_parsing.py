"""The diff stream's output read in a few passes over it (the raw entries, then the patch's file
starts, binary notes and hunk headers): text that looks like patch structure inside a file,
names with tabs, newlines and non-ASCII, renames, binary files, mode and type changes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from testing.commands import git
from testing.repos import commit, write

from gitai.git.diff import DiffStream, blob_hunks, parse_raw, raw_and_hunks, raw_changes

TRICKY_OLD = "keep\n-- removed dashes\n@@ -1 +1 @@\nkeep\ndiff --git a/x b/x\nkeep\n"
TRICKY_NEW = "keep\n++ added pluses\n@@ -9 +9 @@\nkeep\nBinary files a and b differ\nkeep\nend"


def test_a_diff_is_read_as_git_lists_it(bare_repo: Path) -> None:
    repo, root = bare_repo, str(bare_repo)
    write(repo, "tricky.txt", TRICKY_OLD)
    write(repo, "aa.txt", "moved as is\n")
    write(repo, "odd\tname\nnewline.py", "".join(f"value_{n} = {n}\n" for n in range(20)))
    write(repo, "data.bin", b"\x00\x01\x02\n")
    write(repo, "mode.sh", "echo hi\n")
    write(repo, "gone.txt", "bye\n")
    write(repo, "no-newline.txt", "a\nb")
    commit(repo, "before")
    write(repo, "tricky.txt", TRICKY_NEW)
    (repo / "odd\tname\nnewline.py").unlink()  # renamed, and changed a little
    git(repo, "mv", "aa.txt", "ab.txt")  # a rename listed before other entries
    write(repo, "é dir/new name.py", "".join(f"value_{n} = {n}\n" for n in range(20)).replace("= 7", "= 70"))
    write(repo, "data.bin", b"\x00\x01\x03\n")
    (repo / "mode.sh").chmod(0o755)
    (repo / "gone.txt").unlink()
    write(repo, "empty.txt", "")
    write(repo, "no-newline.txt", "a\nc")
    os.symlink("tricky.txt", repo / "link")
    commit(repo, "after")
    before, after = git(repo, "rev-parse", "HEAD~1", "HEAD").stdout.split()

    raw, hunks = raw_and_hunks(root, before, after)
    with DiffStream(root, [(None, before), (before, after)]) as stream:
        stream(None, before)
        assert stream(before, after) == (raw, hunks)
    assert raw == raw_changes(root, before, after) == parse_raw(git(repo, "diff-tree", "-r", "-z", "--raw", "-M",
                                                                    before, after).stdout.encode())
    listed = {(change.status, change.old_path, change.new_path): found
              for change, found in zip(raw, hunks or [], strict=True)}
    assert set(listed) == {("M", "tricky.txt", "tricky.txt"), ("R", "odd\tname\nnewline.py", "é dir/new name.py"),
                           ("M", "data.bin", "data.bin"), ("M", "mode.sh", "mode.sh"), ("D", "gone.txt", "gone.txt"),
                           ("A", "empty.txt", "empty.txt"), ("M", "no-newline.txt", "no-newline.txt"),
                           ("A", "link", "link"), ("R", "aa.txt", "ab.txt")}
    assert raw[0].status == "R" and raw[1].status != "R"
    assert listed["M", "tricky.txt", "tricky.txt"] == [(2, 2, 2, 2), (5, 1, 5, 1), (6, 0, 7, 1)]
    assert listed["R", "odd\tname\nnewline.py", "é dir/new name.py"] == [(8, 1, 8, 1)]
    assert listed["M", "data.bin", "data.bin"] is None  # git's word: binary
    assert listed["M", "mode.sh", "mode.sh"] == [] and listed["A", "empty.txt", "empty.txt"] == []
    assert listed["D", "gone.txt", "gone.txt"] == [(1, 1, 0, 0)]
    assert listed["M", "no-newline.txt", "no-newline.txt"] == [(2, 1, 2, 1)]
    assert listed["A", "link", "link"] == [(0, 0, 1, 1)]
    for change, found in zip(raw, hunks or [], strict=True):  # each as one `git diff` of its blobs says
        if change.status == "M" and found is not None:
            assert found == blob_hunks(root, change.old_oid, change.new_oid)


def test_blobs_read_to_be_remembered_are_given_again_without_git_up_to_a_bound(
        bare_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gitai.git import objects

    monkeypatch.setattr(objects, "REMEMBERED_BYTES", 11)
    blobs = [git(bare_repo, "hash-object", "-w", "--stdin", input=text).stdout.strip()
             for text in ("four", "five!", "sixsix", "x" * 12)]
    reader = objects.ObjectReader(str(bare_repo))
    assert reader.read_many(blobs[:2], remember=True) == {blobs[0]: b"four", blobs[1]: b"five!"}
    assert reader.read_many([blobs[2]], remember=True) == {blobs[2]: b"sixsix"}  # the oldest goes
    assert reader.read_many([blobs[3]], remember=True) == {blobs[3]: b"x" * 12}  # too large to keep
    assert reader.read_many([blobs[0]]) == {blobs[0]: b"four"}  # not remembered: from git
    reader._proc.kill()
    reader._proc.wait()
    assert reader.read_many(blobs[1:3]) == {blobs[1]: b"five!", blobs[2]: b"sixsix"}  # no git needed
    with pytest.raises(OSError):  # git is gone indeed
        reader.read_many([blobs[0]])


def test_objects_over_the_limit_are_skipped_unread_and_the_rest_read(bare_repo: Path) -> None:
    from gitai.git.objects import ObjectReader

    blobs = [git(bare_repo, "hash-object", "-w", "--stdin", input=text).stdout.strip()
             for text in ("small", "x" * 3000, "tiny")]
    with ObjectReader(str(bare_repo)) as reader:
        assert reader.read_many([*blobs, "0" * 40], limit=100) == {blobs[0]: b"small", blobs[2]: b"tiny"}
        assert reader.read_many(blobs[1:2]) == {blobs[1]: b"x" * 3000}  # the pipe still lines up


def test_a_remembered_object_over_the_limit_is_left_out_too(bare_repo: Path) -> None:
    from gitai.git.objects import ObjectReader

    blobs = [git(bare_repo, "hash-object", "-w", "--stdin", input=text).stdout.strip() for text in ("x" * 3000, "s")]
    with ObjectReader(str(bare_repo)) as reader:
        assert set(reader.read_many(blobs[:1], remember=True)) == {blobs[0]}
        assert reader.read_many(blobs, limit=100) == {blobs[1]: b"s"}
        assert reader.read_many(blobs[:1]) == {blobs[0]: b"x" * 3000}  # still remembered, whole


def test_notes_are_read_by_batches_a_huge_one_counted_malformed(bare_repo: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from gitai.git.objects import ObjectReader
    from gitai.layout import find_layout
    from gitai.trace import notes_reader

    write(bare_repo, "a.txt", "a\n")
    commit(bare_repo, "one")
    write(bare_repo, "a.txt", "b\n")
    commit(bare_repo, "two")
    first, second = git(bare_repo, "rev-list", "--reverse", "HEAD").stdout.split()
    git(bare_repo, "notes", "--ref", "refs/notes/gitai", "add", "-m", "not a record", first)
    git(bare_repo, "notes", "--ref", "refs/notes/gitai", "add", "-m", "y" * 300, "-m", "z" * 300, second)  # two lines
    monkeypatch.setattr(notes_reader, "MAX_NOTE_BYTES", 100)

    def one_by_one(*args: object) -> None:
        raise AssertionError("a round trip per note")

    monkeypatch.setattr(ObjectReader, "read_at_most", one_by_one)
    assert notes_reader.all_notes_checked(find_layout(str(bare_repo))) == {first: ([], 1), second: ([], 1)}
    monkeypatch.setattr(notes_reader, "MAX_NOTE_BYTES", 1000)  # read now: two lines that are no record
    assert notes_reader.all_notes_checked(find_layout(str(bare_repo))) == {first: ([], 1), second: ([], 2)}


def test_a_reader_closed_with_an_answer_unread_ends_git_and_returns(tmp_path: Path) -> None:
    """An interrupt raised while a batch is read back leaves git writing into a pipe nobody reads:
    closing the reader must end it, not wait on it (backfill hung at exit after a SIGINT)."""
    import threading

    from gitai.git.objects import ObjectReader

    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    write(repo, "big.txt", "x" * (4 << 20))
    commit(repo, "big")
    oid = git(repo, "rev-parse", "HEAD:big.txt").stdout.strip()
    reader = ObjectReader(str(repo))
    assert reader._proc.stdin is not None
    reader._proc.stdin.write(f"{oid}\n".encode())  # asked, as read_many asks, and then interrupted
    reader._proc.stdin.flush()
    closing = threading.Thread(target=reader.close, daemon=True)
    closing.start()
    closing.join(20)
    hung = closing.is_alive()
    if hung:
        reader._proc.kill()
    assert not hung, "closing waits for git, which waits for its answer to be read"
    assert reader._proc.returncode is not None
