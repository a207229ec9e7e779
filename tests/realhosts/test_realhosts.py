"""The real agent hosts, driven offline by a scripted model, with gitai's hooks installed by
`gitai agents install`: each scenario asserts the effect on disk and in git, and what the model was told."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gitai.agents.hosts import BY_NAME

from .conftest import make_session
from .harness import GITAI, HOSTS, MODEL, Session
from .model_server import Step

MakeSession = Callable[[str], Session]
NEW_CODE = "def token():\n    return 'jwt'\n"

# Seams the real hosts expose that gitai does not close yet go in `seam`/`hosts` as reasons by host
# (none left): each test flips to a pass when it is fixed.


def seam(host: str, **reasons: str) -> Any:
    """`host` as a parameter, marked as a known seam (strict xfail) where `reasons` names it."""
    reason = reasons.get(host.replace("-", "_"))
    return pytest.param(host, marks=pytest.mark.xfail(strict=True, reason=reason)) if reason else host


def hosts(**reasons: str) -> list[Any]:
    return [seam(h, **reasons) for h in HOSTS]


def record(s: Session) -> dict[str, Any]:
    out = s.gitai("show", "--json").stdout
    data = json.loads(out)
    return data[0] if isinstance(data, list) else data


def select_as_told(s: Session) -> Step:
    """The model runs `select` the way the context told it to run gitai in its shell (`gitai` when it
    was told nothing more)."""
    def decide(told: str) -> Step:
        found = re.search(r"Run gitai in your shell as `([^`]+)`", told)
        return s.host.shell(f"{found.group(1) if found else 'gitai'} select INT-001")
    return Step(decide=decide)


@pytest.mark.parametrize("host", HOSTS)
def test_the_agent_selects_its_intent_then_writes_in_scope(session: MakeSession, host: str) -> None:
    """Codex runs commands with `bash -lc`, which rebuilds PATH (a gitai in a virtualenv is not found by
    name): its context names gitai by its absolute path, and the model runs that."""
    s = session(host)
    result = s.run([select_as_told(s), s.host.write("src/auth/token.py", NEW_CODE)])
    if BY_NAME[host].login_shell:
        assert f"Run gitai in your shell as `{GITAI}`" in result.first_prompt()
    assert (s.repo / "src" / "auth" / "token.py").read_text() == NEW_CODE, result.tool_results()
    assert "JWT auth migration" in result.tool_results()[0]  # the model read the intent's context


@pytest.mark.parametrize("host", HOSTS)
def test_an_out_of_scope_write_is_refused_and_the_model_told_why(session: MakeSession, host: str) -> None:
    s = session(host)
    s.gitai("select", "INT-001")
    result = s.run([s.host.write("docs/notes.md", "# notes\n")])
    assert not (s.repo / "docs" / "notes.md").exists()
    told = result.tool_results()[-1]
    assert "outside the scope of INT-001" in told and "docs/notes.md" in told
    assert "How to fix:" in told and "stay in scope" in told  # the one heading of every refusal, as in the git hooks


@pytest.mark.parametrize("host", HOSTS)
def test_an_in_scope_edit_goes_through(session: MakeSession, host: str) -> None:
    s = session(host)
    s.gitai("select", "INT-001")
    result = s.run([s.host.read("src/auth/login.py"),
                    s.host.edit("src/auth/login.py", "    return 'session'", "    return 'jwt'")])
    assert (s.repo / "src" / "auth" / "login.py").read_text() == "def login():\n    return 'jwt'\n", \
        result.tool_results()


@pytest.mark.parametrize("host", HOSTS)
def test_commit_no_verify_is_refused(session: MakeSession, host: str) -> None:
    s = session(host)
    s.gitai("select", "INT-001")
    before = s.head()
    result = s.run([s.host.shell("git commit --allow-empty --no-verify -m 'skip the gate'")])
    assert s.head() == before
    assert "--no-verify" in result.tool_results()[-1] or "no-verify" in result.tool_results()[-1]


@pytest.mark.parametrize("host", HOSTS)
def test_the_catalogue_cannot_be_edited_by_the_agent(session: MakeSession, host: str) -> None:
    s = session(host)
    s.gitai("select", "INT-001")
    catalogue = s.repo / ".orchestration" / "active_intents.yaml"
    before = catalogue.read_bytes()
    result = s.run([s.host.read(".orchestration/active_intents.yaml"),
                    s.host.edit(".orchestration/active_intents.yaml", "    status: DRAFT   # not started",
                                "    status: IN_PROGRESS")])
    assert catalogue.read_bytes() == before
    assert "active_intents.yaml" in result.tool_results()[-1]


@pytest.mark.parametrize("host", ["gemini", "qwen"])
def test_a_trusted_folders_file_moved_by_its_variable_is_protected(session: MakeSession, tmp_path: Path,
                                                                   host: str) -> None:
    """GEMINI_CLI_TRUSTED_FOLDERS_PATH / QWEN_CODE_TRUSTED_FOLDERS_PATH move the trusted folders file out
    of HOME: the agent's shell cannot change it there either (the hosts' write tools refuse paths outside
    the workspace themselves)."""
    s = session(host)
    s.gitai("select", "INT-001")
    variable, _ = BY_NAME[host].trust_file_variable or ("", "")
    store = tmp_path / "trust" / "folders.json"
    store.parent.mkdir()
    store.write_text(json.dumps({str(s.repo): "TRUST_FOLDER"}))
    before = store.read_bytes()
    s.env[variable] = str(store)
    result = s.run([s.host.shell(f"printf '{{}}' > {store}"), s.host.shell(f"rm {store}")])
    told = result.tool_results()
    assert store.read_bytes() == before, told
    assert len(told) == 2 and all("user-level hooks" in t for t in told), told
    if BY_NAME[host].folder_trust_switch[2]:  # folder trust on by default (Gemini): the moved file decides
        (row,) = json.loads(s.gitai("agents", "status", host, "--json").stdout)
        assert row["trust"] == "trusted" and str(store) in row["trust_detail"], row


@pytest.mark.parametrize("host", HOSTS)
def test_the_intent_context_reaches_the_model_at_session_start(session: MakeSession, host: str) -> None:
    s = session(host)
    result = s.run([])
    first = result.first_prompt()
    assert "Selectable intents" in first and "JWT auth migration" in first


@pytest.fixture(scope="module")
def committed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Session:
    """The agent writes a new file in scope and commits it through its shell (one session per host,
    shared by the tests that read its record)."""
    s = make_session(request.param, tmp_path_factory.mktemp(f"commit-{request.param}"))
    s.gitai("select", "INT-001")
    before = s.head()
    result = s.run([s.host.write("src/auth/token.py", NEW_CODE),
                    s.host.shell("git add src/auth/token.py && git commit -q -m 'Add the token helper'")])
    assert s.head() != before, result.tool_results()
    return s


@pytest.mark.parametrize("committed", hosts(), indirect=True)
def test_an_agent_commit_is_recorded_with_its_intent_and_ai_lines(committed: Session) -> None:
    s = committed
    assert "Intent: INT-001" in s.git("log", "-1", "--format=%B")
    rec = record(s)
    assert rec["metadata"]["dev.gitai"]["intent_id"] == "INT-001"
    (entry,) = [f for f in rec["files"] if f["path"] == "src/auth/token.py"]
    (conv,) = entry["conversations"]
    assert conv["contributor"]["type"] == "ai"
    assert [(r["start_line"], r["end_line"]) for r in conv["ranges"]] == [(1, 2)]


def test_gemini_turns_the_repositorys_hooks_off_and_still_gitais_trailer_is_written(session: MakeSession,
                                                                                  tmp_path: Path) -> None:
    """Gemini CLI's shell turns git's hooks off on purpose (an empty core.hooksPath); inside the kernel
    domain git runs gitai's own commit-msg hook only. A person's hooks (chained behind gitai's) do not run
    for the agent's commit, and the record is written once."""
    s = session("gemini")
    s.gitai("select", "INT-001")
    ran = tmp_path / "ran"
    ran.mkdir()
    for name in ("pre-commit", "commit-msg", "post-commit"):
        chained = s.repo / ".git" / "hooks" / f"{name}.gitai-chained"
        chained.write_text(f"#!/bin/sh\ntouch {ran}/{name}\n")
        chained.chmod(0o755)
    result = s.run([s.host.write("src/auth/token.py", NEW_CODE),
                    s.host.shell("git add src/auth/token.py && git commit -q -m 'Add the token helper'")])
    assert s.git("log", "-1", "--format=%B").strip() == "Add the token helper\n\nIntent: INT-001", \
        result.tool_results()
    assert sorted(p.name for p in ran.iterdir()) == []
    commit = s.head()
    ledger = (s.repo / ".orchestration" / "agent_trace.jsonl").read_text().splitlines()
    assert sum(commit in entry for entry in ledger) == 1


def chain_persons_hooks(s: Session, ran: Path) -> None:
    """A person's own pre-commit, commit-msg and post-commit hooks (chained behind gitai's), each
    leaving a file in `ran` when it runs."""
    ran.mkdir()
    for name in ("pre-commit", "commit-msg", "post-commit"):
        chained = s.repo / ".git" / "hooks" / f"{name}.gitai-chained"
        chained.write_text(f"#!/bin/sh\ntouch {ran}/{name}\n")
        chained.chmod(0o755)


def test_gemini_inside_gitai_run_gets_gitais_trailer_and_its_commit_is_recorded_once(session: MakeSession,
                                                                                     tmp_path: Path) -> None:
    """Inside `gitai run` the host is in the kernel domain already: its shell commands are still wrapped
    where git runs no hooks for them, and git runs gitai's own commit-msg hook only (no person's hook);
    the after-shell hook records the commit once."""
    from gitai.sandbox.wrap import domain_available

    if not domain_available():
        pytest.skip("no Landlock domain here: `gitai run` cannot hold one")
    s = session("gemini")
    ran = tmp_path / "ran"
    chain_persons_hooks(s, ran)
    result = s.run([s.host.write("src/auth/token.py", NEW_CODE),
                    s.host.shell("git add src/auth/token.py && git commit -q -m 'Add the token helper'")],
                   wrap=(GITAI, "run", "INT-001", "--"))
    assert s.git("log", "-1", "--format=%B").strip() == "Add the token helper\n\nIntent: INT-001", \
        result.tool_results()
    assert sorted(p.name for p in ran.iterdir()) == []
    commit = s.head()
    ledger = (s.repo / ".orchestration" / "agent_trace.jsonl").read_text().splitlines()
    assert sum(commit in entry for entry in ledger) == 1
    assert record(s)["metadata"]["dev.gitai"]["intent_id"] == "INT-001"


def test_gemini_inside_gitai_run_cannot_stage_out_of_scope_deletions_and_commit_them_unchecked(
        session: MakeSession) -> None:
    """Inside `gitai run` gitai's own commit-msg hook reaches Gemini's commits through
    GIT_CONFIG_PARAMETERS. Staging deletions outside the scope in the index only and committing in
    the same command, the variable dropped or not, is refused before it runs; so is the commit alone in
    the next call, judged against the real index: HEAD stays, every file is still there."""
    from gitai.sandbox.wrap import domain_available

    if not domain_available():
        pytest.skip("no Landlock domain here: `gitai run` cannot hold one")
    s = session("gemini")
    before, tracked = s.head(), s.git("ls-files")
    result = s.run([s.host.shell("git read-tree --empty && env -u GIT_CONFIG_PARAMETERS git commit -q -m drop"),
                    s.host.shell("git read-tree --empty && git commit -q -m drop"),
                    s.host.shell("git update-index --force-remove docs/guide.md"),
                    s.host.shell("git commit -q -m drop")],
                   wrap=(GITAI, "run", "INT-001", "--"))
    told = result.tool_results()
    assert s.head() == before, told
    assert "circumvention" in told[0] and "stage in one command" in told[1], told
    assert "docs/guide.md" in told[3] and "outside the scope" in told[3], told
    s.git("reset", "-q")
    assert s.git("ls-files") == tracked and (s.repo / "docs" / "guide.md").is_file()


@pytest.mark.parametrize("host", ["claude-code", "codex"])
def test_a_host_started_with_git_hooks_off_still_gates_and_records_its_agents_commit(session: MakeSession,
                                                                                   tmp_path: Path, host: str) -> None:
    """The host is started with an empty core.hooksPath in its environment (a person's or an agent's
    `GIT_CONFIG_*` export), so git runs no hooks for its shell: the before-shell hook refuses the
    out-of-scope commit itself (HEAD stays), the in-scope one is recorded by the after-shell hook, with
    gitai's trailer where the host's commands are wrapped (Claude Code), and the person's hooks stay off."""
    s = session(host)
    s.gitai("select", "INT-001")
    ran = tmp_path / "ran"
    chain_persons_hooks(s, ran)
    s.env |= {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.hooksPath", "GIT_CONFIG_VALUE_0": ""}
    (s.repo / "docs" / "guide.md").write_text("# Guide\n\na person's change\n")
    s.git("add", "docs/guide.md")  # staged by a person: out of INT-001's scope
    before = s.head()
    write = s.host.write("src/auth/token.py", NEW_CODE)
    write.before = lambda: s.git("reset", "-q", "docs/guide.md")  # the person unstages it again
    result = s.run([s.host.shell("git commit -q -m 'Out of scope'"), write,
                    s.host.shell("git add src/auth/token.py && git commit -q -m 'Add the token helper'")])
    told = result.tool_results()
    assert s.git("rev-parse", "HEAD~1").strip() == before, told  # the out-of-scope commit never happened
    message = s.git("log", "-1", "--format=%B").strip()
    assert message == ("Add the token helper\n\nIntent: INT-001" if BY_NAME[host].exec_wrap
                       else "Add the token helper"), told
    assert sorted(p.name for p in ran.iterdir()) == []
    (entry,) = [f for f in record(s)["files"] if f["path"] == "src/auth/token.py"]
    assert [c["contributor"]["type"] for c in entry["conversations"]] == ["ai"], entry
    assert record(s)["metadata"]["dev.gitai"]["intent_id"] == "INT-001"


def test_a_commit_a_program_makes_in_geminis_shell_is_recorded_and_flagged(session: MakeSession) -> None:
    """Gemini's shell runs git without hooks, and a program that commits by itself is not read as a commit:
    nothing gates it, but the after-shell hook records it with the session's intent and tells the model
    which of its paths are outside the scope (here one a person had staged). Outside the kernel domain
    (GITAI_EXEC_WRAP=0): inside it gitai's own commit-msg hook would gate the commit."""
    s = session("gemini")
    s.gitai("select", "INT-001")
    s.env |= {"GITAI_EXEC_WRAP": "0"}
    (s.repo / "docs" / "guide.md").write_text("# Guide\n\na person's change\n")
    s.git("add", "docs/guide.md")  # staged by a person, out of INT-001's scope
    program = ("python3 -c \"import subprocess; subprocess.run(['git', 'add', 'src/auth/token.py']); "
               "subprocess.run(['git', 'commit', '-q', '-m', 'made by a program'])\"")
    result = s.run([s.host.write("src/auth/token.py", NEW_CODE), s.host.shell(program)])
    told = result.tool_results()
    made = s.head()
    assert s.git("log", "-1", "--format=%s").strip() == "made by a program", told
    assert record(s)["metadata"]["dev.gitai"]["intent_id"] == "INT-001"
    assert made[:12] in told[-1] and "docs/guide.md" in told[-1] and "outside the scope of INT-001" in told[-1], told
    events = [json.loads(line) for line in (s.repo / ".orchestration" / "events.jsonl").read_text().splitlines()]
    (event,) = [e for e in events if e["event"] == "agent-commit-ungated-outside-scope"]
    assert event["commit"] == made and event["paths"] == ["docs/guide.md"]


@pytest.mark.parametrize("host", HOSTS)
def test_a_write_over_a_persons_edit_waits_for_a_fresh_read(session: MakeSession, host: str) -> None:
    s = session(host)
    s.gitai("select", "INT-001")
    login = s.repo / "src" / "auth" / "login.py"

    def person_edits() -> None:
        login.write_text(login.read_text() + "# a person's note\n")

    stale_edit = s.host.edit("src/auth/login.py", "    return 'jwt'", "    return 'jwt2'")
    stale_edit.before = person_edits
    result = s.run([s.host.read("src/auth/login.py"),
                    s.host.edit("src/auth/login.py", "    return 'session'", "    return 'jwt'"),
                    stale_edit,
                    s.host.read("src/auth/login.py"),
                    s.host.edit("src/auth/login.py", "    return 'jwt'", "    return 'jwt2'")])
    told = result.tool_results()
    assert "read it again" in told[2] or "modified since" in told[2], told
    assert login.read_text() == "def login():\n    return 'jwt2'\n# a person's note\n", told


@pytest.mark.parametrize("committed", HOSTS, indirect=True)
def test_an_agent_commit_names_the_model(committed: Session) -> None:
    rec = record(committed)
    (entry,) = [f for f in rec["files"] if f["path"] == "src/auth/token.py"]
    model = entry["conversations"][0]["contributor"].get("model_id") or ""
    assert model.endswith(MODEL[committed.host.name]), entry


ESCAPE = "import pathlib\npathlib.Path('docs/escape.md').write_text('out of scope')\n"


@pytest.mark.parametrize("host", HOSTS)
def test_inside_gitai_run_the_kernel_refuses_what_the_hooks_cannot_see(session: MakeSession, host: str) -> None:
    """The agent writes an in-scope script that writes out of scope, then runs it: the hooks see only
    `python3 src/auth/escape.py`; inside `gitai run`'s Landlock domain the write fails all the same,
    and the agent's own commit of its in-scope work still works and is recorded."""
    s = session(host)
    result = s.run([s.host.write("src/auth/escape.py", ESCAPE),
                    s.host.shell("python3 src/auth/escape.py"),
                    s.host.shell("git add src/auth/escape.py && git commit -q -m 'add escape'")],
                   wrap=(GITAI, "run", "INT-001", "--"))
    told = result.tool_results()
    assert not (s.repo / "docs" / "escape.md").exists(), told
    assert "Permission" in told[1] or "denied" in told[1].lower(), told
    assert (s.repo / "src" / "auth" / "escape.py").read_text() == ESCAPE, told
    assert s.git("log", "-1", "--format=%s").strip() == "add escape", told
    assert s.git("notes", "--ref", "gitai", "list", "HEAD").strip(), "the commit made inside the domain has a record"


UNTRUST = ("import json, os, pathlib\n"
           "cfg = pathlib.Path(os.environ['COPILOT_HOME']) / 'config.json'\n"
           "text = ''.join(l for l in cfg.read_text().splitlines(True) if not l.startswith('//'))\n"
           "data = json.loads(text)\n"
           "data['trustedFolders'] = []\n"
           "data['disableAllHooks'] = True\n"
           "cfg.write_text(json.dumps(data))\n"
           "print('untrusted')\n"
           "pathlib.Path('docs/escape.md').write_text('out of scope')\n")


def test_inside_gitai_run_copilot_cannot_take_its_own_trust_away_for_the_next_session(session: MakeSession) -> None:
    """Copilot CLI rewrites ~/.copilot/config.json (its trusted folders and its own state) as it runs, so
    inside `gitai run` the file stays writable; the agent's program empties the trusted folders and adds a
    switch of its own, and writes out of scope. The kernel refuses the write; when Copilot exits gitai puts
    the trust back (and says so), keeps what Copilot wrote there itself, and the next session is governed."""
    from gitai.agents.trust import host_trust

    s = session("copilot")
    config = s.home / ".copilot" / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"trustedFolders": [str(s.repo)]}))  # no firstLaunchAt: Copilot writes it
    result = s.run([s.host.write("src/auth/untrust.py", UNTRUST),
                    s.host.shell("python3 src/auth/untrust.py")],
                   wrap=(GITAI, "run", "INT-001", "--"))
    told = result.tool_results()
    assert result.returncode == 0 and "untrusted" in told[1] and "PermissionError" in told[1], told
    assert not (s.repo / "docs" / "escape.md").exists(), told
    after = json.loads("".join(line for line in config.read_text().splitlines(True) if not line.startswith("//")))
    assert after["trustedFolders"] == [str(s.repo)] and "disableAllHooks" not in after, after
    assert "firstLaunchAt" in after, after  # Copilot's own first-start write went through, and was kept
    assert "gitai: put back in " in result.stderr and "trustedFolders" in result.stderr, result.stderr
    assert host_trust("copilot", str(s.repo), str(s.repo / ".github/hooks/gitai.json"), str(s.home),
                      {"COPILOT_HOME": str(config.parent)}).will_run is True


