"""The second way into the kernel domain: the agent hook rewrites a Claude Code Bash command (and a
Gemini CLI shell command) to run inside `gitai exec`, the agent's command kept verbatim after a line
that enters the domain. The wrapped command is run for real, the way each host runs a command (Claude
Code: `eval CMD < /dev/null && pwd -P >| FILE`; Gemini CLI: `( CMD\n)` in its own text), and each test
checks the effect on disk and in git."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from testing.commands import GITAI, git, gitai_ok
from testing.repos import catalogued, head, write
from testing.templates import Templates

from gitai.sandbox.wrap import domain_available, unwrap, wrap

pytestmark = pytest.mark.skipif(not domain_available() and not os.environ.get("CI"),
                                reason="no Landlock domain here: the hook does not wrap")


def hook(repo: Path, event: str, command: str, session: str = "s1", host: str = "claude-code",
         env: dict[str, str | None] | None = None, inside: tuple[str, ...] = (), **extra: object) -> dict[str, object]:
    """The hook's answer; `env` adds to the environment (None: unset); `inside`: the words that start
    it (`gitai run INT -- `: the host is inside that domain)."""
    payload = {"hook_event_name": event, "session_id": session, "cwd": str(repo), "tool_name": "Bash",
               "tool_input": {"command": command, "description": "run"}, **extra}
    proc = subprocess.run([*inside, GITAI, "hook", host], input=json.dumps(payload), capture_output=True, text=True,
                          cwd=repo, env={k: v for k, v in {**os.environ, **(env or {})}.items()
                                         if v is not None})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout) if proc.stdout.strip() else {}


def wrapped(repo: Path, command: str, session: str = "s1", env: dict[str, str | None] | None = None) -> str:
    answer = hook(repo, "PreToolUse", command, session, env=env)
    specific = answer.get("hookSpecificOutput")
    assert isinstance(specific, dict) and "permissionDecision" not in specific, answer
    updated = specific["updatedInput"]
    assert updated["description"] == "run" and unwrap(updated["command"]) == command
    return str(updated["command"])


class Shell:
    """Claude Code's Bash tool, reduced to what matters here: one shell per call, the directory carried over."""

    def __init__(self, repo: Path, tmp: Path) -> None:
        (tmp / "host-tmp").mkdir(exist_ok=True)  # the host's temporary directory: writable in the domain
        self.repo, self.cwd, self.cwd_file = repo, repo, tmp / "host-tmp" / "cwd"

    def run(self, command: str) -> subprocess.CompletedProcess[str]:
        line = f"eval {shlex.quote(command)} < /dev/null && pwd -P >| {shlex.quote(str(self.cwd_file))}"
        proc = subprocess.run(["bash", "-c", line], cwd=self.cwd, capture_output=True, text=True,
                              start_new_session=True)
        if self.cwd_file.exists():
            self.cwd = Path(self.cwd_file.read_text().strip())
        return proc


def governed_repo(repo: Path) -> None:
    catalogued(repo)
    gitai_ok(repo, "hooks", "install")
    write(repo, "src/auth/login.py", "x = 1\n")
    write(repo, "docs/guide.md", "# guide\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "files")
    gitai_ok(repo, "select", "INT-001")


@pytest.fixture
def governed(tmp_path: Path, templates: Templates) -> Path:
    """The test repository, gitai's hooks installed, two files committed, INT-001 selected: built once
    per test process, each test working in its own copy."""
    return templates.make("exec-wrap", tmp_path / "repo", governed_repo)


def test_the_hook_wraps_allowed_shell_commands_only_where_a_domain_can_be_had(governed: Path) -> None:
    command = "ls -la"
    assert unwrap(wrapped(governed, command)) == command
    refused = hook(governed, "PreToolUse", "git commit --no-verify -m x")["hookSpecificOutput"]
    assert refused["permissionDecision"] == "deny" and "updatedInput" not in refused  # type: ignore[operator]
    # on by default; off where the person turned it off where the host starts, the person's Landlock
    # opt-out, an existing domain (`gitai run`), hosts that cannot
    assert unwrap(wrapped(governed, command, env={"GITAI_EXEC_WRAP": None})) == command
    assert hook(governed, "PreToolUse", command, env={"GITAI_EXEC_WRAP": "0"}) == {}
    assert hook(governed, "PreToolUse", command, env={"GITAI_NO_LANDLOCK": "1"}) == {}
    assert hook(governed, "PreToolUse", command, env={"GITAI_DOMAIN": "INT-001"}) == {}
    assert hook(governed, "PreToolUse", command, host="qwen", hook_event_name="PreToolUse",
                tool_name="run_shell_command") == {}


NASTY = [
    ("echo \"it's\" 'a \"b\"' $((6 * 7)) `echo bt` \\$HOME", "it's a \"b\" 42 bt $HOME\n"),
    ("printf '%s|' \"$@\" a\\ b 'c  d' $'e\\tf'", "a b|c  d|e\tf|"),
    ("x=1; f() { echo \"f:$1:$x\"; }; f 'y z'", "f:y z:1\n"),
    ("cat <<'EOF'\n$HOME `x` \\n\nEOF", "$HOME `x` \\n\n"),
    ("echo ünïcødé ☃ | tr -d '\\n'", "ünïcødé ☃"),
]


@pytest.mark.parametrize(("command", "out"), NASTY, ids=range(len(NASTY)))
def test_quoting_survives_the_wrap(governed: Path, tmp_path: Path, command: str, out: str) -> None:
    proc = Shell(governed, tmp_path).run(wrapped(governed, command))
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, out, ""), proc.stderr


