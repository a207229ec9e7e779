"""Line origins: kept by the hooks commit by commit, computed through git blame when missing,
and the same either way; without refactor commits, the same commits as `git blame`."""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
import zlib
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest
from testing.commands import git, gitai, gitai_json, gitai_ok, script
from testing.repos import commit, head, new_repo, write
from testing.templates import Templates

from gitai.blame.origin_cache import DIRECTORY, OriginStore
from gitai.layout import find_layout

CATALOGUE = """\
active_intents:
  - id: A
    name: Auth
    status: IN_PROGRESS
    owned_scope: ["**"]
  - id: B
    name: Billing
    status: IN_PROGRESS
    owned_scope: ["**"]
  - id: C
    name: Cleanup
    status: IN_PROGRESS
    owned_scope: ["**"]
"""


def numbered(count: int, tag: str = "") -> str:
    return "".join(f"line {n}{tag}\n" for n in range(1, count + 1))


def origins_dir(repo: Path) -> Path:
    return repo / ".git" / "gitai" / DIRECTORY


def blame(repo: Path, path: str, *args: str, env: dict[str, str] | None = None) -> list[dict]:
    """blame-intent's answer: from the script where the test traces its git processes (`env`: the
    `git blame` the script starts ahead is part of what is checked), in this process otherwise."""
    if env is None:
        return gitai_json(repo, "blame-intent", path, *args)
    proc = script(repo, "blame-intent", path, *args, "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def cold_blame(repo: Path, path: str, *args: str) -> list[dict]:
    shutil.rmtree(origins_dir(repo), ignore_errors=True)
    return blame(repo, path, *args)


def git_blame_commits(repo: Path, path: str, rev: str = "HEAD") -> list[str]:
    """The commit of each line, from `git blame --porcelain` (a header starts each line's entry)."""
    out = git(repo, "blame", "--porcelain", rev, "--", path).stdout.splitlines()
    commits, expect_header = [], True
    for line in out:
        if expect_header:
            commits.append(line.split(" ")[0])
            expect_header = False
        elif line.startswith("\t"):
            expect_header = True
    return commits


def nohook_commit(repo: Path, message: str) -> None:
    """A commit made where gitai's hooks do not run (another clone, hooks off)."""
    git(repo, "add", "-A")
    git(repo, "-c", "core.hooksPath=/dev/null", "commit", "-qm", message)


def fresh_clone(repo: Path, clone: Path) -> Path:
    """A clone with the notes fetched, no index and no kept origins."""
    git(clone.parent, "clone", "-q", str(repo), str(clone))
    git(clone, "fetch", "-q", "origin", "refs/notes/gitai:refs/notes/gitai")
    assert not (clone / ".git" / "gitai").exists()
    return clone


def index_is_complete(repo: Path) -> bool | None:
    """Whether the notes index is complete, partial (False), or not there (None)."""
    path = repo / ".git" / "gitai" / "notes-index.sqlite"
    if not path.is_file():
        return None
    with closing(sqlite3.connect(path)) as db:
        row = db.execute("SELECT value FROM meta WHERE key = 'complete'").fetchone()
    return None if row is None else row[0] == "1"


def all_records(repo: Path) -> list[dict]:
    return [json.loads(line) for line in (repo / ".orchestration" / "agent_trace.jsonl").read_text().splitlines()]


def git_runs(trace: Path, command: str) -> int:
    """How many git processes ran `command`, from a GIT_TRACE2_EVENT log."""
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    return sum(1 for e in events if e["event"] == "start" and e["argv"][1:2] == [command])


def git_order(trace: Path) -> list[str]:
    """The git commands a GIT_TRACE2_EVENT log saw start, in order."""
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    return [e["argv"][1] for e in events if e["event"] == "start" and len(e["argv"]) > 1]


def rewrite_line_origins(repo: Path, change: Callable[[dict], object]) -> int:
    """Replace every `line_origins` in the notes by `change(it)` (a key whose value is None is
    removed); how many were changed."""
    changed = 0
    for line in git(repo, "notes", "--ref", "gitai", "list").stdout.splitlines():
        note, commit_id = line.split()
        records = [json.loads(r) for r in git(repo, "cat-file", "blob", note).stdout.splitlines()]
        for record in records:
            for info in record["metadata"]["dev.gitai"].get("files", {}).values():
                if "line_origins" in info:
                    changed += 1
                    value = change(info["line_origins"])
                    if value is None:
                        del info["line_origins"]
                    else:
                        info["line_origins"] = value
        body = "".join(json.dumps(r) + "\n" for r in records)
        git(repo, "notes", "--ref", "gitai", "add", "-f", "-F", "-", commit_id, input=body)
    return changed


def f_by_a_then_b(repo: Path, b_without_hooks: bool = False) -> None:
    """f.py written under A, then its line 2 edited under B (with B's commit made where gitai's
    hooks do not run, if asked); `REFORMATTED_F` reformats the result."""
    write(repo, "f.py", "def f(x):\n    a = x + 1\n    return a\n")
    commit(repo, "A writes f", env={"GITAI_INTENT": "A"})
    write(repo, "f.py", "def f(x):\n    a = x + 2\n    return a\n")
    if b_without_hooks:
        nohook_commit(repo, "B edits line 2\n\nIntent: B")
    else:
        commit(repo, "B edits line 2", env={"GITAI_INTENT": "B"})


REFORMATTED_F = "def f( x ):\n    a = x+2\n    return a\n"


def reformat_by_c(repo: Path) -> None:
    """`f_by_a_then_b`, then reformatted under C (AST_REFACTOR)."""
    f_by_a_then_b(repo)
    write(repo, "f.py", REFORMATTED_F)
    commit(repo, "C reformats", env={"GITAI_INTENT": "C"})


def f_by_a_then_b_reformatted_by_c(repo: Path) -> list[dict]:
    """`reformat_by_c`: blame-intent's answer."""
    reformat_by_c(repo)
    return warm_blame(repo)


def warm_blame(repo: Path) -> list[dict]:
    """blame-intent's answer after `reformat_by_c`, where the hooks kept the origins."""
    warm = blame(repo, "f.py", "--rev", "HEAD")
    assert [r["intent_id"] for r in warm] == ["A", "B", "A"]
    return warm


def kept_at_head(repo: Path, path: str) -> bool:
    """The hooks kept origins for the file's version at HEAD, made by HEAD."""
    blob = git(repo, "rev-parse", f"HEAD:{path}").stdout.strip()
    return head(repo) in OriginStore(find_layout(str(repo))).commits(path, blob)


def damage_kept_origins(repo: Path, unreadable_too: bool = False) -> None:
    """Make every kept version claim 3 more lines than its file has (and, with `unreadable_too`,
    make every other cache file unreadable)."""
    kept = list(origins_dir(repo).rglob("*.json.z"))
    assert kept
    for number, entry in enumerate(kept):
        data = json.loads(zlib.decompress(entry.read_bytes()))
        for version in data["versions"].values():
            version["runs"][0][0] += 3
        garble = unreadable_too and number % 2 == 1
        entry.write_bytes(b"not zlib" if garble else zlib.compress(json.dumps(data).encode()))


def branch_and_merge(repo: Path, path: str, text: str, side: dict[str, str], main: dict[str, str],
                     first_message: str = "A writes") -> None:
    """`path` written under A; branch `side` replaces lines under B, main others under A; merged (C)."""
    write(repo, path, text)
    commit(repo, first_message, env={"GITAI_INTENT": "A"})
    for branch, edits, intent in (("side", side, "B"), ("main", main, "A")):
        git(repo, "checkout", "-q", *(["-b", branch] if branch == "side" else [branch]))
        edited = text
        for old, new in edits.items():
            edited = edited.replace(old, new)
        write(repo, path, edited)
        commit(repo, f"{intent} on {branch}", env={"GITAI_INTENT": intent})
    git(repo, "merge", "-q", "--no-ff", "-m", "merge side", "side", env={"GITAI_INTENT": "C"})


def catalogued(path: Path) -> None:
    new_repo(path)
    gitai_ok(path, "init")
    write(path, ".orchestration/active_intents.yaml", CATALOGUE)
    commit(path, "catalogue")


@pytest.fixture
def traced(tmp_path: Path, templates: Templates) -> Path:
    return templates.make("line-origins", tmp_path / "repo", catalogued)


def catalogued_and_reformatted(path: Path) -> None:
    catalogued(path)
    reformat_by_c(path)


@pytest.fixture
def reformatted(tmp_path: Path, templates: Templates) -> Path:
    """`traced`, then `reformat_by_c`."""
    return templates.make("line-origins-reformatted", tmp_path / "repo", catalogued_and_reformatted)


def test_hooks_keep_origins_that_match_a_computation_from_scratch(traced: Path) -> None:
    repo = traced
    code = "def login(user):\n    return make(user)\n\n\ndef logout(user):\n    drop(user)\n    return True\n"
    write(repo, "src/auth.py", code)
    commit(repo, "A", env={"GITAI_INTENT": "A"})
    assert kept_at_head(repo, "src/auth.py")
    write(repo, "README.md", "docs\n")
    commit(repo, "another file", env={"GITAI_INTENT": "B"})
    write(repo, "src/auth.py", code.replace("make(user)", "make(user, 5)"))
    commit(repo, "B", env={"GITAI_INTENT": "B"})
    assert kept_at_head(repo, "src/auth.py")  # from the version two commits back
    write(repo, "src/auth.py", "def login( user ):\n    return make( user, 5 )\n\n\n")
    write(repo, "src/session.py", "def logout( user ):\n    drop( user )\n    return True\n")
    commit(repo, "C reformats and moves", env={"GITAI_INTENT": "C"})
    assert gitai_json(repo, "show")[0]["metadata"]["dev.gitai"]["classification"] == "AST_REFACTOR"
    assert kept_at_head(repo, "src/auth.py") and kept_at_head(repo, "src/session.py")
    git(repo, "mv", "src/session.py", "src/sessions.py")
    commit(repo, "C renames", env={"GITAI_INTENT": "C"})
    for path in ("src/auth.py", "src/sessions.py"):
        warm = blame(repo, path)
        assert warm == cold_blame(repo, path) == blame(repo, path)  # from scratch, then as kept
    assert [r["intent_id"] for r in blame(repo, "src/auth.py")] == ["A", "B", "A", "A"]
    assert [r["intent_id"] for r in blame(repo, "src/sessions.py")] == ["A", "A", "A"]


def test_without_refactors_the_commits_are_git_blames(traced: Path) -> None:
    """Merges, a rename, a revert, and commits made without the hooks in between."""
    repo = traced
    branch_and_merge(repo, "notes.txt", numbered(12), {"line 2\n": "line 2 side\n"},
                     {"line 10\n": "line 10 main\nline 10b\n"})
    before = (repo / "notes.txt").read_text()
    write(repo, "notes.txt", before.replace("line 5\n", "line 5 changed\n"))
    commit(repo, "B changes 5", env={"GITAI_INTENT": "B"})
    write(repo, "notes.txt", before)
    commit(repo, "A reverts", env={"GITAI_INTENT": "A"})
    git(repo, "mv", "notes.txt", "doc.txt")
    write(repo, "doc.txt", (repo / "doc.txt").read_text() + "tail\n")
    commit(repo, "B renames", env={"GITAI_INTENT": "B"})
    assert kept_at_head(repo, "doc.txt")  # kept through the merge, the revert and the rename
    assert [r["commit"] for r in blame(repo, "doc.txt")] == git_blame_commits(repo, "doc.txt")
    write(repo, "doc.txt", "head\n" + (repo / "doc.txt").read_text())
    commit(repo, "plain git", extra=("--no-verify",), env={"GIT_CONFIG_PARAMETERS": "'core.hookspath=/dev/null'"})
    write(repo, "doc.txt", (repo / "doc.txt").read_text().replace("line 7\n", "line 7 again\n"))
    commit(repo, "A after", env={"GITAI_INTENT": "A"})
    assert not kept_at_head(repo, "doc.txt")  # its parent's origins were never kept
    expected = git_blame_commits(repo, "doc.txt")
    assert len(set(expected)) >= 6
    assert [r["commit"] for r in blame(repo, "doc.txt")] == expected
    assert kept_at_head(repo, "doc.txt")  # computed once, kept
    assert [r["commit"] for r in cold_blame(repo, "doc.txt")] == expected
    for rev in ("HEAD~3", "HEAD~5"):  # the revert, the merge
        commits = [r["commit"] for r in blame(repo, "notes.txt", "--rev", rev)]
        assert commits == git_blame_commits(repo, "notes.txt", rev)


def test_a_damaged_cache_is_a_miss(traced: Path) -> None:
    repo = traced
    write(repo, "a.py", "X = 1\nY = 2\n")
    commit(repo, "A", env={"GITAI_INTENT": "A"})
    write(repo, "a.py", "X = 1\nY = 3\nZ = 4\n")
    commit(repo, "B", env={"GITAI_INTENT": "B"})
    expected = blame(repo, "a.py")
    damage_kept_origins(repo, unreadable_too=True)
    assert blame(repo, "a.py") == expected
    assert blame(repo, "a.py", "--rev", "HEAD") == expected
    assert [r["intent_id"] for r in expected] == ["A", "B", "B"]


def test_reformatted_lines_map_inside_their_definition(traced: Path) -> None:
    repo = traced
    write(repo, "calc.py", "def f(a, b):\n    return a + b\n")
    commit(repo, "A", env={"GITAI_INTENT": "A"})
    write(repo, "calc.py", "def f(a, b):\n    return a + b + 1\n")
    commit(repo, "B", env={"GITAI_INTENT": "B"})
    write(repo, "calc.py", "def f(\n    a,\n    b,\n):\n    # the sum, plus one\n    return a + b + 1\n")
    commit(repo, "C reformats", env={"GITAI_INTENT": "C"})
    assert gitai_json(repo, "show")[0]["metadata"]["dev.gitai"]["classification"] == "AST_REFACTOR"
    rows = blame(repo, "calc.py")
    # the split signature maps to the old signature line; the inserted comment takes the line above
    assert [r["intent_id"] for r in rows] == ["A", "A", "A", "A", "A", "B"]
    assert rows == cold_blame(repo, "calc.py")


def test_code_moved_from_a_file_without_kept_origins(traced: Path) -> None:
    """The source file's origins are not kept: for a refactor the hooks compute them (through
    git blame) rather than leave the refactor's record without line origins; both find the writer."""
    repo = traced
    write(repo, "src.py", "def keep(y):\n    return y\n\n\ndef moved(z):\n    z = z * 2\n    return z - 3\n")
    nohook_commit(repo, "src.py made elsewhere\n\nIntent: B")
    written = head(repo)
    write(repo, "src.py", "def keep(y):\n    return y\n")
    write(repo, "new.py", "def moved(z):\n    z = z * 2\n    return z - 3\n")
    commit(repo, "C extracts moved()", env={"GITAI_INTENT": "C"})
    assert gitai_json(repo, "show")[0]["metadata"]["dev.gitai"]["classification"] == "AST_REFACTOR"
    assert kept_at_head(repo, "new.py")
    assert gitai_json(repo, "show")[0]["metadata"]["dev.gitai"]["files"]["new.py"]["line_origins"]
    rows = blame(repo, "new.py")
    assert {r["commit"] for r in rows} == {written} and {r["intent_id"] for r in rows} == {"B"}
    assert rows == cold_blame(repo, "new.py")


def test_records_that_arrive_later_replace_kept_origins(traced: Path, tmp_path: Path) -> None:
    """Origins computed in a clone before `gitai sync` brought the refactor's record are not
    served once it has one."""
    repo = traced
    write(repo, "calc.py", "def f(a, b):\n    return a + b\n")
    commit(repo, "A writes", env={"GITAI_INTENT": "A"})
    write(repo, "calc.py", "def f(\n    a,\n    b,\n):\n    return a + b\n")
    commit(repo, "C reformats", env={"GITAI_INTENT": "C"})
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "origin", "main")
    assert gitai(repo, "sync", "origin").returncode == 0
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "-b", "main", str(remote), str(clone))
    assert gitai(clone, "init", "--no-notes-travel").returncode == 0  # the records come later, by sync
    assert [r["intent_id"] for r in blame(clone, "calc.py")] == ["C"] * 4 + ["A"]  # trailers only, and kept
    assert gitai(clone, "sync", "origin").returncode == 0
    assert [r["intent_id"] for r in blame(clone, "calc.py")] == ["A"] * 5
    assert blame(clone, "calc.py") == cold_blame(clone, "calc.py") == blame(repo, "calc.py")


