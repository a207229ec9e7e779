"""Normal-form hashes of file contents, kept between runs.

The post-commit hook hashes both sides of every changed file; the old side of a commit is, most
of the time, the new side of the commit before, hashed by the previous hook. Kept in
`<git common dir>/gitai/syntax-v3/`, one small JSON file per (language, content): a cache, safe
to delete. An entry made with another grammar version is ignored; `-v3` names the normal-form
rules, so changing them (gitai.syntax.normal_form) must bump it.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from gitai.syntax.languages import load_grammar
from gitai.syntax.normal_form import Definition, ParsedSource, hash_source
from gitai.util.files import write_atomic

DIRECTORY = "syntax-v3"


class HashCache:
    """`hash_source`, remembered on disk."""

    def __init__(self, state_dir: str) -> None:
        self.directory = os.path.join(state_dir, DIRECTORY)

    def hash_source(self, language: str, data: bytes) -> ParsedSource:
        key = hashlib.sha256(language.encode() + b"\0" + data).hexdigest()
        path = os.path.join(self.directory, key[:2], key[2:] + ".json")
        prefix = load_grammar(language).hash_prefix
        try:
            with open(path, encoding="utf-8") as handle:
                parsed = _decode(json.load(handle))
            if parsed.language == language and parsed.hash.startswith(prefix):
                return parsed
        except (OSError, ValueError, KeyError, TypeError):
            pass  # not kept yet, or damaged: hash again
        parsed = hash_source(language, data)
        try:
            write_atomic(path, json.dumps(_encode(parsed), separators=(",", ":")))
        except OSError:
            pass  # a read-only git dir only costs speed
        return parsed


def _encode(parsed: ParsedSource) -> dict[str, Any]:
    return {
        "language": parsed.language, "hash": parsed.hash, "skeleton_hash": parsed.skeleton_hash,
        "parse_error": parsed.parse_error, "bare": parsed.bare,
        "definitions": [[d.kind, d.name, d.hash, d.tree_hash, *d.lines] for d in parsed.definitions],
    }


def _decode(data: dict[str, Any]) -> ParsedSource:
    definitions = tuple(Definition(kind, name, own, tree, (start, end))
                        for kind, name, own, tree, start, end in data["definitions"])
    return ParsedSource(str(data["language"]), str(data["hash"]), str(data["skeleton_hash"]), definitions,
                        bool(data["parse_error"]), bool(data["bare"]))
