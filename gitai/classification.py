"""`gitai classify`: the AST classification of a commit or of the staged changes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gitai.git import head_commit, verify_commit
from gitai.layout import Layout
from gitai.trace.gitdata import ObjectReader, commit_parents, staged_raw_changes
from gitai.trace.record import commit_changes, load_changes
from gitai.trace.tracing import classify


@dataclass
class ClassifyResult:
    commit: str | None  # None for the staged changes
    classification: str
    files: dict[str, dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {"commit": self.commit, "classification": self.classification, "files": self.files}


def classify_revision(layout: Layout, rev: str) -> ClassifyResult:
    """Classify what commit `rev` changed against its first parent."""
    sha = verify_commit(layout.root, rev)
    with ObjectReader(layout.root) as reader:
        changes = commit_changes(layout.root, reader, sha, commit_parents(reader, sha))
    commit_class, files = classify(changes, layout.shared_state_dir)
    return ClassifyResult(sha, commit_class, files)


def classify_staged(layout: Layout) -> ClassifyResult:
    """Classify what the index changes against HEAD."""
    raw = staged_raw_changes(layout.root, head_commit(layout.root))
    with ObjectReader(layout.root) as reader:
        changes = load_changes(layout.root, reader, raw, [[] for _ in raw])  # no line ranges needed
    commit_class, files = classify(changes, layout.shared_state_dir)
    return ClassifyResult(None, commit_class, files)