def test_git_configuration_and_attributes_do_not_change_the_answer(traced: Path) -> None:
    """Diff settings, a `-diff` attribute and a summary shaped like a blame header: the hooks, the
    computation from scratch and git blame agree."""
    repo = traced
    git(repo, "config", "diff.interHunkContext", "5")
    git(repo, "config", "diff.algorithm", "histogram")
    write(repo, ".gitattributes", "*.lock -diff\n")
    branch_and_merge(repo, "deps.lock", numbered(10), {"line 5\n": "line 5 side\n", "line 6\n": "line 6 side\n"},
                     {"line 2\n": "line 2 main\n", "line 9\n": "line 9 main\n"},
                     first_message="Update the changelog for release 2024.1")
    assert kept_at_head(repo, "deps.lock")
    expected = git_blame_commits(repo, "deps.lock")
    assert [r["commit"] for r in blame(repo, "deps.lock")] == expected
    assert [r["commit"] for r in cold_blame(repo, "deps.lock")] == expected
    write(repo, "deps.lock", (repo / "deps.lock").read_text().replace("line 7\n", "line 7 wip\n"))
    assert [r["commit"] is None for r in blame(repo, "deps.lock")] == [n == 7 for n in range(1, 11)]


def test_merge_then_other_commits_then_an_edit_is_still_extended(traced: Path) -> None:
    repo = traced
    branch_and_merge(repo, "f.txt", numbered(10), {"line 8\n": "line 8 side\n"}, {"line 2\n": "line 2 main\n"})
    write(repo, "g.txt", "unrelated\n")
    commit(repo, "unrelated", env={"GITAI_INTENT": "A"})
    write(repo, "f.txt", (repo / "f.txt").read_text() + "tail\n")
    commit(repo, "edit", env={"GITAI_INTENT": "B"})
    assert kept_at_head(repo, "f.txt")
    assert [r["commit"] for r in blame(repo, "f.txt")] == git_blame_commits(repo, "f.txt")


