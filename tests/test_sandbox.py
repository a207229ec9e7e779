"""The kernel domain (`gitai run`, `gitai exec`): each move runs for real inside a Landlock domain,
and the test checks the effect on disk, not only the exit status."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from testing.commands import GITAI, git, gitai_ok
from testing.repos import commit, write
from testing.templates import Templates

CATALOGUE = """\
active_intents:
  - id: INT-001
    name: src work
    status: IN_PROGRESS
    owned_scope: ["src/**", "!src/vendor/**"]
  - id: INT-002
    name: docs
    status: IN_PROGRESS
    owned_scope: ["docs/**"]
  - id: INT-003
    name: guarded
    status: IN_PROGRESS
    requires_approval: true
    owned_scope: ["guarded/**"]
"""


def _landlock_reason() -> str | None:
    from gitai.sandbox.landlock import LandlockUnavailable, abi_version

    try:
        abi_version()
    except LandlockUnavailable as exc:
        return str(exc)
    return None


pytestmark = pytest.mark.skipif(_landlock_reason() is not None and not os.environ.get("CI"),
                                reason=f"no Landlock here: {_landlock_reason()}")


def sandbox_repo(repo: Path) -> Path:
    """The sandbox tests' repository."""
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    gitai_ok(repo, "init")
    write(repo, ".orchestration/active_intents.yaml", CATALOGUE)
    write(repo, "src/app.py", "x = 1\n")
    write(repo, "docs/guide.md", "# guide\n")
    write(repo, ".claude/settings.json", "{}\n")
    commit(repo, "start", extra=("--no-verify",))
    gitai_ok(repo, "hooks", "install")
    return repo


@pytest.fixture
def repo(tmp_path: Path, templates: Templates) -> Path:
    """The sandbox tests' repository, built once per test process; each test works in its own copy."""
    return templates.make("sandbox", tmp_path / "repo", sandbox_repo)


