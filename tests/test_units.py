"""In-process tests of the pure algorithms: parsers, line arithmetic, origin steps, edits, patterns."""

from __future__ import annotations

import hashlib
import json

import pytest

from gitai.blame import early, origin_cache
from gitai.blame.step import InconsistentStep, ParentSide, carried, carry, step
from gitai.git.blame import parse_incremental, unquote_path
from gitai.git.diff import added_lines, parse_hunks, parse_raw
from gitai.intents.patterns import Matcher, PatternError, compile_pattern, string_test
from gitai.intents.status_edit import set_status_text
from gitai.trace.record import META_CHECKS, GitaiMeta, TraceRecord
from gitai.util.lines import content_hash, merge_ranges, range_hashes, split_lines
from gitai.util.text import display_path, one_line

A, B, C = "a" * 40, "b" * 40, "c" * 40


# --- git output parsers -------------------------------------------------------------------------


def test_parse_incremental_reads_runs_and_boundaries() -> None:
    output = (
        f"{A} 1 1 2\nauthor X\nsummary {B} 3 3 1\nboundary\nfilename src/a.py\n"  # a summary shaped like a header
        f"{B} 5 3 1\nauthor Y\nsummary s\nfilename \"src/\\303\\251.py\"\n"
        f"{A} 3 4 1\nfilename src/a.py\n"
    ).encode()
    runs = parse_incremental(output.splitlines(keepends=True))
    assert [(r.commit, r.path, r.orig_start, r.final_start, r.count, r.boundary) for r in runs] == [
        (A, "src/a.py", 1, 1, 2, True), (B, "src/é.py", 5, 3, 1, False), (A, "src/a.py", 3, 4, 1, True)]


@pytest.mark.parametrize(("raw", "path"), [
    (b"plain/path.py", "plain/path.py"),
    (b'"tab\\there"', "tab\there"),
    (b'"quote\\"and\\\\slash"', 'quote"and\\slash'),
    (b'"nl\\nx"', "nl\nx"),
    (b'"\\303\\251t\\303\\251.py"', "été.py"),
])
def test_unquote_path(raw: bytes, path: str) -> None:
    assert unquote_path(raw) == path


@pytest.mark.parametrize(("args", "found"), [
    (["src/a.py"], ("src/a.py", "HEAD")),
    (["--rev", "v1", "-L", "3,4", "--json", "a.py"], ("a.py", "v1")),
    (["a.py", "--rev=HEAD~2", "-L3,4", "--declared-only", "--summary"], ("a.py", "HEAD~2")),
    (["--porcelain", "a.py"], ("a.py", "HEAD")),
    (["a.py", "b.py"], None),  # click refuses it: nothing is started
    (["--help"], None), (["--", "a.py"], None), (["--rev"], None), (["--rev", "-x", "a.py"], None), ([], None),
    (["--new-option", "a.py"], None),
])
def test_early_blame_reads_file_and_rev_as_click_will_or_not_at_all(args: list[str], found: object) -> None:
    assert early._file_and_rev(args) == found


def test_early_blame_knows_where_origins_are_kept() -> None:
    assert early.ORIGINS_DIRECTORY == origin_cache.DIRECTORY


def test_parse_raw_with_rename_add_and_delete() -> None:
    z = b"\0".join([
        b":100644 100644 " + A[:40].encode() + b" " + B.encode() + b" R087", b"old.py", b"new.py",
        b":000000 100644 " + b"0" * 40 + b" " + C.encode() + b" A", b"added.txt",
        b":100644 000000 " + A.encode() + b" " + b"0" * 40 + b" D", b"gone.txt",
    ]) + b"\0"
    changes = parse_raw(z)
    assert [(c.status, c.old_path, c.new_path) for c in changes] == [
        ("R", "old.py", "new.py"), ("A", "added.txt", "added.txt"), ("D", "gone.txt", "gone.txt")]
    assert changes[0].old_mode == 0o100644 and changes[0].new_oid == B


def test_parse_hunks_and_added_lines() -> None:
    patch = b"@@ -3 +3,2 @@ def f\n-x\n+y\n+z\n@@ -10,2 +11,0 @@\n-a\n-b\n@@ -0,0 +1 @@\n+top\n"
    hunks = parse_hunks(patch)
    assert hunks == [(3, 1, 3, 2), (10, 2, 11, 0), (0, 0, 1, 1)]
    assert added_lines(hunks) == [3, 4, 1]


# --- line arithmetic ----------------------------------------------------------------------------


def test_split_lines_and_hash_rule() -> None:
    assert split_lines(b"") == []
    assert split_lines(b"a\r\nb\n") == [b"a", b"b"]
    assert split_lines(b"a\n\n") == [b"a", b""]
    lines = split_lines("é\nx\ny".encode())
    assert content_hash(lines, 1, 2) == "sha256:" + hashlib.sha256("é\nx".encode()).hexdigest()
    assert merge_ranges([1, 2, 3, 7, 9, 10]) == [(1, 3), (7, 7), (9, 10)]