def test_odd_names_and_a_damaged_cache_with_uncommitted_lines(traced: Path) -> None:
    repo = traced
    name = ":a b c d e.txt"
    write(repo, name, "one\ntwo\n")
    commit(repo, "A", env={"GITAI_INTENT": "A"})
    assert [r["intent_id"] for r in cold_blame(repo, name)] == ["A", "A"]
    damage_kept_origins(repo)
    write(repo, name, "one\ntwo\nwip\n")
    rows = blame(repo, name)
    assert [(r["intent_id"], r["commit"] is None) for r in rows] == [("A", False), ("A", False), (None, True)]


def test_a_long_run_of_refactor_commits(bare_repo: Path) -> None:
    """250 whitespace-only (AST_REFACTOR) commits, traced by backfill, computed from scratch."""
    repo = bare_repo
    gitai_ok(repo, "init", "--no-hooks")
    chunks = []
    for n in range(252):
        changed = {9: "9 changed"} if n == 251 else {}
        body = "".join(f"{' ' if (k == 5 and min(n, 250) % 2) else ''}{changed.get(k, k)}\n" for k in range(1, 21))
        message = f"commit {n}\n\nIntent: {'A' if n == 0 else 'C' if n < 251 else 'B'}\n"
        chunks.append(f"commit refs/heads/main\ncommitter T <t@example.com> {1700000000 + n} +0000\n"
                      f"data {len(message)}\n{message}\nM 100644 inline f.txt\ndata {len(body)}\n{body}\n")
    git(repo, "fast-import", "--quiet", input="".join(chunks))
    git(repo, "reset", "-q", "--hard", "main")
    assert gitai(repo, "backfill").returncode == 0
    rows = cold_blame(repo, "f.txt")
    assert [r["intent_id"] for r in rows] == ["A"] * 8 + ["B"] + ["A"] * 11


