"""`gitai blame-intent`: which intent each line of a file serves.

Line origins (gitai.blame.annotate) say which commit each line comes from, with commits that are
AST_REFACTOR for the file looked through; the trace says which intent each commit served (its
record, else its `Intent:` trailer). Lines the working tree changed against HEAD are uncommitted
and carry the active intent.
"""

from __future__ import annotations

import hashlib
import os
from typing import Any

from gitai.blame.annotate import Annotator
from gitai.blame.origins import Origins
from gitai.blame.step import InconsistentStep, ParentSide, carry
from gitai.errors import GitaiError
from gitai.git.blame import blob_id
from gitai.git.diff import DIFF_OPTIONS, parse_hunks
from gitai.git.runner import git_process, head_commit, verify_commit
from gitai.git.trailers import commit_intents
from gitai.intents.active import active_intent
from gitai.layout import Layout
from gitai.trace.record import INFERRED
from gitai.trace.summary_index import TraceIndex, info_intent, load_index
from gitai.util.files import is_binary

UNCOMMITTED = "0" * 40


class BlameLine:
    """One line's attribution (`to_json` is the contract's `blame-intent --json` item)."""

    __slots__ = ("line", "content", "commit", "intent_id", "classification", "intent_source", "contributor")

    def __init__(self, line: int, content: str, commit: str | None, intent_id: str | None,
                 classification: str | None, intent_source: str | None = None) -> None:
        self.line = line
        self.content = content
        self.commit = commit  # None: not committed yet
        self.intent_id = intent_id
        self.classification = classification
        self.intent_source = intent_source if intent_id else None  # trailer | session | active | scope
        # {"type", "model_id", "session"} from the commit's record; None: uncommitted or untraced
        self.contributor: dict[str, Any] | None = None

    @property
    def inferred(self) -> bool:
        return self.intent_source == INFERRED

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "intent_id": self.intent_id, "intent_source": self.intent_source,
                "commit": self.commit, "classification": self.classification, "contributor": self.contributor,
                "content": self.content}


def _file_content(layout: Layout, path: str, rev: str | None) -> bytes:
    if rev is not None:
        proc = git_process(["cat-file", "blob", "--end-of-options", f"{rev}:{path}"], layout.root)
        if proc.returncode != 0:
            raise GitaiError(f"{path} does not exist at {rev}")
        return proc.stdout
    full = os.path.join(layout.root, path)
    if os.path.islink(full) or os.path.realpath(os.path.dirname(full)) != os.path.join(
            os.path.realpath(layout.root), os.path.dirname(path)).rstrip(os.sep):
        raise GitaiError(f"{path} is (or is reached through) a symbolic link; gitai does not follow links in "
                         "the work tree (use --rev to blame what git stores)")
    if not os.path.isfile(full):
        raise GitaiError(f"no such file in the working tree: {path}")
    with open(full, "rb") as handle:
        return handle.read()


def _parse_range(spec: str | None, total: int) -> tuple[int, int] | None:
    if spec is None:
        return None
    try:
        start_text, _, end_text = spec.partition(",")
        start = int(start_text)
        end = int(end_text) if end_text else total
    except ValueError:
        raise GitaiError(f"-L {spec}: expected START,END (line numbers)") from None
    if start < 1 or end < start:
        raise GitaiError(f"-L {spec}: expected 1 <= START <= END")
    if end > total:
        raise GitaiError(f"-L {spec}: the file has only {total} lines")
    return start, end