def test_exit_status_output_and_the_directory_carry_over(governed: Path, tmp_path: Path) -> None:
    shell = Shell(governed, tmp_path)
    failed = shell.run(wrapped(governed, "echo out; echo err >&2; exit 7"))
    assert (failed.returncode, failed.stdout, failed.stderr) == (7, "out\n", "err\n")
    assert shell.run(wrapped(governed, "false")).returncode == 1
    assert shell.run(wrapped(governed, "cd src/auth")).returncode == 0
    assert shell.cwd == governed / "src" / "auth"
    assert shell.run(wrapped(governed, "pwd; cd ../..; cd docs")).stdout == f"{governed / 'src' / 'auth'}\n"
    assert shell.cwd == governed / "docs"
    state = shell.run(wrapped(governed, "echo \"$GITAI_EXEC_STATE\"; echo $GITAI_DOMAIN"))
    assert state.stdout == "\nINT-001\n"  # the hand-over variable is gone; the domain names its intent


def test_functions_and_aliases_of_the_hosts_shell_reach_the_command(governed: Path, tmp_path: Path) -> None:
    line = ("shopt -s expand_aliases; alias hello='echo hello-alias'; greet() { echo \"greet $1\"; }; "
            f"eval {shlex.quote(wrapped(governed, 'hello; greet you'))}")
    proc = subprocess.run(["bash", "-c", line], cwd=governed, capture_output=True, text=True)
    assert (proc.returncode, proc.stdout) == (0, "hello-alias\ngreet you\n"), proc.stderr


def test_the_kernel_holds_the_scope_for_what_the_hooks_cannot_see(governed: Path, tmp_path: Path) -> None:
    shell = Shell(governed, tmp_path)
    escape = shell.run(wrapped(governed, "python3 -c \"open('docs/x.md','w')\""))
    assert escape.returncode == 1 and "PermissionError" in escape.stderr
    assert not (governed / "docs" / "x.md").exists()
    before = head(governed)
    done = shell.run(wrapped(governed, "printf 'x = 2\\n' > src/auth/login.py && git add src/auth/login.py "
                                       "&& git commit -q -m 'in scope' && echo committed"))
    assert done.stdout == "committed\n", done.stderr
    assert head(governed) != before and (governed / "src/auth/login.py").read_text() == "x = 2\n"
    assert git(governed, "notes", "--ref", "gitai", "list", "HEAD").stdout.strip()
    hooks = governed / ".git" / "hooks" / "pre-commit"
    text = hooks.read_text()
    planted = shell.run(wrapped(governed, "python3 -c \"import subprocess, pathlib; pathlib.Path(subprocess."
                                          "check_output(['git', 'rev-parse', '--git-path', 'hooks/pre-commit'], "
                                          "text=True).strip()).write_text('exit 0')\""))
    assert "Errno 30" in planted.stderr or "Errno 13" in planted.stderr, planted.stderr
    assert hooks.read_text() == text


def test_the_domain_follows_the_sessions_selection(governed: Path, tmp_path: Path) -> None:
    """`gitai select` inside the wrap, reported back after the call as the wrapped line: the hook reads
    the agent's own command out of it, so the session's intent (and its next domain) follows."""
    shell = Shell(governed, tmp_path)
    command = "gitai select INT-003"
    line = wrapped(governed, command)
    assert shell.run(line).returncode == 0
    hook(governed, "PostToolUse", line, tool_response={"stdout": "", "exit_code": 0})
    session = json.loads((governed / ".git/gitai/sessions/claude-code-s1.json").read_text())
    assert session["intent_id"] == "INT-003"
    (governed / "src" / "billing").mkdir()
    billing = shell.run(wrapped(governed, "echo ok > src/billing/a.py && "
                                          "python3 -c \"open('docs/b.md', 'w')\""))
    assert (governed / "src/billing/a.py").read_text() == "ok\n" and not (governed / "docs/b.md").exists()
    assert "Permission denied" in billing.stderr


def test_unwrap_reads_only_what_wrap_made() -> None:
    line = wrap("/usr/bin/gitai", "claude-code-s1", "echo 'a' \"b\"")
    assert line.endswith("; exit; echo 'a' \"b\"") and unwrap(line) == "echo 'a' \"b\""  # verbatim, after the line
    assert unwrap(line + "; rm -rf docs") == "echo 'a' \"b\"; rm -rf docs"  # what the host ran
    assert unwrap("echo hi") is None and unwrap("/bin/gitai exec --again k 0123456789abcdeg; exit; ls") is None
    assert unwrap("/bin/sh exec --again k 0123456789abcdef; exit; ls") is None
    quoted = wrap("/usr/bin/gitai", "claude code's", "echo 'a' \"b\"")  # a word Claude's quoting would change
    assert "exec-in-domain.sh" in quoted and unwrap(quoted) == "echo 'a' \"b\""
    assert unwrap(quoted + "; rm -rf docs") is None