@pytest.mark.parametrize("host", HOSTS)
def test_an_agent_commit_that_drops_the_agents_variables_is_still_the_agents(session: MakeSession,
                                                                            host: str) -> None:
    """`env -u CLAUDECODE ... git commit`: the agent's variables gone from the commit's environment,
    its lines are still recorded as the agent's (the hook saw the session's commit command). The file is
    written through the shell, so no checkpoint of the agent's write tool vouches for its lines."""
    from gitai.agents.hosts import BY_NAME, UNHOOKED_AGENT_VARIABLES

    s = session(host)
    s.gitai("select", "INT-001")
    variables = {*BY_NAME[host].shell_variables, *BY_NAME[host].hook_variables, *UNHOOKED_AGENT_VARIABLES,
                 "GITAI_AGENT", "GITAI_MODEL"}
    unset = " ".join(f"-u {name}" for name in sorted(variables))
    before = s.head()
    result = s.run([s.host.shell("printf 'def token():\\n    return 1\\n' > src/auth/token.py"),
                    s.host.shell(f"git add src/auth/token.py && env {unset} git commit -q -m 'hidden'")])
    assert s.head() != before, result.tool_results()
    (entry,) = [f for f in record(s)["files"] if f["path"] == "src/auth/token.py"]
    assert [c["contributor"]["type"] for c in entry["conversations"]] == ["ai"], entry


