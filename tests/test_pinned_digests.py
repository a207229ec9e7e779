"""Golden digests: the normal form's output is pinned, not only compared with itself.

Every snippet of the canonical-form rule table (each rule's old, equal and changed spelling, in
every language) and the hash benchmark's generated 2,000-line file per language are hashed, and
the file hash, skeleton hash and each definition's hashes must equal the values in
tests/data/digests.json. A change to the walk that moves any digest fails
here, even when it moves both sides of a comparison alike (which the other tests cannot see).

A deliberate change of the normal form (a new rule, a grammar upgrade) regenerates the file:
`PIN_DIGESTS=1 pytest tests/test_pinned_digests.py`, and the diff is reviewed with it.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import sys
from pathlib import Path

from testing.canonical_rules import RULES

from gitai.syntax.languages import language_for_path
from gitai.syntax.normal_form import hash_source

GOLDEN = Path(__file__).parent / "data" / "digests.json"
BENCHMARKS = Path(__file__).parent.parent / "benchmarks"


def _snippets() -> dict[str, tuple[str, str]]:
    """Key (extension and the source's own hash) -> (language, source)."""
    found: dict[str, tuple[str, str]] = {}
    for _, path, *sources in RULES:
        language = language_for_path(path)
        assert language is not None, path
        for source in sources:
            key = f"{path.rsplit('.', 1)[1]}:{hashlib.sha256(source.encode()).hexdigest()[:16]}"
            found[key] = (language, source)
    sys.path.insert(0, str(BENCHMARKS))
    generators = importlib.import_module("ast_hash").GENERATORS  # the benchmark's deterministic sources
    for language, generate in generators.items():
        found[f"generated:{language}"] = (language, generate())
    return found


def _bare(digest: str) -> str:
    """The digest without its grammar version (`ts2:python@0.25.0:`): a grammar release that parses
    the same way keeps it; one that changes the tree moves the hex and fails here, as it should."""
    return digest.rsplit(":", 1)[-1]


def _digests(language: str, source: str) -> list[str]:
    parsed = hash_source(language, source.encode())
    definitions = [f"{d.kind} {d.name} {d.lines[0]}-{d.lines[1]} {_bare(d.hash)} {_bare(d.tree_hash)}"
                   for d in parsed.definitions]
    if len(definitions) > 20:  # a generated file: its definitions pinned as one digest, to keep the file short
        joined = hashlib.sha256("\n".join(definitions).encode()).hexdigest()
        definitions = [f"{len(parsed.definitions)} definitions {joined}"]
    return [_bare(parsed.hash), _bare(parsed.skeleton_hash), *definitions]


def test_digests_equal_the_pinned_values() -> None:
    computed = {key: _digests(language, source) for key, (language, source) in sorted(_snippets().items())}
    if os.environ.get("PIN_DIGESTS") == "1":
        GOLDEN.write_text(json.dumps(computed, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    pinned = json.loads(GOLDEN.read_text(encoding="utf-8"))
    unpinned = sorted(set(computed) - set(pinned))
    assert not unpinned, f"snippets without pinned digests (regenerate, see the docstring): {unpinned[:5]}"
    moved = [key for key in computed if computed[key] != pinned[key]]
    assert not moved, f"{len(moved)} of {len(computed)} snippets hash differently than pinned, e.g. {moved[:5]}"
    assert len(computed) >= 190  # the rule table's snippets in every language, and a generated file each
