"""`gitai blame-intent`: which intent each line of a file serves.

`git blame --porcelain` does the line tracking, with every commit that the trace classifies as
AST_REFACTOR for this file passed as an ignored revision (like `git blame --ignore-rev`), so a
reformatting or reordering commit never takes lines from the intent that wrote them. Lines git
still gives to such a commit (it could not match them in the parent, e.g. a definition moved in
from another file) are followed through the commit's definition mapping (old and new line
ranges, `moved_from`) into the parent, and blamed there.

Plumbing and the cached trace index only (gitai.trace.index): no pygit2, so start-up stays small.
"""

from __future__ import annotations

import os
from typing import Any

from gitai.active import active_intent
from gitai.errors import GitaiError
from gitai.files import is_binary
from gitai.git import git_process, verify_commit
from gitai.layout import Layout
from gitai.trace.index import CommitInfo, TraceIndex, load_index
from gitai.trailers import commit_intents

UNCOMMITTED = "0" * 40
REFACTOR = "AST_REFACTOR"
MAX_DEPTH = 16


class BlameLine:
    """One line's attribution (`to_json` is the contract's `blame-intent --json` item)."""

    __slots__ = ("line", "content", "commit", "intent_id", "classification")

    def __init__(self, line: int, content: str, commit: str | None, intent_id: str | None,
                 classification: str | None) -> None:
        self.line = line
        self.content = content
        self.commit = commit  # None: not committed yet
        self.intent_id = intent_id
        self.classification = classification

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "intent_id": self.intent_id, "commit": self.commit,
                "classification": self.classification, "content": self.content}


class Origin:
    """Where git blame says a line comes from."""

    __slots__ = ("commit", "path", "line")

    def __init__(self, commit: str, path: str, line: int) -> None:
        self.commit = commit
        self.path = path  # the file's name in that commit
        self.line = line  # the line number in that commit's version


def _file_content(layout: Layout, path: str, rev: str | None) -> bytes:
    if rev is not None:
        proc = git_process(["cat-file", "blob", f"{rev}:{path}"], layout.root)
        if proc.returncode != 0:
            raise GitaiError(f"{path} does not exist at {rev}")
        return proc.stdout
    full = os.path.join(layout.root, path)
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


def _lineage(index: dict[str, CommitInfo], path: str) -> set[str]:
    """The file's names through the renames the trace recorded."""
    names, frontier = {path}, [path]
    while frontier:
        current = frontier.pop()
        for info in index.values():
            previous = info["files"].get(current, {}).get("renamed_from")
            if previous and previous not in names:
                names.add(previous)
                frontier.append(previous)
    return names


def refactor_commits(index: dict[str, CommitInfo], paths: set[str]) -> set[str]:
    """Commits classified AST_REFACTOR for one of `paths` (or as a whole)."""
    return {
        sha for sha, info in index.items()
        if info.get("class") == REFACTOR or any(info["files"].get(p, {}).get("class") == REFACTOR for p in paths)
    }


def run_blame(layout: Layout, path: str, rev: str | None, span: tuple[int, int] | None,
              ignore_file: str) -> list[tuple[Origin, bytes]]:
    """`git blame --porcelain` parsed into (origin, content) per line."""
    args = ["blame", "--porcelain", "--ignore-revs-file", ignore_file]
    if span:
        args += ["-L", f"{span[0]},{span[1]}"]
    if rev:
        args.append(rev)
    proc = git_process([*args, "--", path], layout.root)
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitaiError(f"git blame failed: {message[-1] if message else proc.returncode}")
    return parse_porcelain(proc.stdout, path)


C_ESCAPES = {b"a": 7, b"b": 8, b"t": 9, b"n": 10, b"v": 11, b"f": 12, b"r": 13, b'"': 34, b"\\": 92}