def test_merges_follow_each_parent_like_git_blame(traced: Path) -> None:
    """A merge into a branch that renamed the file takes the other side's lines through the
    rename; a file equal in both parents builds on the version git blame follows."""
    repo = traced
    write(repo, "f.txt", numbered(8))
    commit(repo, "A writes f", env={"GITAI_INTENT": "A"})
    git(repo, "checkout", "-q", "-b", "side")
    git(repo, "mv", "f.txt", "r.txt")
    write(repo, "r.txt", numbered(8).replace("line 1\n", "line 1 side\n"))
    commit(repo, "B renames f to r", env={"GITAI_INTENT": "B"})
    git(repo, "checkout", "-q", "main")
    write(repo, "f.txt", numbered(8).replace("line 7\n", "line 7 main\n"))
    commit(repo, "A edits line 7", env={"GITAI_INTENT": "A"})
    git(repo, "checkout", "-q", "side")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge main into side", "main", env={"GITAI_INTENT": "C"})
    expected = git_blame_commits(repo, "r.txt")
    assert [r["commit"] for r in blame(repo, "r.txt")] == expected
    assert [r["commit"] for r in cold_blame(repo, "r.txt")] == expected

    git(repo, "checkout", "-q", "main")
    write(repo, "g.txt", numbered(6))
    commit(repo, "A writes g", env={"GITAI_INTENT": "A"})
    git(repo, "checkout", "-q", "-b", "other")
    git(repo, "rm", "-q", "g.txt")
    commit(repo, "B deletes g", env={"GITAI_INTENT": "B"})
    write(repo, "g.txt", numbered(6))
    write(repo, "h.txt", "h\n")
    commit(repo, "B re-adds the same g, adds h", env={"GITAI_INTENT": "B"})
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge other", "other", env={"GITAI_INTENT": "C"})
    write(repo, "g.txt", numbered(6).replace("line 6\n", "line 6 c\n"))
    write(repo, "h.txt", "h\nh2\n")
    commit(repo, "C edits g and h", env={"GITAI_INTENT": "C"})
    expected = git_blame_commits(repo, "g.txt")
    assert [r["commit"] for r in blame(repo, "g.txt")] == expected
    assert [r["commit"] for r in cold_blame(repo, "g.txt")] == expected


