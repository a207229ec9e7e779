"""Backfill reads a whole history through long-lived git processes: what it gets must be what one
git command per commit gives (the diffs of `git diff-tree`, the answers of `git log -1 -- PATH`)."""

from __future__ import annotations

import itertools
import subprocess
from pathlib import Path

import pytest
from testing.commands import git, gitai_json, gitai_ok
from testing.repos import commit, kept_origins, origins_of, records_by_commit, tip_files, write

from gitai.git.blame import LastChanges, last_change
from gitai.git.diff import DiffStream, merge_paths, raw_and_hunks


@pytest.fixture
def branchy(bare_repo: Path) -> Path:
    """Renames, a mode change, a binary file, odd names, an empty commit, a file both branches made
    alike, a merge taking one side's file as is and a merge resolving a conflict."""
    repo = bare_repo
    write(repo, "a.py", "def f():\n    return 1\n")
    write(repo, "b.txt", "one\ntwo\n")
    write(repo, "dir/odd name\twith tab.py", "x = 1\n")
    write(repo, "img.bin", b"\x00\x01\x02")
    commit(repo, "root")
    git(repo, "checkout", "-q", "-b", "side")
    write(repo, "b.txt", "one\nTWO\n")
    write(repo, "side.py", "s = 2\n")
    write(repo, "same.txt", "made on both sides\n")
    commit(repo, "side work")
    git(repo, "checkout", "-q", "main")
    git(repo, "mv", "a.py", "renamed.py")
    write(repo, "img.bin", b"\x00\x03")
    write(repo, "same.txt", "made on both sides\n")  # the merge is the same as both parents there
    commit(repo, "rename and binary")
    git(repo, "commit", "-q", "--allow-empty", "-m", "empty")
    (repo / "b.txt").chmod(0o755)
    commit(repo, "mode")
    git(repo, "merge", "-q", "--no-edit", "side")  # b.txt: both sides changed it (mode, text): merged
    git(repo, "checkout", "-q", "side")
    write(repo, "side.py", "s = 3\n")
    commit(repo, "side again")
    git(repo, "checkout", "-q", "main")
    write(repo, "side.py", "s = 4\n")
    commit(repo, "main changes side.py")
    git(repo, "merge", "-q", "--no-edit", "side", check=False)  # conflict on side.py
    write(repo, "side.py", "s = 5\n")
    commit(repo, "resolve")
    write(repo, "renamed.py", "def f():\n    return 2\n")
    commit(repo, "after the merges")
    return repo


def history(repo: Path) -> list[tuple[str, list[str]]]:
    lines = git(repo, "rev-list", "--topo-order", "--reverse", "--parents", "HEAD").stdout.split("\n")
    return [(line.split()[0], line.split()[1:]) for line in lines if line]


def test_one_diff_tree_stream_gives_what_a_diff_tree_per_commit_gives(branchy: Path) -> None:
    root = str(branchy)
    pairs: list[tuple[str | None, str]] = []
    for sha, parents in history(branchy):
        pairs += [(parent, sha) for parent in parents] or [(None, sha)]
    assert len(pairs) == len(history(branchy)) + 2  # two merges
    with DiffStream(root, pairs) as stream:
        got = [stream(parent, sha) for parent, sha in pairs]
    expected = [raw_and_hunks(root, parent, sha) for parent, sha in pairs]
    merges = {sha for sha, parents in history(branchy) if len(parents) > 1}
    assert [raw for raw, _ in got] == [raw for raw, _ in expected]
    assert [diff for diff, (_, sha) in zip(got, pairs, strict=True) if sha not in merges] == \
        [diff for diff, (_, sha) in zip(expected, pairs, strict=True) if sha not in merges]
    # a merge's diffs have the hunks of its own files (changed against every parent) alone
    for merge in merges:
        sides = [(got[at], expected[at]) for at, (_, sha) in enumerate(pairs) if sha == merge]
        own, _ = merge_paths([raw for (raw, _), _ in sides])
        assert own
        for (raw, hunks), (_, expected_hunks) in sides:
            assert hunks is not None and expected_hunks is not None
            for change, mine, theirs in zip(raw, hunks, expected_hunks, strict=True):
                assert mine == (theirs if change.new_path in own and change.status != "D" else None)
    assert any(change.status == "R" for raw, _ in got for change in raw) and any(not raw for raw, _ in got)
    # asked out of order, it still answers right (by a diff-tree of its own)
    with DiffStream(root, pairs) as stream:
        assert stream(*pairs[2]) == expected[2]
        assert stream(*pairs[0]) == expected[0]


