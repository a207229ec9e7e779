"""Classify a commit's file changes as AST_REFACTOR (meaning kept) or INTENT_EVOLUTION.

Rules (docs/classification.md): files in a known language compare normal-form hashes per
definition and for the code outside definitions; other files use a whitespace-insensitive text
rule; binary and very large files must be byte-identical. A definition removed in one place and
added with the same hash elsewhere in the commit is "moved". A commit is AST_REFACTOR only when
every file is.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal

from gitai.syntax.languages import language_for_path
from gitai.syntax.normal_form import (
    Definition,
    ParsedSource,
    Statement,
    first_error_line,
    hash_source,
    top_level_statements,
)
from gitai.syntax.reasons import definitions_reason, spans_text
from gitai.util.files import LARGE_FILE, is_binary

AST_REFACTOR: Final = "AST_REFACTOR"
INTENT_EVOLUTION: Final = "INTENT_EVOLUTION"
Classification = Literal["AST_REFACTOR", "INTENT_EVOLUTION"]
Status = Literal["added", "removed", "modified", "moved", "unchanged"]
LineHunk = tuple[int, int, int, int]
"""One `-U0` hunk of git's: old start, old count, new start, new count (a count of 0: the start is the
line after which the change sits)."""
Hasher = Callable[[str, bytes, "Sequence[LineHunk] | None"], ParsedSource]
"""(language, content, hunks) -> its normal form: `fresh_hash`, or a cache in front of it. `hunks`,
when given, turn the content hashed just before (the file's old side) into this one: a cache may
parse it from that one's tree, edit by edit."""
StatementsOf = Callable[[str, bytes], list[Statement]]
"""(language, content) -> its top-level statements: `top_level_statements`, or a cache's."""



@dataclass(frozen=True)
class FileChange:
    """One file of a commit; the `old_*` fields are None when it was added, `new_*` when deleted."""

    old_path: str | None
    new_path: str | None
    old_data: bytes | None
    new_data: bytes | None
    hunks: Sequence[LineHunk] | None = None  # from old_data to new_data, when known (see Hasher)


def fresh_hash(language: str, data: bytes, hunks: Sequence[LineHunk] | None = None) -> ParsedSource:
    """`hash_source` as a `Hasher`: a fresh parse, which has no use for hunks."""
    return hash_source(language, data)


@dataclass(frozen=True)
class DefinitionChange:
    """What happened to one definition; lines are 1-based inclusive ranges in the old/new file.

    A move between files appears twice: at the destination with `moved_from` and at the source
    with `moved_to` (no new lines). A move inside one file is one entry with `moved_from`.
    """

    kind: str
    name: str
    status: Status
    hash: str
    old_lines: tuple[int, int] | None
    new_lines: tuple[int, int] | None
    moved_from: dict[str, str] | None = None
    moved_to: dict[str, str] | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": self.kind,
            "name": self.name,
            "status": self.status,
            "hash": self.hash,
            "old_lines": list(self.old_lines) if self.old_lines else None,
            "new_lines": list(self.new_lines) if self.new_lines else None,
        }
        if self.moved_from is not None:
            data["moved_from"] = dict(self.moved_from)
        if self.moved_to is not None:
            data["moved_to"] = dict(self.moved_to)
        return data


@dataclass(frozen=True)
class FileClassification:
    """A file's class; `language` is None under the text rule; `reason` explains special cases."""

    classification: Classification
    language: str | None
    reason: str | None = None
    definitions: list[DefinitionChange] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"classification": self.classification, "language": self.language}
        if self.reason is not None:
            data["reason"] = self.reason
        data["definitions"] = [d.to_json() for d in self.definitions]
        return data


@dataclass(frozen=True)
class CommitClassification:
    """The commit's class and each file's, keyed by new path (old path for deletions)."""

    classification: Classification
    files: dict[str, FileClassification]

    def to_json(self) -> dict[str, Any]:
        return {"classification": self.classification, "files": {p: f.to_json() for p, f in self.files.items()}}