def test_a_file_split_in_two_keeps_its_history_in_both(traced: Path) -> None:
    """git blame follows the old file into each half; diff-tree pairs it with one only: the hooks
    follow the other half as git blame does."""
    repo = traced
    write(repo, "f.txt", numbered(20))
    commit(repo, "A writes f", env={"GITAI_INTENT": "A"})
    write(repo, "f.txt", numbered(20).replace("line 3\n", "line 3 b\n"))
    commit(repo, "B edits line 3", env={"GITAI_INTENT": "B"})
    git(repo, "mv", "f.txt", "a.txt")
    write(repo, "b.txt", (repo / "a.txt").read_text())
    commit(repo, "C splits f into a and b", env={"GITAI_INTENT": "C"})
    assert kept_at_head(repo, "a.txt") and kept_at_head(repo, "b.txt")  # b.txt: git blame of that commit alone
    warm = {half: blame(repo, half) for half in ("a.txt", "b.txt")}  # as the hooks left them
    for half, rows in warm.items():
        expected = git_blame_commits(repo, half)
        assert [r["commit"] for r in rows] == expected
        assert [r["commit"] for r in cold_blame(repo, half)] == expected
        assert [r["intent_id"] for r in rows][:3] == ["A", "A", "B"]


def test_a_fresh_clones_first_blame_is_the_warm_answer(traced: Path, tmp_path: Path) -> None:
    """Refactor commits (a reformat; after a merge that keeps the side branch's line over main's,
    a reformat of it, so following it from there stops where the side branch forked; a move in
    from another file), traced by the hooks: a clone with the notes and no index or kept origins
    computes the answer the hooks kept, then answers from what it kept."""
    repo = traced
    functions = {n: f"def f{n}(x):\n    a = x + {n}\n    b = a * 2\n    return b\n" for n in (1, 2, 3)}
    text = "\n\n".join(functions.values())
    write(repo, "f.py", text)
    write(repo, "g.py", "def moved(z):\n    return z - 3\n")
    commit(repo, "A writes f and g", env={"GITAI_INTENT": "A"})
    write(repo, "h.txt", "h\n")
    commit(repo, "B writes h", env={"GITAI_INTENT": "B"})  # where the side branch forks
    git(repo, "checkout", "-q", "-b", "side")
    write(repo, "f.py", text.replace("x + 3", "x + 30"))
    commit(repo, "B edits f3", env={"GITAI_INTENT": "B"})
    git(repo, "checkout", "-q", "main")
    text = text.replace("def f1(x):\n    a = x + 1", "def f1( x ):\n    a = x+1")
    write(repo, "f.py", text)
    commit(repo, "C reformats f1", env={"GITAI_INTENT": "C"})
    write(repo, "f.py", text.replace("x + 2", "x + 20"))
    commit(repo, "B edits f2", env={"GITAI_INTENT": "B"})
    git(repo, "merge", "-q", "--no-ff", "--no-commit", "side", env={"GITAI_INTENT": "C"})
    text = text.replace("x + 3", "x + 30")  # the merge keeps side's f3 and the old f2 (not main's x + 20)
    write(repo, "f.py", text)
    commit(repo, "merge side, keeping the old f2", env={"GITAI_INTENT": "C"})
    text = text.replace("    b = a * 2\n", "    b = a*2\n").replace("x + 2\n", "x+2\n")
    write(repo, "f.py", text)
    commit(repo, "C reformats every b and f2's a", env={"GITAI_INTENT": "C"})
    write(repo, "f.py", text + "\n\ndef moved( z ):\n    return z-3\n")
    write(repo, "g.py", "")
    commit(repo, "C moves moved() into f", env={"GITAI_INTENT": "C"})
    assert gitai_json(repo, "show")[0]["metadata"]["dev.gitai"]["classification"] == "AST_REFACTOR"
    warm = blame(repo, "f.py", "--rev", "HEAD")
    assert [r["intent_id"] for r in warm] == ["A"] * 13 + ["B"] + ["A"] * 6  # f3's edit is B's alone
    assert warm[7]["content"] == "    a = x+2" and warm[7]["commit"] == warm[0]["commit"]

    refactors = [r for r in all_records(repo) if r["metadata"]["dev.gitai"].get("classification") == "AST_REFACTOR"]
    assert len(refactors) == 3 and all(r["metadata"]["dev.gitai"]["files"]["f.py"]["line_origins"] for r in refactors)

    clone = fresh_clone(repo, tmp_path / "clone")
    trace = tmp_path / "trace2.json"
    assert blame(clone, "f.py", "--rev", "HEAD", env={"GIT_TRACE2_EVENT": str(trace)}) == warm
    assert git_runs(trace, "blame") == 1  # the refactors' records say where their lines come from
    assert git_order(trace)[:2] == ["rev-parse", "blame"]  # started before the command line loads
    assert index_is_complete(clone) is False  # only the notes it read
    assert blame(clone, "f.py", "--rev", "HEAD") == warm  # from the origins and index kept
    write(repo, "f.py", text.replace("return b\n", "return b + 1\n", 1) + "\n\ndef moved( z ):\n    return z-3\n")
    commit(repo, "B edits f1", env={"GITAI_INTENT": "B"})
    git(clone, "pull", "-q")
    git(clone, "fetch", "-q", "origin", "+refs/notes/gitai:refs/notes/gitai")
    assert blame(clone, "f.py", "--rev", "HEAD") == blame(repo, "f.py", "--rev", "HEAD")  # the partial index, moved on
    assert index_is_complete(clone) is False
    assert gitai_json(clone, "stats") == gitai_json(repo, "stats")  # reads the whole trace: completes the index
    assert index_is_complete(clone) is True
    assert blame(clone, "f.py", "--rev", "HEAD") == blame(repo, "f.py", "--rev", "HEAD")


