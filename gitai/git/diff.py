"""Commit data through git plumbing (`diff-tree`, `cat-file --batch`).

The record builder runs in the post-commit hook, where importing pygit2 alone would cost more
than the whole budget (about 110 ms here), so it reads git through a few subprocesses instead.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from gitai.git.objects import empty_tree
from gitai.git.runner import run_git
from gitai.util.lines import split_lines

HUNK_HEADER = rb"(?m)^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@"
"""A `-U0` hunk's header. The patterns here are compiled where used (then taken from `re`'s cache):
this module is imported on the hook path, where compiling them all would cost about a millisecond."""


class RawChange(NamedTuple):
    """One entry of `git diff-tree --raw` (a tuple: backfill makes tens of thousands)."""

    status: str  # A M D R T C (rename and copy scores dropped)
    old_mode: int
    new_mode: int
    old_oid: str
    new_oid: str
    old_path: str
    new_path: str


def raw_changes(root: str, parent: str | None, commit: str) -> list[RawChange]:
    """Changed paths of `commit` against `parent` (None: the empty tree), with rename detection."""
    return parse_raw(run_git(["diff-tree", "-r", "-z", "--raw", "-M", "--no-commit-id",
                                parent or empty_tree(root, commit), commit], root))


def staged_raw_changes(root: str, head: str | None) -> list[RawChange]:
    """What the index changes against HEAD (None: an unborn branch), with rename detection."""
    return parse_raw(run_git(["diff-index", "--cached", "-z", "--raw", "-M", head or empty_tree(root)], root))


RAW_ENTRY = (rb":([0-7]+) ([0-7]+) ([0-9a-f]+) ([0-9a-f]+) "
             rb"(?:([RC])[0-9]*\0([^\0]*)\0([^\0]*)\0|([A-Z])[0-9]*\0([^\0]*)\0)")
"""One entry of `--raw -z` output: modes, blobs, then a rename's or copy's status (its score
dropped) and its two paths, or another status and its path."""
RAW_ENTRIES = rb"(?:" + RAW_ENTRY + rb")*"


def _raw_end(out: bytes | bytearray, pos: int = 0) -> int:
    """Where the raw entries from `pos` end (there may be none)."""
    found = re.compile(RAW_ENTRIES).match(out, pos)
    return found.end() if found else pos


def parse_raw(out: bytes) -> list[RawChange]:
    """Parse `--raw -z` output of the diff plumbing commands (what follows the entries is left)."""
    return _raw_entries(out, _raw_end(out))


def _raw_entries(out: bytes, end: int) -> list[RawChange]:
    """The raw entries of `out` up to `end`, where they end."""
    changes = []
    entries = re.compile(RAW_ENTRY).findall(out, 0, end)
    for old_mode, new_mode, old_oid, new_oid, moved, source, target, status, path in entries:
        if moved:
            changes.append(RawChange(moved.decode(), int(old_mode, 8), int(new_mode, 8), old_oid.decode(),
                                     new_oid.decode(), source.decode("utf-8", "surrogateescape"),
                                     target.decode("utf-8", "surrogateescape")))
        else:
            name = path.decode("utf-8", "surrogateescape")
            changes.append(RawChange(status.decode(), int(old_mode, 8), int(new_mode, 8), old_oid.decode(),
                                     new_oid.decode(), name, name))
    return changes


DIFF_OPTIONS = ("--no-color", "--no-ext-diff", "--no-textconv", "--diff-algorithm=myers", "--indent-heuristic",
                "--inter-hunk-context=0")
"""Pinned, whatever the user's diff configuration says: hunks must match `git blame`'s line tracking
(the same in every clone: they end up in records). With `--text` (gitai decides what is binary), a
`-diff` attribute does not hide the changes."""

Hunk = tuple[int, int, int, int]
"""One `-U0` hunk: old start, old count, new start, new count (git's numbering: with a count of
0, the start is the line after which the change sits)."""

Listed = tuple[list[RawChange], list[list[Hunk] | None] | None]
"""One diff: its raw changes and, for each, its hunks (see `raw_and_hunks`)."""

SYMLINK_MODE = 0o120000
GITLINK_MODE = 0o160000
UNDIFFED_MODES = (0, SYMLINK_MODE, GITLINK_MODE)
"""No file, a symlink, a submodule: no lines to diff (a file that was one is all new lines)."""


def raw_and_hunks(root: str, parent: str | None, commit: str) -> Listed:
    """The changes of `raw_changes` and, for each in that order, its `-U0` hunks (None where git
    saw a binary file: a real one, or text marked `-diff`, which the caller diffs again with
    `--text`), from one `diff-tree --raw -p`. The hunks are None when the patch does not line up
    with the raw listing (the caller then diffs file by file). Many commits: `DiffStream`."""
    out = run_git(["diff-tree", *RAW_AND_PATCH, "--no-commit-id", parent or empty_tree(root, commit), commit], root)
    return parse_raw_and_hunks(out)


RAW_AND_PATCH = ("-r", "-z", "--raw", "-p", "-U0", "-M", *DIFF_OPTIONS)


PATCH_PARTS = rb"(?m)\n(?:(d)iff --git |(B)inary files .* differ$|@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@)"
"""What the hunks of a `-U0` patch are read from, in the patch after a newline: where each file's
patch starts, git's word that a file is binary, and hunk headers (no line of a hunk starts so: each
starts with `+`, `-` or `\\`). Each is looked for after a newline, not at `^`: the regex engine
then tries only the lines' starts, not every byte (four times faster)."""