def gemini_text(command: str, tmp: Path) -> str:
    """The shell text Gemini CLI 0.61 runs for a command (seen in the real host): the command raw inside a subshell."""
    return (f"shopt -u promptvars nullglob extglob nocaseglob dotglob; _bgpids_file={tmp}/bgpids.tmp\n(\n"
            f"  trap 'jobs -p > \"$_bgpids_file\"' EXIT\n{command}\n)\n__code=$?\nexit $__code")


def test_the_agents_command_stays_verbatim_and_runs_confined_the_way_gemini_runs_it(governed: Path,
                                                                                    tmp_path: Path) -> None:
    host_tmp = tmp_path / "host-tmp"
    host_tmp.mkdir()
    command = "echo \"it's $((6 * 7))\"; echo err >&2; python3 -c \"open('docs/x.md','w')\"; exit 4"
    line = wrapped(governed, command)
    assert line.endswith("; " + command)  # the host's own rules still see the agent's command
    proc = subprocess.run(["bash", "-c", gemini_text(line, host_tmp)], cwd=governed, capture_output=True, text=True)
    assert (proc.returncode, proc.stdout) == (4, "it's 42\n") and "PermissionError" in proc.stderr, proc.stderr
    assert not (governed / "docs" / "x.md").exists() and (host_tmp / "bgpids.tmp").exists()


def test_a_command_that_is_not_complete_on_its_own_is_refused(governed: Path, tmp_path: Path) -> None:
    """Gemini CLI puts the command raw inside its own `( ... )`: a command that closes that subshell would
    run its tail after the line entering the domain, outside it. The hook refuses any command bash does not
    parse on its own; the escape, run the way Gemini would have run it, shows what is at stake."""
    escape = "true\n) ; python3 -c \"open('docs/escaped.md','w')\" ; (\n:"
    for command in (escape, "echo 'unclosed", "cat <<EOF\nno end", "echo a )"):
        refused = hook(governed, "BeforeTool", command, host="gemini", tool_name="run_shell_command")
        assert refused["decision"] == "deny" and "not a complete shell command" in str(refused["reason"]), refused
    host_tmp = tmp_path / "host-tmp"
    host_tmp.mkdir()
    line = wrap(GITAI, "gemini-s1", escape)
    subprocess.run(["bash", "-c", gemini_text(line, host_tmp)], cwd=governed, capture_output=True, text=True)
    assert (governed / "docs" / "escaped.md").exists()  # why the hook must refuse it
    (governed / "docs" / "escaped.md").unlink()


def test_inside_claude_codes_eval_a_command_bash_cannot_parse_is_wrapped_and_runs_nothing_outside(
        governed: Path, tmp_path: Path) -> None:
    """Claude Code hands the command to `eval '...'`, which parses a line before it runs any of it: the
    Gemini escape above runs nothing there, so the hook wraps such a command rather than refuse it, and a
    zsh user's own syntax (`for f (...)`, which bash does not parse) reaches zsh."""
    def line(command: str, env: dict[str, str | None] | None = None) -> str:
        specific = hook(governed, "PreToolUse", command, env=env)["hookSpecificOutput"]
        assert isinstance(specific, dict) and specific.get("permissionDecision") != "deny", specific
        wrapped_line = specific["updatedInput"]["command"]  # asked or allowed, it runs in the domain
        assert unwrap(wrapped_line) == command
        return str(wrapped_line)

    escape = "true\n) ; python3 -c \"open('docs/escaped.md','w')\" ; (\n:"
    Shell(governed, tmp_path).run(line(escape))
    assert not (governed / "docs" / "escaped.md").exists()
    line("for f (src/auth/*.py) echo $f", env={"SHELL": "/usr/bin/zsh"})