def test_last_changes_learned_from_the_diffs_answer_as_git_log_does(branchy: Path) -> None:
    root = str(branchy)
    model = LastChanges(root)
    for sha, parents in history(branchy):
        for parent in parents or [None]:
            raw, _ = raw_and_hunks(root, parent, sha)
            model.learn(sha, parent, frozenset(p for change in raw for p in (change.old_path, change.new_path)))
    paths = ["same.txt", "a.py", "renamed.py", "b.txt", "side.py", "img.bin", "dir/odd name\twith tab.py", "missing.py"]
    asked = 0
    for sha, _ in reversed(history(branchy)):  # newest first: answers are then partly remembered
        for path in paths:
            assert model(sha, path) == last_change(root, sha, path), (sha, path)
            asked += 1
    assert asked == len(paths) * len(history(branchy))


def test_last_changes_on_a_linear_history_keep_only_the_answers_asked(bare_repo: Path) -> None:
    """A run of single-parent commits is searched, not walked commit by commit with a memo per
    step (which grew with commits x files on a long history)."""
    repo, root = bare_repo, str(bare_repo)
    for number in range(4):
        write(repo, f"f{number}.py", "x = 0\n")
    commit(repo, "root")
    for number in range(24):
        write(repo, f"f{1 + number % 3}.py", f"x = {number + 1}\n")  # f0.py never changes again
        commit(repo, f"change {number}")
    model = LastChanges(root)
    for sha, parents in history(repo):
        for parent in parents or [None]:
            raw, _ = raw_and_hunks(root, parent, sha)
            model.learn(sha, parent, frozenset(p for change in raw for p in (change.old_path, change.new_path)))
    newest = history(repo)[-1][0]
    assert model(newest, "f0.py") == last_change(root, newest, "f0.py")
    assert len(model.known) == 1
    for sha, _ in history(repo):
        for path in ("f0.py", "f1.py", "f2.py", "f3.py", "none.py"):
            assert model(sha, path) == last_change(root, sha, path), (sha, path)




def test_backfill_records_the_same_with_and_without_worker_processes(branchy: Path, tmp_path: Path) -> None:
    """Classification in worker processes, by rounds of commits, changes no record and no line origin."""
    for number in range(70):  # more than two rounds of consecutive commits
        body = f"    return {number}\n" if number % 3 else "    return  (1)\n"  # some only reformat
        write(branchy, "renamed.py", f"import os\n\n\ndef f():\n{body}\n\ndef g{number % 4}():\n    pass\n")
        write(branchy, f"pkg/m{number % 5}.py", f"X = {number}\n")
        commit(branchy, f"change {number}")
    runs = []
    for jobs in ("1", "2"):
        clone = tmp_path / f"jobs{jobs}"
        git(tmp_path, "clone", "-q", str(branchy), str(clone))
        result = gitai_json(clone, "backfill", "--jobs", jobs)
        assert result["traced"] == len(history(branchy))
        runs.append((records_by_commit(clone), kept_origins(clone)))
    (serial, serial_origins), (parallel, parallel_origins) = runs
    assert len(serial) == len(history(branchy)) and parallel == serial
    assert serial_origins and parallel_origins == serial_origins
    assert origins_of(serial_origins, tip_files(branchy, "HEAD")) == serial_origins  # HEAD's versions only
    classifications = {r["metadata"]["dev.gitai"]["classification"] for r in serial.values()}
    assert classifications == {"AST_REFACTOR", "INTENT_EVOLUTION"}