@pytest.mark.parametrize("line_origins", [
    None,  # a record from a gitai that kept none
    {"commits": ["HEAD"], "lines": [[1, 9, 0]]},  # not an object id
    {"commits": ["a" * 40], "lines": [[1, 1, 5]]},  # no such commit index
    {"commits": ["a" * 40], "lines": [["1", 1, 0]], "x": 1},
    {"commits": ["a" * 40], "lines": [[1, 9, 0, "f.py\u00001"]]},  # a NUL: never a path
    {"commits": ["a" * 40], "lines": [[100 + n * 10**9, 10**9, 0] for n in range(3)]},  # looked up, not expanded
    "oops",
])
def test_refactor_records_without_usable_line_origins_are_followed_through_git(
        reformatted: Path, tmp_path: Path, line_origins: object) -> None:
    """Records from a gitai that kept no line origins, or whose line origins are garbage (a note
    comes from anywhere): a clone follows the refactors through git and gives the same answer."""
    repo = reformatted
    warm = warm_blame(repo)
    clone = fresh_clone(repo, tmp_path / "clone")
    assert rewrite_line_origins(clone, lambda _: line_origins) == 1
    trace = tmp_path / "trace2.json"
    assert blame(clone, "f.py", "--rev", "HEAD", env={"GIT_TRACE2_EVENT": str(trace)}) == warm
    assert git_runs(trace, "blame") > 1


def test_a_line_origin_whose_commit_later_gets_a_refactor_record_is_followed_again(
        traced: Path, tmp_path: Path) -> None:
    """A reformat made without gitai (no record) then reformatted again with gitai: the second
    reformat's record says its lines come from the first. Once backfill records the first as a
    refactor too, a clone looks through both to the commit that wrote the lines."""
    repo = traced
    write(repo, "f.py", "def f(x):\n    a = x + 1\n    return a\n")
    commit(repo, "A writes f", env={"GITAI_INTENT": "A"})
    write(repo, "f.py", "def f( x ):\n    a = x+1\n    return a\n")
    nohook_commit(repo, "a reformat made without gitai")
    assert [r["intent_id"] for r in blame(repo, "f.py", "--rev", "HEAD")] == [None, None, "A"]
    write(repo, "f.py", "def f(  x  ):\n    a = x  +1\n    return a\n")
    commit(repo, "C reformats again", env={"GITAI_INTENT": "C"})
    assert all_records(repo)[-1]["metadata"]["dev.gitai"]["files"]["f.py"]["line_origins"]
    assert [r["intent_id"] for r in blame(repo, "f.py", "--rev", "HEAD")] == [None, None, "A"]
    gitai_ok(repo, "backfill")  # records the reformat made without gitai: AST_REFACTOR
    warm = blame(repo, "f.py", "--rev", "HEAD")
    assert [r["intent_id"] for r in warm] == ["A"] * 3
    assert blame(fresh_clone(repo, tmp_path / "clone"), "f.py", "--rev", "HEAD") == warm


