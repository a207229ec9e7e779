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
import tempfile
from collections import Counter
from dataclasses import dataclass
from typing import Any

from gitai.active import active_intent
from gitai.errors import GitaiError
from gitai.git import git_process, run_git
from gitai.layout import Layout
from gitai.trace.index import CommitInfo, load_index
from gitai.trace.lines import is_binary
from gitai.trailers import commit_intents

UNCOMMITTED = "0" * 40
REFACTOR = "AST_REFACTOR"
MAX_DEPTH = 16


@dataclass
class BlameLine:
    line: int
    content: str
    commit: str | None  # None: not committed yet
    intent_id: str | None
    classification: str | None

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "intent_id": self.intent_id, "commit": self.commit,
                "classification": self.classification, "content": self.content}


@dataclass
class Origin:
    """Where git blame says a line comes from."""

    commit: str
    path: str  # the file's name in that commit
    line: int  # the line number in that commit's version


def repo_path(layout: Layout, path: str) -> str:
    """A user's path (relative to the current directory) as a path in the repository."""
    relative = os.path.relpath(os.path.abspath(path), layout.root)
    if relative == ".." or relative.startswith(".." + os.sep) or os.path.isabs(relative):
        raise GitaiError(f"path is outside the repository: {path}")
    return relative.replace(os.sep, "/")


def _verify_commit(layout: Layout, rev: str) -> str:
    sha = run_git(["rev-parse", "-q", "--verify", f"{rev}^{{commit}}"], layout.root, check=False).decode().strip()
    if not sha:
        raise GitaiError(f"unknown revision: {rev}")
    return sha


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


def parse_porcelain(output: bytes, path: str) -> list[tuple[Origin, bytes]]:
    lines: list[tuple[Origin, bytes]] = []
    filenames: dict[str, str] = {}
    current: tuple[str, int] | None = None
    for raw in output.split(b"\n"):
        if raw.startswith(b"\t"):
            assert current is not None
            sha, orig_line = current
            lines.append((Origin(sha, filenames.get(sha, path), orig_line), raw[1:]))
        elif raw.startswith(b"filename ") and current is not None:
            filenames[current[0]] = raw[9:].decode("utf-8", "surrogateescape")
        else:
            parts = raw.split(b" ")
            if len(parts) >= 3 and len(parts[0]) == 40 and parts[1].isdigit():
                current = (parts[0].decode(), int(parts[1]))
    return lines


class _Resolver:
    """Follows lines that git left on refactor commits into those commits' parents."""

    def __init__(self, layout: Layout, index: dict[str, CommitInfo], ignored: set[str], ignore_file: str) -> None:
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
            definition = self.index[commit]["files"][path]["defs"][number]
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
        return result

    def _definition(self, origin: Origin) -> int | None:
        defs = self.index.get(origin.commit, {}).get("files", {}).get(origin.path, {}).get("defs", [])
        best = None
        for number, definition in enumerate(defs):
            start, end = definition["new_lines"]
            if start <= origin.line <= end and (best is None or start >= defs[best]["new_lines"][0]):
                best = number  # the innermost definition containing the line
        return best

    def _source_path(self, commit: str, path: str, definition: dict[str, Any]) -> str:
        if definition.get("moved_from"):
            return str(definition["moved_from"]["path"])
        return str(self.index[commit]["files"][path].get("renamed_from") or path)


def blame_intent(layout: Layout, path: str, rev: str | None = None, line_range: str | None = None) -> list[BlameLine]:
    """Attribute each line of `path` (at `rev`, or in the working tree) to an intent."""
    if rev is not None:
        rev = _verify_commit(layout, rev)
    content = _file_content(layout, path, rev)
    if is_binary(content):
        raise GitaiError(f"{path} is a binary file")
    text_lines = content.split(b"\n")
    if content.endswith(b"\n"):
        text_lines.pop()
    span = _parse_range(line_range, len(text_lines))
    if not text_lines:
        return []
    active = active_intent(layout) if rev is None else None
    tracked = rev is not None or _tracked_in_head(layout, path)
    if not tracked:
        first, last = span or (1, len(text_lines))
        return [BlameLine(n, _text(text_lines[n - 1]), None, active.id if active else None, None)
                for n in range(first, last + 1)]
    index = load_index(layout)
    ignored = refactor_commits(index, _lineage(index, path))
    with tempfile.NamedTemporaryFile("w", prefix="gitai-ignore-", suffix=".txt", delete=False) as handle:
        handle.write("".join(f"{sha}\n" for sha in sorted(ignored)))
        ignore_file = handle.name
    try:
        blamed = run_blame(layout, path, rev, span, ignore_file)
        origins = _Resolver(layout, index, ignored, ignore_file).resolve([o for o, _ in blamed])
    finally:
        os.unlink(ignore_file)
    trailers = commit_intents(layout.root, sorted({o.commit for o in origins if o.commit != UNCOMMITTED} - index.keys()))
    first_line = span[0] if span else 1
    result = []
    for offset, (origin, (_, raw)) in enumerate(zip(origins, blamed)):
        if origin.commit == UNCOMMITTED:
            result.append(BlameLine(first_line + offset, _text(raw), None, active.id if active else None, None))
            continue
        info = index.get(origin.commit)
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
    counts: Counter[tuple[str | None, bool]] = Counter((line.intent_id, line.commit is None) for line in lines)
    total = len(lines) or 1
    rows = [{"intent_id": intent, "uncommitted": uncommitted, "lines": count, "share": round(count / total, 4)}
            for (intent, uncommitted), count in counts.items()]
    return sorted(rows, key=lambda r: (-r["lines"], str(r["intent_id"]), r["uncommitted"]))