@dataclass
class _Entry:
    """A DefinitionChange under construction."""

    status: Status
    old: Definition | None
    new: Definition | None
    moved_from: dict[str, str] | None = None
    moved_to: dict[str, str] | None = None

    def freeze(self) -> DefinitionChange:
        current = self.new or self.old
        assert current is not None
        return DefinitionChange(
            kind=current.kind,
            name=current.name,
            status=self.status,
            hash=current.hash,
            old_lines=self.old.lines if self.old else None,
            new_lines=self.new.lines if self.new else None,
            moved_from=self.moved_from,
            moved_to=self.moved_to,
        )


@dataclass
class PreparedFile:
    """One file while the commit is being classified."""

    change: FileChange
    key: str
    language: str | None = None
    decided: FileClassification | None = None  # set when a rule other than the AST rule applies
    old: ParsedSource | None = None
    new: ParsedSource | None = None
    entries: list[_Entry] = field(default_factory=list)
    reason: str | None = None  # where a parse failed, or which top-level code changed (see prepare_file)


def _verdict(ok: bool) -> Classification:
    return AST_REFACTOR if ok else INTENT_EVOLUTION


_WHITESPACE = b" \t\n\r\x0b\x0c"  # what bytes.split() splits at


def _same_words(old: bytes, new: bytes) -> bool:
    """The text rule: the same words in the same order. Different text without whitespace settles it
    with no list of words made (a changelog has tens of thousands, and most changes change words)."""
    return old.translate(None, _WHITESPACE) == new.translate(None, _WHITESPACE) and old.split() == new.split()


def _prepare(change: FileChange, hasher: Hasher) -> PreparedFile:
    """Apply the rules that need no parse; otherwise parse both sides."""
    old, new = change.old_data, change.new_data
    key = (change.new_path if new is not None else change.old_path) or change.new_path or change.old_path or ""
    work = PreparedFile(change, key)
    old_language = language_for_path(change.old_path) if change.old_path and old is not None else None
    new_language = language_for_path(change.new_path) if change.new_path and new is not None else None
    present = [data for data in (old, new) if data is not None]
    language = new_language if new is not None else old_language
    if not present:
        work.decided = FileClassification(INTENT_EVOLUTION, None, "no content")
    elif any(is_binary(data) for data in present):
        work.decided = FileClassification(_verdict(old == new), None, "binary")
    elif any(len(data) > LARGE_FILE for data in present):
        work.decided = FileClassification(_verdict(old == new), language, "too large")
    elif old is not None and new is not None and old_language != new_language:
        reason = f"language changed: {old_language or 'text'} -> {new_language or 'text'}"
        work.decided = FileClassification(_verdict(_same_words(old, new)), None, reason)
    elif language is None:
        if old is None or new is None:
            work.decided = FileClassification(INTENT_EVOLUTION, None, "file added" if old is None else "file deleted")
        else:
            work.decided = FileClassification(_verdict(_same_words(old, new)), None)
    else:
        work.language = language
        work.old = hasher(language, old, None) if old is not None else None
        hunks = change.hunks if old is not None else None
        work.new = (work.old if old == new else hasher(language, new, hunks)) if new is not None else None
    return work


def prepare_file(change: FileChange, hasher: Hasher = fresh_hash,
                 statements: StatementsOf = top_level_statements) -> PreparedFile:
    """The part of a file's classification that reads its contents: the rules that need no parse,
    both sides' normal forms, their definitions paired, and what a reason needs of the contents
    (where a parse failed, which top-level statements differ). The contents are not kept, so the
    rest (`classify_prepared`) can run in another process (see `for_record`)."""
    work = _prepare(change, hasher)
    old, new = work.old, work.new
    errors = [side for side, parsed in (("old", old), ("new", new)) if parsed and parsed.parse_error]
    if errors:
        work.reason = _parse_error_reason(work, errors)
    elif old is not None and new is not None and old.skeleton_hash != new.skeleton_hash and work.language:
        work.reason = "; ".join(_skeleton_reason(work.language, change.old_data or b"", change.new_data or b"",
                                                 statements))
    if work.decided is None:
        _match_definitions(work)
    work.change = FileChange(change.old_path, change.new_path, None, None)
    return work