def test_a_refactor_of_a_file_without_kept_origins_still_records_its_line_origins(
        traced: Path, tmp_path: Path) -> None:
    """Origins of the parent's version not kept (written where the hooks did not run, and code
    moved in from such a file): the post-commit hook computes them through git blame, so the
    refactor's record says where its lines come from all the same."""
    repo = traced
    write(repo, "f.py", "def f(x):\n    a = x + 1\n    return a\n")
    write(repo, "g.py", "def g(y):\n    return y\n")
    commit(repo, "A writes f and g", env={"GITAI_INTENT": "A"})
    write(repo, "f.py", "def f(x):\n    a = x + 2\n    return a\n")
    write(repo, "g.py", "def g(y):\n    return y * 2\n")
    nohook_commit(repo, "edits made without gitai")
    shutil.rmtree(origins_dir(repo))
    write(repo, "f.py", "def f( x ):\n    a = x+2\n    return a\n\n\ndef g( y ):\n    return y*2\n")
    write(repo, "g.py", "")
    commit(repo, "C reformats f and moves g into it", env={"GITAI_INTENT": "C"})
    meta = all_records(repo)[-1]["metadata"]["dev.gitai"]
    assert meta["classification"] == "AST_REFACTOR" and meta["files"]["f.py"]["line_origins"]
    warm = blame(repo, "f.py", "--rev", "HEAD")
    first, edits = git(repo, "rev-parse", "HEAD~2", "HEAD~1").stdout.split()
    assert [r["commit"] for r in warm] == [first, edits, first, first, first, first, edits]
    clone = fresh_clone(repo, tmp_path / "clone")
    trace = tmp_path / "trace2.json"
    assert blame(clone, "f.py", "--rev", "HEAD", env={"GIT_TRACE2_EVENT": str(trace)}) == warm
    assert git_runs(trace, "blame") == 1
    assert blame(repo, "f.py", "--rev", "HEAD") == cold_blame(repo, "f.py", "--rev", "HEAD") == warm


def test_a_reformat_of_many_files_without_kept_origins_computes_at_most_a_few(traced: Path, tmp_path: Path) -> None:
    """A whole-repository reformat must not hold the post-commit hook for a git blame per file:
    beyond MAX_FOLLOWED files, the record has no line origins, and a clone follows those through git."""
    from gitai.blame.maintain import MAX_FOLLOWED

    repo = traced
    names = [f"m{n:02}.py" for n in range(MAX_FOLLOWED + 2)]
    for name in names:
        write(repo, name, "def f(x):\n    return x + 1\n")
    nohook_commit(repo, "files made without gitai\n\nIntent: A")
    for name in names:
        write(repo, name, "def f( x ):\n    return x+1\n")
    commit(repo, "C reformats every file", env={"GITAI_INTENT": "C"})
    files = all_records(repo)[-1]["metadata"]["dev.gitai"]["files"]
    assert sum("line_origins" in files.get(name, {}) for name in names) == MAX_FOLLOWED
    clone = fresh_clone(repo, tmp_path / "clone")
    for name in (names[0], names[-1]):
        assert [r["intent_id"] for r in blame(clone, name, "--rev", "HEAD")] == ["A", "A"] == [
            r["intent_id"] for r in blame(repo, name, "--rev", "HEAD")]


def test_the_recorders_blame_and_diff_settings_do_not_reach_the_records(traced: Path, tmp_path: Path) -> None:
    """`blame.ignoreRevsFile` (GitHub's convention) and `diff.indentHeuristic` are the recorder's
    own settings: the line origins its hooks write into a refactor's record, which every clone
    reads, must not depend on them."""
    repo = traced
    f_by_a_then_b(repo, b_without_hooks=True)
    (repo / ".git" / "ignored-revs").write_text(head(repo) + "\n")
    git(repo, "config", "blame.ignoreRevsFile", ".git/ignored-revs")
    git(repo, "config", "diff.indentHeuristic", "false")
    shutil.rmtree(origins_dir(repo))  # the hook computes the parent's origins through git blame
    write(repo, "f.py", REFORMATTED_F)
    commit(repo, "C reformats", env={"GITAI_INTENT": "C"})
    assert all_records(repo)[-1]["metadata"]["dev.gitai"]["files"]["f.py"]["line_origins"]
    warm = blame(repo, "f.py", "--rev", "HEAD")
    assert [r["intent_id"] for r in warm] == ["A", "B", "A"]
    assert blame(fresh_clone(repo, tmp_path / "clone"), "f.py", "--rev", "HEAD") == warm