@pytest.mark.parametrize("host", ["claude-code", "gemini"])
def test_without_gitai_run_the_hosts_shell_commands_run_in_the_sessions_domain(session: MakeSession,
                                                                               host: str) -> None:
    """No `gitai run`: by default the agent hook rewrites each shell command (Claude Code's
    `updatedInput`, Gemini CLI's `hookSpecificOutput.tool_input`) to run inside `gitai exec`, so a program
    the hooks cannot see into is held by the kernel. The agent's in-scope shell write and its commit work
    there (under Gemini, whose shell runs git with an empty core.hooksPath, gated by the before-shell hook
    and recorded by the after-shell hook, which still sees the agent's own command); under Claude Code
    `cd` still carries over to the next call (Gemini keeps no directory between calls)."""
    from gitai.sandbox.wrap import domain_available

    if not domain_available():
        pytest.skip("no Landlock domain here: the hook does not wrap, and the hooks alone hold the scope")
    s = session(host)
    before = s.head()
    steps = [s.host.shell("gitai select INT-001"),
             s.host.shell("python3 -c \"open('docs/x.md','w')\""),
             s.host.shell("printf 'def token():\\n    return 1\\n' > src/auth/token.py"),
             s.host.shell("git add src/auth/token.py && git commit -q -m 'token' && echo committed"),
             s.host.shell("echo \"it's\" 42 'a \"b\"' >&2; exit 3")]
    if host == "claude-code":
        steps += [s.host.shell("cd src/auth"), s.host.shell("pwd")]
    else:  # Gemini's own block of command substitution still sees the agent's command
        steps += [s.host.shell("echo $(touch src/auth/sub.py)")]
    told = s.run(steps).tool_results()
    assert "JWT auth migration" in told[0], told  # `gitai select` ran inside the domain
    assert not (s.repo / "docs" / "x.md").exists(), told
    assert "PermissionError" in told[1] and "Permission denied" in told[1], told
    assert (s.repo / "src" / "auth" / "token.py").read_text() == "def token():\n    return 1\n", told
    assert "committed" in told[3] and s.head() != before and s.git("log", "-1", "--format=%s").strip() == "token"
    assert record(s)["metadata"]["dev.gitai"]["intent_id"] == "INT-001", "the commit made inside the domain is recorded"
    assert "it's 42" in told[4] and 'a \\"b\\"' in told[4] and "3" in told[4], told  # stderr and the exit code
    if host == "claude-code":
        assert str(s.repo / "src" / "auth") in told[6], told  # the `cd` inside the domain carried over
    else:
        assert "Exit Code: 3" in told[4], told
        assert "Command injection detected" in told[5] and not (s.repo / "src" / "auth" / "sub.py").exists(), told


