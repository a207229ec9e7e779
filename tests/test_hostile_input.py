"""Hostile input, as a table: generated bad input x every command that reads it.

Every case must end the same way: exit 2, exactly one stderr line starting `gitai: error:`, no
traceback, no file written outside `.orchestration/` and the git dir, and nothing lost from the
notes or the ledger. Cases run in-process (gitai.cli.main, SystemExit caught) on copies of one
prepared repository, so the table stays fast; the hooks are covered in test_hostile_regressions.py.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import random
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from testing.commands import gitai_ok
from testing.repos import CATALOGUE, commit, new_repo, write

from gitai.cli import main

Damage = Callable[[Path, Path], None]  # (repository, a directory outside it)


# --- the prepared repository ------------------------------------------------------------------


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A traced repository: the test catalogue, three commits under two intents, a ledger."""
    path = new_repo(tmp_path_factory.mktemp("base") / "repo")
    gitai_ok(path, "init")
    write(path, ".orchestration/active_intents.yaml", CATALOGUE)
    commit(path, "add catalogue")
    write(path, "src/auth/login.py", "def login():\n    return 1\n")
    commit(path, "login", env={"GITAI_INTENT": "INT-001"})
    write(path, "docs/guide.md", "# guide\n")
    commit(path, "guide", env={"GITAI_INTENT": "INT-002"})
    gitai_ok(path, "trace", "verify")
    return path


def _outside_snapshot(root: Path) -> dict[str, str]:
    """Every file under `root` but .orchestration/ and .git/ (symlinks as their target text)."""
    found = {}
    for directory, dirs, files in os.walk(root):
        rel_dir = os.path.relpath(directory, root)
        if rel_dir.split(os.sep)[0] in (".git", ".orchestration"):
            dirs[:] = []
            continue
        for name in files + [d for d in dirs if os.path.islink(os.path.join(directory, d))]:
            full = os.path.join(directory, name)
            if os.path.islink(full):
                found[os.path.relpath(full, root)] = "-> " + os.readlink(full)
            else:
                found[os.path.relpath(full, root)] = hashlib.sha1(Path(full).read_bytes()).hexdigest()
    return found


def _trace_snapshot(repo: Path) -> tuple[str, bytes]:
    """The notes ref's value (read from its file: no git process per case) and the ledger's bytes."""
    loose = repo / ".git" / "refs" / "notes" / "gitai"
    notes = loose.read_text() if loose.exists() else (repo / ".git" / "packed-refs").read_text()
    ledger = repo / ".orchestration" / "agent_trace.jsonl"
    return notes, ledger.read_bytes() if ledger.is_file() and not ledger.is_symlink() else b""