def test_a_shallow_clone_answers_from_the_refactors_record(traced: Path, tmp_path: Path) -> None:
    """A `--depth 1` clone (CI) lacks the commits a refactor's line origins name: it answers from
    the notes all the same, and a made-up commit in a note is no error either."""
    repo = traced
    warm = f_by_a_then_b_reformatted_by_c(repo)
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(clone))
    git(clone, "fetch", "-q", "origin", "refs/notes/gitai:refs/notes/gitai")
    rows = blame(clone, "f.py", "--rev", "HEAD")
    assert rows[:2] == warm[:2]  # the lines the reformat changed, from its record
    assert rows[2]["commit"] == head(clone)  # git blame's answer: the history stops there
    rewrite_line_origins(clone, lambda kept: {**kept, "commits": ["b" * 40 for _ in kept["commits"]]})
    shutil.rmtree(clone / ".git" / "gitai")
    assert [r["commit"] for r in blame(clone, "f.py", "--rev", "HEAD")][:2] == ["b" * 40] * 2
    shutil.rmtree(clone / ".git" / "gitai")  # a git blame started ahead for nothing: the usual error
    proc = gitai(clone, "blame-intent", "--rev", "HEAD", "nope.py")
    assert (proc.returncode, proc.stdout) == (2, "") and proc.stderr.startswith("gitai: error:")


def test_a_shallow_clone_does_not_follow_a_refactor_through_git_blame(traced: Path, tmp_path: Path) -> None:
    """In a shallow clone `git blame` stops at the shallow root: the hooks there record a
    refactor without line origins rather than origins that name the wrong commit."""
    repo = traced
    f_by_a_then_b(repo)
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(clone))
    gitai_ok(clone, "init")
    write(clone, "f.py", REFORMATTED_F)
    commit(clone, "C reformats", "f.py", env={"GITAI_INTENT": "C"})
    meta = all_records(clone)[-1]["metadata"]["dev.gitai"]
    assert meta["classification"] == "AST_REFACTOR" and "line_origins" not in meta.get("files", {}).get("f.py", {})


def test_definitions_moved_out_of_a_file_the_same_commit_renames(traced: Path, tmp_path: Path) -> None:
    """A commit moves half of a.py's functions into b.py and renames a.py to c.py: the moved
    definitions are found under the renamed file's entry, and keep their writer."""
    repo = traced
    functions = [f"def f{n}():\n    return {n}\n" for n in range(12)]
    write(repo, "a.py", "\n".join(functions))
    commit(repo, "A writes a", env={"GITAI_INTENT": "A"})
    written = head(repo)
    git(repo, "mv", "a.py", "c.py")
    write(repo, "c.py", "\n".join(functions[6:]))
    write(repo, "b.py", "\n".join(functions[:6]))
    commit(repo, "C moves half of a into b, renames a to c", env={"GITAI_INTENT": "C"})
    assert gitai_json(repo, "show")[0]["metadata"]["dev.gitai"]["classification"] == "AST_REFACTOR"
    rows = blame(repo, "b.py", "--rev", "HEAD")
    assert {r["commit"] for r in rows} == {written}
    assert blame(fresh_clone(repo, tmp_path / "clone"), "b.py", "--rev", "HEAD") == rows == cold_blame(
        repo, "b.py", "--rev", "HEAD")


def test_a_locked_or_damaged_index_is_never_served_as_it_stands(
        traced: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A partial index (a fresh clone's first blame-intent) whose file another process holds locked
    is not handed to a reader of the whole trace as complete: it is built in memory. A damaged
    database file is built again. Without git on PATH, blame-intent says so in one line."""
    from gitai.trace import summary_index

    repo = traced
    warm = f_by_a_then_b_reformatted_by_c(repo)
    clone = fresh_clone(repo, tmp_path / "clone")
    assert blame(clone, "f.py", "--rev", "HEAD") == warm
    assert index_is_complete(clone) is False
    traced_commits = len(git(repo, "notes", "--ref", "gitai", "list").stdout.splitlines())
    database = clone / ".git" / "gitai" / "notes-index.sqlite"
    monkeypatch.setattr(summary_index, "LONG_WAIT", 0.1)
    with closing(sqlite3.connect(database, isolation_level=None)) as holder:
        holder.execute("BEGIN IMMEDIATE")
        index = summary_index.load_index(find_layout(str(clone)))
        assert len(index.commits) == traced_commits  # read from the notes, in memory
        holder.execute("ROLLBACK")
    expected = gitai_json(repo, "stats")
    assert gitai_json(clone, "stats") == expected and index_is_complete(clone) is True
    with closing(sqlite3.connect(database)) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # everything in the file itself
    data = bytearray(database.read_bytes())
    data[4096:] = b"\xff" * (len(data) - 4096)  # every page but the first
    database.write_bytes(bytes(data))
    assert gitai_json(clone, "stats") == expected
    proc = gitai(tmp_path, "blame-intent", "--rev", "HEAD", str(clone / "f.py"),
                 env={"PATH": str(Path(sys.executable).parent)})
    assert proc.returncode == 2 and proc.stderr.startswith("gitai: error:") and "Traceback" not in proc.stderr
