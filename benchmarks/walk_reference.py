"""The fast normal-form walk against the slow reference walk over whole real repositories.

The suite checks the two walks agree over the pinned snippets and a sample per language
(tests/test_normal_form_walk.py); this runs the same comparison over every file of HEAD, in a
language gitai hashes, of each repository given (a clone or a bare git directory), and prints the
count per repository and the first differences. Exit 1 if any file differs.
Usage: .venv/bin/python benchmarks/walk_reference.py REPOSITORY...
       (e.g. /work/.mirror/DaveGamble+cJSON/repo /work/.mirror/google+leveldb/repo)
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from testing.reference_walk import differences

from gitai.syntax.languages import language_for_path


def sources(repository: str) -> list[tuple[str, str, bytes]]:
    """(path, language, content) of each file of HEAD in a language gitai hashes."""
    listed = subprocess.run(["git", "-C", repository, "ls-tree", "-r", "-z", "HEAD"],
                            capture_output=True, check=True).stdout
    wanted = []
    for line in filter(None, listed.split(b"\0")):
        info, path = line.split(b"\t", 1)
        name = path.decode(errors="replace")
        if info.split()[1] == b"blob" and (language := language_for_path(name)):
            wanted.append((name, language, info.split()[2]))
    batch = subprocess.run(["git", "-C", repository, "cat-file", "--batch"], capture_output=True, check=True,
                           input=b"".join(oid + b"\n" for _, _, oid in wanted)).stdout
    found, at = [], 0
    for name, language, _ in wanted:
        header_end = batch.index(b"\n", at)
        size = int(batch[at:header_end].split()[2])
        found.append((name, language, batch[header_end + 1 : header_end + 1 + size]))
        at = header_end + 1 + size + 1
    return found


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    failed = 0
    for repository in sys.argv[1:]:
        files = sources(repository)
        differing = [(name, found) for name, language, data in files if (found := differences(language, data))]
        failed += len(differing)
        print(f"{repository}: {len(files) - len(differing)}/{len(files)} files the same")
        for name, found in differing[:5]:
            print(f"  {name}: {found}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