def test_incremental_parse_gives_the_tree_a_fresh_parse_gives(tmp_path: Path) -> None:
    """Backfill parses a file's next version from the tree of the one before: the same tree, and
    so the same normal form, as parsing it afresh (edits at the head, middle and tail, a syntax
    error, non-ASCII text, a rewrite)."""
    from gitai.syntax.hash_cache import HashCache, reparse
    from gitai.syntax.normal_form import hash_source, hash_tree, parse

    versions = [
        "import os\n\n\ndef f(a):\n    return a + 1\n\n\nclass C:\n    def m(self):\n        return 'é'\n",
        "import os\nimport sys\n\n\ndef f(a):\n    return a + 1\n\n\nclass C:\n    def m(self):\n        return 'é'\n",
        "import os\nimport sys\n\n\ndef f(a, b=2):\n    return a + b\n\n\n"
        "class C:\n    def m(self):\n        return 'é'\n",
        "import os\nimport sys\n\n\ndef f(a, b=2):\n    return a + b\n\n\n"
        "class C:\n    def m(self):\n        return 'ü'\n    x = (\n",
        "import os\nimport sys\n\n\ndef f(a, b=2):\n    return a + b\n\n\n"
        "class C:\n    def m(self):\n        return 'ü'\n",
        "def g():\n    pass\n",
    ]
    old = versions[0].encode()
    tree = parse("python", old)
    for text in versions[1:]:
        new = text.encode()
        fresh = parse("python", new)
        again = reparse("python", old, tree, new)
        assert str(again.root_node) == str(fresh.root_node)
        assert hash_tree("python", new, again) == hash_source("python", new)
        old, tree = new, again
    cache = HashCache(str(tmp_path), recent=8)
    for before, after in itertools.pairwise(versions):  # as classify asks: the old side, then the new
        for text in (before, after):
            assert cache.hash_source("python", text.encode()) == hash_source("python", text.encode())


def test_hunks_git_never_emits_are_left_aside(tmp_path: Path) -> None:
    """Hunks as real git gives them become edits; an empty hunk, or one past the end of a side, is
    none of git's: no edits (the parse falls back to the common head and tail), never edits that
    start past the end of the text."""
    from gitai.git.diff import blob_hunks
    from gitai.syntax.hash_cache import _line_edits, reparse
    from gitai.syntax.normal_form import parse

    git(tmp_path, "init", "-q", str(tmp_path / "repo"))
    pairs = [(b"", b"\n"), (b"b", b"b\n"), (b"a\n", b"a\nb\n"), (b"a\nb\n", b"b\n"), (b"x = 1\n", b"")]
    for old, new in pairs:
        old_blob, new_blob = (subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=tmp_path / "repo",
                                             input=side, capture_output=True, check=True).stdout.decode().strip()
                              for side in (old, new))
        edits = _line_edits(old, new, blob_hunks(str(tmp_path / "repo"), old_blob, new_blob))
        assert edits, (old, new)
        assert all(o_start <= o_end <= len(old) and n_start <= n_end <= len(new)
                   for o_start, o_end, n_start, n_end in edits)
    assert _line_edits(b"", b"\n", [(1, 0, 1, 1)]) is None  # git says (0, 0, 1, 1): the old side starts past b""
    assert _line_edits(b"b", b"b", [(1, 0, 1, 0)]) is None  # empty, and past the end of both sides
    assert _line_edits(b"a\n", b"a\n", [(1, 0, 1, 0)]) is None  # empty, within both sides
    old, new = b"x = 1\n", b"x = 1\ny = 2\n"
    again = reparse("python", old, parse("python", old), new, [(3, 0, 3, 1)])  # past the end of the old side
    assert str(again.root_node) == str(parse("python", new).root_node)


