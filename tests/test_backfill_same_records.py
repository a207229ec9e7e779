"""Backfill's fast path (one diff stream, merges reading only the files they change, classification
in worker processes) records exactly what the plain path records: each commit's changes read
through `changes_against` for every parent (every blob of every diff) and the merge's own files
kept afterwards, classified in this process, one commit after the other. A generated history with
renames, moves between files, reformats, several intents, trailers, deletions, a binary file, a
long-lived branch merged back, a conflict resolved and an octopus merge."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from testing.commands import git, gitai_json, gitai_ok
from testing.repos import commit, head, kept_origins, origins_of, records_by_commit, tip_files, write

from gitai.syntax.languages import language_for_path

CATALOGUE = """\
active_intents:
  - {id: CORE, name: Core, status: IN_PROGRESS, owned_scope: ["src/core/**"]}
  - {id: UTIL, name: Utilities, status: IN_PROGRESS, owned_scope: ["src/util/**", "src/shared.py"]}
  - {id: DOCS, name: Docs, status: IN_PROGRESS, owned_scope: ["docs/**", "*.md"]}
"""


def module(names: list[str], variant: int = 0, spaced: bool = False) -> str:
    """A Python module defining `names`; `variant` changes what they return, `spaced` only the layout."""
    return "import os\n\n\n" + "".join(define(name, variant, spaced) for name in names)


def define(name: str, variant: int = 0, spaced: bool = False) -> str:
    pad = "  " if spaced else ""
    return f"def {name}(a, b={variant}):\n    return ({pad}a + b + {len(name)}{pad})\n\n\n"


def generate(repo: Path) -> None:
    """The history, the same on every run (its commit ids vary with the clock; nothing compared does)."""
    write(repo, "src/core/engine.py", module(["start", "stop", "pause"]))
    write(repo, "src/util/text.py", module(["wrap", "indent"]))
    write(repo, "src/shared.py", module(["both"]))
    write(repo, "docs/guide.md", "# Guide\n\nStart here.\n")
    write(repo, "logo.bin", b"\x00\x01\x02\x03")
    commit(repo, "root")
    for number in range(6):
        write(repo, "src/core/engine.py", module(["start", "stop", "pause"], number + 1, spaced=number % 2 == 1))
        commit(repo, f"engine {number}" + ("\n\nIntent: UTIL" if number == 3 else ""))
    write(repo, "src/util/text.py", module(["wrap", "indent"]) + define("pause", 6))  # pause moves to util
    write(repo, "src/core/engine.py", module(["start", "stop"], 5, spaced=True))
    commit(repo, "move pause")
    git(repo, "mv", "src/util/text.py", "src/util/strings.py")
    commit(repo, "rename")
    git(repo, "checkout", "-q", "-b", "long")
    for number in range(12):  # a long-lived branch touching many files
        write(repo, f"src/util/extra{number % 4}.py", module([f"extra{number % 4}"], number))
        write(repo, "docs/guide.md", f"# Guide\n\nStart here.\n\nStep {number}.\n")
        commit(repo, f"long {number}")
    git(repo, "checkout", "-q", "main")
    for number in range(10):
        write(repo, "src/core/engine.py", module(["start", "stop"], 10 + number))
        write(repo, "src/shared.py", module(["both"], number, spaced=number % 3 == 0))
        if number == 4:
            write(repo, "logo.bin", b"\x00\x09")
            git(repo, "rm", "-q", "--cached", "src/util/strings.py")
            (repo / "src/util/strings.py").unlink()
            write(repo, "src/util/words.py", module(["alpha", "beta"], 42))  # a path gone, another added
        commit(repo, f"main {number}")
    git(repo, "merge", "-q", "--no-edit", "long")  # takes most of its files from one side
    git(repo, "checkout", "-q", "-b", "side", "HEAD~3")
    write(repo, "src/shared.py", module(["both", "side"], 7))
    commit(repo, "side")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-edit", "side", check=False)  # a conflict on src/shared.py
    write(repo, "src/shared.py", module(["both", "side"], 8))
    commit(repo, "resolve")
    for branch in ("a", "b"):
        git(repo, "checkout", "-q", "-b", branch, "main")
        write(repo, f"src/core/{branch}.py", module([branch]))
        write(repo, "docs/guide.md", f"# Guide\n\nStart here ({branch}).\n")
        commit(repo, branch)
    git(repo, "checkout", "-q", "main")
    write(repo, "README.md", "# Project\n")
    commit(repo, "readme")
    git(repo, "merge", "-q", "--no-edit", "-s", "ours", "a", "b")  # an octopus merge
    for number in range(50):  # enough commits for several rounds of worker tasks
        names = ["start", "stop", f"step{number % 5}"]
        write(repo, "src/core/engine.py", module(names, number // 2, spaced=number % 2 == 1))
        write(repo, f"src/util/extra{number % 4}.py", module([f"extra{number % 4}"], 100 + number))
        commit(repo, f"late {number}")


def plain_changes(root: str, reader: Any, sha: str, parents: list[str]) -> Any:
    """A commit's changes as backfill read them before it had a fast path: every diff read in full,
    a merge's files kept when changed against every parent."""
    from gitai.trace.changes import changes_against

    if not parents:
        return changes_against(root, reader, None, sha)
    first = changes_against(root, reader, parents[0], sha)
    for parent in parents[1:]:
        other = changes_against(root, reader, parent, sha)
        first.paths_gone += other.paths_gone
        other_files = {f.path: f for f in other.files}
        kept = []
        for changed in first.files:
            against = other_files.get(changed.path)
            if against is None:
                continue
            if changed.kind == "text":
                changed.added_lines = sorted(set(changed.added_lines) & set(against.added_lines))
            changed.other_parents.append((against.old_path, against.old_oid, against.hunks))
            kept.append(changed)
        first.files = kept
        other_deleted = {path for path, _ in other.deleted}
        first.deleted = [(path, data) for path, data in first.deleted if path in other_deleted]
    return first