@pytest.mark.parametrize("host", ["claude-code", "gemini"])
def test_a_persons_own_deny_rule_in_the_host_still_holds_when_the_command_is_wrapped(session: MakeSession,
                                                                                    host: str) -> None:
    """A person's rule in the host denies `touch`: the agent's in-scope `touch` stays refused although
    gitai's hook wraps the command to run it inside the kernel domain (the agent's command stays verbatim
    in the rewritten text, which the host's own rules split and judge part by part)."""
    from gitai.sandbox.wrap import domain_available

    if not domain_available():
        pytest.skip("no Landlock domain here: the hook does not wrap")
    s = session(host)
    if host == "claude-code":
        rules = s.repo / ".claude" / "settings.local.json"
        rules.write_text(json.dumps({"permissions": {"deny": ["Bash(touch:*)"]}}))
    else:
        rules = s.home / ".gemini" / "policies" / "deny-touch.toml"
        rules.parent.mkdir(parents=True, exist_ok=True)
        rules.write_text('[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "touch"\n'
                         'decision = "deny"\npriority = 500\n')
    s.gitai("select", "INT-001")
    told = s.run([s.host.shell("touch src/auth/touched.py"),
                  s.host.shell("python3 -c \"open('docs/y.md','w')\"")]).tool_results()
    assert not (s.repo / "src" / "auth" / "touched.py").exists(), told
    assert "PermissionError" in told[1] and not (s.repo / "docs" / "y.md").exists(), told  # it was wrapped