@pytest.mark.parametrize("data", [b"a\nb\nc\nd\n", b"a\r\nb\r\nc\r\nd", b"a\rb\nc\r\n\nd\r", b"\n\n\n\n",
                                  "é\r\nx\ny\nz".encode()])
def test_range_hashes_follow_the_hash_rule_splitting_only_what_they_need(data: bytes) -> None:
    lines = split_lines(data)
    assert len(lines) == 4
    for ranges in ([(1, 4)], [(1, 1)], [(2, 3)], [(1, 2), (4, 4)], [(3, 4)], [(1, 1), (3, 3)], [(4, 4), (1, 1)]):
        assert range_hashes(data, ranges) == [content_hash(lines, start, end) for start, end in ranges]
    assert range_hashes(data, []) == []


# --- origin steps -------------------------------------------------------------------------------


def test_carry_keeps_unchanged_lines_and_marks_changed_ones() -> None:
    parent = [(A, "f"), (A, "f"), (B, "f"), (B, "f")]
    lines, hunk_of = carry(ParentSide(parent, [(2, 1, 2, 2)]), 5)  # line 2 replaced by two lines
    assert lines == [(A, "f"), None, None, (B, "f"), (B, "f")]
    assert hunk_of[1] == hunk_of[2] == (2, 1, 2, 2) and hunk_of[0] == (0, 0, 0, 0)
    with pytest.raises(InconsistentStep):
        carry(ParentSide(parent, [(2, 1, 2, 2)]), 4)


def test_carried_lines_are_carrys_with_the_changed_ones_filled() -> None:
    parent = [(A, "f"), (A, "f"), (B, "f"), (B, "f")]
    for hunks, count in (([(2, 1, 2, 2)], 5), ([(0, 0, 1, 2), (4, 1, 5, 0)], 5), ([(1, 4, 1, 1)], 1), ([], 4)):
        lines, _ = carry(ParentSide(parent, hunks), count)
        assert carried(ParentSide(parent, hunks), count, (C, "f")) == [line or (C, "f") for line in lines]
        assert carried(ParentSide(parent, hunks), count, None) == lines
        with pytest.raises(InconsistentStep):
            carried(ParentSide(parent, hunks), count + 1, (C, "f"))
    with pytest.raises(InconsistentStep):  # hunks reaching past the parent's lines
        carried(ParentSide(parent, [(4, 2, 4, 1)]), 4, None)


def test_step_gives_new_lines_to_the_commit_and_takes_a_merge_parents_lines() -> None:
    first = ParentSide([(A, "f"), (A, "f")], [(2, 0, 3, 1)])  # a line added at the end
    assert step(C, "f", 3, [first], None) == [(A, "f"), (A, "f"), (C, "f")]
    other = ParentSide([(A, "f"), (A, "f"), (B, "f")], [])  # the other parent already has it
    assert step(C, "f", 3, [first, other], None) == [(A, "f"), (A, "f"), (B, "f")]
    identical = ParentSide([(B, "g")] * 3, [], identical=True)
    assert step(C, "f", 3, [first, identical], None) == [(B, "g")] * 3


# --- catalogue edits and patterns ---------------------------------------------------------------


def test_status_edit_replaces_inserts_and_refuses_flow_style() -> None:
    text = "active_intents:\n  - id: A  # keep me\n    name: a\n    status: 'DRAFT'\n  - id: B\n    name: b\n"
    edited = set_status_text(text, "A", "IN_PROGRESS", "active_intents")
    assert edited == text.replace("'DRAFT'", "'IN_PROGRESS'")
    inserted = set_status_text(text, "B", "DONE", "active_intents")
    assert inserted is not None and "  - id: B\n    status: DONE\n    name: b\n" in inserted
    assert set_status_text("active_intents: [{id: A, name: a}]\n", "A", "DONE", "active_intents") is None
    assert set_status_text(text, "Z", "DONE", "active_intents") is None


def test_pattern_compilation() -> None:
    assert compile_pattern("") is None and compile_pattern("# note") is None
    regex, include = compile_pattern("!src/vendor/**") or ("", True)
    assert include is False and regex
    for bad in ("/etc/passwd", "../x", "src/../../x", "C:\\x", "[unclosed"):
        with pytest.raises(PatternError):
            compile_pattern(bad)
    assert compile_pattern("/build", anchors=True) is not None  # .intentignore: a leading / anchors


FAST_PATTERNS = ["src/**", "a.b/**", "a b/**", "AGENTS.md", "x", "a+b", "a-b.md", ".md", "name\\*", "**/x", "*.md",
                 "*.tar.gz", "/.claude/settings.json", "src/a.py", "src", "!src/vendor/**"]
OTHER_PATTERNS = ["src/", "foo/*.py", "a/**/b", "[ab].md", "?.md", "*", "**"]