def run_in_process(cwd: Path, argv: list[str], env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """`gitai ARGV` in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    saved_cwd = os.getcwd()
    saved_env = {k: os.environ.get(k) for k in (env or {})}
    os.chdir(cwd)
    os.environ.update(env or {})
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(argv)
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 0
    finally:
        os.chdir(saved_cwd)
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return code, out.getvalue(), err.getvalue()


def assert_refused(tmp_path: Path, base: Path, damage: Damage | None, argv: list[str],
                   env: dict[str, str] | None = None) -> str:
    repo = tmp_path / "repo"
    shutil.copytree(base, repo, symlinks=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("outside\n")
    if damage is not None:
        damage(repo, outside)
    before_repo, before_outside = _outside_snapshot(repo), _outside_snapshot(outside)
    notes_before, ledger_before = _trace_snapshot(repo)
    code, out, err = run_in_process(repo, argv, env)
    lines = err.splitlines()
    assert code == 2, (argv, code, out, err)
    assert len(lines) == 1 and lines[0].startswith("gitai: error: "), (argv, err)
    assert "Traceback" not in err + out
    assert _outside_snapshot(repo) == before_repo, "a file outside .orchestration/ and .git/ changed"
    assert _outside_snapshot(outside) == before_outside, "a file outside the repository changed"
    notes_after, ledger_after = _trace_snapshot(repo)
    assert notes_after == notes_before
    assert ledger_after == ledger_before
    return lines[0]


# --- bad arguments, per command --------------------------------------------------------------

COMMANDS = [["init"], ["hooks", "install"], ["hooks", "status"], ["hooks", "uninstall"], ["intents"],
            ["select", "INT-001"], ["clear"],
            ["status"], ["check"], ["show"], ["log"], ["backfill"], ["trace", "verify"], ["trace", "rebuild"],
            ["trace", "recover"], ["sync"], ["classify"], ["map"], ["blame-intent", "src/auth/login.py"], ["help"],
            ["carry", "HEAD~1..HEAD", "--to", "HEAD"], ["ci", "github"], ["gc"],
            ["agents", "install"], ["agents", "status"], ["agents", "uninstall"], ["owners", "src/x"],
            ["coverage"], ["intent", "show", "INT-001"], ["context"], ["lesson", "x"], ["approve", "INT-001"],
            ["done", "INT-001"],
            ["block", "INT-001", "--reason", "x"],
            ["stats"], ["export", "-o", "t.sqlite"], ["report"], ["exec"], ["run"]]

BAD_ARGUMENTS = [
    *[[*command, "--no-such-option"] for command in COMMANDS],
    ["select", ""], ["select", "NOPE"], ["select", "INT\n001"], ["select", "INT-004"], ["select", "INT-005"],
    ["select", "INT-001\x1b[31m"],
    ["check", "--range", ""], ["check", "--range", "nope..HEAD"], ["check", "--range", "--output=/tmp/x"],
    ["check", "--intent", "NOPE", "src/auth/x.py"], ["check", "--staged", "src/x"], ["check", "../outside.txt"],
    ["check", "--range", "HEAD~1..HEAD", "src/x"],
    ["show", "HEAD~1..HEAD"], ["show", ""], ["show", "nope"], ["show", "HEAD...HEAD~1"],
    ["show", "--", "--upload-pack=x"],
    ["log", "NOPE"], ["log", "INT\n9"], ["log", "--limit", "-1"], ["log", "--path", "../outside"],
    ["map", "--format", "svg"],
    ["export", "-o", "."], ["export", "--format", "xml", "-o", "t.x"], ["export"],
    ["report", "--range", "nope..HEAD"], ["report", "--range", ""], ["report", "-o", "."],
    ["stats", "nope"], ["stats", "x..y"], ["stats", "--by", "nope"], ["stats", "--", "--output=/tmp/x"], ["stats", ""],
    ["backfill", "--range", ""], ["backfill", "--range", "x..y"], ["backfill", "--all", "--range", "HEAD"],
    ["backfill", "--range", "--", "-x"],
    ["blame-intent", ".git/config"], ["blame-intent", "../outside.txt"], ["blame-intent", "no/such/file"],
    ["blame-intent", "src"], ["blame-intent", "-L", "x", "src/auth/login.py"],
    ["blame-intent", "-L", "0,1", "src/auth/login.py"],
    ["blame-intent", "-L", "2,1", "src/auth/login.py"], ["blame-intent", "-L", "1,99", "src/auth/login.py"],
    ["blame-intent", "--rev", "nope", "src/auth/login.py"],
    ["blame-intent", "--rev", "HEAD~2..HEAD", "src/auth/login.py"],
    ["blame-intent", "--json", "--porcelain", "src/auth/login.py"],
    ["sync", "--", "--upload-pack=touch pwned"], ["sync", "--", "-x"], ["sync", "ext::sh -c touch% pwned"],
    ["sync", "nope"], ["sync", ""], ["sync", "origin\nx"], ["sync", "fd::3"],
    ["classify", "nope"], ["classify", "HEAD~1..HEAD"], ["classify", "--staged", "HEAD"],
    ["agents", "install", "vim"], ["agents", "install", "copilot", "--user"], ["agents", "status", "emacs"],
    ["hook", "vim"], ["hook", "--no-such-option"], ["owners", "../outside.txt"], ["owners"], ["intent", "show", "NOPE"],
    ["coverage", "src/x"],
    ["context", "--intent"], ["lesson", ""], ["lesson", "x", "--intent", "NOPE"], ["approve", "NOPE"],
    ["done", "NOPE"], ["block", "INT-001"], ["block", "NOPE", "--reason", "x"],
    ["carry", "HEAD", "--to", "HEAD"], ["carry", "nope..HEAD", "--to", "HEAD"], ["carry", "-x..HEAD", "--to", "HEAD"],
    ["carry", "HEAD~1..HEAD", "--to", "--upload-pack=x"], ["carry", "HEAD~1..HEAD"],
    ["carry", "HEAD..HEAD", "--to", "HEAD"],
    ["ci", "bitbucket"], ["ci"], ["ci", "github", "--install", "x; touch pwned"],
    ["hooks", "run", "pre-receive"], ["hooks", "run"], ["hooks", "run", "--no-such-option"],
    ["gc", "--max-size", "lots"], ["gc", "--max-size", "-1"], ["gc", "--max-size", ""],
    ["run", "NOPE", "--", "true"], ["run", "INT-001", "INT-002", "--", "true"], ["run", "--"], ["run", "INT-001"],
    ["run", "INT-004", "--", "true"], ["exec", "--session", "x"], ["exec", "--", "true"],
    ["trace"], ["hooks"], ["agents"], ["intent"], ["no-such-command"], ["help", "no-such-command"],
    ["help", "trace", "bogus"],
]


@pytest.mark.parametrize("argv", BAD_ARGUMENTS, ids=[" ".join(a).encode("unicode_escape").decode()[:60] or "empty"
                                                    for a in BAD_ARGUMENTS])
def test_bad_arguments(tmp_path: Path, base: Path, argv: list[str]) -> None:
    if argv in (["trace"], ["hooks"], ["agents"], ["intent"]):
        # a group without its subcommand prints help (exit 0); with a bogus one it must refuse
        argv = [*argv, "bogus"]
    line = assert_refused(tmp_path, base, None, argv)
    assert "\n" not in line and "\x1b" not in line


def test_bad_intent_from_the_environment(tmp_path: Path, base: Path) -> None:
    line = assert_refused(tmp_path, base, None, ["check", "src/auth/x.py"], env={"GITAI_INTENT": "INT\n1"})
    assert "INT\\n1" in line


# --- damaged catalogues x every command that reads the catalogue -----------------------------


def _catalogue(text: str | bytes) -> Damage:
    def damage(repo: Path, outside: Path) -> None:
        path = repo / ".orchestration" / "active_intents.yaml"
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    return damage


def _catalogue_directory(repo: Path, outside: Path) -> None:
    path = repo / ".orchestration" / "active_intents.yaml"
    path.unlink()
    path.mkdir()


def _intent(scope: str) -> str:
    return f"active_intents:\n  - id: INT-001\n    name: x\n    status: IN_PROGRESS\n    owned_scope: {scope}\n"


rng = random.Random(10)
CATALOGUES: dict[str, Damage] = {
    "deep-flow-33": _catalogue("active_intents: " + "[" * 33 + "]" * 33),
    "deep-flow-50000": _catalogue("active_intents: " + "[" * 50000 + "]" * 50000),
    "deep-block-50000": _catalogue("active_intents:\n" + "- " * 50000 + "x\n"),
    "deep-mapping-40": _catalogue("active_intents:\n" + "".join(" " * i + f"k{i}:\n" for i in range(40))),
    "nul-byte": _catalogue("active_intents:\n  - id: INT-001\x00\n"),
    "not-utf8": _catalogue(b"active_intents:\n  - id: INT-\xff\xfe\n"),
    "random-bytes": _catalogue(bytes(rng.randrange(256) for _ in range(300))),
    "directory": _catalogue_directory,
    "too-large": _catalogue("# " + "x" * (5 * 1024 * 1024) + "\nactive_intents: []\n"),
    "a-list": _catalogue("- a\n- b\n"),
    "scope-blank": _catalogue(_intent("['']")),
    "scope-comment": _catalogue(_intent("['#x']")),
    "scope-blank-and-comment": _catalogue(_intent("['  ', '# nothing']")),
    "scope-empty": _catalogue(_intent("[]")),
    "scope-absolute": _catalogue(_intent("['/etc/**']")),
    "scope-climbs": _catalogue(_intent("['../x/**']")),
    "duplicate-ids": _catalogue(_intent("['a/**']") + "  - id: INT-001\n    name: y\n    owned_scope: ['b/**']\n"),
    "tab-indent": _catalogue("active_intents:\n\t- id: INT-001\n"),
    "id-with-newline": _catalogue('active_intents:\n  - id: "INT\\n001"\n    name: x\n    owned_scope: ["a/**"]\n'),
}
READERS = [["intents"], ["select", "INT-001"], ["status"], ["check", "src/auth/x.py"], ["backfill"], ["coverage"]]


@pytest.mark.parametrize("command", READERS, ids=[" ".join(c) for c in READERS])
@pytest.mark.parametrize("kind", list(CATALOGUES))
def test_damaged_catalogue(tmp_path: Path, base: Path, kind: str, command: list[str]) -> None:
    line = assert_refused(tmp_path, base, CATALOGUES[kind], command)
    assert "active_intents.yaml" in line, line


# --- symbolic links a clone may carry x every command that writes through them -----------------


def _link(name: str, directory: bool = False) -> Damage:
    def damage(repo: Path, outside: Path) -> None:
        path = repo / ".orchestration" / name if name != ".orchestration" else repo / name
        target = outside if directory else outside / "target"
        if path.is_dir() and not path.is_symlink():
            shutil.copytree(path, outside, dirs_exist_ok=True)
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
        os.symlink(target, path)
    return damage


LINKS = {
    ".orchestration": (_link(".orchestration", directory=True),
                       [["init"], ["select", "INT-001"], ["clear"], ["map"], ["trace", "rebuild"], ["trace", "recover"],
                        ["backfill"]]),
    "agent_trace.jsonl": (_link("agent_trace.jsonl"), [["trace", "rebuild"], ["trace", "recover"], ["backfill"],
                                                       ["sync", "."], ["init"]]),
    "events.jsonl": (_link("events.jsonl"), [["select", "INT-001"], ["clear"], ["init"]]),
    "intent_map.md": (_link("intent_map.md"), [["map"]]),
    "AGENT.md": (_link("AGENT.md"), [["init"], ["lesson", "x"]]),
}
LINK_CASES = [(kind, command) for kind, (_, commands) in LINKS.items() for command in commands]


@pytest.mark.parametrize(("kind", "command"), LINK_CASES, ids=[f"{k}-{' '.join(c)}" for k, c in LINK_CASES])
def test_symlinks(tmp_path: Path, base: Path, kind: str, command: list[str]) -> None:
    line = assert_refused(tmp_path, base, LINKS[kind][0], command)
    assert "symbolic link" in line, line


# --- files gitai keeps, replaced by something else -----------------------------------------------


def _directory_at(name: str) -> Damage:
    def damage(repo: Path, outside: Path) -> None:
        path = repo / ".orchestration" / name
        if path.exists():
            path.unlink()
        path.mkdir()
        (path / "x").write_text("x\n")
    return damage


SHAPES = [
    ("ledger-dir", _directory_at("agent_trace.jsonl"), ["trace", "verify"]),
    ("ledger-dir", _directory_at("agent_trace.jsonl"), ["trace", "rebuild"]),
    ("ledger-dir", _directory_at("agent_trace.jsonl"), ["trace", "recover"]),
    ("ledger-dir", _directory_at("agent_trace.jsonl"), ["sync", "."]),
    ("events-dir", _directory_at("events.jsonl"), ["select", "INT-001"]),
    ("events-dir", _directory_at("events.jsonl"), ["clear"]),
    ("map-dir", _directory_at("intent_map.md"), ["map"]),
]


@pytest.mark.parametrize(("kind", "damage", "command"), SHAPES, ids=[f"{k}-{' '.join(c)}" for k, _, c in SHAPES])
def test_odd_shapes(tmp_path: Path, base: Path, kind: str, damage: Damage, command: list[str]) -> None:
    assert_refused(tmp_path, base, damage, command)
    leftovers = [p for p in (tmp_path / "repo" / ".orchestration").rglob("*.tmp")]
    assert leftovers == []  # write_atomic removes its temporary file when the write fails


def test_table_covers_every_command_and_is_large_enough() -> None:
    import click

    from gitai.cli import cli, subcommands

    def leaves(group: click.Group, prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
        found: set[tuple[str, ...]] = set()
        for name, command in subcommands(group).items():
            found |= leaves(command, (*prefix, name)) if isinstance(command, click.Group) else {(*prefix, name)}
        return found

    tabled = {tuple(word for word in argv if not word.startswith("-"))[:len(leaf)] for argv in BAD_ARGUMENTS
              for leaf in leaves(cli)}
    assert leaves(cli) <= tabled, leaves(cli) - tabled  # a new command joins the table
    cases = len(BAD_ARGUMENTS) + 1 + len(CATALOGUES) * len(READERS) + len(LINK_CASES) + len(SHAPES)
    assert cases >= 100, cases