def parse_raw_and_hunks(out: bytes) -> Listed:
    """Parse one diff of `diff-tree -z --raw -p` (see `raw_and_hunks`)."""
    end = _raw_end(out)
    changes = _raw_entries(out, end)
    per_change: list[list[Hunk] | None] = []
    hunks: list[Hunk] = []
    parts = re.compile(PATCH_PARTS).findall(b"\n" + out[end:].lstrip(b"\0"))
    for new_file, binary, old_start, old_count, new_start, new_count in parts:
        if new_file:
            hunks = []
            per_change.append(hunks)
        elif not per_change:
            return changes, None  # a hunk before any file: not git's patch
        elif binary:
            per_change[-1] = None
        else:
            hunks.append((int(old_start), int(old_count or 1), int(new_start), int(new_count or 1)))
    if len(per_change) != len(changes):
        return changes, None
    return changes, per_change


RAW_ONLY = ("-r", "-z", "--raw", "-M", *DIFF_OPTIONS)
"""The raw listing of `RAW_AND_PATCH` without the patch."""


def merge_paths(raws: list[list[RawChange]]) -> tuple[set[str], set[str]]:
    """A merge's own changes, from its raw changes against each parent: the paths it adds or
    changes against every parent (by their name in the merge) and those it deletes against every
    parent. Any other path it took as is from one of its parents."""
    return (set.intersection(*({change.new_path for change in raw if change.status != "D"} for raw in raws)),
            set.intersection(*({change.old_path for change in raw if change.status == "D"} for raw in raws)))


class _PairStream:
    """One `git diff-tree --stdin OPTIONS` over (parent, commit) pairs known in advance, fed by a
    thread while its output is read as it comes: each pair's output, asked in their order."""

    def __init__(self, root: str, pairs: list[tuple[str | None, str]], options: tuple[str, ...]) -> None:
        import subprocess
        import threading

        self.pairs = pairs
        self.next = 0
        self.buffer = bytearray()
        self.failed = not pairs
        if self.failed:
            return
        # a root commit alone (with --root: against the empty tree), else "COMMIT PARENT"
        self._proc = subprocess.Popen(["git", "diff-tree", "--stdin", "--root", "--always", *options],
                                      cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, bufsize=0)
        lines = b"".join(f"{commit} {parent}\n".encode() if parent else f"{commit}\n".encode()
                         for parent, commit in pairs)
        self._writer = threading.Thread(target=self._feed, args=(lines,), daemon=True)
        self._writer.start()

    def _feed(self, lines: bytes) -> None:
        assert self._proc.stdin
        try:
            view = memoryview(lines)
            while view:  # unbuffered: a write may take part of it
                view = view[self._proc.stdin.write(view) or 0:]
            self._proc.stdin.close()
        except OSError:
            pass  # git stopped early: the reader falls back

    def _fill(self) -> bool:
        """Read more output; False at its end."""
        assert self._proc.stdout
        data = self._proc.stdout.read(1 << 16)  # unbuffered: what is there, up to that
        self.buffer += data
        return bool(data)

    def _index(self, byte: bytes, start: int) -> int:
        """Where `byte` next occurs from `start`, reading on as needed (-1: the output ended first)."""
        while (found := self.buffer.find(byte, start)) < 0:
            start = max(start, len(self.buffer) - len(byte) + 1)  # a huge patch is searched once
            if not self._fill():
                return -1
        return found

    def _take(self) -> bytes | None:
        """The next pair's diff (without its header), or None when the output does not line up."""
        header = self.pairs[self.next][1].encode() + b"\0"
        while len(self.buffer) < len(header) and self._fill():
            pass
        if not self.buffer.startswith(header):
            return None
        pos = len(header)
        while True:  # the raw entries, up to what is read of them
            pos = _raw_end(self.buffer, pos)
            if (pos == len(self.buffer) or self.buffer.startswith(b":", pos)) and self._fill():
                continue  # more may follow, or a part of one is read
            break
        if self.next + 1 == len(self.pairs):
            while self._fill():
                pass
            end = len(self.buffer)
        else:  # the patch ends where the next pair's header starts a line (no patch line starts so)
            following = self.pairs[self.next + 1][1].encode() + b"\0"
            while len(self.buffer) < pos + len(following) and self._fill():
                pass
            if self.buffer.startswith(following, pos):
                end = pos
            else:
                end = self._index(b"\n" + following, pos) + 1
                if end == 0:
                    return None
        out = bytes(self.buffer[len(header):end])
        del self.buffer[:end]
        return out

    def take(self, parent: str | None, commit: str) -> bytes | None:
        """The output for this pair; None when it is not the next one, or the stream failed."""
        if self.failed or self.next >= len(self.pairs) or self.pairs[self.next] != (parent, commit):
            return None
        out = self._take()
        self.next += 1
        self.failed = out is None
        return out

    def close(self) -> None:
        if self.pairs:
            self._proc.kill()
            self._proc.wait()
            self._writer.join()