def unquote_path(raw: bytes) -> str:
    """Undo git's quoting of unusual file names (`"src/\\303\\251.py"` -> `src/é.py`)."""
    if not (raw.startswith(b'"') and raw.endswith(b'"') and len(raw) >= 2):
        return raw.decode("utf-8", "surrogateescape")
    out = bytearray()
    body, i = raw[1:-1], 0
    while i < len(body):
        if body[i : i + 1] == b"\\" and i + 1 < len(body):
            digits = body[i + 1 : i + 4]
            if len(digits) == 3 and digits.isdigit():
                out.append(int(digits, 8))
                i += 4
                continue
            nxt = body[i + 1 : i + 2]
            out.append(C_ESCAPES.get(nxt, nxt[0]))
            i += 2
            continue
        out.append(body[i])
        i += 1
    return bytes(out).decode("utf-8", "surrogateescape")


def parse_porcelain(output: bytes, path: str) -> list[tuple[Origin, bytes]]:
    """Parse `git blame --porcelain`: a header `SHA ORIG FINAL [N]` per line, commit details the
    first time a commit appears (`filename` among them), then the line itself after a TAB."""
    lines: list[tuple[Origin, bytes]] = []
    filenames: dict[bytes, str] = {}
    sha = b""
    orig = 0
    for raw in output.split(b"\n"):
        if raw[:1] == b"\t":
            lines.append((Origin(sha.decode(), filenames.get(sha, path), orig), raw[1:]))
        elif raw[:9] == b"filename ":
            filenames[sha] = unquote_path(raw[9:])
        elif len(raw) > 41 and raw[40:41] == b" " and raw[41:42].isdigit():
            sha, _, rest = raw.partition(b" ")
            orig = int(rest.split(b" ", 1)[0])
    return lines


class _Resolver:
    """Follows lines that git left on refactor commits into those commits' parents."""

    def __init__(self, layout: Layout, index: TraceIndex, ignored: set[str], ignore_file: str) -> None:
        self.layout, self.index, self.ignored, self.ignore_file = layout, index, ignored, ignore_file

    def resolve(self, origins: list[Origin], depth: int = 0) -> list[Origin]:
        result = list(origins)
        groups: dict[tuple[str, str, int], list[int]] = {}  # (commit, path, definition) -> positions
        for position, origin in enumerate(origins):
            if origin.commit in self.ignored and depth < MAX_DEPTH:
                found = self._definition(origin)
                if found is not None:
                    groups.setdefault((origin.commit, origin.path, found), []).append(position)
        for (commit, path, number), positions in groups.items():
            definition = self.index.definitions(commit, path)[number]
            source = self._source_path(commit, path, definition)
            old_start, old_end = definition["old_lines"]
            new_start = definition["new_lines"][0]
            try:
                parent_lines = run_blame(self.layout, source, f"{commit}^", (old_start, old_end), self.ignore_file)
            except GitaiError:
                continue
            parent_origins = [origin for origin, _ in parent_lines]
            mapped = self.resolve(parent_origins, depth + 1)
            for position in positions:
                offset = min(origins[position].line - new_start, len(mapped) - 1)
                result[position] = mapped[offset]
        return self._fill_from_neighbours(result)

    def _fill_from_neighbours(self, origins: list[Origin]) -> list[Origin]:
        """Lines still on a refactor commit lie outside any definition (blank lines, separators,
        comments between definitions): they take the origin of the nearest resolved line above,
        else below. A refactor adds no meaning of its own, so its intent never takes them."""
        resolved = [o if o.commit not in self.ignored and o.commit != UNCOMMITTED else None for o in origins]
        if all(o is None for o in resolved):
            return origins
        filled = list(resolved)
        last: Origin | None = None
        for position, origin in enumerate(resolved):
            last = origin or last
            filled[position] = last
        following: Origin | None = None
        for position in range(len(resolved) - 1, -1, -1):
            following = resolved[position] or following
            if filled[position] is None:
                filled[position] = following
        return [origins[i] if origins[i].commit == UNCOMMITTED or o is None else o for i, o in enumerate(filled)]

    def _definition(self, origin: Origin) -> int | None:
        defs = self.index.definitions(origin.commit, origin.path)
        best = None
        for number, definition in enumerate(defs):
            start, end = definition["new_lines"]
            if start <= origin.line <= end and (best is None or start >= defs[best]["new_lines"][0]):
                best = number  # the innermost definition containing the line
        return best

    def _source_path(self, commit: str, path: str, definition: dict[str, Any]) -> str:
        if definition.get("moved_from"):
            return str(definition["moved_from"]["path"])
        return str(self.index.commits[commit]["files"].get(path, {}).get("renamed_from") or path)


