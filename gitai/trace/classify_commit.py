"""AST classification of a commit's changes: the record's classification metadata, and `gitai classify`
on a commit or on the staged changes. tree-sitter loads only when a file is classified."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gitai.git.diff import staged_raw_changes
from gitai.git.objects import ObjectReader, commit_parents
from gitai.git.runner import head_commit, verify_commit
from gitai.layout import Layout
from gitai.trace.changes import CommitChanges, commit_changes, load_changes

NOT_PARSED = ("symlink", "submodule")  # a changed link target or submodule commit: behaviour changed

if TYPE_CHECKING:
    from gitai.syntax.classify import CommitClassification, FileChange, FileClassification, PreparedFile
    from gitai.syntax.hash_cache import HashCache


def file_changes(changes: CommitChanges) -> list[FileChange]:
    """What a commit's classification reads of each changed file (symlinks and submodules aside)."""
    from gitai.syntax.classify import FileChange

    inputs = [FileChange(f.old_path, f.path, f.old_data, f.new_data, f.hunks)
              for f in changes.files if f.kind not in NOT_PARSED]
    return inputs + [FileChange(path, None, data, None) for path, data in changes.deleted if data is not None]


def changed_lines(changes: CommitChanges) -> list[list[int]]:
    """For each of `file_changes(changes)`, the lines the commit adds to it, sorted (see `for_record`)."""
    lines = [sorted(set(f.added_lines)) for f in changes.files if f.kind not in NOT_PARSED]
    return lines + [[] for _, data in changes.deleted if data is not None]


def classify_files(changes: CommitChanges, cache_dir: str | None = None,
                   cache: HashCache | None = None) -> tuple[str, dict[str, FileClassification]]:
    """Commit-level class and each file's classification, typed (tree-sitter loads only here); with
    `cache_dir`, normal-form hashes are kept there between runs; `cache`: one for many commits
    (backfill's, keeping the newest in memory), instead."""
    from gitai.syntax.classify import classify_changes
    from gitai.syntax.hash_cache import HashCache

    inputs = file_changes(changes)
    if cache is None and cache_dir:
        cache = HashCache(cache_dir)
    return _with_links(changes, classify_changes(inputs, cache.hash_source, cache.statements) if cache
                       else classify_changes(inputs))


def _with_links(changes: CommitChanges,
                result: CommitClassification) -> tuple[str, dict[str, FileClassification]]:
    """The classification of the parsed files, and of the changed symlinks and submodules."""
    from gitai.syntax.classify import INTENT_EVOLUTION, FileClassification

    files = dict(result.files)
    commit_class: str = result.classification
    for changed in changes.files:
        if changed.kind in NOT_PARSED:
            files[changed.path] = FileClassification(INTENT_EVOLUTION, None, f"{changed.kind} changed")
            commit_class = INTENT_EVOLUTION
    return commit_class, files


def classify(changes: CommitChanges, cache_dir: str | None = None,
             cache: HashCache | None = None) -> tuple[str, dict[str, dict[str, Any]]]:
    """The classification as a record keeps it (`dev.gitai.files`): see `to_record_json`."""
    return as_recorded(changes, *classify_files(changes, cache_dir, cache))


def classify_prepared_files(changes: CommitChanges,
                            prepared: list[PreparedFile]) -> tuple[str, dict[str, dict[str, Any]]]:
    """`classify`, from what `prepare_file` gave for each of `file_changes(changes)` (elsewhere)."""
    from gitai.syntax.classify import classify_prepared

    return as_recorded(changes, *_with_links(changes, classify_prepared(prepared)))


def as_recorded(changes: CommitChanges, commit_class: str,
                files: dict[str, FileClassification]) -> tuple[str, dict[str, dict[str, Any]]]:
    from gitai.syntax.classify import to_record_json

    added = {f.path: f.added_lines for f in changes.files}
    return commit_class, {path: to_record_json(c, added.get(path, ())) for path, c in files.items()}


@dataclass
class ClassifyResult:
    commit: str | None  # None for the staged changes
    classification: str
    files: dict[str, FileClassification]

    def to_json(self) -> dict[str, Any]:
        return {"commit": self.commit, "classification": self.classification,
                "files": [{"path": path, **info.to_json()} for path, info in sorted(self.files.items())]}


def classify_revision(layout: Layout, rev: str) -> ClassifyResult:
    """Classify what commit `rev` changed against its first parent."""
    sha = verify_commit(layout.root, rev)
    with ObjectReader(layout.root) as reader:
        changes = commit_changes(layout.root, reader, sha, commit_parents(reader, sha))
    return ClassifyResult(sha, *classify_files(changes, layout.shared_state_dir))


def classify_staged(layout: Layout) -> ClassifyResult:
    """Classify what the index changes against HEAD."""
    raw = staged_raw_changes(layout.root, head_commit(layout.root))
    with ObjectReader(layout.root) as reader:
        changes = load_changes(layout.root, reader, raw, [[] for _ in raw])  # no line ranges needed
    return ClassifyResult(None, *classify_files(changes, layout.shared_state_dir))