def plain_backfill(repo: Path) -> None:
    """Every commit recorded by the plain path, in this process, oldest first, every version kept
    in the caches."""
    from gitai.backfill import UNKNOWN_CONTRIBUTOR, _intent, file_owner
    from gitai.gate.policy import load_policy
    from gitai.git.blame import LastChanges
    from gitai.git.diff import raw_and_hunks
    from gitai.git.objects import ObjectReader, commit_parents
    from gitai.git.trailers import commit_intents
    from gitai.layout import find_layout
    from gitai.recording import RecordBatch

    layout = find_layout(str(repo))
    policy = load_policy(layout)
    root = layout.root
    commits = git(repo, "rev-list", "--topo-order", "--reverse", "HEAD").stdout.split()
    trailers = commit_intents(root, commits)
    history = LastChanges(root)
    with ObjectReader(root) as reader, RecordBatch(layout, last_change_of=history) as batch:
        for sha in commits:
            parents = commit_parents(reader, sha)
            for parent in parents or [None]:
                raw, _ = raw_and_hunks(root, parent, sha)
                history.learn(sha, parent, frozenset(p for c in raw for p in (c.old_path, c.new_path)))
            changes = plain_changes(root, reader, sha, parents)
            intent_id, source, per_file = _intent(trailers.get(sha), "scope", lambda p: file_owner(policy, p), changes)
            batch.add(sha, parents, changes, intent_id, UNKNOWN_CONTRIBUTOR, {"backfilled": True},
                      None if source == "unattributed" else source, per_file)


def kept_hashes(repo: Path) -> list[tuple[str, bytes]]:
    """The normal-form hash cache's files, by name."""
    return sorted((path.name, path.read_bytes()) for path in (repo / ".git" / "gitai" / "syntax-v5").rglob("*.json"))


def hashes_of(repo: Path, entries: list[tuple[str, bytes]], files: set[tuple[str, str]]) -> list[tuple[str, bytes]]:
    """The hash cache's entries (`kept_hashes`) of these versions' contents."""
    languages = {language for path, _ in files if (language := language_for_path(path))}
    names = set()
    for _, blob in files:
        data = subprocess.run(["git", "cat-file", "blob", blob], cwd=repo, capture_output=True, check=True).stdout
        names |= {hashlib.sha256(language.encode() + b"\0" + data).hexdigest()[2:] + ".json" for language in languages}
    return [(name, data) for name, data in entries if name in names]


def ledger(repo: Path) -> list[dict[str, Any]]:
    """The ledger's records in order, without what differs between runs (their id and time)."""
    rows = []
    for line in (repo / ".orchestration" / "agent_trace.jsonl").read_text().splitlines():
        record = json.loads(line)
        del record["id"], record["timestamp"]
        rows.append(record)
    return rows




