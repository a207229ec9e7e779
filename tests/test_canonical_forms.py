"""Every canonical-form rule (gitai/syntax/canonical.py): the spellings it makes equal are
AST_REFACTOR, and a real change right next to it is still INTENT_EVOLUTION."""

from __future__ import annotations

import json

import pytest
from testing.canonical_rules import RULES

from gitai.syntax.canonical import CANONS
from gitai.syntax.classify import FileChange, classify_changes

AST = "AST_REFACTOR"
INTENT = "INTENT_EVOLUTION"


def verdict(path: str, old: str, new: str) -> str:
    result = classify_changes([FileChange(path, path, old.encode(), new.encode())])
    file = result.files[path]
    assert file.classification == AST or file.reason, json.dumps(file.to_json())
    return file.classification


@pytest.mark.parametrize(("rule", "path", "old", "same", "changed"), RULES, ids=[r[0] for r in RULES])
def test_rule_keeps_meaning_and_catches_the_change_next_to_it(rule: str, path: str, old: str, same: str,
                                                              changed: str) -> None:
    assert verdict(path, old, same) == AST, rule
    assert verdict(path, old, changed) == INTENT, rule
    assert verdict(path, same, changed) == INTENT, rule


def test_every_table_entry_has_a_rule_test() -> None:
    """A new entry in a table needs a row in RULES (its language at least)."""
    covered = {path.rsplit(".", 1)[1] for _, path, *_ in RULES}
    extensions = {"python": "py", "javascript": "js", "typescript": "ts", "tsx": "ts", "go": "go", "rust": "rs",
                  "java": "java", "c": "c", "cpp": "cc", "php": "php"}
    assert {extensions[language] for language in CANONS} <= covered


def test_record_lists_changed_definitions_and_reformatted_ones_only() -> None:
    """to_record_json: changed definitions, plus (AST_REFACTOR) unchanged ones holding a changed line."""
    from gitai.syntax.classify import to_record_json

    old = b"def f(x):\n    return x\n\n\ndef g():\n    return 1\n\n\ndef h():\n    return 2\n"
    new = b"def f(x):\n    return (\n        x\n    )\n\n\ndef g():\n    return 1\n\n\ndef h():\n    return 2\n"
    refactor = classify_changes([FileChange("a.py", "a.py", old, new)]).files["a.py"]
    assert refactor.classification == AST
    entry = to_record_json(refactor, [2, 3, 4])
    assert entry["definitions"] == [{"kind": "function", "name": "f", "status": "unchanged",
                                     "old_lines": [1, 2], "new_lines": [1, 4]}]
    evolution = classify_changes([FileChange("a.py", "a.py", old, new.replace(b"return 2", b"return 3"))])
    entry = to_record_json(evolution.files["a.py"], [2, 3, 4, 12])
    assert [(d["name"], d["status"]) for d in entry["definitions"]] == [("h", "modified")]
    assert entry["reason"] == "modified: function h (lines 11-12)"


def test_raw_string_with_an_escaped_quote_keeps_its_text() -> None:
    """tree-sitter-python gives `r"\\""` no content node (its text is in the closing token)."""
    assert verdict("a.py", 'x = r"\\""\n', "x = r'\\\"'\n") == AST
    assert verdict("a.py", 'x = r"\\""\n', 'x = r""\n') == INTENT
    assert verdict("a.py", 'x = r"\\""\n', "x = r'\\\\'\n") == INTENT
