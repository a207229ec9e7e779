"""Independent re-computation of what a trace record must say, straight from `git diff` output."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import jsonschema

from testing.commands import git

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "data" / "agent-trace-0.1.0.strict.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.FormatChecker())
HUNK = re.compile(rb"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


def validate(record: dict[str, Any]) -> None:
    errors = sorted(VALIDATOR.iter_errors(record), key=str)
    assert not errors, errors[0]


def notes(repo: Path) -> dict[str, list[dict[str, Any]]]:
    listing = git(repo, "notes", "--ref", "gitai", "list", check=False).stdout.split()
    result = {}
    for note_blob, commit in zip(listing[::2], listing[1::2], strict=True):
        body = git(repo, "cat-file", "-p", note_blob).stdout
        result[commit] = [json.loads(line) for line in body.splitlines() if line.strip()]
    return result


def note(repo: Path, rev: str = "HEAD") -> dict[str, Any]:
    sha = git(repo, "rev-parse", rev).stdout.strip()
    records = notes(repo)[sha]
    assert len(records) == 1
    validate(records[0])
    return records[0]


def ledger(repo: Path) -> list[dict[str, Any]]:
    path = repo / ".orchestration" / "agent_trace.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def file_lines(repo: Path, rev: str, path: str) -> list[bytes]:
    data = git_bytes(repo, "cat-file", "blob", f"{rev}:{path}")
    lines = re.split(rb"\r?\n", data)
    if data.endswith(b"\n"):
        lines.pop()
    return lines


def git_bytes(repo: Path, *args: str) -> bytes:
    import subprocess

    return subprocess.run(["git", *args], cwd=repo, capture_output=True, check=True).stdout


def expected_ranges(repo: Path, rev: str, path: str, parent: str | None = None) -> list[dict[str, Any]]:
    """Added-line ranges of `path` in `rev` against its first parent (or `parent`), with hashes."""
    base = parent or (git(repo, "rev-parse", f"{rev}^", check=False).stdout.strip() or None)
    if base is None or base.startswith(f"{rev}^"):
        count = len(file_lines(repo, rev, path))
        spans = [(1, count)] if count else []
    else:
        diff = git_bytes(repo, "diff", "-U0", "--no-color", "-M", base, rev, "--", path)
        spans = []
        for match in HUNK.finditer(diff):
            start, length = int(match.group(1)), int(match.group(2) or 1)
            if length:
                spans.append((start, start + length - 1))
    lines = file_lines(repo, rev, path)
    return [
        {"start_line": s, "end_line": e,
         "content_hash": "sha256:" + hashlib.sha256(b"\n".join(lines[s - 1:e])).hexdigest()}
        for s, e in spans
    ]


def record_ranges(record: dict[str, Any], path: str) -> list[dict[str, Any]]:
    entry = next(f for f in record["files"] if f["path"] == path)
    return [r for c in entry["conversations"] for r in c["ranges"]]