def blame_intent(layout: Layout, path: str, rev: str | None = None, line_range: str | None = None,
                 declared_only: bool = False) -> list[BlameLine]:
    """Attribute each line of `path` (at `rev`, or in the working tree) to an intent
    (`declared_only`: lines whose intent was only inferred by backfill count as unattributed)."""
    commit = verify_commit(layout.root, rev) if rev is not None else head_commit(layout.root)
    content = _file_content(layout, path, rev)
    if is_binary(content):
        raise GitaiError(f"{path} is a binary file")
    text_lines = content.split(b"\n")
    if content.endswith(b"\n") or not content:
        text_lines.pop()
    span = _parse_range(line_range, len(text_lines))
    first, last = span or (1, len(text_lines))
    if not text_lines:
        return []
    active = active_intent(layout) if rev is None else None
    active_id = active.id if active else None
    blob = blob_id(layout.root, commit, path) if commit else None
    if blob is None:  # not in HEAD (an empty repository, a new file): all of it is uncommitted
        return [BlameLine(n, _text(text_lines[n - 1]), None, active_id, None, "active") for n in range(first, last + 1)]
    assert commit is not None
    index = load_index(layout, only_needed=True)
    try:
        annotator = Annotator(layout, index)
        try:
            origins = _fitted(layout, path, rev, content, blob, annotator.at(commit, path, blob).origins,
                              len(text_lines))
        except InconsistentStep:  # a damaged cache entry: compute again
            try:
                fresh = annotator.at(commit, path, blob, refresh=True).origins
                origins = _fitted(layout, path, rev, content, blob, fresh, len(text_lines))
            except InconsistentStep:
                raise GitaiError(
                    f"{path}: the working tree and HEAD do not line up (a filter?); try --rev HEAD") from None
        finally:
            annotator.close()
        shown = {c for c, _ in origins[first - 1 : last]} - {UNCOMMITTED}
        index.prefetch(shown)
        unrecorded = index.without_record(shown)
        trailers = commit_intents(layout.root, sorted(unrecorded))
        result = []
        by_text: dict[tuple[str, str], dict[bytes, str | None]] = {}
        for number in range(first, last + 1):
            origin_commit, origin_path = origins[number - 1]
            text = _text(text_lines[number - 1])
            if origin_commit == UNCOMMITTED:
                result.append(BlameLine(number, text, None, active_id, None, "active"))
                continue
            info = index.info(origin_commit)
            intent, source = (info_intent(info, origin_path), info.get("source")) if info else (
                trailers.get(origin_commit), "trailer")
            spans = info["files"].get(origin_path, {}).get("spans") if info else None
            if spans:  # a carried squash: this file's lines serve several intents; match the line's text
                key = (origin_commit, origin_path)
                if key not in by_text:
                    by_text[key] = _span_intents(layout, origin_commit, origin_path, spans)
                intent = by_text[key].get(_nearest_text(text_lines, number), intent)
            if declared_only and source == INFERRED:
                intent = None
            classification = None
            if info:
                classification = info["files"].get(origin_path, {}).get("class") or info.get("class")
            result.append(BlameLine(number, text, origin_commit, intent, classification, source))
        _add_contributors(layout, result, origins, index, text_lines)
        index.save()
        return result
    finally:
        index.close()


def _who(entry: list[Any]) -> dict[str, Any]:
    kind, model, session = entry[0], entry[1], entry[2]
    return {"type": kind, "model_id": model, "session": session}


def _add_contributors(layout: Layout, result: list[BlameLine], origins: Origins, index: TraceIndex,
                      text_lines: list[bytes]) -> None:
    """Each committed line's contributor: the one of its origin commit's file when the record has
    one; when it has several (line-level provenance), by the line's content in that record."""
    by_content: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for line in result:
        if line.commit is None:
            continue
        origin_commit, origin_path = origins[line.line - 1]
        info = index.info(origin_commit)
        who = info["files"].get(origin_path, {}).get("who", []) if info else []
        if len(who) == 1:
            line.contributor = _who(who[0])
        elif who:
            key = (origin_commit, origin_path)
            if key not in by_content:
                by_content[key] = _contributors_by_content(layout, origin_commit, origin_path)
            from gitai.trace.attribution import line_key

            line.contributor = by_content[key].get(line_key(text_lines[line.line - 1]))


