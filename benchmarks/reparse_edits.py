"""What tree-sitter's parse from the previous version's tree costs, by how its edits are given.

Walks SOURCE's history (default pallets/click), every modified version of every file gitai parses,
and parses each new version three ways: afresh; from the old version's tree edited by git's `-U0`
line hunks as they come (each edit begins at a line start); and edited by the same hunks begun
where the two sides first differ (`_later_starts`, what backfill does in Python). Each is timed in CPU
seconds (`time.process_time`, so a loaded machine's waits for a core count less) and checked to
give the tree a fresh parse gives. Also counts the parses whose cost is over half a fresh one's:
in Python, the edits at an indentation change, where tree-sitter lexes the rest of the file again.
Usage: .venv/bin/python benchmarks/reparse_edits.py [SOURCE [LIMIT]]   (LIMIT: versions, default all)
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from gitai.git.diff import blob_hunks
from gitai.syntax.hash_cache import _later_starts, _line_edits, parse_edited
from gitai.syntax.languages import language_for_path
from gitai.syntax.normal_form import parse

SOURCE = "/work/.mirror/pallets+click/repo"


def main() -> None:
    source = sys.argv[1] if len(sys.argv) > 1 else SOURCE
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else None
    if not Path(source).exists():
        print(f"reparse edits: skipped, no repository at {source} (give one as SOURCE)")
        return
    log = subprocess.run(["git", "-C", source, "log", "--reverse", "--format=tformat:", "--raw", "--no-abbrev",
                          "--no-renames", "--no-merges", "--diff-filter=M"],
                         capture_output=True, text=True, check=True).stdout
    changes = [(language, meta.split()[2], meta.split()[3]) for meta, path in
               (line.split("\t", 1) for line in log.splitlines() if line.startswith(":"))
               if (language := language_for_path(path))][:limit]
    reader = subprocess.Popen(["git", "-C", source, "cat-file", "--batch"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE)
    assert reader.stdin and reader.stdout

    def blob(oid: str) -> bytes:
        assert reader.stdin and reader.stdout
        reader.stdin.write(oid.encode() + b"\n")
        reader.stdin.flush()
        data = reader.stdout.read(int(reader.stdout.readline().split()[2]))
        reader.stdout.read(1)
        return data

    totals = {"fresh": 0.0, "line starts": 0.0, "later starts": 0.0}
    slow = {"line starts": 0, "later starts": 0}
    count = 0
    for language, old_oid, new_oid in changes:
        old, new = blob(old_oid), blob(new_oid)
        lines = _line_edits(old, new, blob_hunks(source, old_oid, new_oid))
        tree = parse(language, old)
        if lines is None or tree.root_node.has_error:
            continue
        count += 1
        clock = time.process_time()
        fresh = parse(language, new)
        costs = {"fresh": time.process_time() - clock}
        for name, edits in (("line starts", lines), ("later starts", _later_starts(old, new, lines))):
            clock = time.process_time()
            again = parse_edited(language, old, tree, new, edits)
            costs[name] = time.process_time() - clock
            if str(again.root_node) != str(fresh.root_node):
                sys.exit(f"reparse edits: {name}: not the fresh tree ({old_oid} -> {new_oid})")
            slow[name] += costs[name] > costs["fresh"] / 2
        for name, seconds in costs.items():
            totals[name] += seconds
    reader.stdin.close()
    reader.wait()
    print(f"{count} versions of {source}: CPU seconds in all (ms a version)")
    for name, seconds in totals.items():
        extra = f", {slow[name]} over half a fresh parse" if name in slow else ""
        print(f"{seconds:7.2f} s ({seconds / max(count, 1) * 1e3:5.2f} ms)  {name}{extra}")


if __name__ == "__main__":
    main()