def test_nothing_the_agent_plants_lets_its_command_run_outside_the_domain(governed: Path, tmp_path: Path) -> None:
    """No variable and no file says "already inside": the line entering the domain always enters it (or
    refuses), and only the copy of the host's text run inside lacks it. Variables a process inside a domain
    carries, a forged entering line inside the command, a host text holding the line twice, a shell that runs
    no command string, arguments the line never has: the out-of-scope write never happens, a refused command
    never runs, and the `exit` after the line always ends the host's shell."""
    shell = Shell(governed, tmp_path)
    write_docs = "python3 -c \"open('docs/x.md','w')\""
    forged = f"{wrap(GITAI, 'claude-code-s1', '').split('; ')[0][:-16]}0000000000000000; {write_docs}"
    spoofed = {**os.environ, "GITAI_DOMAIN": "INT-001", "GITAI_EXEC_STATE": str(tmp_path), "SHLVL": "5"}
    for command in (write_docs, forged, f"export GITAI_DOMAIN=INT-001; {write_docs}"):
        specific = hook(governed, "PreToolUse", command)["hookSpecificOutput"]
        line = f"eval {shlex.quote(specific['updatedInput']['command'])} < /dev/null"  # type: ignore[index]
        proc = subprocess.run(["bash", "-c", line], cwd=governed, capture_output=True, text=True, env=spoofed)
        assert "PermissionError" in proc.stderr and not (governed / "docs" / "x.md").exists(), proc.stderr
    ran = "echo ran > src/auth/ran.txt"  # in scope: had it run at all, the file would be there
    line = wrapped(governed, ran)
    script = tmp_path / "host.sh"
    script.write_text(line + "\n")
    bad_arguments = line.replace(" --again ", " --again x ", 1)
    for argv in (["bash", str(script)], ["bash", "-c", f"eval \"$(cat {script})\""], ["bash", "-c", f"{line}; {line}"],
                 ["bash", "-c", f"{line} # {line.split(';')[0]}"], ["bash", "-c", bad_arguments]):
        proc = subprocess.run(argv, cwd=governed, capture_output=True, text=True)
        assert proc.returncode == 126 and "gitai: " in proc.stderr, (argv, proc.stderr)
        assert not (governed / "src" / "auth" / "ran.txt").exists(), argv
    assert shell.run(line).returncode == 0 and (governed / "src" / "auth" / "ran.txt").read_text() == "ran\n"


@pytest.mark.parametrize("program", ["sh", "bash", "zsh"])
def test_the_line_runs_the_hosts_shell_again_whatever_shell_it_is(governed: Path, program: str) -> None:
    """The line reads the host shell's command string from the kernel (/proc), not from the shell: sh and
    zsh run the agent's command inside the domain as bash does, with the command's own exit status."""
    import shutil

    if not shutil.which(program):
        (pytest.fail if os.environ.get("CI") else pytest.skip)(f"no {program} here (make provision installs it)")
    command = "echo ran > src/auth/ran.txt; python3 -c \"open('docs/x.md','w')\"; exit 5"
    proc = subprocess.run([program, "-c", f"eval {shlex.quote(wrapped(governed, command))} && echo after"],
                          cwd=governed, capture_output=True, text=True)
    assert proc.returncode == 5 and "PermissionError" in proc.stderr and "after" not in proc.stdout, proc
    assert (governed / "src" / "auth" / "ran.txt").read_text() == "ran\n" and not (governed / "docs" / "x.md").exists()


def test_where_no_mounts_can_be_made_a_commit_is_left_to_the_hooks(governed: Path) -> None:
    """Without read-only mounts a domain cannot write git's index, so a command that commits is not
    wrapped there (docs/security.md says what that leaves open); every other command still is. The hook
    runs inside a Landlock domain of its own that allows every write: no mount can be made in it."""
    confined = ("import os, sys\nfrom gitai.sandbox.landlock import restrict\nrestrict(['/'], [])\n"
                "os.execvp(sys.argv[1], sys.argv[1:])")

    def answer(command: str) -> dict[str, object]:
        payload = {"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": str(governed), "tool_name": "Bash",
                   "tool_input": {"command": command}}
        proc = subprocess.run([sys.executable, "-c", confined, GITAI, "hook", "claude-code"], input=json.dumps(payload),
                              capture_output=True, text=True, cwd=governed)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout) if proc.stdout.strip() else {}

    assert answer("git add -A && git commit -q -m x") == {}
    assert "updatedInput" in answer("ls")["hookSpecificOutput"]  # type: ignore[operator]
    assert "updatedInput" in hook(governed, "PreToolUse", "git commit -q -m x")["hookSpecificOutput"]  # type: ignore[operator]


def test_gemini_cli_gets_the_wrap_as_its_tool_input_and_its_after_hook_reads_the_agents_command(
        governed: Path, tmp_path: Path) -> None:
    """Gemini CLI's BeforeTool answer carries the wrapped command in `hookSpecificOutput.tool_input`
    (every argument: Gemini rebuilds the tool from it); its AfterTool payload reports the wrapped line, from which the
    hook reads the agent's own `gitai select`."""
    def gemini(event: str, command: str, **extra: object) -> dict[str, object]:
        return hook(governed, event, command, host="gemini", tool_name="run_shell_command", **extra)

    specific = gemini("BeforeTool", "gitai select INT-003")["hookSpecificOutput"]
    assert isinstance(specific, dict) and set(specific) == {"hookEventName", "tool_input"}, specific
    line = specific["tool_input"]["command"]
    assert specific["tool_input"]["description"] == "run" and unwrap(line) == "gitai select INT-003"
    assert Shell(governed, tmp_path).run(line).returncode == 0
    assert gemini("AfterTool", line, tool_response={"llmContent": "", "returnDisplay": ""}) == {}
    session = json.loads((governed / ".git/gitai/sessions/gemini-s1.json").read_text())
    assert session["intent_id"] == "INT-003"
    assert gemini("BeforeTool", "git commit --no-verify -m x")["decision"] == "deny"