def for_record(work: PreparedFile, changed_lines: Sequence[int]) -> PreparedFile:
    """`work` cut to what a record of it needs (`to_record_json`, with the file's sorted
    `changed_lines`): of the unchanged definitions, which are most, those holding a changed line;
    of the normal forms, not their definitions (the entries hold those left). A small answer to
    pass from a worker process; the class and the reason come out the same."""
    work.entries = [entry for entry in work.entries
                    if entry.status != "unchanged" or (entry.new and _holds_any(entry.new.lines, changed_lines))]
    work.old = replace(work.old, definitions=()) if work.old else None
    work.new = replace(work.new, definitions=()) if work.new else None
    return work


def _match_definitions(work: PreparedFile) -> None:
    """Pair old and new definitions by kind and qualified name, as multisets, in the order of
    their (kind, name). Most names are defined once on each side: only the others need lists."""
    olds = work.old.definitions if work.old else ()
    news = work.new.definitions if work.new else ()
    old_by = {definition[:2]: definition for definition in olds}  # (kind, name) -> its last definition
    new_by = {definition[:2]: definition for definition in news}
    repeated = _repeated(olds, old_by) | _repeated(news, new_by)
    old_lists = _lists(olds, repeated)
    new_lists = _lists(news, repeated)
    entries = work.entries
    if not repeated and old_by.keys() == new_by.keys():  # the most common case: the same names on both sides
        for key in sorted(old_by):
            before, after = old_by[key], new_by[key]
            entries.append(_Entry("unchanged" if before.hash == after.hash else "modified", before, after))
        return
    for key in sorted(old_by.keys() | new_by.keys()):
        if key in repeated:
            _match_multiset(entries, old_lists.get(key, []), new_lists.get(key, []))
            continue
        old, new = old_by.get(key), new_by.get(key)
        if old is None:
            entries.append(_Entry("added", None, new))
        elif new is None:
            entries.append(_Entry("removed", old, None))
        else:
            entries.append(_Entry("unchanged" if old.hash == new.hash else "modified", old, new))


def _repeated(definitions: Sequence[Definition], last: dict[tuple[str, str], Definition]) -> set[tuple[str, str]]:
    """The (kind, name)s defined more than once (`last`: each one's last definition)."""
    if len(last) == len(definitions):
        return set()
    return {definition[:2] for definition in definitions if last[definition[:2]] is not definition}


def _lists(definitions: Sequence[Definition], keys: set[tuple[str, str]]) -> dict[tuple[str, str], list[Definition]]:
    """The definitions of each of `keys`, in order."""
    lists: dict[tuple[str, str], list[Definition]] = defaultdict(list)
    if keys:
        for definition in definitions:
            if definition[:2] in keys:
                lists[definition[:2]].append(definition)
    return lists


def _match_multiset(entries: list[_Entry], olds: list[Definition], news: list[Definition]) -> None:
    """Pair the definitions of one (kind, name): those with the same hash first, in order, then the
    rest in order; what is left over was removed or added."""
    by_hash: dict[str, deque[int]] = defaultdict(deque)
    for index, definition in enumerate(news):
        by_hash[definition.hash].append(index)
    taken: set[int] = set()
    changed_old = []
    for definition in olds:
        same = by_hash.get(definition.hash)
        if same:
            taken.add(same[0])
            entries.append(_Entry("unchanged", definition, news[same.popleft()]))
        else:
            changed_old.append(definition)
    changed_new = [d for index, d in enumerate(news) if index not in taken]
    for old, new in zip(changed_old, changed_new, strict=False):
        entries.append(_Entry("modified", old, new))
    entries.extend(_Entry("removed", old, None) for old in changed_old[len(changed_new) :])
    entries.extend(_Entry("added", None, new) for new in changed_new[len(changed_old) :])