MERGES_PER_BATCH = 256
"""Merges whose own files' hunks are computed together (one `mktree` and one `diff-tree`)."""


class DiffStream:
    """`raw_and_hunks` for many (parent, commit) pairs known in advance (backfill: thousands), asked
    in their order: a process per commit cost more than the diffs themselves. A commit's diff comes
    from one `git diff-tree --stdin --raw -p`; a merge's, against each of its parents, raw only
    from another, with the hunks of the files it changes against every parent (`merge_paths`)
    alone, the only ones its record and line origins read (computed by batches of merges, as blob
    pairs: `hunks_between`); the other entries' hunks are None (diff them yourself). A merge of a
    long-lived branch differs from its other parent in every file the branch did not touch: those
    patches cost as much as all the other diffs. A pair asked out of order, or a stream that
    failed, falls back to `raw_and_hunks`."""

    def __init__(self, root: str, pairs: list[tuple[str | None, str]]) -> None:
        from collections import Counter

        self.root = root
        counts = Counter(commit for _, commit in pairs)
        self.merges = {commit for commit, count in counts.items() if count > 1}
        self.patches = _PairStream(root, [pair for pair in pairs if pair[1] not in self.merges], RAW_AND_PATCH)
        self.merge_pairs = [pair for pair in pairs if pair[1] in self.merges]
        self.raws = _PairStream(root, self.merge_pairs, RAW_ONLY)
        self.batched = 0  # merge pairs read so far
        self.ready: dict[tuple[str | None, str], Listed] = {}

    def _read_merges(self) -> None:
        """Read the next batch of merges' raw diffs and compute their own files' hunks."""
        batch: list[list[tuple[tuple[str | None, str], list[RawChange]]]] = []
        while self.batched < len(self.merge_pairs) and len(batch) < MERGES_PER_BATCH:
            commit = self.merge_pairs[self.batched][1]
            sides = []
            while self.batched < len(self.merge_pairs) and self.merge_pairs[self.batched][1] == commit:
                pair = self.merge_pairs[self.batched]
                self.batched += 1
                out = self.raws.take(*pair)
                if out is not None:  # else that pair is diffed apart
                    sides.append((pair, parse_raw(out)))
            batch.append(sides)
        wanted: list[tuple[str | None, str]] = []  # (old blob or None, new blob)
        slots: list[tuple[list[list[Hunk] | None], int]] = []  # where each one's hunks go
        for sides in batch:
            if not sides:
                continue
            files, _ = merge_paths([raw for _, raw in sides])
            for pair, raw in sides:
                per_change: list[list[Hunk] | None] = [None] * len(raw)
                self.ready[pair] = (raw, per_change)
                for index, change in enumerate(raw):
                    if change.status != "D" and change.new_path in files and change.new_mode not in UNDIFFED_MODES:
                        had_text = change.status != "A" and change.old_mode not in UNDIFFED_MODES
                        wanted.append((change.old_oid if had_text else None, change.new_oid))
                        slots.append((per_change, index))
        found = hunks_between(self.root, wanted)
        if found is not None:  # else those files are diffed one by one
            for (per_change, index), hunks in zip(slots, found, strict=True):
                per_change[index] = hunks

    def __call__(self, parent: str | None, commit: str) -> Listed:
        if commit in self.merges:
            if (parent, commit) not in self.ready and self.batched < len(self.merge_pairs) and \
                    (parent, commit) == self.merge_pairs[self.batched]:
                self._read_merges()
            found = self.ready.pop((parent, commit), None)
            if found is not None:
                return found
        else:
            out = self.patches.take(parent, commit)
            if out is not None:
                return parse_raw_and_hunks(out)
        return raw_and_hunks(self.root, parent, commit)

    def close(self) -> None:
        self.patches.close()
        self.raws.close()

    def __enter__(self) -> DiffStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def hunks_between(root: str, pairs: list[tuple[str | None, str]]) -> list[list[Hunk]] | None:
    """The `-U0` hunks (as `blob_hunks` gives them) from each old blob to its new one (None: no
    old file, every line added), from one `git diff-tree` of two trees holding the pairs under
    the same names: there is no git command diffing a list of blob pairs. The trees are written
    to an object directory of their own (`gitai-trees-*` in the repository's gitai directory, the
    repository's objects its alternate), removed after, so nothing is added to the repository; one
    a killed run left is removed by the next. None when git fails (diff them one by one then)."""
    if not pairs:
        return []
    import os
    import shutil
    import tempfile

    from gitai.git.runner import GitCommandError

    width = len(str(len(pairs)))
    old = b"".join(f"100644 blob {blob}\t{number:0{width}}\n".encode()
                   for number, (blob, _) in enumerate(pairs) if blob is not None)
    new = b"".join(f"100644 blob {blob}\t{number:0{width}}\n".encode() for number, (_, blob) in enumerate(pairs))
    own = os.path.join(root, os.fsdecode(run_git(["rev-parse", "--git-path", "objects"], root).removesuffix(b"\n")))
    state = os.path.join(os.path.dirname(own), "gitai")
    try:
        os.makedirs(state, exist_ok=True)
        _remove_left_trees(state)
        objects = tempfile.mkdtemp(prefix=TREES_PREFIX, dir=state)
    except OSError:  # no gitai directory to be had: the caller diffs them one by one
        return None
    try:
        # The repository's objects named to the temporary directory by its alternates file, relative
        # to it (`../../objects`): no path to quote, whatever the repository's path holds (a ':', which
        # separates GIT_ALTERNATE_OBJECT_DIRECTORIES' entries, a newline, bytes that are not UTF-8).
        os.makedirs(os.path.join(objects, "info"))
        with open(os.path.join(objects, "info", "alternates"), "wb") as file:
            file.write(os.fsencode(os.path.relpath(own, objects)) + b"\n")
        env = {**os.environ, "GIT_OBJECT_DIRECTORY": objects}
        trees = run_git(["mktree", "--missing", "--batch"], root, input=old + b"\n" + new, env=env).split()
        out = run_git(["diff-tree", "-p", "-U0", "--text", "--no-renames", *DIFF_OPTIONS,
                       trees[0].decode(), trees[1].decode()], root, env=env)
    except (GitCommandError, OSError):
        return None
    finally:
        shutil.rmtree(objects, ignore_errors=True)
    found: list[list[Hunk]] = [[] for _ in pairs]  # a pair git does not list is the same blob twice
    headers = list(re.finditer(rb"^diff --git a/(\d+) ", out, flags=re.MULTILINE))
    for header, following in zip(headers, [*headers[1:], None], strict=True):
        found[int(header.group(1))] = parse_hunks(out[header.end():following.start() if following else len(out)])
    return found