def _contributors_by_content(layout: Layout, commit: str, path: str) -> dict[str, dict[str, Any]]:
    from gitai.git.notes import show_note
    from gitai.layout import NOTES_REF
    from gitai.trace.attribution import line_key
    from gitai.trace.record import attributed_ranges, own_records, parse_note
    from gitai.util.lines import split_lines

    body = show_note(layout.root, NOTES_REF, commit)
    proc = git_process(["cat-file", "blob", f"{commit}:{path}"], layout.root)
    if body is None or proc.returncode != 0:
        return {}
    lines = split_lines(proc.stdout)
    found: dict[str, dict[str, Any]] = {}
    for record in own_records(parse_note(body), commit)[:1]:
        for entry in record.file_entries:
            if entry["path"] != path:
                continue
            for rng, contributor, session in attributed_ranges(entry):
                who = {"type": contributor.get("type", "unknown"), "model_id": contributor.get("model_id"),
                       "session": session}
                for text in lines[rng["start_line"] - 1: rng["end_line"]]:
                    found[line_key(text)] = who
    return found


def _fitted(layout: Layout, path: str, rev: str | None, content: bytes, blob: str, origins: Origins,
            count: int) -> Origins:
    """The origins of the lines shown: the blob's (`--rev`), else the working tree's, where lines
    it changed against HEAD are uncommitted. Raises InconsistentStep when they do not fit."""
    algorithm = hashlib.sha1 if len(blob) == 40 else hashlib.sha256
    if rev is not None or algorithm(b"blob %d\0" % len(content) + content).hexdigest() == blob:
        if len(origins) != count:
            raise InconsistentStep
        return origins  # the committed version (no clean filter could change an identical file)
    diff = git_process(["--literal-pathspecs", "diff", "-U0", "--text", *DIFF_OPTIONS, "HEAD", "--", path], layout.root)
    lines, _ = carry(ParentSide(origins, parse_hunks(diff.stdout)), count)
    return [origin or (UNCOMMITTED, path) for origin in lines]


def _nearest_text(lines: list[bytes], number: int) -> bytes:
    """The line's text, or for a blank line the next non-blank line's, else the previous one's
    (as `gitai carry` gives blank lines the origin of the code they sit before)."""
    for step in (0, 1, -1):
        other = number + step
        while 1 <= other <= len(lines) and not lines[other - 1].strip():
            other += step if step else len(lines) + 1
        if 1 <= other <= len(lines):
            return lines[other - 1].rstrip(b"\r")
    return b""


def _span_intents(layout: Layout, commit: str, path: str, spans: list[list[Any]]) -> dict[bytes, str | None]:
    """Line text -> intent in `path` as `commit` has it, from the record's per-range intents."""
    from gitai.util.lines import split_lines

    proc = git_process(["cat-file", "blob", f"{commit}:{path}"], layout.root)
    lines = split_lines(proc.stdout) if proc.returncode == 0 else []
    found: dict[bytes, str | None] = {}
    for start, end, intent in spans:
        for number in range(max(1, start), min(end, len(lines)) + 1):
            if lines[number - 1].strip():
                found[lines[number - 1]] = intent
    return found


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace").rstrip("\r")


def summarize(lines: list[BlameLine]) -> list[dict[str, Any]]:
    """Lines and share per intent and contributor type, with unattributed and uncommitted lines
    counted apart."""
    counts: dict[tuple[str | None, bool, bool, str | None], int] = {}
    for line in lines:
        kind = line.contributor["type"] if line.contributor else None
        key = (line.intent_id, line.commit is None, line.inferred, kind)
        counts[key] = counts.get(key, 0) + 1
    total = len(lines) or 1
    rows = [{"intent_id": intent, "uncommitted": uncommitted, "inferred": inferred, "contributor": kind,
             "lines": count, "share": round(count / total, 4)}
            for (intent, uncommitted, inferred, kind), count in counts.items()]
    return sorted(rows, key=lambda r: (-r["lines"], str(r["intent_id"]), r["uncommitted"], r["inferred"],
                                       str(r["contributor"])))