@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("generated") / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    generate(repo)
    return repo


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_backfill_records_what_the_plain_path_records(generated: Path, tmp_path: Path, jobs: str) -> None:
    clones = {}
    for name in ("plain", "fast"):
        clone = clones[name] = tmp_path / name
        git(tmp_path, "clone", "-q", str(generated), str(clone))
        gitai_ok(clone, "init", "--no-hooks")
        write(clone, ".orchestration/active_intents.yaml", CATALOGUE)
    plain_backfill(clones["plain"])
    result = gitai_json(clones["fast"], "backfill", "--jobs", jobs)
    commits = git(generated, "rev-list", "--count", "HEAD").stdout.strip()
    assert result["traced"] == int(commits) and result["intent_from"]["trailer"] == 1

    plain, fast = ledger(clones["plain"]), ledger(clones["fast"])
    assert len(plain) == int(commits) and fast == plain
    assert records_by_commit(clones["fast"]) == records_by_commit(clones["plain"])
    # the caches: every version the plain path made (it keeps them all), backfill only HEAD's
    tips = tip_files(generated, "HEAD")
    all_origins, all_hashes = kept_origins(clones["plain"]), kept_hashes(clones["plain"])
    assert origins_of(all_origins, tips) and kept_origins(clones["fast"]) == origins_of(all_origins, tips)
    assert len(all_origins) > 2 * len(origins_of(all_origins, tips))  # the versions in between are not kept
    tip_hashes = hashes_of(generated, all_hashes, tips)
    assert tip_hashes and kept_hashes(clones["fast"]) == tip_hashes
    assert len(all_hashes) > 2 * len(tip_hashes)
    # the history has what the fast path must get right
    meta = [record["metadata"]["dev.gitai"] for record in plain]
    assert {m["classification"] for m in meta} == {"AST_REFACTOR", "INTENT_EVOLUTION"}
    assert any(m.get("intents") for m in meta)  # a commit serving several intents, file by file
    assert any(f.get("renamed_from") for m in meta for f in m.get("files", {}).values())
    assert any(m.get("deleted") for m in meta)
    definitions = [d for m in meta for f in m.get("files", {}).values() for d in f.get("definitions", [])]
    assert any("moved_from" in d for d in definitions)
    merges = git(generated, "rev-list", "--merges", "--parents", "HEAD").stdout.splitlines()
    assert len(merges) == 3 and any(len(line.split()) == 4 for line in merges)


def traced_clone(generated: Path, clone: Path, *init: str) -> Path:
    git(clone.parent, "clone", "-q", str(generated), str(clone))
    gitai_ok(clone, "init", *init)
    write(clone, ".orchestration/active_intents.yaml", CATALOGUE)
    return clone


def test_after_backfill_blame_intent_and_the_next_commit_find_what_they_need(generated: Path, tmp_path: Path) -> None:
    """The caches backfill keeps (HEAD's versions) answer blame-intent as the plain path's (every
    version) do, and the next commit's post-commit hook steps on from them."""
    full = traced_clone(generated, tmp_path / "full", "--no-hooks")
    plain_backfill(full)
    fast = traced_clone(generated, tmp_path / "fast")
    gitai_json(fast, "backfill")
    texts = sorted(path for path, _ in tip_files(generated, "HEAD") if not path.endswith(".bin"))
    assert len(texts) > 8
    for path in texts:
        assert gitai_json(fast, "blame-intent", path) == gitai_json(full, "blame-intent", path), path

    from gitai.blame.origin_cache import OriginStore
    from gitai.layout import find_layout

    blob = git(fast, "rev-parse", "HEAD:src/core/engine.py").stdout.strip()
    assert OriginStore(find_layout(str(fast))).commits("src/core/engine.py", blob)  # the tip's version is kept
    write(fast, "src/core/engine.py", module(["start", "stop", "step4"], 99))
    commit(fast, "after backfill", "src/core/engine.py", env={"GITAI_INTENT": "CORE"})
    blob = git(fast, "rev-parse", "HEAD:src/core/engine.py").stdout.strip()
    assert OriginStore(find_layout(str(fast))).commits("src/core/engine.py", blob) == [head(fast)]


def test_an_interrupted_backfill_keeps_what_the_next_run_steps_on_from(generated: Path, tmp_path: Path) -> None:
    """Interrupted (Ctrl-C), backfill stores the records made so far and writes the line origins
    it held in memory, so the run that finishes the job records what one run would have."""
    from gitai.backfill import backfill
    from gitai.gate.policy import load_policy
    from gitai.layout import find_layout

    whole = traced_clone(generated, tmp_path / "whole", "--no-hooks")
    gitai_json(whole, "backfill", "--jobs", "1")
    cut = traced_clone(generated, tmp_path / "cut", "--no-hooks")
    layout = find_layout(str(cut))

    def interrupt_at(done: int, total: int) -> None:
        if done == total // 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        backfill(layout, load_policy(layout), progress=interrupt_at, jobs=1)
    stored = records_by_commit(cut)
    assert 0 < len(stored) < len(records_by_commit(whole))
    tips = tip_files(generated, "HEAD")
    held = [e for e in kept_origins(cut) if (json.loads(e)["path"], json.loads(e)["blob"]) not in tips]
    assert held  # versions in between, written because the run stopped there
    gitai_json(cut, "backfill", "--jobs", "1")
    assert records_by_commit(cut) == records_by_commit(whole)
    assert origins_of(kept_origins(cut), tips) == kept_origins(whole)