def blame_intent(layout: Layout, path: str, rev: str | None = None, line_range: str | None = None) -> list[BlameLine]:
    """Attribute each line of `path` (at `rev`, or in the working tree) to an intent."""
    if rev is not None:
        rev = verify_commit(layout.root, rev)
    content = _file_content(layout, path, rev)
    if is_binary(content):
        raise GitaiError(f"{path} is a binary file")
    text_lines = content.split(b"\n")
    if content.endswith(b"\n") or not content:
        text_lines.pop()
    span = _parse_range(line_range, len(text_lines))
    if not text_lines:
        return []
    active = active_intent(layout) if rev is None else None
    active_id = active.id if active else None
    if rev is None and not _tracked_in_head(layout, path):
        first, last = span or (1, len(text_lines))
        return [BlameLine(n, _text(text_lines[n - 1]), None, active_id, None) for n in range(first, last + 1)]
    index = load_index(layout)
    commits = index.commits
    ignored = refactor_commits(commits, _lineage(commits, path))
    os.makedirs(layout.state_dir, exist_ok=True)
    ignore_file = os.path.join(layout.state_dir, f"blame-ignore-{os.getpid()}.txt")
    with open(ignore_file, "w", encoding="ascii") as handle:
        handle.write("".join(f"{sha}\n" for sha in sorted(ignored)))
    try:
        blamed = run_blame(layout, path, rev, span, ignore_file)
        origins = _Resolver(layout, index, ignored, ignore_file).resolve([o for o, _ in blamed])
    finally:
        os.unlink(ignore_file)
    trailers = commit_intents(layout.root, sorted({o.commit for o in origins if o.commit != UNCOMMITTED} - commits.keys()))
    first_line = span[0] if span else 1
    result = []
    for offset, (origin, (_, raw)) in enumerate(zip(origins, blamed)):
        if origin.commit == UNCOMMITTED:
            result.append(BlameLine(first_line + offset, _text(raw), None, active_id, None))
            continue
        info = commits.get(origin.commit)
        intent = info["intent"] if info else trailers.get(origin.commit)
        classification = None
        if info:
            classification = info["files"].get(origin.path, {}).get("class") or info.get("class")
        result.append(BlameLine(first_line + offset, _text(raw), origin.commit, intent, classification))
    return result


def _tracked_in_head(layout: Layout, path: str) -> bool:
    return git_process(["cat-file", "-e", f"HEAD:{path}"], layout.root).returncode == 0


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace").rstrip("\r")


def summarize(lines: list[BlameLine]) -> list[dict[str, Any]]:
    """Lines and share per intent, with unattributed and uncommitted lines counted apart."""
    counts: dict[tuple[str | None, bool], int] = {}
    for line in lines:
        key = (line.intent_id, line.commit is None)
        counts[key] = counts.get(key, 0) + 1
    total = len(lines) or 1
    rows = [{"intent_id": intent, "uncommitted": uncommitted, "lines": count, "share": round(count / total, 4)}
            for (intent, uncommitted), count in counts.items()]
    return sorted(rows, key=lambda r: (-r["lines"], str(r["intent_id"]), r["uncommitted"]))