@pytest.mark.parametrize("host", ["claude-code", "gemini"])
def test_a_command_the_persons_allow_rule_allows_runs_wrapped_in_the_hosts_default_mode(session: MakeSession,
                                                                                       host: str) -> None:
    """In the host's default permission mode (not Claude Code's bypass mode, not `gemini --yolo`) a command
    the person's own allow rule allows still runs once wrapped, inside the domain (the out-of-scope write
    fails there): the line before it is
    allowed by the rules `gitai agents install` wrote, and they allow nothing of the agent's own: a command
    the person allowed nothing for (`touch`, also hidden after an allowed `echo`) stays refused."""
    from gitai.sandbox.wrap import domain_available

    if not domain_available():
        pytest.skip("no Landlock domain here: the hook does not wrap")
    s = session(host)
    if host == "claude-code":
        local = s.repo / ".claude" / "settings.local.json"  # gitai's rules are there too
        rules = json.loads(local.read_text())
        local.write_text(json.dumps({"permissions": {"allow": [*rules["permissions"]["allow"], "Bash(echo:*)",
                                                                "Bash(python3:*)"]}}))
    else:
        rules = s.home / ".gemini" / "policies" / "allow-echo.toml"
        rules.parent.mkdir(parents=True, exist_ok=True)
        rules.write_text('[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = ["echo", "python3"]\n'
                         'decision = "allow"\npriority = 500\n')
    configure = s.host.configure

    def default_mode(url: str) -> tuple[list[str], dict[str, str]]:
        argv, env = configure(url)
        return [a for a in argv if a != "--yolo"] if host == "gemini" else \
            [("default" if a == "bypassPermissions" else a) for a in argv], env

    s.host.configure = default_mode  # type: ignore[method-assign]
    s.gitai("select", "INT-001")
    told = s.run([s.host.shell("echo hello-from-the-domain"),
                  s.host.shell("python3 -c \"open('docs/z.md','w')\""),
                  s.host.shell("touch src/auth/touched.py"),
                  s.host.shell("echo hi; touch src/auth/hidden.py")]).tool_results()
    assert "hello-from-the-domain" in told[0], told
    assert "PermissionError" in told[1] and not (s.repo / "docs" / "z.md").exists(), told  # run in the domain
    auth = s.repo / "src" / "auth"
    assert not (auth / "touched.py").exists() and not (auth / "hidden.py").exists(), told


