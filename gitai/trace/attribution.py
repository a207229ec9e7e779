"""Line-level provenance at commit time: who wrote each added line (docs/trace-format.md, "Attribution").

Each line of the file is followed through the versions agents and people left (checkpoints,
gitai/agents/checkpoints.py) from the commit's parent to the committed content:
- a line an agent checkpoint added, unchanged in the committed content: **ai** (that session);
- a line that replaced agent lines in a step by a person (a person's checkpoint, or the
  difference between the last checkpoint and the committed content): **mixed**;
- any other added line: **human** (no agent checkpoint covers it);
- a person's step back to a version already seen (an undo, `git stash` and `pop`) takes that
  version's authors again;
- a formatter run after the agent (the committed file has the agent version's syntax normal form)
  keeps the agent's lines: attributed by position inside the reformatted hunks.
Commits without checkpoints keep the environment rule (gitai/trace/contributor.py); rewritten
commits carry each line's contributor from the old records by the line's content.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from gitai.util.lines import split_lines

ATTRIBUTION_CHECKPOINTS = "checkpoints"
ATTRIBUTION_ENV = "env"
ATTRIBUTION_CARRIED = "carried"


@dataclass(frozen=True)
class LineAuthor:
    """Who wrote a line: `type` ai | human | mixed | unknown, with the agent's model and session."""

    type: str
    model_id: str | None = None
    session: str | None = None
    transcript: str | None = None

    def as_mixed(self) -> LineAuthor:
        return LineAuthor("mixed", self.model_id, self.session, self.transcript)


HUMAN = LineAuthor("human")
Labels = list["LineAuthor | None"]
BlobReader = Callable[[str], "bytes | None"]


def _step(old: list[bytes], labels: Labels, new: list[bytes], agent: LineAuthor | None,
          positional: bool = False) -> Labels:
    """The labels of `new`, one step after `old`: unchanged lines keep theirs; changed lines are the
    agent's (`agent` given), or a person's (mixed where they replaced agent lines), or, for a
    reformat (`positional`), the label of the old line at the same place in the hunk."""
    out: Labels = []
    for tag, i1, i2, j1, j2 in _opcodes(old, new):
        if tag == "equal":
            out.extend(labels[i1:i2])
            continue
        for offset in range(j2 - j1):
            if agent is not None:
                out.append(agent)
            elif positional and (i2 > i1 or i1 > 0):
                source = labels[min(i1 + offset, i2 - 1)] if i2 > i1 else labels[i1 - 1]
                out.append(source)
            else:
                source = labels[i1 + offset] if i1 + offset < i2 else None
                out.append(source.as_mixed() if source is not None and source.type in ("ai", "mixed") else HUMAN)
    return out


def _opcodes(old: list[bytes], new: list[bytes]) -> list[tuple[str, int, int, int, int]]:
    """difflib's opcodes, with the common head and tail taken off first: an edit usually touches a
    few lines of a long file, and SequenceMatcher is quadratic-ish in what it is given."""
    head = 0
    limit = min(len(old), len(new))
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[len(old) - 1 - tail] == new[len(new) - 1 - tail]:
        tail += 1
    middle = SequenceMatcher(None, old[head:len(old) - tail], new[head:len(new) - tail], autojunk=False)
    codes: list[tuple[str, int, int, int, int]] = [("equal", 0, head, 0, head)] if head else []
    codes += [(tag, i1 + head, i2 + head, j1 + head, j2 + head) for tag, i1, i2, j1, j2 in middle.get_opcodes()]
    if tail:
        codes.append(("equal", len(old) - tail, len(old), len(new) - tail, len(new)))
    return codes


WORDS = re.compile(rb"\w+")


def _same_normal_form(path: str, old: bytes, new: bytes) -> bool:
    """The committed content is the agent's, reformatted (same tree-sitter normal form). A formatter
    keeps every word (names, keywords, numbers) in order: when the words differ, nothing is parsed."""
    if WORDS.findall(old) != WORDS.findall(new):
        return False
    try:
        from gitai.syntax.languages import language_for_path
        from gitai.syntax.normal_form import hash_source

        language = language_for_path(path)
        if language is None:
            return False
        before, after = hash_source(language, old), hash_source(language, new)
        return not before.parse_error and not after.parse_error and before.hash == after.hash
    except Exception:  # noqa: BLE001 - a grammar that cannot load only loses the formatter rule
        return False


def attribute_file(path: str, base: bytes | None, committed: bytes, checkpoints: list[dict[str, Any]],
                   read_blob: BlobReader, transcripts: bool = False) -> Labels:
    """Per committed line (0-based): its author, None for a line unchanged since `base`."""
    from gitai.agents.checkpoints import PERSON

    current = split_lines(base or b"")
    labels: Labels = [None] * len(current)
    current_data = base or b""
    versions: dict[bytes, tuple[list[bytes], Labels]] = {current_data: (current, labels)}
    for checkpoint in checkpoints:
        data = read_blob(checkpoint["blob"])
        if data is None:
            continue
        if checkpoint.get("deleted") and checkpoint.get("kind") != PERSON:
            # the agent removed it: a file made later under the name starts afresh (a person's
            # removal may be undone, as by `git stash` and `pop`: its versions are kept)
            current, labels, current_data, versions = [], [], b"", {}
            continue
        if checkpoint.get("kind") == PERSON:
            current, labels = versions.get(data) or _person_step(current, labels, data)
            current_data = data
            versions[data] = (current, labels)
            continue
        prev_id = checkpoint.get("prev")
        prev = read_blob(prev_id) if isinstance(prev_id, str) else None
        if prev is not None and prev != current_data:  # a person's edits between two agent writes
            prev_lines = split_lines(prev)
            labels, current, current_data = _step(current, labels, prev_lines, None), prev_lines, prev
        model = checkpoint.get("model")
        transcript = checkpoint.get("transcript") if transcripts else None
        author = LineAuthor("ai", model if isinstance(model, str) else None,
                            str(checkpoint.get("session") or "") or None,
                            transcript if isinstance(transcript, str) else None)
        lines = split_lines(data)
        labels, current, current_data = _step(current, labels, lines, author), lines, data
        versions[data] = (current, labels)
    final = split_lines(committed)
    if committed == current_data:
        return labels
    if committed in versions:  # back to a version already known (an undo, `git stash` and `pop`)
        return versions[committed][1]
    positional = bool(checkpoints) and _same_normal_form(path, current_data, committed)
    return _step(current, labels, final, None, positional)


def _person_step(current: list[bytes], labels: Labels, data: bytes) -> tuple[list[bytes], Labels]:
    lines = split_lines(data)
    return lines, _step(current, labels, lines, None)


def line_key(line: bytes) -> str:
    """A line's content hash, the key that carries its contributor across history rewrites."""
    return hashlib.sha256(line.strip()).hexdigest()[:24]


def carry_labels(lines: list[bytes], known: dict[str, LineAuthor]) -> Labels:
    """Labels of `lines` from a map of line content to author (the old records of a rewrite)."""
    return [known.get(line_key(line)) for line in lines]
