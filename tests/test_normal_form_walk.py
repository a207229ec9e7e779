"""gitai.syntax.normal_form: walk paths the speed-up of issue 13 restructured (digests must not move)."""

from __future__ import annotations

from gitai.syntax.normal_form import hash_source, parse


def test_a_definition_ends_a_sorted_run() -> None:
    """Consecutive `use` declarations compare sorted; a definition between them (hashed on its own)
    ends the run, so `use` declarations on both sides of it are two runs."""
    one_run = hash_source("rust", b"use b;\nuse a;\nfn f() {}\n").skeleton_hash
    assert one_run == hash_source("rust", b"use a;\nuse b;\nfn f() {}\n").skeleton_hash
    split = hash_source("rust", b"use b;\nfn f() {}\nuse a;\n").skeleton_hash
    assert split != hash_source("rust", b"use a;\nfn f() {}\nuse b;\n").skeleton_hash


def test_syntax_errors_hash_by_their_text() -> None:
    """tree-sitter's ERROR nodes (a kind id past the grammar's own) are walked like any node."""
    broken = b"def f(:\n    return 1 +\n"
    assert parse("python", broken).root_node.has_error
    first, second = hash_source("python", broken), hash_source("python", broken.replace(b"1", b"2"))
    assert first.parse_error and second.parse_error
    assert first.hash != second.hash
    assert first.hash == hash_source("python", broken).hash