UNTRUSTED_COMMIT = ("printf 'def token():\\n    return 1\\n' > src/auth/token.py && git add src/auth/token.py"
                    " && git commit -q -m 'ungoverned'")


@pytest.mark.parametrize("host", HOSTS)
def test_a_host_that_does_not_run_the_hooks_cannot_commit(tmp_path: Path, host: str) -> None:
    """The hooks installed, the host not told to run them (Claude Code's disableAllHooks, Codex without
    hook approval, Copilot CLI in an untrusted folder, Gemini CLI and Qwen Code in a folder marked
    DO_NOT_TRUST): `agents status` says so, and the agent's commit is refused (HEAD unmoved) by the
    pre-commit hook; Gemini CLI and Qwen Code refuse to work there headless before any commit."""
    s = make_session(host, tmp_path, trusted=False)
    s.gitai("select", "INT-001")  # a person's selection: the scope gate alone would let the commit in
    before = s.head()
    result = s.run([s.host.shell(UNTRUSTED_COMMIT)])
    assert s.head() == before, result.tool_results()
    status = json.loads(s.gitai("agents", "status", host, "--json").stdout)
    assert status[0]["will_run"] is False, status
    assert "installed but will not run" in s.gitai("agents", "status", host).stdout
    if host == "gemini":  # untrusted and headless, Gemini CLI does not start at all
        assert result.returncode != 0 and "trusted" in result.stderr and not result.agent_requests()
        return
    told = result.tool_results()
    if host == "qwen":  # in an untrusted folder Qwen Code approves no tool by itself: --yolo is off there
        assert told and "permission was declined" in told[-1], told
        return
    assert told and "session gitai's hooks never saw" in told[-1], (told, result.stderr[-2000:])