def _match_moves(files: list[PreparedFile]) -> None:
    """Turn removed/added pairs with equal hashes anywhere in the commit into moves."""
    added: dict[str, list[tuple[PreparedFile, _Entry]]] = defaultdict(list)
    for work in files:
        if work.new is not None and not work.new.parse_error:
            for entry in work.entries:
                if entry.status == "added" and entry.new is not None:
                    added[entry.new.hash].append((work, entry))
    for source in files:
        if source.old is None or source.old.parse_error:
            continue
        merged: set[int] = set()  # source entries folded into a move inside the same file
        for entry in source.entries:
            if entry.status != "removed" or entry.old is None or not added.get(entry.old.hash):
                continue
            candidates = added[entry.old.hash]
            pick = next((c for c in candidates if c[1].new and c[1].new.name == entry.old.name), candidates[0])
            candidates.remove(pick)
            target, moved = pick
            moved.status = "moved"
            if target is source:
                moved.old = entry.old
                moved.moved_from = {"path": source.key, "name": entry.old.name}
                merged.add(id(entry))
            else:
                assert moved.new is not None
                moved.moved_from = {"path": source.change.old_path or source.key, "name": entry.old.name}
                entry.status = "moved"
                entry.moved_to = {"path": target.key, "name": moved.new.name}
        if merged:
            source.entries = [entry for entry in source.entries if id(entry) not in merged]


def _finish(work: PreparedFile) -> FileClassification:
    if work.decided is not None:
        return work.decided
    old, new = work.old, work.new
    # new-side definitions in file order, then those that left the file in old-file order
    entries = sorted(work.entries, key=lambda e: (0, e.new.lines) if e.new else (1, e.old.lines if e.old else (0, 0)))
    definitions = [entry.freeze() for entry in entries]
    errors = [side for side, parsed in (("old", old), ("new", new)) if parsed and parsed.parse_error]
    reason = None
    if errors:
        ok = False
        reason = work.reason
    elif old is None or new is None:
        # an added or deleted file is a refactor only when it just receives or gives up moved definitions
        present = new or old
        assert present is not None
        ok = present.bare and bool(entries) and all(entry.status == "moved" for entry in entries)
        if not ok:
            reason = "file added" if old is None else "file deleted"
    else:
        ok = old.skeleton_hash == new.skeleton_hash and all(e.status in ("unchanged", "moved") for e in entries)
        if not ok:
            reason = _change_reason(work, definitions)
    return FileClassification(_verdict(ok), work.language, reason, definitions)


def _parse_error_reason(work: PreparedFile, sides: list[str]) -> str:
    data = {"old": work.change.old_data, "new": work.change.new_data}
    assert work.language is not None
    lines = [(side, first_error_line(work.language, data[side] or b"")) for side in sides]
    where = ", ".join(f"{side} line {line}" if len(sides) == 2 else f"line {line}" for side, line in lines if line)
    return "parse error in " + ("both versions" if len(sides) == 2 else f"{sides[0]} version") + \
        (f" ({where})" if where else "")


def _change_reason(work: PreparedFile, definitions: list[DefinitionChange]) -> str:
    """Why a file is INTENT_EVOLUTION: which imports or top-level statements changed (see
    `prepare_file`), which definitions were modified, added or removed, with their lines (old lines
    for removals)."""
    parts = [work.reason] if work.reason else []
    parts += definitions_reason([d.to_json() for d in definitions if d.status in _REASONED])
    return "; ".join(parts) or "changed"