TREES_PREFIX = "gitai-trees-"


def _remove_left_trees(state: str) -> None:
    """Remove the object directories of `hunks_between` that a killed run left (an hour old: one
    of a run still going is younger). Best effort."""
    import os
    import shutil
    import time

    try:
        names = [name for name in os.listdir(state) if name.startswith(TREES_PREFIX)]
    except OSError:
        return
    for name in names:
        path = os.path.join(state, name)
        try:
            if time.time() - os.lstat(path).st_mtime > 3600 and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
        except OSError:
            pass


def blob_hunks(root: str, old: str | None, new: str) -> list[Hunk]:
    """The `-U0` hunks between two blobs (None: no old file, so every line is added)."""
    if old is None:  # not `git diff EMPTY_BLOB`: the empty blob need not exist in the repository
        count = len(split_lines(run_git(["cat-file", "blob", new], root)))
        return [(0, 0, 1, count)] if count else []
    return parse_hunks(run_git(["diff", "-U0", "--text", *DIFF_OPTIONS, old, new], root))


def parse_hunks(patch: bytes) -> list[Hunk]:
    """The hunk headers of a `-U0` patch."""
    return [(int(old_start), int(old_count or 1), int(new_start), int(new_count or 1))
            for old_start, old_count, new_start, new_count in re.findall(HUNK_HEADER, patch)]


def added_lines(hunks: list[Hunk]) -> list[int]:
    """The new-side line numbers the hunks add or change."""
    return [line for _, _, start, length in hunks for line in range(start, start + length)]