def test_literal_scopes_match_as_their_regexes_do() -> None:
    """The gate matches literal scopes with string operations (no `re` import): on every path built
    from awkward parts (a final newline, which `$` accepts; a leading or doubled `/`) each answers
    as `re.match` on the regex does; any other shape is left to the regex."""
    import itertools
    import re

    parts = ["", "src", "x", "a.md", ".md", "AGENTS.md", "a", ".claude", "settings.json", "a.b", "a b", "a+b",
             "t.tar.gz", "srcx", "\n", "md", "a.md\n", "x\n", "vendor", "a-b.md", "name*"]
    paths = {"/".join(combo) for n in (1, 2, 3) for combo in itertools.product(parts, repeat=n)}
    for pattern in FAST_PATTERNS + OTHER_PATTERNS:
        regex, include = compile_pattern(pattern, anchors=pattern.startswith("/")) or ("", True)
        test = string_test(regex)
        assert (test is not None) == (pattern in FAST_PATTERNS), pattern
        if test is not None:
            expected = re.compile(regex, re.DOTALL)
            assert [p for p in paths if bool(test(p)) != bool(expected.match(p))] == [], pattern
        matcher = Matcher([(regex, include)])
        assert [p for p in paths
                if matcher.matches(p) != (bool(re.compile(regex, re.DOTALL).match(p)) and include)] == []


# --- untrusted records and text -----------------------------------------------------------------


def test_load_record_refuses_crafted_values() -> None:
    good = {"version": "0.1.0", "id": "x", "vcs": {"type": "git", "revision": A}, "files": [],
            "metadata": {"dev.gitai": {"intent_id": "INT-1", "files": {}}}}
    loaded = TraceRecord.load(json.dumps(good))
    assert loaded is not None and loaded.data == good and loaded.intent == "INT-1"
    assert loaded.dumps() == json.dumps(good, separators=(",", ":"))  # the bytes it was read from
    assert TraceRecord.load("[" * 100_000 + "]" * 100_000) is None
    assert TraceRecord.load(json.dumps({**good, "metadata": {"dev.gitai": {"intent_id": 7}}})) is None
    assert TraceRecord.load(json.dumps({**good, "metadata": {"dev.gitai": {"files": ["a"]}}})) is None
    bad_range = {"path": "a", "conversations": [{"ranges": [{"start_line": "1"}]}]}
    assert TraceRecord.load(json.dumps({**good, "files": [bad_range]})) is None
    assert TraceRecord.load("not json") is None
    assert TraceRecord.parse([good]) is None


def test_the_absolute_program_replaces_gitai_before_a_command_not_in_prose() -> None:
    from gitai.util.program import gitai_program, with_program

    program = gitai_program()
    assert program != "gitai"  # the test's gitai is beside its Python
    text = "run gitai select INT-1, then gitai trace verify; gitai refuses otherwise (gitai: refused, gitai selects)"
    assert with_program(text) == ("run " + program + " select INT-1, then " + program + " trace verify; "
                                  "gitai refuses otherwise (gitai: refused, gitai selects)")


def test_every_field_of_gitai_metadata_is_checked_when_read() -> None:
    """A new field of `GitaiMeta` gets its check in `META_CHECKS`, so untrusted notes cannot give it another type."""
    assert set(META_CHECKS) == set(GitaiMeta.__annotations__)


def test_one_line_and_display_path() -> None:
    assert one_line("unknown intent 'A\nB'") == "unknown intent 'A\\nB'"
    assert one_line("nul \x00 here") == "nul \\x00 here"
    assert display_path("a\nb") == '"a\\nb"' and display_path("plain") == "plain"


def test_attribution_opcodes_rebuild_the_new_lines() -> None:
    """The head/tail shortcut before difflib still describes a correct edit, whatever the input."""
    import random

    from gitai.trace.attribution import _opcodes

    rng = random.Random(7)
    for _ in range(300):
        old = [bytes([rng.choice(b"abc")]) for _ in range(rng.randint(0, 12))]
        new = [bytes([rng.choice(b"abc")]) for _ in range(rng.randint(0, 12))]
        rebuilt: list[bytes] = []
        position = 0
        for tag, i1, i2, j1, j2 in _opcodes(old, new):
            assert i1 == position
            rebuilt += old[i1:i2] if tag == "equal" else new[j1:j2]
            if tag == "equal":
                assert old[i1:i2] == new[j1:j2]
            position = i2
        assert position == len(old) and rebuilt == new


def test_one_record_per_commit_prefers_the_declared_then_the_earliest() -> None:
    from gitai.trace.record import choose_record

    def record(rid: str, stamp: str, **meta: object) -> TraceRecord:
        return TraceRecord({"id": rid, "timestamp": stamp, "metadata": {"dev.gitai": {"intent_id": "INT-001", **meta}}})

    hook = record("b", "2026-01-02T00:00:00Z", intent_source="active")
    backfilled = record("a", "2026-01-01T00:00:00Z", intent_source="trailer", backfilled=True)
    inferred = record("c", "2026-01-01T00:00:00Z", intent_source="scope")
    assert choose_record([backfilled, inferred, hook]) is hook  # declared at commit time, though later
    assert choose_record([inferred, backfilled]) is backfilled  # both guesses: the earlier, then the smaller id
    chosen = choose_record([record("z", "2026-01-03T00:00:00Z"), record("y", "2026-01-03T00:00:00Z")])
    assert chosen is not None and chosen.id == "y"
    assert choose_record([]) is None