_REASONED = frozenset({"modified", "added", "removed"})  # the statuses a reason names (most definitions are unchanged)


def _unmatched(side: list[Statement], other: list[Statement]) -> list[tuple[int, int]]:
    """The lines of the statements of `side` that `other` does not have (as a multiset)."""
    remaining = Counter(statement.digest for statement in other)
    lines = []
    for statement in side:
        if remaining[statement.digest] > 0:
            remaining[statement.digest] -= 1
        else:
            lines.append(statement.lines)
    return lines


_STATEMENTS: dict[tuple[str, bytes], list[Statement]] = {}
_MAX_STATEMENTS = 64


def _statements(language: str, data: bytes, statements: StatementsOf) -> list[Statement]:
    """`top_level_statements`, remembered for the newest files: a version whose top-level code
    changed is, often, the old side of the next commit changing that code again (backfill)."""
    found = _STATEMENTS.get((language, data))
    if found is None:
        found = statements(language, data)
        if len(_STATEMENTS) >= _MAX_STATEMENTS:
            del _STATEMENTS[next(iter(_STATEMENTS))]
        _STATEMENTS[language, data] = found
    return found


def _skeleton_reason(language: str, old_data: bytes, new_data: bytes, statements: StatementsOf) -> list[str]:
    """The top-level code outside definitions that differs, as imports and other statements."""
    olds, news = _statements(language, old_data, statements), _statements(language, new_data, statements)
    parts = []
    for imports, label in ((True, "imports"), (False, "top-level statements")):
        old_side = [s for s in olds if s.imports == imports]
        new_side = [s for s in news if s.imports == imports]
        added, removed = _unmatched(new_side, old_side), _unmatched(old_side, new_side)
        if added:
            parts.append(f"{label} changed ({spans_text(added)})")
        elif removed:
            parts.append(f"{label} removed (old {spans_text(removed)})")
        elif [s.digest for s in old_side] != [s.digest for s in new_side]:
            parts.append(f"{label} reordered")
    return parts or ["top-level code changed"]


def to_record_json(result: FileClassification, changed_lines: Iterable[int]) -> dict[str, Any]:
    """A file's classification as a trace record keeps it: only the definitions that changed
    (added, removed, modified, moved) and, for an AST_REFACTOR file, the unchanged ones holding a
    changed line (reformatted in place: blame-intent follows those lines through their old and new
    lines); no hashes, which only the classification itself compares."""
    lines = sorted(set(changed_lines))
    kept = []
    for definition in result.definitions:  # most are unchanged: only the kept ones are written
        if definition.status == "unchanged":
            span = definition.new_lines
            if result.classification != AST_REFACTOR or span is None or not _holds_any(span, lines):
                continue
        entry = definition.to_json()
        del entry["hash"]
        kept.append(entry)
    return {**FileClassification(result.classification, result.language, result.reason).to_json(), "definitions": kept}


def _holds_any(span: tuple[int, int], sorted_lines: Sequence[int]) -> bool:
    index = bisect_left(sorted_lines, span[0])
    return index < len(sorted_lines) and sorted_lines[index] <= span[1]


def classify_changes(changes: Sequence[FileChange], hasher: Hasher = fresh_hash,
                     statements: StatementsOf = top_level_statements) -> CommitClassification:
    """Classify every file of a commit, then the commit (no files: AST_REFACTOR); `statements`
    (for the reasons) may come from the same cache as the hashes, see `HashCache`."""
    return classify_prepared([prepare_file(change, hasher, statements) for change in changes])


def classify_prepared(files: list[PreparedFile]) -> CommitClassification:
    """The commit-level part of `classify_changes`, from each file's `prepare_file` in the commit's
    order: moves between files found, each file's class, the commit's."""
    _match_moves(files)
    results = {work.key: _finish(work) for work in files}
    ok = all(result.classification == AST_REFACTOR for result in results.values())
    return CommitClassification(_verdict(ok), results)