def test_the_projects_mcp_server_list_is_out_of_the_agents_reach(governed: Path, tmp_path: Path) -> None:
    """`.mcp.json` names programs the host starts outside any domain: the hook refuses the agent's Write
    and redirect, and where the scope reaches the repository's root (INT-002 owns `README.md`, at any
    depth) a program the hooks cannot see into cannot rewrite it inside the domain either. Untouched."""
    mcp = governed / ".mcp.json"
    mcp.write_text('{"mcpServers": {}}\n')
    write(governed, "README.md", "# project\n")
    git(governed, "add", ".mcp.json", "README.md")
    git(governed, "commit", "-q", "--no-verify", "-m", "a person's MCP list")
    gitai_ok(governed, "select", "INT-002")
    payload = {"hook_event_name": "PreToolUse", "session_id": "mcp", "cwd": str(governed), "tool_name": "Write",
               "tool_input": {"file_path": str(mcp), "content": '{"mcpServers": {"x": {"command": "sh"}}}'}}
    proc = subprocess.run([GITAI, "hook", "claude-code"], input=json.dumps(payload), capture_output=True, text=True,
                          cwd=governed)
    refused = json.loads(proc.stdout)["hookSpecificOutput"]
    assert refused["permissionDecision"] == "deny" and ".mcp.json" in refused["permissionDecisionReason"], refused
    assert hook(governed, "PreToolUse", "echo '{}' > .mcp.json", session="mcp")["hookSpecificOutput"][  # type: ignore[index]
        "permissionDecision"] == "deny"
    plant = ("python3 -c \"open('.mcp.json', 'w').write('{}')\"; echo '# readme' > README.md")
    proc = Shell(governed, tmp_path).run(wrapped(governed, plant, session="mcp"))
    assert "PermissionError" in proc.stderr and (governed / "README.md").read_text() == "# readme\n", proc.stderr
    assert mcp.read_text() == '{"mcpServers": {}}\n'