def _codex_hooks_list(s: Session) -> list[dict[str, Any]]:
    """Codex's own view of the project's hooks (`codex app-server`, `hooks/list`), each with its key,
    the hash Codex computes for it and whether it is trusted."""
    import subprocess

    from .harness import NODE_BIN

    requests = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "gitai-test",
                                                                                             "version": "1"}}},
                {"jsonrpc": "2.0", "method": "initialized"},
                {"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [str(s.repo)]}}]
    proc = subprocess.Popen([str(NODE_BIN / "codex"), "app-server"], cwd=s.repo, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env=s.env | {"CODEX_HOME": str(s.home / ".codex")})
    assert proc.stdin and proc.stdout
    proc.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
    proc.stdin.flush()
    try:
        for line in proc.stdout:
            message = json.loads(line)
            if message.get("id") == 2:
                return [h for entry in message["result"]["data"] for h in entry["hooks"]]
        raise AssertionError("codex app-server closed without answering hooks/list")
    finally:
        proc.kill()
        proc.wait()


def test_agents_status_reads_codex_hook_approvals_as_codex_does(tmp_path: Path) -> None:
    """gitai's reading of Codex's hook approvals agrees with Codex's own: unapproved, then approved with the
    hashes Codex itself reports (as its /hooks screen would store them)."""
    s = make_session("codex", tmp_path)
    s.host.configure("http://127.0.0.1:9")  # Codex's user config: the scripted provider, the project trusted
    hooks = _codex_hooks_list(s)
    assert len(hooks) == 4 and {h["trustStatus"] for h in hooks} == {"untrusted"}, hooks
    (row,) = json.loads(s.gitai("agents", "status", "codex", "--json").stdout)
    assert row["will_run"] is False and "4 of gitai's 4 hooks are not approved" in row["trust_detail"]
    config = s.home / ".codex" / "config.toml"
    config.write_text(config.read_text() + "".join(
        f'\n[hooks.state."{h["key"]}"]\ntrusted_hash = "{h["currentHash"]}"\n' for h in hooks))
    assert {h["trustStatus"] for h in _codex_hooks_list(s)} == {"trusted"}
    (row,) = json.loads(s.gitai("agents", "status", "codex", "--json").stdout)
    assert row["will_run"] is True and row["trust"] == "trusted", row