def test_a_method_added_before_another_is_parsed_without_lexing_the_rest_again(tmp_path: Path) -> None:
    """A line hunk that begins where the indentation changed (here: a method added before the next)
    becomes an edit begun where the two sides first differ, ended on a line start: the tree a
    fresh parse gives, with the file after the new method reused rather than lexed again (which
    tree-sitter does when the edit touches the text its zero-width dedent looked ahead at)."""
    from tree_sitter import Parser

    from gitai.git.diff import blob_hunks
    from gitai.syntax.hash_cache import _later_starts, _line_edits, _points, reparse
    from gitai.syntax.languages import load_grammar
    from gitai.syntax.normal_form import parse

    methods = "".join(f"    def m{i}(self, a):\n        if a:\n            return {i}\n        return a\n\n"
                      for i in range(60))
    old = f"class C:\n    def first(self):\n        return 0\n\n{methods}".encode()
    added = b"    def added(self):\n        return 1\n\n"
    at = old.index(b"    def m0")
    new = old[:at] + added + old[at:]
    git(tmp_path, "init", "-q", str(tmp_path / "repo"))
    old_blob, new_blob = (subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=tmp_path / "repo",
                                         input=side, capture_output=True, check=True).stdout.decode().strip()
                          for side in (old, new))
    lines = _line_edits(old, new, blob_hunks(str(tmp_path / "repo"), old_blob, new_blob))
    assert lines is not None and len(lines) == 1
    edits = _later_starts(old, new, lines)
    (old_start, old_end, new_start, new_end), = edits
    assert old_start > lines[0][0] and old[lines[0][0]:old_start] == new[lines[0][2]:new_start]
    assert old[old_start] != new[new_start] and old[old_end - 1:old_end] == b"\n"
    assert old[old_end:] == new[new_end:] and new[:new_start] == old[:old_start]
    assert str(reparse("python", old, parse("python", old), new).root_node) == str(parse("python", new).root_node)

    def lexed(edit_list: list[tuple[int, int, int, int]] | None) -> int:
        """The tokens tree-sitter lexes parsing `new` (from the tree of `old` edited by `edit_list`)."""
        parser = Parser(load_grammar("python").language)
        messages: list[str] = []
        parser.logger = lambda _, message: messages.append(message)
        if edit_list is None:
            parser.parse(new)
        else:
            tree = parse("python", old)
            (start, end, start_new, end_new), = edit_list
            (row, column), old_end_point = _points(old, [start, end])
            inserted = new[start_new:end_new]
            tree.edit(start, end, start + len(inserted), (row, column), old_end_point,
                      (row + inserted.count(b"\n"), len(inserted) - inserted.rfind(b"\n") - 1))
            assert str(parser.parse(new, tree).root_node) == str(parse("python", new).root_node)
        return sum(message.startswith("lexed_lookahead") for message in messages)

    assert lexed(edits) * 10 < lexed(None)


def test_a_tree_parsed_again_while_held_is_counted_once(tmp_path: Path) -> None:
    """The bytes of held trees are those of the trees held, however often a text is parsed again
    (here: out of the newest hashes, nothing kept on disk, so it is parsed while its tree is held)."""
    from gitai.syntax.hash_cache import HashCache

    state = tmp_path / "not-a-directory"
    state.write_text("")  # nothing can be kept on disk beneath a file
    cache = HashCache(str(state), recent=1)
    texts = [b"def f():\n    return 1\n", b"def g():\n    return 2\n"]
    for text in texts * 3:
        cache.hash_source("python", text)
        assert cache._tree_bytes == sum(len(data) for _, data in cache._trees)
    assert sorted(data for _, data in cache._trees) == sorted(texts)