def test_install_writes_allow_rules_for_the_line_only_and_uninstall_removes_only_them(
        governed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rules that let the line before each wrapped command run in the hosts' default modes: they name
    the line's two parts (`GITAI exec --again`, `exit`), never the agent's command; a person's own rules stay."""
    from gitai.agents.install import install_host, uninstall_host
    from gitai.agents.wrap_rules import claude_rules

    monkeypatch.setenv("HOME", str(tmp_path))
    local = governed / ".claude" / "settings.local.json"
    write(governed, ".claude/settings.local.json", json.dumps({"permissions": {"allow": ["Bash(ls:*)"]}}))
    for host in ("claude-code", "gemini"):
        assert install_host(host, str(governed))[1] and not install_host(host, str(governed))[1]
    assert claude_rules() == [f"Bash({GITAI} exec --again:*)", "Bash(exit)"]
    assert json.loads(local.read_text())["permissions"]["allow"] == ["Bash(ls:*)", *claude_rules()]
    assert git(governed, "check-ignore", "-q", ".claude/settings.local.json").returncode == 0  # this machine's
    policy = (tmp_path / ".gemini" / "policies" / "gitai.toml").read_text()
    assert f'commandPrefix = "{GITAI} exec --again"' in policy and 'commandPrefix = "exit"' in policy
    assert policy.count("[[rule]]") == 2 and 'decision = "allow"' in policy
    for host in ("claude-code", "gemini"):
        uninstall_host(host, str(governed))
    assert json.loads(local.read_text()) == {"permissions": {"allow": ["Bash(ls:*)"]}}
    assert not (tmp_path / ".gemini" / "policies" / "gitai.toml").exists()


# What Gemini CLI 0.61's shell sets for every command (its shellExecutionService, seen in the real host):
# git's user and system config turned off, then eight overrides, an empty core.hooksPath among them.
GEMINI_OVERRIDES = (("credential.helper", ""), ("core.fsmonitor", ""), ("core.hooksPath", ""),
                    ("core.sshCommand", ""), ("core.pager", "cat"), ("core.editor", ""), ("sequence.editor", ""),
                    ("diff.external", ""))


def gemini_shell_env() -> dict[str, str]:
    env = {**os.environ, "GEMINI_CLI": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_SYSTEM": "/dev/null",
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_COUNT": str(len(GEMINI_OVERRIDES))}
    for index, (key, value) in enumerate(GEMINI_OVERRIDES):
        env[f"GIT_CONFIG_KEY_{index}"], env[f"GIT_CONFIG_VALUE_{index}"] = key, value
    return env


def gemini_call(repo: Path, tmp: Path, command: str, env: dict[str, str | None] | None = None,
                inside: tuple[str, ...] = ()) -> str:
    """One Gemini CLI shell call: BeforeTool, the (wrapped) command run in Gemini's shell text and
    environment, AfterTool. `inside`: the words that start the host (`gitai run INT -- gemini`), which
    starts each hook and each shell with Gemini's variables added. Returns the command line that ran."""
    def gemini(event: str, line: str, **extra: object) -> dict[str, object]:
        return hook(repo, event, line, host="gemini", tool_name="run_shell_command", env=env, inside=inside, **extra)

    specific = gemini("BeforeTool", command).get("hookSpecificOutput")
    line = specific["tool_input"]["command"] if isinstance(specific, dict) else command  # type: ignore[index]
    (tmp / "host-tmp").mkdir(exist_ok=True)
    text = gemini_text(line, tmp / "host-tmp")
    if inside:
        added = [f"{k}={v}" for k, v in gemini_shell_env().items() if os.environ.get(k) != v]
        proc = subprocess.run([*inside, "env", *added, "bash", "-c", text], cwd=repo, capture_output=True, text=True)
    else:
        proc = subprocess.run(["bash", "-c", text], cwd=repo, env=gemini_shell_env(), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    gemini("AfterTool", line, tool_response={"llmContent": proc.stdout, "returnDisplay": ""})
    return str(line)


def test_a_gemini_commit_inside_the_wrap_gets_its_trailer_and_no_other_hook_runs(governed: Path,
                                                                                 tmp_path: Path) -> None:
    """Gemini CLI's shell turns every git hook off (an empty core.hooksPath). Inside the wrap git runs
    gitai's own commit-msg hook and nothing else: the trailer is there, the repository's other hooks (a
    person's, chained behind gitai's) still do not run, and the commit is recorded once, by the after-shell
    hook. Without the wrap (GITAI_EXEC_WRAP=0) the same commit has no trailer; a person's commit runs them all."""
    ran = tmp_path / "ran"
    ran.mkdir()
    for name in ("pre-commit", "commit-msg", "post-commit"):
        chained = governed / ".git" / "hooks" / f"{name}.gitai-chained"
        chained.write_text(f"#!/bin/sh\ntouch {ran}/{name}\n")
        chained.chmod(0o755)
    write(governed, "src/auth/token.py", "def token():\n    return 'jwt'\n")
    line = gemini_call(governed, tmp_path, "git add src/auth/token.py && git commit -q -m 'Add the token helper'")
    assert unwrap(line)  # it ran inside the wrap
    assert git(governed, "log", "-1", "--format=%B").stdout.strip() == "Add the token helper\n\nIntent: INT-001"
    assert sorted(os.listdir(ran)) == []
    commit = head(governed)
    ledger = (governed / ".orchestration" / "agent_trace.jsonl").read_text().splitlines()
    assert sum(commit in entry for entry in ledger) == 1  # recorded once
    shown = json.loads(gitai_ok(governed, "show", "--json", commit).stdout)
    assert (shown[0] if isinstance(shown, list) else shown)["metadata"]["dev.gitai"]["intent_id"] == "INT-001"

    write(governed, "src/auth/token.py", "def token():\n    return 'jwt2'\n")
    line = gemini_call(governed, tmp_path, "git commit -q -am 'Unwrapped'", env={"GITAI_EXEC_WRAP": "0"})
    assert unwrap(line) is None
    assert git(governed, "log", "-1", "--format=%B").stdout.strip() == "Unwrapped"
    assert sorted(os.listdir(ran)) == [] and git(governed, "notes", "--ref", "gitai", "list", "HEAD").stdout.strip()

    write(governed, "src/auth/token.py", "def token():\n    return 'jwt3'\n")
    git(governed, "commit", "-q", "-am", "A person's")
    assert sorted(os.listdir(ran)) == ["commit-msg", "post-commit", "pre-commit"]
    assert "Intent: INT-001" in git(governed, "log", "-1", "--format=%B").stdout


@pytest.mark.parametrize("commit", ["GITAI_INTENT=INT-002 git commit -q -m Add",
                                    "git commit -q -m 'Add' -m 'Intent: INT-002'",
                                    "GITAI_INTENT=INT-004 git commit -q -m Add"])
def test_a_gemini_commit_cannot_name_an_intent_its_paths_never_passed_the_gate_under(
        governed: Path, tmp_path: Path, commit: str) -> None:
    """Inside the wrap the intent the trailer names may come from the agent's own command (GITAI_INTENT
    or the message); gitai's own commit-msg hook runs the pre-commit gate under it: a commit of
    src/auth/ under INT-002 (docs only) or INT-004 (DONE) is refused, HEAD stays, nothing is recorded."""
    before, notes = head(governed), git(governed, "notes", "--ref", "gitai", "list").stdout
    ledger = governed / ".orchestration" / "agent_trace.jsonl"
    recorded = ledger.read_text() if ledger.exists() else ""
    write(governed, "src/auth/token.py", "def token():\n    return 'jwt'\n")
    line = gemini_call(governed, tmp_path, f"git add src/auth/token.py && {commit}; echo status=$? >&2")
    assert unwrap(line)  # it ran inside the wrap
    assert head(governed) == before
    assert git(governed, "notes", "--ref", "gitai", "list").stdout == notes
    assert (ledger.read_text() if ledger.exists() else "") == recorded


def test_gitais_own_hooks_are_out_of_the_agents_reach_inside_the_domain(governed: Path, tmp_path: Path) -> None:
    """git runs what is in gitai's own hooks directory inside the domain: the agent can neither change
    its commit-msg hook nor add another hook there."""
    own = governed / ".git" / "gitai" / "hooks"
    text = (own / "commit-msg").read_text()
    plant = ("python3 -c \"open('.git/gitai/hooks/commit-msg', 'w').write('exit 0')\"; "
             "python3 -c \"open('.git/gitai/hooks/pre-commit', 'w').write('exit 0')\"; true")
    gemini_call(governed, tmp_path, plant)
    assert (own / "commit-msg").read_text() == text and sorted(os.listdir(own)) == ["commit-msg"]


def test_only_where_the_environment_turns_hooks_off_do_gitais_own_hooks_run(governed: Path) -> None:
    """The wrap adds its core.hooksPath only where the command's environment ends with an empty one
    (Gemini CLI's shell, or any host a person started so); a person's hooksPath is left alone."""
    from gitai.layout import find_layout
    from gitai.sandbox.enter import hooks_turned_off, own_hooks_where_hooks_are_off

    layout = find_layout(str(governed))
    gemini = {k: v for k, v in gemini_shell_env().items() if k.startswith("GIT_CONFIG")}
    env = dict(gemini)
    own_hooks_where_hooks_are_off(layout, env)
    assert env == {**gemini, "GIT_CONFIG_COUNT": "9", "GIT_CONFIG_KEY_8": "core.hooksPath",
                   "GIT_CONFIG_VALUE_8": layout.own_hooks_dir}
    hooks = git(governed, "rev-parse", "--path-format=absolute", "--git-path", "hooks", env={**os.environ, **env})
    assert hooks.stdout.strip() == layout.own_hooks_dir
    status = json.loads(gitai_ok(governed, "hooks", "status", "--json", env=env).stdout)  # gitai inside the wrap
    assert status["hooks_dir"] == str(governed / ".git" / "hooks")  # still names the repository's own hooks
    persons = {**gemini, "GIT_CONFIG_COUNT": "9", "GIT_CONFIG_KEY_8": "Core.HooksPath", "GIT_CONFIG_VALUE_8": "/x"}
    for environ in (persons, {}, {**gemini, "GIT_CONFIG_COUNT": "2"}):
        env = dict(environ)
        own_hooks_where_hooks_are_off(layout, env)
        assert env == environ
    assert hooks_turned_off({**persons, "GIT_CONFIG_VALUE_8": ""}) == 9
    own = Path(layout.own_hooks_dir) / "commit-msg"
    own.write_text(own.read_text().replace("\nown_hooks='1'\n", "\n"))  # an older gitai's: no gate in it
    env = dict(gemini)
    own_hooks_where_hooks_are_off(layout, env)
    assert env == gemini
    assert hooks_turned_off({"GIT_CONFIG_COUNT": "x"}) is None


PERSONS_NO_HOOKS = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.hooksPath", "GIT_CONFIG_VALUE_0": ""}


def chain_persons_hooks(repo: Path, ran: Path) -> None:
    """A person's own pre-commit, commit-msg and post-commit hooks (chained behind gitai's), each
    leaving a file in `ran` when it runs."""
    ran.mkdir()
    for name in ("pre-commit", "commit-msg", "post-commit"):
        chained = repo / ".git" / "hooks" / f"{name}.gitai-chained"
        chained.write_text(f"#!/bin/sh\ntouch {ran}/{name}\n")
        chained.chmod(0o755)


def fake_host(tmp: Path, name: str) -> str:
    """A program named as a host is (`gemini`) that runs its arguments: `gitai run` knows the host by it."""
    program = tmp / "bin" / name
    program.parent.mkdir(exist_ok=True)
    program.write_text('#!/bin/sh\nexec "$@"\n')
    program.chmod(0o755)
    return str(program)


def test_inside_gitai_run_a_gemini_commit_gets_its_trailer_and_the_gate_and_no_other_hook_runs(
        governed: Path, tmp_path: Path) -> None:
    """Inside `gitai run` the host itself is in the kernel domain, so its hook wraps no command in `gitai
    exec`; `gitai run` knows Gemini CLI by its program and points git at gitai's own commit-msg hook for
    the whole session, past the empty core.hooksPath Gemini's shell adds: the trailer, recorded once by
    the after-shell hook, the person's hooks still off; a commit naming another intent is refused by
    that hook's gate. Another host, whose shell runs git's hooks, is left as it is."""
    ran = tmp_path / "ran"
    chain_persons_hooks(governed, ran)
    inside = (GITAI, "run", "INT-001", "--", fake_host(tmp_path, "gemini"))
    write(governed, "src/auth/token.py", "def token():\n    return 'jwt'\n")
    line = gemini_call(governed, tmp_path, "git add src/auth/token.py && git commit -q -m 'Add the token helper'",
                       inside=inside)
    assert unwrap(line) is None  # no second domain
    assert git(governed, "log", "-1", "--format=%B").stdout.strip() == "Add the token helper\n\nIntent: INT-001"
    assert sorted(os.listdir(ran)) == []
    commit = head(governed)
    ledger = (governed / ".orchestration" / "agent_trace.jsonl").read_text().splitlines()
    assert sum(commit in entry for entry in ledger) == 1

    notes = git(governed, "notes", "--ref", "gitai", "list").stdout
    write(governed, "src/auth/token.py", "def token():\n    return 'jwt2'\n")
    gemini_call(governed, tmp_path, "GITAI_INTENT=INT-002 git commit -q -am Other; true", inside=inside)
    assert head(governed) == commit and git(governed, "notes", "--ref", "gitai", "list").stdout == notes

    claude = (GITAI, "run", "INT-001", "--", fake_host(tmp_path, "claude"))
    shown = subprocess.run([*claude, "env"], cwd=governed, capture_output=True, text=True).stdout
    assert "GIT_CONFIG_PARAMETERS" not in shown and "GITAI_DOMAIN=INT-001" in shown


def test_gitai_run_points_git_at_its_own_hooks_only_where_the_hosts_shell_runs_none(governed: Path) -> None:
    from gitai.layout import find_layout
    from gitai.sandbox.enter import own_hooks_for_the_host

    layout = find_layout(str(governed))
    ours = f"'core.hooksPath={layout.own_hooks_dir}'"
    for command, environ, added in ((["/opt/bin/gemini", "-p", "x"], {}, ours),
                                    (["node", "/opt/gemini", "-p"], {"GIT_CONFIG_PARAMETERS": "'a.b=c'"},
                                     f"'a.b=c' {ours}"),
                                    (["claude"], PERSONS_NO_HOOKS, ours), (["claude"], {}, None),
                                    (["bash"], {}, None), (["codex"], {**PERSONS_NO_HOOKS, "GIT_CONFIG_VALUE_0": "/x"},
                                                           None)):
        env = dict(environ)
        own_hooks_for_the_host(layout, command, env)
        assert env.get("GIT_CONFIG_PARAMETERS") == (added or environ.get("GIT_CONFIG_PARAMETERS")), command
    env = {k: v for k, v in gemini_shell_env().items() if k.startswith("GIT_CONFIG")}
    own_hooks_for_the_host(layout, ["gemini"], env)
    hooks = git(governed, "rev-parse", "--path-format=absolute", "--git-path", "hooks", env={**os.environ, **env})
    assert hooks.stdout.strip() == layout.own_hooks_dir  # after Gemini's empty one, it wins


def test_a_host_started_with_hooks_off_still_gets_the_gate_the_trailer_and_the_record(governed: Path,
                                                                                    tmp_path: Path) -> None:
    """A person (or an agent) exports an empty core.hooksPath before starting Claude Code, whose shell
    otherwise runs git's hooks: its hooks and shell share that environment. The before-shell hook runs
    the pre-commit gate's scope check itself (an out-of-scope commit is refused, HEAD stays), the wrap
    points git at gitai's own commit-msg hook (the trailer; the person's hooks stay off), and the
    after-shell hook records the commit. Unwrapped (GITAI_EXEC_WRAP=0, as on a host that cannot be
    wrapped) the commit is still recorded, without a trailer."""
    ran = tmp_path / "ran"
    chain_persons_hooks(governed, ran)
    env = {**os.environ, **PERSONS_NO_HOOKS}
    before = head(governed)
    write(governed, "docs/guide.md", "# changed\n")
    refused = hook(governed, "PreToolUse", "git commit -q -am 'Out of scope'", env=dict(PERSONS_NO_HOOKS))
    assert refused["hookSpecificOutput"]["permissionDecision"] == "deny", refused  # type: ignore[index]
    git(governed, "checkout", "-q", "--", "docs/guide.md")

    def commit(message: str, wrap_env: dict[str, str | None]) -> str:
        command = f"git add src/auth/token.py && git commit -q -m '{message}'"
        answer = hook(governed, "PreToolUse", command, env={**PERSONS_NO_HOOKS, **wrap_env})
        specific = answer.get("hookSpecificOutput")
        line = specific.get("updatedInput", {}).get("command", command) if isinstance(specific, dict) else command
        proc = subprocess.run(["bash", "-c", line], cwd=governed, env=env, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        hook(governed, "PostToolUse", line, env={**PERSONS_NO_HOOKS, **wrap_env},
             tool_response={"stdout": proc.stdout, "stderr": proc.stderr})
        return str(line)

    write(governed, "src/auth/token.py", "def token():\n    return 'jwt'\n")
    assert unwrap(commit("Add the token helper", {}))
    assert head(governed) != before
    assert git(governed, "log", "-1", "--format=%B").stdout.strip() == "Add the token helper\n\nIntent: INT-001"
    assert sorted(os.listdir(ran)) == []
    ledger = (governed / ".orchestration" / "agent_trace.jsonl").read_text().splitlines()
    assert sum(head(governed) in entry for entry in ledger) == 1

    write(governed, "src/auth/token.py", "def token():\n    return 'jwt2'\n")
    assert unwrap(commit("Unwrapped", {"GITAI_EXEC_WRAP": "0"})) is None
    assert git(governed, "log", "-1", "--format=%B").stdout.strip() == "Unwrapped"
    assert sorted(os.listdir(ran)) == [] and git(governed, "notes", "--ref", "gitai", "list", "HEAD").stdout.strip()
