"""Mean size of gitai's notes over a repository's whole history (the target: under 1.5 KB on click).

Clones REPO (a path or a bare git dir, e.g. /work/.mirror/pallets+click/repo) into a scratch
directory, writes a small intent catalogue over its top-level directories, runs `gitai backfill`
over every commit, and prints the count, total and mean size of the notes, then where the bytes
go: per JSON field (list items as `[]`, the path keys of `files` and `intents` as `{}`), the mean
bytes per note its values take, its key, quotes and separators included; a container's own row
is its brackets and commas. The rows add up to the total.
Usage: .venv/bin/python benchmarks/note_size.py REPO [--keep DIR]
       .venv/bin/python benchmarks/note_size.py --clone DIR/clone   (the breakdown of notes already there)
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
CATALOGUE = """\
active_intents:
  - id: INT-001
    name: Library code
    status: IN_PROGRESS
    owned_scope: ["src/**", "click/**"]
  - id: INT-002
    name: Tests
    status: IN_PROGRESS
    owned_scope: ["tests/**"]
  - id: INT-003
    name: Documentation
    status: IN_PROGRESS
    owned_scope: ["docs/**", "*.rst", "*.md"]
  - id: INT-004
    name: Project upkeep
    status: IN_PROGRESS
    owned_scope: ["**"]
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True).stdout.decode()


def measure(source: str, work: Path) -> None:
    clone = work / "clone"
    subprocess.run(["git", "clone", "-q", source, str(clone)], check=True)
    (clone / ".orchestration").mkdir(exist_ok=True)
    (clone / ".orchestration" / "active_intents.yaml").write_text(CATALOGUE)
    commits = len(git(clone, "rev-list", "HEAD").split())
    started = time.perf_counter()
    subprocess.run([str(BIN / "gitai"), "backfill"], cwd=clone, check=True, capture_output=True)
    elapsed = time.perf_counter() - started
    print(f"{commits} commits, backfill {elapsed:.0f} s")
    report(clone)


def note_bodies(clone: Path) -> list[bytes]:
    blobs = git(clone, "notes", "--ref", "gitai", "list").split()[::2]
    out = subprocess.run(["git", "cat-file", "--batch"], cwd=clone, input="\n".join(blobs).encode(), check=True,
                         capture_output=True).stdout
    bodies, at = [], 0
    while at < len(out):
        header_end = out.index(b"\n", at)
        size = int(out[at:header_end].split()[2])
        bodies.append(out[header_end + 1 : header_end + 1 + size])
        at = header_end + 1 + size + 1
    return bodies


PATH_KEYED = {"metadata.dev.gitai.files", "metadata.dev.gitai.intents"}


def _field_bytes(value: object, label: str, into: dict[str, int]) -> None:
    """Add to `into` the bytes of `value` in compact JSON, by field (see the module docstring)."""
    if isinstance(value, dict):
        into[label or "(record)"] = into.get(label or "(record)", 0) + 1 + max(1, len(value))  # {} and commas
        for key, item in value.items():
            child = f"{label}{{}}" if label in PATH_KEYED else (f"{label}.{key}" if label else key)
            into[child] = into.get(child, 0) + len(json.dumps(key, ensure_ascii=False).encode()) + 1
            _field_bytes(item, child, into)
    elif isinstance(value, list):
        into[label] = into.get(label, 0) + 1 + max(1, len(value))  # [] and commas
        for item in value:
            _field_bytes(item, label + "[]", into)
    else:
        into[label] = into.get(label, 0) + len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def report(clone: Path) -> None:
    bodies = note_bodies(clone)
    sizes = [len(body) for body in bodies]
    print(f"{len(sizes)} notes: total {sum(sizes) / 1e6:.2f} MB ({sum(sizes)} bytes), mean "
          f"{statistics.mean(sizes) / 1024:.3f} KB ({statistics.mean(sizes):.0f} bytes), "
          f"median {statistics.median(sizes) / 1024:.2f} KB, max {max(sizes) / 1024:.0f} KB")
    fields: dict[str, int] = {}
    for body in bodies:
        for line in body.splitlines():
            _field_bytes(json.loads(line), "", fields)
        fields["(line ends)"] = fields.get("(line ends)", 0) + body.count(b"\n")
    counted = sum(fields.values())
    print(f"bytes per note by field (sum {counted / len(sizes):.1f}{'' if counted == sum(sizes) else ' != total'}):")
    for label, count in sorted(fields.items(), key=lambda item: (-item[1], item[0])):
        print(f"  {count / len(sizes):8.1f}  {100 * count / counted:5.1f}%  {label}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", nargs="?")
    parser.add_argument("--keep", type=Path, help="work in this directory and keep it")
    parser.add_argument("--clone", type=Path, help="only report on the notes of this backfilled clone")
    args = parser.parse_args()
    if args.clone:
        report(args.clone)
    elif not args.repo:
        parser.error("REPO or --clone is needed")
    elif args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        measure(args.repo, args.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="gitai-notes-") as work:
            measure(args.repo, Path(work))
    return 0


if __name__ == "__main__":
    sys.exit(main())