def _edit_history(seed: int, steps: int) -> list[bytes]:
    """Versions of a Python file, each from the one before by a few random line edits: lines added,
    removed, re-indented and changed inside and between definitions, a definition copied or moved,
    a line ending in CRLF, an unclosed bracket now and then (a syntax error), no final newline."""
    import random

    rnd = random.Random(seed)
    lines = ["import os", "", "", "def f(a):", "    return a + 1", "", "", "class C:", "    x = 1", "",
             "    def m(self, b):", "        if b:", "            return 'é'", "        return None", "", "",
             "def g():", "    '''doc'''", "    return [1,", "            2]", ""]
    pieces = ["    y = 2", "        b += 1", "z = f(3)", "def h():", "    pass", "", "class D(C):", "    pass",
              "    return (1)", "        return  b", "x = [", "@decorator", "# a comment", "    '''other'''"]
    versions = []
    for _ in range(steps):
        for _ in range(rnd.randint(1, 3)):
            at = rnd.randrange(len(lines) + 1)
            move = rnd.random()
            if move < 0.35:
                lines.insert(at, rnd.choice(pieces))
            elif move < 0.6 and len(lines) > 4:
                del lines[min(at, len(lines) - 1)]
            elif move < 0.75 and lines:
                at = min(at, len(lines) - 1)
                lines[at] = ("    " + lines[at]) if rnd.random() < 0.5 else lines[at].removeprefix("    ")
            elif move < 0.85 and lines:
                start = rnd.randrange(len(lines))
                block = lines[start:start + rnd.randint(1, 6)]
                lines[at:at] = block
            elif lines:
                at = min(at, len(lines) - 1)
                lines[at] = lines[at].replace("1", "2").replace("a", "b") + ("\r" if rnd.random() < 0.1 else "")
        text = "\n".join(lines) + ("" if rnd.random() < 0.1 else "\n")
        versions.append(text.encode())
    return versions


@pytest.mark.parametrize("seed", range(4))
def test_parsing_from_the_previous_version_changes_no_answer(tmp_path: Path, seed: int) -> None:
    """The cache backfill hashes through (each version parsed from the tree of the one before, edit
    by edit where the commit's `-U0` hunks say, its digests remembered by text) gives every
    normal form, and so every classification, that hashing each version afresh gives; so do
    hunks that do not hold (another version's): they are checked and left aside."""
    from gitai.git.diff import blob_hunks
    from gitai.syntax.classify import FileChange, classify_changes
    from gitai.syntax.hash_cache import HashCache
    from gitai.syntax.normal_form import hash_source

    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", str(repo))
    versions = _edit_history(seed, 60)
    blobs = [subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=repo, input=version, capture_output=True,
                            check=True).stdout.decode().strip() for version in versions]
    cache = HashCache(str(tmp_path / "state"), recent=16)
    wrong = [(1, 1, 1, 1), (3, 0, 4, 2)]
    for number, (before, after) in enumerate(itertools.pairwise(versions)):
        hunks = blob_hunks(str(repo), blobs[number], blobs[number + 1]) if number % 7 else wrong
        change = FileChange("m.py", "m.py", before, after, hunks)
        cached = classify_changes([change], cache.hash_source, cache.statements)
        assert cached == classify_changes([FileChange("m.py", "m.py", before, after)])
        assert cache.hash_source("python", after) == hash_source("python", after)


def test_versions_let_go_for_want_of_memory_are_cache_misses(branchy: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Backfill holds the line origins of the versions it does not write in memory, within a bound;
    a step that needs one let go finds nothing, as for any cache miss: the records stay valid and
    blame-intent answers as after a run that held them all."""
    import gitai.blame.origin_cache
    from gitai.backfill import backfill
    from gitai.layout import find_layout

    for number in range(12):
        write(branchy, "renamed.py", f"import os\n\n\ndef f():\n    return {number}\n")
        write(branchy, "side.py", f"s = {number}\n" if number % 4 else "s  =  0\n")
        commit(branchy, f"change {number}")
    clones = {}
    for name in ("held", "let_go"):
        clone = clones[name] = tmp_path / name
        git(tmp_path, "clone", "-q", str(branchy), str(clone))
        gitai_ok(clone, "init", "--no-hooks")
    gitai_json(clones["held"], "backfill", "--jobs", "1")
    monkeypatch.setattr(gitai.blame.origin_cache, "HELD_LINES", 1)  # every version held is let go at once
    result = backfill(find_layout(str(clones["let_go"])), None, jobs=1)
    assert len(result.traced) == len(history(branchy))
    assert len(kept_origins(clones["let_go"])) < len(kept_origins(clones["held"]))  # steps found nothing
    gitai_ok(clones["let_go"], "trace", "verify")
    for path in sorted(path for path, _ in tip_files(branchy, "HEAD") if not path.endswith(".bin")):
        assert gitai_json(clones["let_go"], "blame-intent", path) == gitai_json(clones["held"], "blame-intent", path)