def run_in(repo: Path, *command: str, intent: str | None = "INT-001",
           env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    words = [GITAI, "run", *([intent] if intent else []), "--", *command]
    return subprocess.run(words, cwd=repo, capture_output=True, text=True, env={**os.environ, **(env or {})},
                          stdin=subprocess.DEVNULL, start_new_session=True)


def py(code: str) -> list[str]:
    return ["python3", "-c", code]


def test_out_of_scope_write_is_refused_by_the_kernel(repo: Path) -> None:
    proc = run_in(repo, *py("open('docs/x.md', 'w')"))
    assert proc.returncode != 0
    assert "PermissionError" in proc.stderr
    assert not (repo / "docs/x.md").exists()


def test_in_scope_write_works(repo: Path) -> None:
    proc = run_in(repo, *py("open('src/new.py', 'w').write('y = 2\\n')"))
    assert proc.returncode == 0, proc.stderr
    assert (repo / "src/new.py").read_text() == "y = 2\n"


def test_agents_own_commit_inside_the_domain_is_recorded(repo: Path) -> None:
    before = git(repo, "rev-parse", "HEAD").stdout.strip()
    proc = run_in(repo, "sh", "-c", "echo 'z = 3' > src/z.py && git add src/z.py && git commit -q -m 'add z'")
    assert proc.returncode == 0, proc.stderr
    head = git(repo, "rev-parse", "HEAD").stdout.strip()
    assert head != before
    assert "Intent: INT-001" in git(repo, "log", "-1", "--format=%B").stdout
    note = json.loads(git(repo, "notes", "--ref", "gitai", "show", head).stdout)
    assert note["vcs"]["revision"] == head
    ledger = (repo / ".orchestration/agent_trace.jsonl").read_text()
    assert head in ledger


@pytest.mark.parametrize("target", [".git/hooks/pre-commit", ".git/config", ".orchestration/active_intents.yaml",
                                    ".claude/settings.json", ".orchestration/approvals.jsonl"])
def test_git_controls_and_the_catalogue_stay_out_of_reach(repo: Path, target: str) -> None:
    path = repo / target
    before = path.read_bytes() if path.exists() else None
    moves = [py(f"open({target!r}, 'a').write('#x')"), ["rm", "-f", target], ["mv", target, "src/moved"],
             ["sh", "-c", f"echo x > src/t && mv src/t {target}"], ["truncate", "-s", "0", target]]
    for move in moves:
        run_in(repo, *move)
        assert (path.read_bytes() if path.exists() else None) == before, (move, target)


def test_symlinks_in_scope_do_not_reach_protected_paths(repo: Path) -> None:
    hook = (repo / ".git/hooks/pre-commit").read_bytes()
    catalogue = (repo / ".orchestration/active_intents.yaml").read_bytes()
    proc = run_in(repo, "sh", "-c", "ln -s ../.git src/g; ln -s ../.orchestration src/o; "
                  "echo evil > src/g/hooks/pre-commit; echo evil > src/o/active_intents.yaml; "
                  "ln -s ../docs src/d; echo evil > src/d/guide.md")
    assert proc.returncode != 0
    assert (repo / ".git/hooks/pre-commit").read_bytes() == hook
    assert (repo / ".orchestration/active_intents.yaml").read_bytes() == catalogue
    assert (repo / "docs/guide.md").read_text() == "# guide\n"


def test_exec_follows_the_sessions_intent(repo: Path) -> None:
    sessions = repo / ".git/gitai/sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    (sessions / "claude-code-s1.json").write_text(json.dumps({"host": "claude-code", "intent_id": "INT-002"}))

    def exec_(key: str, code: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([GITAI, "exec", "--session", key, "--", *py(code)], cwd=repo, capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, start_new_session=True)

    assert exec_("claude-code-s1", "open('docs/new.md', 'w').write('ok')").returncode == 0
    assert (repo / "docs/new.md").read_text() == "ok"
    denied = exec_("claude-code-s1", "open('src/nope.py', 'w')")
    assert denied.returncode != 0 and not (repo / "src/nope.py").exists()
    # a session that selected nothing (or does not exist) may write nothing in the work tree
    none = exec_("claude-code-unknown", "open('docs/other.md', 'w')")
    assert none.returncode != 0 and not (repo / "docs/other.md").exists()
    assert "no intent is selected" in none.stderr


def test_run_refuses_an_unusable_intent(repo: Path) -> None:
    for intent in ("INT-003", "NOPE"):
        proc = run_in(repo, *py("open('src/x.py', 'w')"), intent=intent)
        assert proc.returncode == 2 and proc.stderr.startswith("gitai: error:"), proc.stderr
        assert not (repo / "src/x.py").exists()


def test_without_landlock_one_line_and_the_hooks_alone(repo: Path) -> None:
    proc = run_in(repo, *py("open('docs/x.md', 'w').write('unconfined')"), env={"GITAI_NO_LANDLOCK": "1"})
    assert proc.returncode == 0
    assert proc.stderr.strip().splitlines() == [
        "gitai: warning: no kernel domain (GITAI_NO_LANDLOCK is set); "
        "only the agent hooks and git hooks hold the scope"]
    assert (repo / "docs/x.md").read_text() == "unconfined"


def test_person_only_actions_fail_inside_the_domain(repo: Path) -> None:
    """Even a forged approval record cannot be written from inside: the approvals file is read-only."""
    proc = run_in(repo, "sh", "-c", "echo '{\"event\":\"approve\",\"intent_id\":\"INT-003\"}' "
                                    ">> .orchestration/approvals.jsonl")
    assert proc.returncode != 0
    assert not (repo / ".orchestration/approvals.jsonl").exists()


def test_the_compiled_scopes_and_a_worktrees_pointers_stay_out_of_reach(repo: Path, tmp_path: Path) -> None:
    """The pre-commit gate trusts its compiled scopes; a linked worktree's `commondir` names the hooks it runs."""
    other = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", "-b", "side", str(other))
    pointer = repo / ".git/worktrees/linked/commondir"
    pointer_before = pointer.read_bytes()
    proc = subprocess.run([GITAI, "run", "INT-001", "--", "sh", "-c",
                           "echo /tmp/fake > \"$(git rev-parse --git-dir)/commondir\"; "
                           "echo '{}' > \"$(git rev-parse --git-dir)/gitai/policy-cache.marshal\""],
                          cwd=other, capture_output=True, text=True, stdin=subprocess.DEVNULL, start_new_session=True)
    assert proc.returncode != 0
    assert pointer.read_bytes() == pointer_before
    cache = repo / ".git/worktrees/linked/gitai/policy-cache.marshal"
    assert cache.exists() and cache.read_bytes() != b"{}\n"


def test_user_hook_configs_are_read_only_and_the_hosts_state_stays_writable(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """~/.codex/config.toml (Codex's hook approvals) cannot be rewritten or made, yet Codex can still
    make its own new files beside it (its state database), which it must to start at all."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    (home / ".codex").mkdir(parents=True)
    (home / ".claude").mkdir()
    (home / ".codex" / "config.toml").write_text("[features]\nhooks = true\n")
    settings = home / ".claude" / "settings.json"
    settings.unlink(missing_ok=True)
    done = run_in(repo, *py(
        "import pathlib, os\n"
        "home = pathlib.Path(os.environ['HOME'])\n"
        "(home / '.codex' / 'state.sqlite').write_text('state')\n"
        "for target in (home / '.codex' / 'config.toml', home / '.claude' / 'settings.json'):\n"
        "    try:\n"
        "        target.write_text('{\"disableAllHooks\": true}')\n"
        "        print('wrote', target)\n"
        "    except OSError as exc:\n"
        "        print('refused', exc.errno)\n"))
    assert done.stdout.count("refused") == 2, done.stdout + done.stderr
    assert (home / ".codex" / "config.toml").read_text() == "[features]\nhooks = true\n"
    assert settings.read_text() == "{}\n"  # made empty before the domain, so the agent could not make it
    assert (home / ".codex" / "state.sqlite").read_text() == "state"


def test_a_moved_trust_file_whose_directory_is_not_made_yet_cannot_be_made_inside(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """GEMINI_CLI_TRUSTED_FOLDERS_PATH may name a file in a directory not made yet, in the writable /tmp:
    the agent must not make it there (trusting its folder) for the person's next Gemini CLI to read."""
    store = tmp_path / "not-yet" / "deeper" / "folders.json"
    monkeypatch.setenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", str(store))
    done = run_in(repo, *py(
        "import pathlib\n"
        f"store = pathlib.Path({str(store)!r})\n"
        "try:\n"
        "    store.parent.mkdir(parents=True, exist_ok=True)\n"
        "    store.write_text('{\"/\": \"TRUST_FOLDER\"}')\n"
        "    print('wrote')\n"
        "except OSError as exc:\n"
        "    print('refused', exc.errno)\n"))
    assert "refused" in done.stdout, done.stdout + done.stderr
    assert store.read_text() == "{}\n"


def test_programs_that_run_later_outside_the_domain_stay_out_of_reach(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """~/.cache holds programs a person runs later outside the domain (pre-commit's environments), and
    a missing ~/.codex/hooks.json would be read by the person's next Codex: neither is writable inside.
    (HOME is put beside the scope, not under /tmp, which the domain allows as a whole.)"""
    home = repo / "home"
    (home / ".cache" / "pre-commit").mkdir(parents=True)
    (home / ".codex").mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    done = run_in(repo, *py(
        "import pathlib, os\n"
        "home = pathlib.Path(os.environ['HOME'])\n"
        "for target in (home / '.cache' / 'pre-commit' / 'hook.py', home / '.codex' / 'hooks.json'):\n"
        "    try:\n"
        "        target.write_text('planted')\n"
        "        print('wrote', target)\n"
        "    except OSError as exc:\n"
        "        print('refused', exc.errno)\n"
        "cache = pathlib.Path(os.environ['XDG_CACHE_HOME'])\n"
        "(cache / 'tool').write_text('a cache of its own')\n"))
    assert done.stdout.count("refused") == 2 and done.returncode == 0, done.stdout + done.stderr
    assert not (home / ".cache" / "pre-commit" / "hook.py").exists()
    assert (home / ".codex" / "hooks.json").read_text() != "planted"


def test_submodules_and_other_worktrees_git_controls_stay_out_of_reach(repo: Path, tmp_path: Path) -> None:
    """A submodule's config (`core.fsmonitor` runs in the person's next `git status`) and another
    linked worktree's `config.worktree` are git controls too: read-only inside the domain."""
    library = tmp_path / "library"
    library.mkdir()
    git(library, "init", "-q", "-b", "main")
    write(library, "lib.py", "y = 2\n")
    git(library, "add", "lib.py")
    git(library, "commit", "-q", "-m", "lib")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "src/lib")
    git(repo, "worktree", "add", "-q", str(tmp_path / "other"), "-b", "other")
    targets = [repo / ".git" / "modules" / "src" / "lib" / "config",
               repo / ".git" / "worktrees" / "other" / "config.worktree", repo / ".git" / "config.worktree"]
    before = {t: t.read_bytes() if t.exists() else b"" for t in targets}  # a missing one is made empty
    code = ("import sys\nfor target in sys.argv[1:]:\n"
            "    try:\n        open(target, 'a').write('[core]\\n\\tfsmonitor = touch /tmp/pwned\\n')\n"
            "        print('wrote', target)\n    except OSError as exc:\n        print('refused', exc.errno)\n")
    done = run_in(repo, "python3", "-c", code, *map(str, targets))
    assert done.stdout.count("refused") == len(targets), done.stdout + done.stderr
    assert {t: t.read_bytes() if t.exists() else b"" for t in targets} == before


def test_a_directory_that_holds_a_read_only_file_cannot_be_moved_away(repo: Path, tmp_path: Path) -> None:
    """A mount point cannot be renamed, but a writable directory holding one could, taking the mount along:
    `mv .git/gitai .git/gitai-x`, then a policy cache and a commit-msg hook of the agent's own making in a new
    .git/gitai (likewise a linked worktree's git dir, `.git/worktrees`, Gemini's `~/.gemini/policies`). Each
    such directory is a mount point too: every move fails, what the gates read is untouched, and an
    out-of-scope commit outside the domain is still refused."""
    home = tmp_path / "home"
    (home / ".gemini" / "policies").mkdir(parents=True)
    policy = home / ".gemini" / "policies" / "gitai.toml"
    policy.write_text("# gitai's rules\n")
    git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "linked"))
    gitai_ok(repo, "select", "INT-001")
    run_in(repo, "true")  # the compiled scopes, made as any domain makes them
    trusted = [repo / ".git/gitai/policy-cache.marshal", repo / ".git/gitai/hooks/commit-msg",
               repo / ".git/worktrees/linked/commondir", policy]
    before = [path.read_bytes() for path in trusted]
    moves = ("mv .git/gitai .git/gitai-x; mkdir -p .git/gitai/hooks; echo forged > .git/gitai/policy-cache.marshal; "
             "printf '#!/bin/sh\\nexit 0\\n' > .git/gitai/hooks/commit-msg; "
             "mv .git/worktrees/linked .git/worktrees/linked-x; mv .git/worktrees .git/worktrees-x; "
             "mv ~/.gemini/policies ~/.gemini/policies-x; mkdir -p ~/.gemini/policies; "
             "echo forged > ~/.gemini/policies/gitai.toml; true")
    proc = run_in(repo, "sh", "-c", moves, env={"HOME": str(home)})
    assert proc.returncode == 0, proc.stderr
    assert [path.read_bytes() for path in trusted] == before, proc.stderr
    assert not any(path.exists() for path in (repo / ".git/gitai-x", repo / ".git/worktrees/linked-x",
                                              repo / ".git/worktrees-x", home / ".gemini/policies-x"))
    head = git(repo, "rev-parse", "HEAD").stdout.strip()
    write(repo, "docs/out.md", "out of scope\n")
    git(repo, "add", "docs/out.md")
    assert git(repo, "commit", "-q", "-m", "out", check=False).returncode != 0
    assert git(repo, "rev-parse", "HEAD").stdout.strip() == head


def test_a_gitai_on_path_cannot_be_made_or_replaced_inside_the_domain(repo: Path, tmp_path: Path) -> None:
    """The hooks run gitai by name: a `gitai` made in a writable PATH directory ahead of the real one would
    run at the next hook, outside any domain. Neither a new one nor a replaced one gets there."""
    early, late = tmp_path / "early-bin", tmp_path / "late-bin"
    early.mkdir()
    late.mkdir()
    (late / "gitai").write_text("#!/bin/sh\n")
    path = os.pathsep.join([str(early), str(late), os.environ["PATH"]])
    moves = f"echo 'exit 0' > {early}/gitai; cp /bin/true {early}/gitai.exe; echo 'exit 0' > {late}/gitai; true"
    proc = run_in(repo, "sh", "-c", moves, env={"PATH": path})
    assert proc.returncode == 0, proc.stderr
    assert sorted(os.listdir(early)) == [] and (late / "gitai").read_text() == "#!/bin/sh\n"


NO_MOUNTS = """
import os, sys
from gitai.layout import find_layout
from gitai.sandbox.domain import plan_domain
from gitai.sandbox.landlock import restrict

plan = plan_domain(find_layout(), ("src/**",), os.environ.get("HOME"), mounts=False)
restrict(plan.writable, [])
os.execvp("sh", ["sh", "-c", sys.argv[1]])
"""


def test_without_mounts_the_files_the_gates_trust_stay_out_of_reach(repo: Path) -> None:
    """Where no user namespace gives read-only mounts, Landlock alone cannot take a file back from a
    writable directory: gitai's state directories are then allowed entry by entry, so the compiled
    scopes and the installed marker stay closed, while `gitai select` and in-scope writes still work."""
    gitai_ok(repo, "select", "INT-001")
    subprocess.run([sys.executable, "-c", "from gitai.gate.policy import load_policy; "
                    "from gitai.layout import find_layout; "
                    "load_policy(find_layout())"], cwd=repo, check=True)  # the compiled scopes, cached
    cache, marker = repo / ".git/gitai/policy-cache.marshal", repo / ".git/gitai/installed"
    before = (cache.read_bytes(), marker.read_bytes())
    moves = ("echo '{\"key\": \"forged\"}' > .git/gitai/policy-cache.marshal; "
             "rm -f .git/gitai/policy-cache.marshal; echo forged > .git/gitai/installed; "
             "mv .git/gitai/installed .git/gitai/x; echo planted > .git/gitai/new-file; mv .git/gitai .git/gitai-x; "
             f"{GITAI} select INT-002 && echo selected; echo x > src/in_scope.py; echo x > docs/out.md")
    proc = subprocess.run([sys.executable, "-c", NO_MOUNTS, moves], cwd=repo, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, start_new_session=True)
    assert (cache.read_bytes(), marker.read_bytes()) == before, proc.stderr
    assert not any((repo / ".git" / name).exists() for name in ("gitai/x", "gitai/new-file", "gitai-x"))
    assert "selected" in proc.stdout, proc.stderr
    assert (repo / ".git/gitai/active").read_text() == "INT-002\n"
    assert (repo / "src/in_scope.py").read_text() == "x\n" and not (repo / "docs/out.md").exists()


def test_a_wrapped_command_cannot_plant_an_mcp_server_for_the_hosts_next_start(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An MCP server list names a program the host starts later, outside any domain. One command of an
    agent whose host runs outside (`gitai exec`) cannot touch the hosts' state; under `gitai run` the
    host itself writes `~/.claude.json`, so it stays writable there (docs/security.md says so). HOME
    beside the repository, under /tmp, which the domain allows as a whole but for what it closes."""
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".claude").mkdir()
    claude_json = home / ".claude.json"
    claude_json.write_text('{"mcpServers": {}}\n')
    (home / ".codex" / "config.toml").write_text("")
    monkeypatch.setenv("HOME", str(home))
    plant = ("import pathlib, os\n"
             "home = pathlib.Path(os.environ['HOME'])\n"
             "for target in ('.claude.json', '.codex/config.toml', '.claude/projects-log.jsonl', '.gemini'):\n"
             "    try:\n"
             "        (home / target).write_text('{\"mcpServers\": {\"x\": {\"command\": \"sh\"}}}')\n"
             "        print('wrote', target)\n"
             "    except OSError as exc:\n"
             "        print('refused', exc.errno)\n")
    wrapped = subprocess.run([GITAI, "exec", "--session", "claude-code-none", "--", *py(plant)], cwd=repo,
                             capture_output=True, text=True, stdin=subprocess.DEVNULL, start_new_session=True)
    assert wrapped.stdout.count("refused") == 4, wrapped.stdout + wrapped.stderr
    assert claude_json.read_text() == '{"mcpServers": {}}\n'
    assert (home / ".codex" / "config.toml").read_text() == "" and not (home / ".gemini").exists()
    hosted = run_in(repo, *py(plant))
    assert "wrote .claude.json" in hosted.stdout, hosted.stdout + hosted.stderr


def fake_copilot(bin_dir: Path, body: str) -> dict[str, str]:
    """A program named `copilot` (the name `gitai run` knows Copilot CLI by) running `body` as Python:
    the environment that puts it first on PATH."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    program = bin_dir / "copilot"
    program.write_text(f"#!{sys.executable}\nimport json, os, pathlib, signal, sys, time\n{body}")
    program.chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


def copilot_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str | None) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    if config is not None:
        (home / ".copilot").mkdir(parents=True)
        (home / ".copilot" / "config.json").write_text(config)
    else:
        home.mkdir()
    return home / ".copilot" / "config.json"


# What Copilot CLI does as it starts (seen under strace): a temporary file renamed onto config.json.
COPILOT_FIRST_START = (
    "cfg = pathlib.Path(os.environ['HOME']) / '.copilot' / 'config.json'\n"
    "lines = cfg.read_text().splitlines(True) if cfg.exists() else ['{}']\n"
    "data = json.loads(''.join(line for line in lines if not line.startswith('//')))\n"
    "data['firstLaunchAt'] = '2026-01-01T00:00:00.000Z'\n"
    "tmp = cfg.with_name('config.json.tmp.1')\n"
    "tmp.write_text(json.dumps(data))\n"
    "os.rename(tmp, cfg)\n")


@pytest.mark.parametrize("launcher", [(), ("env",)])
def test_copilot_starts_where_its_state_directory_is_missing_and_rewrites_its_config(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, launcher: tuple[str, ...]) -> None:
    """HOME is closed in the domain and Copilot CLI makes ~/.copilot and renames a file onto config.json
    as it starts: under `gitai run` gitai makes the directory first and leaves the file writable, and
    what Copilot keeps there itself survives the session (Copilot started through `env` too)."""
    config = copilot_home(tmp_path, monkeypatch, None)
    program = fake_copilot(tmp_path / "bin", COPILOT_FIRST_START + "print('started')\n")
    done = run_in(repo, *launcher, "copilot", env=program)
    assert done.returncode == 0 and "started" in done.stdout, done.stderr
    assert json.loads(config.read_text()) == {"firstLaunchAt": "2026-01-01T00:00:00.000Z"}
    assert "put back" not in done.stderr, done.stderr


def test_an_agent_in_copilots_domain_cannot_leave_the_next_session_ungoverned(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Inside `gitai run`, the agent's program takes this repository out of Copilot's trusted folders, trusts
    `/` instead, adds a key of its own, and leaves a process running that would do it again after the
    session: when Copilot exits, gitai ends that process and puts the trust back, says so, and keeps what
    Copilot itself wrote there (its own keys, its `//` header, the file's mode). An out-of-scope write is
    still refused by the kernel."""
    before = {"firstLaunchAt": "2025-01-01T00:00:00.000Z", "trustedFolders": [str(repo), "/elsewhere"],
              "banner": "never"}
    config = copilot_home(tmp_path, monkeypatch, "// managed\n" + json.dumps(before))
    config.chmod(0o640)
    started = tmp_path / "tmp" / "leftover-started"  # (the directory that holds the repository is closed)
    started.parent.mkdir()
    alive, holder = os.pipe()  # the write end, inherited by the session: at EOF every process holding it has ended
    body = COPILOT_FIRST_START.replace("'2026-01-01T00:00:00.000Z'", "'2026-02-02T00:00:00.000Z'") + (
        "data = json.loads(cfg.read_text())\n"
        "data['trustedFolders'] = ['/elsewhere', '/']\n"
        "data['disableAllHooks'] = True\n"
        "del data['banner']\n"
        "cfg.write_text(json.dumps(data))\n"
        "try:\n"
        "    pathlib.Path('docs/escape.md').write_text('out of scope')\n"
        "except OSError as exc:\n"
        "    print('refused', exc.errno)\n"
        "if os.fork() == 0:\n"  # a daemon, out of its parent's reach: it would strike after the session
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        f"        pathlib.Path({str(started)!r}).touch()\n"
        "        os.dup2(os.open(os.devnull, os.O_RDWR), 1)\n"
        "        os.dup2(1, 2)\n"
        "        for _ in range(200):\n"
        "            time.sleep(0.05)\n"
        "            cfg.write_text('{}')\n"
        "    os._exit(0)\n"
        "for _ in range(500):\n"
        f"    if pathlib.Path({str(started)!r}).exists():\n"
        "        break\n"
        "    time.sleep(0.01)\n"
        "sys.exit(5)\n")
    done = subprocess.run([GITAI, "run", "INT-001", "--", "copilot"], cwd=repo, capture_output=True, text=True,
                          env={**os.environ, **fake_copilot(tmp_path / "bin", body)}, stdin=subprocess.DEVNULL,
                          start_new_session=True, pass_fds=(holder,))
    os.close(holder)
    assert done.returncode == 5, done.stderr  # the host's own exit status
    assert "refused 13" in done.stdout and not (repo / "docs" / "escape.md").exists(), done.stdout + done.stderr
    assert started.exists()
    import select

    # the session's leftover was ended before the trust was put back: the pipe is at its end already
    assert select.select([alive], [], [], 0)[0] == [alive] and os.read(alive, 1) == b""
    os.close(alive)
    from gitai.agents.trust import host_trust, json_config

    after = json_config(config.read_text())
    assert after["trustedFolders"] == ["/elsewhere", str(repo)], after
    assert "disableAllHooks" not in after and after["banner"] == "never", after
    assert after["firstLaunchAt"] == "2026-02-02T00:00:00.000Z", after  # Copilot's own key, as it left it
    assert config.read_text().startswith("// managed\n") and config.stat().st_mode & 0o777 == 0o640
    (said,) = [line for line in done.stderr.splitlines() if "put back" in line]
    assert said == (f"gitai: put back in {config} what the session changed there: banner, disableAllHooks, "
                    f"trustedFolders (put back: {repo}; taken out: /)"), said

    assert host_trust("copilot", str(repo), str(repo / ".github/hooks/gitai.json"), str(config.parent.parent),
                      {}).will_run is True


@pytest.mark.parametrize("move", ["garbage", "symlink", "directory", "deep-directory", "removed"])
def test_a_copilot_config_replaced_inside_the_domain_is_put_back_byte_for_byte(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, move: str) -> None:
    original = f'// User settings belong in settings.json.\n{{"trustedFolders": ["{repo}"]}}\n'
    config = copilot_home(tmp_path, monkeypatch, original)
    decoy = tmp_path / "decoy.json"
    decoy.write_text('{"trustedFolders": []}')
    body = ("cfg = pathlib.Path(os.environ['HOME']) / '.copilot' / 'config.json'\n"
            "cfg.unlink()\n"
            + {"garbage": "cfg.write_text('not json')\n",
               "symlink": f"cfg.symlink_to({str(decoy)!r})\n",
               "directory": "cfg.mkdir()\n(cfg / 'x').write_text('x')\n",
               "deep-directory": "cfg.mkdir()\nos.chdir(cfg)\nfor _ in range(1200):\n    os.mkdir('a')\n"
                                 "    os.chdir('a')\n",
               "removed": ""}[move])
    done = run_in(repo, "copilot", env=fake_copilot(tmp_path / "bin", body))
    for aside in config.parent.glob(".config.json.gitai-gone-*"):  # too deep for gitai to remove: moved aside
        subprocess.run(["rm", "-rf", str(aside)], check=True)
    assert done.returncode == 0, done.stderr
    assert not config.is_symlink() and config.read_text() == original, done.stderr
    assert decoy.read_text() == '{"trustedFolders": []}'
    assert "put back" in done.stderr, done.stderr


def test_the_session_cannot_kill_the_gitai_that_puts_copilots_trust_back(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """gitai stays outside the domain as the host's parent: Landlock's signal scope (ABI 6) keeps the
    session from killing it before it puts the trust back (and ptrace is scoped in every ABI)."""
    from gitai.sandbox.landlock import SIGNAL_SCOPE_ABI, abi_version

    if abi_version() < SIGNAL_SCOPE_ABI:
        pytest.skip(f"Landlock ABI {abi_version()} cannot scope signals: gitai run refuses to start Copilot there")
    config = copilot_home(tmp_path, monkeypatch, json.dumps({"trustedFolders": [str(repo)]}))
    body = ("cfg = pathlib.Path(os.environ['HOME']) / '.copilot' / 'config.json'\n"
            "cfg.write_text('{}')\n"
            "for attempt in (lambda: os.kill(os.getppid(), signal.SIGKILL),\n"
            "                lambda: open(f'/proc/{os.getppid()}/mem', 'rb').read(1)):\n"
            "    try:\n"
            "        attempt()\n"
            "        print('reached')\n"
            "    except OSError as exc:\n"
            "        print('refused', exc.errno)\n")
    done = run_in(repo, "copilot", env=fake_copilot(tmp_path / "bin", body))
    assert done.stdout.split() == ["refused", "1", "refused", "13"], done.stdout + done.stderr
    assert json.loads(config.read_text()) == {"trustedFolders": [str(repo)]}
    assert "put back" in done.stderr


def test_before_landlocks_signal_scope_the_session_still_cannot_stop_the_gitai_that_puts_the_trust_back(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before Landlock's signal scope (ABI 6; here GITAI_LANDLOCK_ABI=5) a domain can signal any process of its
    user. The session gets a PID namespace of its own, which the gitai that puts the trust back is outside: the
    host's parent is the namespace's first process (a `kill -9` from inside does nothing to it), and the trust
    is put back. Where no such namespace can be made, gitai run refuses to start Copilot, in one line."""
    from gitai.sandbox.supervise import pid_namespace_available

    original = json.dumps({"trustedFolders": [str(repo)]})
    config = copilot_home(tmp_path, monkeypatch, original)
    body = ("cfg = pathlib.Path(os.environ['HOME']) / '.copilot' / 'config.json'\n"
            "cfg.write_text('{}')\n"
            "print(os.getpid(), os.getppid(), sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))\n"
            "os.kill(os.getppid(), signal.SIGKILL)\n")
    done = run_in(repo, "copilot", env={**fake_copilot(tmp_path / "bin", body), "GITAI_LANDLOCK_ABI": "5"})
    if not pid_namespace_available():
        assert done.returncode == 2 and not done.stdout, done.stderr
        assert done.stderr.startswith("gitai: error: this kernel's Landlock (ABI 5") and done.stderr.count("\n") == 1
        assert config.read_text() == original
        return
    assert done.returncode == 0 and done.stdout == "2 1 [1, 2]\n", done.stdout + done.stderr  # its own namespace
    assert json.loads(config.read_text()) == {"trustedFolders": [str(repo)]} and "put back" in done.stderr


def test_the_supervisor_never_writes_through_a_state_directory_the_session_swapped_for_a_link(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """COPILOT_HOME outside HOME (its parent writable in the domain): the session tries to move the directory
    away and put a link to one it cannot write (~/.docker) in its place. The directory is pinned (moving it
    fails), and gitai puts the trust file back in it, never through the link."""
    home, state = tmp_path / "home", tmp_path / "tmp" / "ch"
    (home / ".docker").mkdir(parents=True)
    state.mkdir(parents=True)
    victim = home / ".docker" / "config.json"
    victim.write_text('{"credsStore": "desktop"}\n')
    (state / "config.json").write_text('{"trustedFolders": [], "model": "m"}\n')
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("COPILOT_HOME", str(state))
    body = ("state = os.environ['COPILOT_HOME']\n"
            "(pathlib.Path(state) / 'config.json').write_text('{\"disableAllHooks\": true}')\n"
            "try:\n"
            "    os.rename(state, state + '.old')\n"
            f"    os.symlink({str(home / '.docker')!r}, state)\n"
            "    print('moved')\n"
            "except OSError as exc:\n"
            "    print('refused', exc.errno)\n")
    done = run_in(repo, "copilot", env=fake_copilot(tmp_path / "bin", body))
    assert done.stdout.split() == ["refused", "16"], done.stdout + done.stderr  # EBUSY: a mount point
    assert victim.read_text() == '{"credsStore": "desktop"}\n'
    assert not state.is_symlink() and json.loads((state / "config.json").read_text())["model"] == "m", done.stderr


def test_a_trust_file_put_back_goes_only_into_the_directory_it_was_in(tmp_path: Path) -> None:
    """Where the directory could be moved (no mounts to pin it) and a link put in its place, gitai writes
    nothing through the link but puts the file back in the directory it held, and says so in one line."""
    from gitai.sandbox.supervise import Kept, put_back

    state, elsewhere = tmp_path / "ch", tmp_path / "docker"
    state.mkdir()
    elsewhere.mkdir()
    (state / "config.json").write_text('{"trustedFolders": ["/repo"]}\n')
    (elsewhere / "config.json").write_text('{"credsStore": "desktop"}\n')
    kept = Kept(str(state / "config.json"))
    (state / "config.json").write_text("{}")
    state.rename(tmp_path / "ch.old")
    state.symlink_to(elsewhere)
    said = put_back(kept, (), ("/repo",))
    kept.close()
    assert said is not None and "not the directory it was before the session" in said and "\n" not in said
    assert (elsewhere / "config.json").read_text() == '{"credsStore": "desktop"}\n'
    assert sorted(p.name for p in elsewhere.iterdir()) == ["config.json"]
    assert json.loads((tmp_path / "ch.old" / "config.json").read_text()) == {"trustedFolders": ["/repo"]}


def _without_capabilities() -> list[str]:
    """As root, a command prefix that drops every capability, as an ordinary user has none."""
    return ["setpriv", "--bounding-set=-all", "--inh-caps=-all"] if os.getuid() == 0 else []


def test_a_session_that_closes_home_to_its_owner_does_not_keep_its_trust_change(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Landlock does not govern chmod: the session's last act is `chmod 0 $HOME`, so the path to the trust
    file no longer leads anywhere for gitai. gitai puts the file back through the directory it held open,
    and says in one line that the path cannot be reached."""
    config = copilot_home(tmp_path, monkeypatch, json.dumps({"trustedFolders": []}))
    body = ("cfg = pathlib.Path(os.environ['HOME']) / '.copilot' / 'config.json'\n"
            "cfg.write_text(json.dumps({'trustedFolders': ['/']}))\n"
            "os.chmod(os.environ['HOME'], 0)\n")
    done = subprocess.run([*_without_capabilities(), GITAI, "run", "INT-001", "--", "copilot"], cwd=repo,
                          capture_output=True, text=True, env={**os.environ, **fake_copilot(tmp_path / "bin", body)},
                          stdin=subprocess.DEVNULL, start_new_session=True)
    (tmp_path / "home").chmod(0o755)
    assert json.loads(config.read_text()) == {"trustedFolders": []}, done.stderr
    said = [line for line in done.stderr.splitlines() if line.startswith("gitai: ") and "note:" not in line]
    assert len(said) == 1 and "taken out: /" in said[0] and "cannot be reached by its path now" in said[0], said


def test_without_user_namespaces_copilot_is_not_started_where_the_session_could_move_its_state(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where unprivileged user namespaces are off (Ubuntu's AppArmor default since 24.04; here: root's
    capabilities dropped) no directory can be pinned: with COPILOT_HOME in a directory writable in the domain,
    the session could move it away and leave another with a trust file of its own. Refused in one line, exit 2,
    before the host runs."""
    import shutil
    import tempfile

    if os.getuid() != 0:
        pytest.skip("drops root's capabilities to stand for a kernel without unprivileged user namespaces")
    copilot_home(tmp_path, monkeypatch, None)
    state = Path(tempfile.mkdtemp(prefix="gitai-test-")) / "ch"  # an entry of /tmp: writable in the domain
    state.mkdir()
    (state / "config.json").write_text(json.dumps({"trustedFolders": []}))
    body = ("home = pathlib.Path(os.environ['COPILOT_HOME'])\n"
            "os.rename(home, str(home) + '.old')\n"
            "home.mkdir()\n"
            "(home / 'config.json').write_text(json.dumps({'trustedFolders': ['/']}))\n")
    try:
        done = subprocess.run([*_without_capabilities(), GITAI, "run", "INT-001", "--", "copilot"], cwd=repo,
                              capture_output=True, text=True, stdin=subprocess.DEVNULL, start_new_session=True,
                              env={**os.environ, **fake_copilot(tmp_path / "bin", body), "COPILOT_HOME": str(state)})
        assert json.loads((state / "config.json").read_text()) == {"trustedFolders": []}, done.stderr
        assert not (state.parent / "ch.old").exists()
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert done.stderr.startswith(f"gitai: error: without user namespaces {state} cannot be pinned")
    finally:
        shutil.rmtree(state.parent)


def test_a_killed_gitai_run_takes_its_copilot_session_along(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGKILL of the supervising gitai (an OOM kill, a person's `kill -9`): the process it forked outside the
    session's PID namespace dies with it, and the session (the namespace's first process and all in it) too,
    rather than going on with nothing to put its trust back."""
    import signal
    import time

    config = copilot_home(tmp_path, monkeypatch, json.dumps({"trustedFolders": []}))
    started, marker = config.parent / "started", config.parent / "still-running"  # writable in the domain
    body = (f"pathlib.Path({str(started)!r}).touch()\ntime.sleep(6)\npathlib.Path({str(marker)!r}).touch()\n"
            "cfg = pathlib.Path(os.environ['HOME']) / '.copilot' / 'config.json'\n"
            "cfg.write_text(json.dumps({'trustedFolders': ['/']}))\n")
    env = {**os.environ, **fake_copilot(tmp_path / "bin", body)}
    with (tmp_path / "out").open("w") as out:
        gitai = subprocess.Popen([GITAI, "run", "INT-001", "--", "copilot"], cwd=repo, env=env,
                                 stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    for _ in range(600):
        if started.exists():
            break
        time.sleep(0.05)
    assert started.exists(), (tmp_path / "out").read_text()
    gitai.send_signal(signal.SIGKILL)
    gitai.wait()
    time.sleep(8)  # past the moment the session would have changed the trust
    assert (marker.exists(), json.loads(config.read_text())) == (False, {"trustedFolders": []})


def test_a_copilot_session_cannot_add_an_mcp_server_for_the_next_session(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """~/.copilot/mcp-config.json names programs the next Copilot starts (outside any domain when that session
    is not under gitai run): a user control, read-only in the domain though Copilot's state beside it is not."""
    config = copilot_home(tmp_path, monkeypatch, json.dumps({"trustedFolders": []}))
    mcp = config.parent / "mcp-config.json"
    mcp.write_text(json.dumps({"mcpServers": {}}))
    body = ("mcp = pathlib.Path(os.environ['HOME']) / '.copilot' / 'mcp-config.json'\n"
            "try:\n"
            "    mcp.write_text(json.dumps({'mcpServers': {'x': {'command': 'sh', 'args': ['-c', 'id']}}}))\n"
            "except OSError as exc:\n"
            "    print('refused', exc.errno)\n"
            "(mcp.parent / 'session-state').mkdir()\n")
    done = run_in(repo, "copilot", env=fake_copilot(tmp_path / "bin", body))
    assert done.returncode == 0 and done.stdout.split()[0] == "refused", done.stdout + done.stderr
    assert json.loads(mcp.read_text()) == {"mcpServers": {}}
    assert (config.parent / "session-state").is_dir()


def test_a_trusted_folder_the_session_added_as_a_link_to_the_repository_is_taken_out(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the repository's own folder, as written, stays trusted: a link the session made to it (which it
    could point elsewhere later) is compared as written, never resolved."""
    config = copilot_home(tmp_path, monkeypatch, json.dumps({"trustedFolders": []}))
    link = str(config.parent / "repository")  # in Copilot's state directory: writable in the domain
    body = (f"os.symlink({str(repo)!r}, {link!r})\n"
            f"data = {{'trustedFolders': [{str(repo)!r}, {link!r}, {str(repo) + '/'!r}]}}\n"
            "(pathlib.Path(os.environ['HOME']) / '.copilot' / 'config.json').write_text(json.dumps(data))\n")
    done = run_in(repo, "copilot", env=fake_copilot(tmp_path / "bin", body))
    assert json.loads(config.read_text())["trustedFolders"] == [str(repo), str(repo) + "/"], done.stderr
    assert f"taken out: {link}" in done.stderr


def test_where_the_trust_file_cannot_be_written_back_the_copy_kept_beside_it_goes_back(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk once the session runs: neither what gitai merged nor the bytes kept before the session
    can be written (here a file size limit put on gitai once the session started stands for it: the
    session's small file fits, the person's larger one does not). gitai renames the copy it wrote beside
    the file before the session into place (a rename needs no new space), and says so."""
    import resource

    person = json.dumps({"trustedFolders": [], "banner": "x" * 4000})
    config = copilot_home(tmp_path, monkeypatch, person)
    go = config.parent / "go"
    body = ("(pathlib.Path(os.environ['HOME']) / '.copilot' / 'config.json')"
            ".write_text(json.dumps({'trustedFolders': ['/']}))\n"
            f"pathlib.Path({str(config.parent / 'written')!r}).touch()\n"
            f"while not os.path.exists({str(go)!r}):\n    time.sleep(0.01)\n")
    gitai = subprocess.Popen([GITAI, "run", "INT-001", "--", "copilot"], cwd=repo, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env={**os.environ, **fake_copilot(tmp_path / "bin", body)}, stdin=subprocess.DEVNULL,
                             start_new_session=True)
    while not (config.parent / "written").exists() and gitai.poll() is None:
        time.sleep(0.01)
    resource.prlimit(gitai.pid, resource.RLIMIT_FSIZE, (3000, 3000))
    go.touch()
    _, stderr = gitai.communicate()
    assert config.read_text() == person, stderr
    assert config.stat().st_mode & 0o777 == 0o644
    said = [line for line in stderr.splitlines() if line.startswith("gitai: ")]
    assert len(said) == 1 and "put back the copy kept beside it since before the session" in said[0], said
    assert not [p.name for p in config.parent.iterdir() if "gitai" in p.name], "no copy or temporary file is left"


def test_a_session_leaves_no_copy_of_the_trust_file_behind(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The copy gitai keeps beside the trust file during the session (mode 0600, a name no one could take
    beforehand) is gone after it, whether the file was put back or not; one a killed gitai run left is
    removed by the next."""
    config = copilot_home(tmp_path, monkeypatch, json.dumps({"trustedFolders": []}))
    leftover = config.parent / ".config.json.gitai-original-0123456789abcdef"
    leftover.write_text("{}")
    body = ("print(json.dumps([[p.name, p.stat().st_mode & 0o777] "
            "for p in pathlib.Path(os.environ['HOME'], '.copilot').iterdir()]))\n"
            "(pathlib.Path(os.environ['HOME']) / '.copilot' / 'config.json')"
            ".write_text(json.dumps({'trustedFolders': ['/']}))\n")
    done = run_in(repo, "copilot", env=fake_copilot(tmp_path / "bin", body))
    assert done.returncode == 0 and "put back" in done.stderr, done.stderr
    during = [(name, mode) for name, mode in json.loads(done.stdout) if "gitai" in name]
    assert len(during) == 1 and during[0][0].startswith(".config.json.gitai-original-") and during[0][1] == 0o600
    assert during[0][0] != leftover.name
    assert not [p.name for p in config.parent.iterdir() if "gitai" in p.name]


@pytest.mark.parametrize("move", ["huge", "unreadable", "directory-closed", "deeply-nested"])
def test_a_trust_file_the_session_made_unreadable_is_still_put_back(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, move: str) -> None:
    """The session changes a key gitai puts back, then makes the file 1 TiB (sparse), unreadable (chmod
    000), its directory unwritable (chmod 500), or nests it too deep for a parser: gitai still puts it back,
    with the host's exit status, never an internal error."""
    original = json.dumps({"trustedFolders": [str(repo)], "model": "m"}) + "\n"
    config = copilot_home(tmp_path, monkeypatch, original)
    body = ("cfg = pathlib.Path(os.environ['HOME']) / '.copilot' / 'config.json'\n"
            "cfg.write_text('{\"model\": \"evil\"}')\n"
            + {"huge": "os.truncate(cfg, 1 << 40)\n",
               "unreadable": "cfg.chmod(0)\n",
               "directory-closed": "cfg.parent.chmod(0o500)\n",
               "deeply-nested": "cfg.write_text('{\"a\": ' + '[' * 100000 + ']' * 100000 + '}')\n"}[move])
    done = run_in(repo, "copilot", env=fake_copilot(tmp_path / "bin", body))
    assert done.returncode == 0 and "internal error" not in done.stderr, done.stderr
    from gitai.agents.trust import json_config

    assert config.stat().st_size < 1 << 20 and json_config(config.read_text()) == json.loads(original), done.stderr
    assert config.stat().st_mode & 0o777 == 0o644 and "put back" in done.stderr


@pytest.mark.parametrize("original", ['{"trustedFolders": []}', "not json"])
def test_a_trust_file_whose_mode_alone_the_session_changed_gets_it_back(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, original: str) -> None:
    """chmod 000 leaves the bytes as they were but the next Copilot unable to read its trust: put back."""
    config = copilot_home(tmp_path, monkeypatch, original)
    done = run_in(repo, "copilot", env=fake_copilot(tmp_path / "bin", "(pathlib.Path(os.environ['HOME']) / "
                                                                      "'.copilot' / 'config.json').chmod(0)\n"))
    assert config.stat().st_mode & 0o777 == 0o644 and "put back" in done.stderr, done.stderr
    assert config.read_text() == original


@pytest.mark.parametrize("kind", ["link", "directory"])
def test_copilot_is_not_supervised_where_its_trust_file_is_not_a_regular_file(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    """A person keeps ~/.copilot/config.json as a link into their dotfiles: Copilot would replace the link
    with a file as it runs, and gitai could not put a link back as it was. gitai run refuses in one line
    before Copilot starts; the link and its target stay as they were."""
    config = copilot_home(tmp_path, monkeypatch, None)
    config.parent.mkdir()
    dotfile = tmp_path / "home" / "dotfiles" / "copilot.json"
    dotfile.parent.mkdir()
    dotfile.write_text('{"trustedFolders": []}\n')
    if kind == "link":
        config.symlink_to(dotfile)
    else:
        config.mkdir()
    ran = tmp_path / "ran"
    done = run_in(repo, "copilot", env=fake_copilot(tmp_path / "bin", f"pathlib.Path({str(ran)!r}).touch()\n"))
    assert done.returncode == 2 and not ran.exists(), done.stderr
    why = ("is a link (make it a copy of what it links to)" if kind == "link"
           else "is not a regular file")
    assert done.stderr == f"gitai: error: {config} {why}, so gitai run could not put it back after the session\n"
    assert config.is_symlink() == (kind == "link") and dotfile.read_text() == '{"trustedFolders": []}\n'


def test_copilots_remembered_trust_in_the_repository_stays_and_its_plugins_and_sign_in_are_put_back(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Copilot trusts the repository with "remember": that stays. A plugin (it can bring hooks and MCP
    servers) and a sign-in (the account the next session runs as) are not Copilot's own keys: put back."""
    config = copilot_home(tmp_path, monkeypatch, json.dumps({"trustedFolders": []}))
    body = ("cfg = pathlib.Path(os.environ['HOME']) / '.copilot' / 'config.json'\n"
            "cfg.write_text(json.dumps({'trustedFolders': [os.getcwd()], 'recentModelIds': ['m'],\n"
            "                           'installedPlugins': [{'name': 'p'}], 'copilotTokens': {'x': 'y'},\n"
            "                           'lastLoggedInUser': {'login': 'other'}}))\n")
    done = run_in(repo, "copilot", env=fake_copilot(tmp_path / "bin", body))
    assert json.loads(config.read_text()) == {"trustedFolders": [str(repo)], "recentModelIds": ["m"]}, done.stderr
    assert done.stderr.endswith("what the session changed there: copilotTokens, installedPlugins, "
                                "lastLoggedInUser\n"), done.stderr


def test_copilot_started_with_hooks_off_gets_gitais_own_hook_and_its_signals(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Started with git's hooks turned off (an empty core.hooksPath), the supervised Copilot's shell points
    git at gitai's own commit-msg hook, as every host's under `gitai run`; a SIGTERM to gitai reaches it."""
    import signal
    import time

    from gitai.layout import find_layout

    copilot_home(tmp_path, monkeypatch, None)
    ready = tmp_path / "tmp" / "ready"  # (the directory that holds the repository is closed)
    ready.parent.mkdir()
    body = ("signal.signal(signal.SIGTERM, lambda *_: sys.exit(7))\n"
            "print(os.environ.get('GIT_CONFIG_PARAMETERS'), flush=True)\n"
            f"pathlib.Path({str(ready)!r}).touch()\n"
            "time.sleep(60)\n")
    env = {**os.environ, **fake_copilot(tmp_path / "bin", body), "GIT_CONFIG_COUNT": "1",
           "GIT_CONFIG_KEY_0": "core.hooksPath", "GIT_CONFIG_VALUE_0": ""}
    gitai = subprocess.Popen([GITAI, "run", "INT-001", "--", "copilot"], cwd=repo, env=env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                             start_new_session=True)
    for _ in range(600):
        if ready.exists() or gitai.poll() is not None:
            break
        time.sleep(0.05)
    gitai.send_signal(signal.SIGTERM)
    out, err = gitai.communicate(timeout=60)
    assert gitai.returncode == 7, err
    assert out.strip() == f"'core.hooksPath={find_layout(str(repo)).own_hooks_dir}'", out + err


def test_without_a_domain_copilot_runs_as_any_host_with_no_parent(repo: Path, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the kernel gives no domain nothing is mounted read-only, so Copilot needs no parent: gitai says
    so in its one warning line and Copilot replaces gitai, as any host (its pid is gitai's)."""
    copilot_home(tmp_path, monkeypatch, json.dumps({"trustedFolders": []}))
    words = [GITAI, "run", "INT-001", "--", "copilot"]
    env = {**os.environ, **fake_copilot(tmp_path / "bin", "print(os.getpid())\n"), "GITAI_NO_LANDLOCK": "1"}
    gitai = subprocess.Popen(words, cwd=repo, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL)
    out, err = gitai.communicate(timeout=60)
    assert gitai.returncode == 0 and out.strip() == str(gitai.pid), out + err
    assert err.startswith("gitai: warning: no kernel domain (GITAI_NO_LANDLOCK is set)") and err.count("\n") == 1


def test_one_rule_says_which_host_a_command_starts() -> None:
    from gitai.agents.hosts import host_of_command

    for command, host in ((["copilot", "-p", "x"], "copilot"), (["/usr/bin/env", "copilot"], "copilot"),
                          (["env", "A=1", "copilot"], "copilot"), (["npx", "-y", "@github/copilot"], "copilot"),
                          (["node", "/opt/gemini", "-p"], "gemini"), (["vim", "gemini"], None),
                          (["sh", "-c", "copilot"], None), (["env"], None), ([], None),
                          (["env", "-u", "FOO", "gemini"], "gemini"), (["env", "-C", "/tmp", "copilot"], "copilot"),
                          (["env", "--unset=A", "--chdir=/tmp", "-i", "copilot"], "copilot"),
                          (["env", "-S", "nice -n 5 copilot -p x"], "copilot"), (["env", "-", "qwen"], "qwen"),
                          (["timeout", "8h", "gemini"], "gemini"),
                          (["timeout", "-k", "5", "--signal=TERM", "8h", "qwen"], "qwen"), (["timeout", "8h"], None),
                          (["nice", "copilot"], "copilot"), (["nice", "-n", "10", "copilot"], "copilot"),
                          (["time", "-f", "%e", "codex"], "codex"), (["stdbuf", "-oL", "claude"], "claude-code"),
                          (["stdbuf", "-o", "L", "claude"], "claude-code"),
                          (["ionice", "-c", "3", "copilot"], "copilot"),
                          (["setsid", "-f", "nohup", "copilot"], "copilot"),
                          (["npx", "@google/gemini-cli"], "gemini"),
                          (["npx", "--yes", "@github/copilot@latest"], "copilot"),
                          (["npx", "@anthropic-ai/claude-code@2.1.0", "-p"], "claude-code"),
                          (["bunx", "@openai/codex"], "codex"), (["npx", "@qwen-code/qwen-code@latest"], "qwen"),
                          (["node", "/usr/lib/node_modules/@github/copilot/index.js"], "copilot"),
                          (["node", "--require", "x.js", "/n/node_modules/@google/gemini-cli/dist/index.js"],
                           "gemini"),
                          (["npx", "some-tool@1", "copilot"], None), (["npx", "gemini"], None),
                          (["pnpm", "dlx", "@github/copilot"], "copilot"),
                          (["npm", "exec", "@google/gemini-cli"], "gemini"),
                          (["bun", "x", "@openai/codex@latest"], "codex"),
                          (["yarn", "dlx", "@qwen-code/qwen-code"], "qwen"),
                          (["npm", "test"], None), (["bun", "copilot"], None)):
        found = host_of_command(command)
        assert (found.name if found else None) == host, command


@pytest.mark.parametrize("command", [("sh", "-c", "copilot -p hi"), ("bash", "-lc", "npx @github/copilot@latest"),
                                     ("env", "bash", "-o", "pipefail", "-c", "true; copilot -p hi")])
def test_copilot_named_where_gitai_run_cannot_tell_it_starts_is_refused_in_one_line(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: tuple[str, ...]) -> None:
    """Past a program gitai does not step over, Copilot would meet its config.json read-only and could not
    start: gitai run refuses before anything runs, and says how to start it."""
    config = copilot_home(tmp_path, monkeypatch, json.dumps({"trustedFolders": []}))
    marker = tmp_path / "ran"
    done = run_in(repo, *command, env=fake_copilot(tmp_path / "bin", f"pathlib.Path({str(marker)!r}).touch()\n"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("gitai: error: gitai run cannot tell which program") and "-- copilot" in done.stderr
    assert not marker.exists() and json.loads(config.read_text()) == {"trustedFolders": []}


@pytest.mark.parametrize("command", [("grep", "-rc", "copilot", "src"), ("echo", "copilot"),
                                     ("sh", "-c", "echo \"$0\"", "copilot")])
def test_a_command_that_only_names_copilot_runs(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 command: tuple[str, ...]) -> None:
    """Copilot's name as a word that starts nothing (an argument, a shell's `$0`): the command runs as any
    other, with Copilot's config read-only; only a command string a shell runs is searched for it."""
    original = json.dumps({"trustedFolders": []})
    config = copilot_home(tmp_path, monkeypatch, original)
    done = run_in(repo, *command)
    assert "gitai: error" not in done.stderr and done.returncode in (0, 1), done.stdout + done.stderr
    assert done.stdout.strip() in ("copilot", "src/app.py:0") and config.read_text() == original, done.stdout


def test_other_hosts_keep_copilots_config_read_only(repo: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the host that rewrites its own trust file runs under gitai's parent: any other command in
    `gitai run` still meets ~/.copilot/config.json as a read-only mount."""
    original = json.dumps({"trustedFolders": [str(repo)]})
    config = copilot_home(tmp_path, monkeypatch, original)
    done = run_in(repo, *py(
        "import pathlib, os\n"
        "cfg = pathlib.Path(os.environ['HOME']) / '.copilot' / 'config.json'\n"
        "try:\n"
        "    cfg.write_text('{}')\n"
        "    print('wrote')\n"
        "except OSError as exc:\n"
        "    print('refused', exc.errno)\n"))
    assert "refused" in done.stdout, done.stdout + done.stderr
    assert config.read_text() == original


@pytest.mark.skipif(shutil.which("tmux") is None and not os.environ.get("CI"),
                    reason="no tmux (make provision installs it)")
@pytest.mark.parametrize("where", ["default", "anywhere"])
def test_the_persons_tmux_cannot_run_a_command_for_the_agent(repo: Path, tmp_path: Path, where: str) -> None:
    """A tmux server started outside the domain would run whatever a client asks, outside the domain and
    the session, and outlive it: in the domain its socket (in tmux's own directory, or anywhere: `-S`,
    found as a socket this user listens on) is hidden and TMUX is unset."""
    tmpdir = tmp_path / "tmux-tmp"
    tmpdir.mkdir()
    outside = {**os.environ, "TMUX_TMPDIR": str(tmpdir)}
    sock = tmpdir / f"tmux-{os.getuid()}" / "default" if where == "default" else tmp_path / "anywhere.sock"
    chosen = ["-S", str(sock)] if where == "anywhere" else []
    subprocess.run(["tmux", *chosen, "new-session", "-d", "-s", "person", "sleep 60"], env=outside, check=True)
    catalogue = repo / ".orchestration" / "active_intents.yaml"
    before = catalogue.read_text()
    try:
        assert sock.is_socket()
        later = f"echo '# agent was here' >> {catalogue}"
        moves = (f"tmux -S {sock} new-window -d \"{later}\"; echo tmux=$?; tmux new-window -d \"{later}\"; "
                 "echo tmux=$?; echo TMUX=${TMUX:-unset}")
        attached = f"{sock},1,0" if where == "default" else ""  # the person's shell inside that tmux, or not
        done = run_in(repo, "sh", "-c", moves, env={"TMUX_TMPDIR": str(tmpdir), "TMUX": attached})
        windows = subprocess.run(["tmux", "-S", str(sock), "list-windows"], capture_output=True, text=True,
                                 check=True).stdout
    finally:
        subprocess.run(["tmux", "-S", str(sock), "kill-server"], check=False, capture_output=True)
    assert done.stdout.split() == ["tmux=1", "tmux=1", "TMUX=unset"], done.stdout + done.stderr
    assert len(windows.splitlines()) == 1 and catalogue.read_text() == before


def test_the_session_bus_and_the_user_managers_socket_are_out_of_reach_but_ssh_agent_is_not(
        repo: Path, tmp_path: Path) -> None:
    """`systemd-run --user` asks the user manager (its private socket, or the dbus session bus) to start a
    command outside the domain: both are hidden, and an abstract socket made outside (a bus listening there)
    is out of reach from Landlock ABI 6. ssh-agent's socket (git push over ssh) stays reachable."""
    import socket

    from gitai.sandbox.landlock import SIGNAL_SCOPE_ABI, abi_version

    runtime = tmp_path / "run"
    (runtime / "systemd").mkdir(parents=True)
    abstract = f"@gitai-test-bus-{os.getpid()}"
    servers = {}
    for name in ("bus", "systemd/private", abstract, "ssh-agent.sock"):
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind("\0" + name[1:] if name.startswith("@") else str(runtime / name))
        server.listen(4)
        server.setblocking(False)
        servers[name] = server
    probe = ("import socket, sys\n"
             "for path in sys.argv[1:]:\n"
             "    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
             "    try:\n"
             "        client.connect('\\0' + path[1:] if path.startswith('@') else path)\n"
             "        print('reached')\n"
             "    except OSError:\n"
             "        print('refused')\n")
    env = {"XDG_RUNTIME_DIR": str(runtime), "DBUS_SESSION_BUS_ADDRESS": f"unix:path={runtime / 'bus'}",
           "SSH_AUTH_SOCK": str(runtime / "ssh-agent.sock")}
    done = run_in(repo, "python3", "-c", probe, *(n if n.startswith("@") else str(runtime / n) for n in servers),
                  env=env)
    scoped = abi_version() >= SIGNAL_SCOPE_ABI
    reachable = {"ssh-agent.sock"} | (set() if scoped else {abstract})
    expected = ["reached" if name in reachable else "refused" for name in servers]
    assert done.stdout.split() == expected, done.stdout + done.stderr
    for name, server in servers.items():
        assert _accepted(server) == (name in reachable), name


def _accepted(server: socket.socket) -> bool:
    """Whether a connection reached the listening (non-blocking) `server`, which is closed after."""
    try:
        server.accept()[0].close()
        return True
    except BlockingIOError:
        return False
    finally:
        server.close()


RESTRICT_AFTER_A_SWAP = """
import os, sys
from gitai.sandbox.landlock import restrict

restrict([sys.argv[1]], [])
try:
    with open(sys.argv[2], "w") as handle:
        handle.write("x")
    print("wrote")
except OSError:
    print("refused")
"""


@pytest.mark.parametrize("swapped", ["itself", "above"])
def test_a_writable_path_swapped_for_a_link_after_planning_gets_no_rule(tmp_path: Path, swapped: str) -> None:
    """Between the plan and restrict, a writable directory (or one above it) replaced by a link to
    elsewhere: the rule would follow the link and allow writes there. It gets no rule instead."""
    planned = tmp_path / "box" / "scope"
    planned.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere" / "scope"
    elsewhere.mkdir(parents=True)
    if swapped == "itself":
        planned.rmdir()
        planned.symlink_to(elsewhere)
    else:
        (tmp_path / "box").rename(tmp_path / "box-was")
        (tmp_path / "box").symlink_to(tmp_path / "elsewhere")
    done = subprocess.run([sys.executable, "-c", RESTRICT_AFTER_A_SWAP, str(planned), str(elsewhere / "x")],
                          capture_output=True, text=True)
    assert done.stdout.split() == ["refused"], done.stdout + done.stderr
    assert not (elsewhere / "x").exists()


def test_a_writable_path_as_planned_still_gets_its_rule(tmp_path: Path) -> None:
    planned = tmp_path / "scope"
    planned.mkdir()
    done = subprocess.run([sys.executable, "-c", RESTRICT_AFTER_A_SWAP, str(planned), str(planned / "x")],
                          capture_output=True, text=True)
    assert done.stdout.split() == ["wrote"], done.stdout + done.stderr


def test_a_wrapped_command_cannot_reach_a_server_the_user_listens_on(repo: Path, tmp_path: Path) -> None:
    """`gitai exec` (each shell command of a host running outside) hides the same sockets as `gitai run`:
    a server this user listens on at any path is out of reach of the wrapped command."""
    import socket

    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(tmp_path / "anywhere.sock"))
    server.listen(4)
    server.setblocking(False)
    probe = ("import socket, sys\nclient = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
             "try:\n    client.connect(sys.argv[1])\n    print('reached')\nexcept OSError:\n    print('refused')\n")
    done = subprocess.run([GITAI, "exec", "--session", "claude-code-s1", "--", "python3", "-c", probe,
                           str(tmp_path / "anywhere.sock")], cwd=repo, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, start_new_session=True)
    assert (done.stdout.split(), _accepted(server)) == (["refused"], False), done.stdout + done.stderr


HIDE_THEN_READ = ("import sys\nfrom gitai.sandbox.landlock import CannotHide, MountsUnavailable, restrict\n"
                  "try:\n    restrict([sys.argv[1]], [], [], hidden=sys.argv[3:])\n"
                  "except (CannotHide, MountsUnavailable) as exc:\n    print(type(exc).__name__, exc)\n"
                  "    raise SystemExit(0)\n"
                  "print('entered', repr(open(sys.argv[2]).read()))\n")


def test_a_hidden_path_gone_before_the_mount_is_skipped_and_the_rest_still_hidden(tmp_path: Path) -> None:
    """A socket listed at planning whose server exited before restrict: nothing to hide there, and the
    domain is entered with everything else hidden (not planned again without mounts)."""
    secret = tmp_path / "secret"
    secret.write_text("kept from the agent\n")
    done = subprocess.run([sys.executable, "-c", HIDE_THEN_READ, str(tmp_path), str(secret),
                           str(tmp_path / "gone.sock"), str(secret)], capture_output=True, text=True)
    assert done.stdout.split("\n")[0] == "entered ''", done.stdout + done.stderr


def test_a_hidden_path_that_cannot_be_hidden_refuses_the_domain(tmp_path: Path) -> None:
    """Any hide failure but a path gone: CannotHide, never MountsUnavailable (which would mean a weaker
    plan without mounts); `gitai run` turns it into one line and starts nothing."""
    secret = tmp_path / "secret"
    secret.write_text("kept from the agent\n")
    done = subprocess.run([sys.executable, "-c", HIDE_THEN_READ, str(tmp_path), str(secret),
                           str(secret / "below-a-file")], capture_output=True, text=True)
    assert done.stdout.startswith("CannotHide cannot hide"), done.stdout + done.stderr
    assert "entered" not in done.stdout


def _outside_every_domain(name: str) -> Path:
    """A new directory's path that no domain opens whatever the scope (not beneath /tmp, /var/tmp or
    TMPDIR): in this checkout, else in the user's own home (a clean clone may well lie in /tmp)."""
    import pwd

    opened = [os.path.realpath(p) for p in ("/tmp", "/var/tmp", os.environ.get("TMPDIR") or "/tmp")]
    for base in (Path(__file__).resolve().parent.parent, Path(pwd.getpwuid(os.getuid()).pw_dir)):
        real = os.path.realpath(base)
        if os.access(real, os.W_OK) and not any(real == o or real.startswith(o + os.sep) for o in opened):
            return Path(real) / name
    pytest.skip("no writable directory outside every domain's temporary directories")


def test_a_link_left_at_another_intents_scope_root_opens_nothing_outside_the_repository(repo: Path) -> None:
    """A session of INT-001 (src/**) leaves src/auth as a link to a directory outside the repository (not
    in /tmp, which every domain opens); the next session, of an intent owning src/auth/**, gets no rule
    on the link's target, and is told so in one line."""
    outside = _outside_every_domain(f".gitai-outside-{os.getpid()}")
    shutil.rmtree(outside, ignore_errors=True)
    outside.mkdir()
    try:
        first = run_in(repo, "sh", "-c", f"rm -rf src/auth && ln -s {outside} src/auth && echo linked")
        assert "linked" in first.stdout, first.stdout + first.stderr
        catalogue = repo / ".orchestration" / "active_intents.yaml"
        catalogue.write_text(catalogue.read_text() + "  - id: INT-009\n    name: auth\n    status: IN_PROGRESS\n"
                             "    owned_scope: [\"src/auth/**\"]\n")
        second = run_in(repo, "sh", "-c", f"echo pwned > {outside}/x; echo rc=$?", intent="INT-009")
        assert not (outside / "x").exists(), second.stdout + second.stderr
        assert f"gitai: note: src/auth leads out of the work tree (to {outside})" in second.stderr, second.stderr
    finally:
        shutil.rmtree(outside, ignore_errors=True)


def test_a_listening_socket_in_the_scope_is_not_hidden_so_its_directory_can_be_removed(repo: Path) -> None:
    """A dev server's socket in the work tree (in scope): hidden under a mount it would make its directory
    impossible to remove (EBUSY), though the domain lets the agent write there. It is left as it is."""
    import socket

    (repo / "src" / "run").mkdir()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(repo / "src" / "run" / "dev.sock"))
    server.listen(4)
    try:
        done = run_in(repo, "sh", "-c", "rm -rf src/run; echo rc=$?")
    finally:
        server.close()
    assert "rc=0" in done.stdout, done.stdout + done.stderr
    assert not (repo / "src" / "run").exists()
