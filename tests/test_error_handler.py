"""The one error handler (gitai/errors.py) keeps each entry point's contract, run for real: a gitai command,
the pre-commit hook through `git commit`, and `gitai hook` as a host runs it. The failures are real too: a
file system that refuses (a directory where the policy cache goes) and a bug (a cache whose pattern is not
a regular expression, which only a bug in gitai could write)."""

from __future__ import annotations

import json
import marshal
import os
import select
import signal
import subprocess
from pathlib import Path

import pytest
from testing.commands import GITAI, git, gitai, gitai_ok
from testing.repos import head, write

CACHE = Path(".git/gitai/policy-cache.marshal")
CHECK = ("--intent", "INT-001", "src/auth/a.py")  # a command that reads the policy cache


def _break_the_cache(repo: Path) -> None:
    """A policy cache gitai itself reads as valid, holding a pattern that is not a regular expression."""
    gitai_ok(repo, "check", *CHECK)  # writes the cache
    cached = marshal.loads((repo / CACHE).read_bytes())
    cached["intents"][0]["patterns"] = [("(", True)]
    (repo / CACHE).write_bytes(marshal.dumps(cached))


def _one_error_line(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gitai: error: "), stderr
    return lines[0]


def test_a_command_reports_the_file_system_in_one_line_and_exit_2(repo: Path) -> None:
    (repo / CACHE).unlink(missing_ok=True)
    (repo / CACHE).mkdir(parents=True)
    proc = gitai(repo, "check", *CHECK)
    assert proc.returncode == 2 and proc.stdout == ""
    assert _one_error_line(proc.stderr) == f"gitai: error: cannot use {CACHE}: Is a directory"
    assert not (repo / ".git/gitai/errors.log").exists()  # not a bug: nothing logged


def test_a_bug_in_a_command_is_exit_3_one_line_and_a_logged_traceback(repo: Path) -> None:
    _break_the_cache(repo)
    proc = gitai(repo, "check", *CHECK)
    assert proc.returncode == 3 and proc.stdout == ""
    line = _one_error_line(proc.stderr)
    assert line.startswith(f"gitai: error: internal error in gitai check {' '.join(CHECK)}: ")
    assert line.endswith(f"(traceback in {repo / '.git/gitai/errors.log'})")
    assert "Traceback" in (repo / ".git/gitai/errors.log").read_text()


def test_the_pre_commit_hook_stops_the_commit_on_a_bug_and_on_the_file_system(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/a.py", "a = 1\n")
    git(repo, "add", "-A")
    before = head(repo)
    _break_the_cache(repo)
    proc = git(repo, "commit", "-q", "-m", "a bug in the gate", check=False)
    assert proc.returncode != 0 and head(repo) == before and proc.stdout == ""
    assert _one_error_line(proc.stderr).startswith("gitai: error: internal error in pre-commit hook: ")
    (repo / CACHE).unlink()
    (repo / CACHE).mkdir()
    proc = git(repo, "commit", "-q", "-m", "a directory where the cache goes", check=False)
    assert proc.returncode != 0 and head(repo) == before
    assert _one_error_line(proc.stderr) == f"gitai: error: cannot use {CACHE}: Is a directory"


def test_an_agent_hook_denies_on_a_bug(repo: Path) -> None:
    gitai_ok(repo, "select", "INT-001")
    _break_the_cache(repo)
    target = repo / "src/auth/new.py"
    payload = {"session_id": "s", "cwd": str(repo), "hook_event_name": "PreToolUse", "tool_name": "Write",
               "tool_input": {"file_path": str(target), "content": "x = 1\n"}}
    for host in ("claude-code", "gemini"):  # exit 2 with the reason on stderr; the deny JSON
        proc = subprocess.run([GITAI, "hook", host], cwd=repo, input=json.dumps(payload), capture_output=True,
                              text=True)
        told = proc.stderr if proc.returncode == 2 else json.loads(proc.stdout)["decision"] + proc.stdout
        assert "Traceback" not in proc.stdout + proc.stderr
        assert (proc.returncode == 2 or '"deny"' in proc.stdout) and "internal error in gitai hook" in told, proc
        assert "GITAI_HOOKS=off" in told
    assert not target.exists()


# Before-write payloads that gitai refuses (the repository's session has no intent selected), per host.
UNSELECTED_WRITES: dict[str, tuple[list[str], dict[str, object]]] = {
    "claude-code": ([], {"hook_event_name": "PreToolUse", "tool_name": "Write",
                         "tool_input": {"file_path": "src/auth/new.py", "content": "x = 1\n"}}),
    "gemini": ([], {"hook_event_name": "BeforeTool", "tool_name": "write_file",
                    "tool_input": {"file_path": "src/auth/new.py", "content": "x = 1\n"}}),
    "copilot": (["preToolUse"], {"toolName": "create",
                                 "toolArgs": json.dumps({"path": "src/auth/new.py", "file_text": "x = 1\n"})}),
}


def _refused_as_the_host_reads_it(host: str, proc: subprocess.CompletedProcess[str]) -> bool:
    """The host's deny JSON with exit 0, or exit 2 with a reason on stderr (Copilot CLI: any non-zero
    exit); exit 1 lets the call through on most hosts."""
    if proc.returncode == 0:
        return '"deny"' in proc.stdout
    return (proc.returncode == 2 and proc.stderr.startswith("gitai: refused: ")) or host == "copilot"


@pytest.mark.parametrize("host", list(UNSELECTED_WRITES))
@pytest.mark.parametrize("closed", ["stderr", "stdout", "stdout-reader", "stdin"])
def test_an_agent_hook_refuses_where_the_host_started_it_with_a_stream_closed(
        repo: Path, host: str, closed: str) -> None:
    """A stream closed when the hook starts is None in Python, and a reader gone makes a write fail (EPIPE):
    neither may turn the refusal into exit 1. An answer that cannot be written is exit 2 with the reason on
    stderr; a payload that cannot be read is refused as an unreadable one."""
    args, payload = UNSELECTED_WRITES[host]
    payload = {**payload, "session_id": "s", "cwd": str(repo)}
    stdout = subprocess.PIPE
    if closed == "stdout-reader":
        reader, stdout = os.pipe()
        os.close(reader)
    fd = {"stdin": 0, "stdout": 1, "stderr": 2}.get(closed, -1)
    proc = subprocess.Popen([GITAI, "hook", host, *args], cwd=repo, text=True, stdin=subprocess.PIPE, stdout=stdout,
                            stderr=subprocess.PIPE, preexec_fn=(lambda: os.close(fd)) if fd >= 0 else None)
    out, err = proc.communicate(None if closed == "stdin" else json.dumps(payload), timeout=60)
    if stdout != subprocess.PIPE:
        os.close(stdout)
    done = subprocess.CompletedProcess(proc.args, proc.returncode, out or "", err or "")
    assert "Traceback" not in done.stdout + done.stderr
    assert _refused_as_the_host_reads_it(host, done), done
    if closed in ("stdout", "stdout-reader"):
        assert (done.returncode, done.stderr) == (2, "gitai: refused: the hook's answer could not be written "
                                                      "to its standard output (fail closed).\n")
    if closed == "stderr":
        assert done.returncode == 0 and json.loads(done.stdout)
    assert not (repo / "src/auth/new.py").exists()


def test_gitai_exec_answers_as_every_command_and_never_starts_the_command(repo: Path) -> None:
    """`gitai exec` has its own lean entry (gitai/sandbox/enter.py), not the click CLI: the same contract."""
    ran = repo / "ran"
    exec_ = ("exec", "--session", "claude-code-s", "--", "touch", str(ran))
    selected = {"GITAI_INTENT": "INT-001"}
    _break_the_cache(repo)
    proc = gitai(repo, *exec_, env=selected)
    assert proc.returncode == 3 and proc.stdout == "" and not ran.exists()
    line = _one_error_line(proc.stderr)
    assert line.startswith("gitai: error: internal error in gitai exec: ")
    assert line.endswith(f"(traceback in {repo / '.git/gitai/errors.log'})")
    assert "Traceback" in (repo / ".git/gitai/errors.log").read_text()
    (repo / CACHE).unlink()
    (repo / CACHE).mkdir()
    proc = gitai(repo, *exec_, env=selected)
    assert proc.returncode == 2 and proc.stdout == "" and not ran.exists()
    assert _one_error_line(proc.stderr) == f"gitai: error: cannot use {CACHE}: Is a directory"
    (repo / CACHE).rmdir()
    proc = gitai(repo, "exec", "--session", "claude-code-s", "--", "no-such-program", env=selected)
    assert proc.returncode == 2 and proc.stdout == ""
    assert _one_error_line(proc.stderr) == "gitai: error: cannot run no-such-program: No such file or directory"


def test_ctrl_c_at_a_prompt_is_exit_130(repo: Path) -> None:
    master, slave = os.openpty()
    name = os.ttyname(slave)
    try:
        proc = subprocess.Popen([GITAI, "approve", "INT-001"], cwd=repo, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                                preexec_fn=lambda: os.close(os.open(name, os.O_RDWR)))
        shown = b""
        while b"to confirm" not in shown:  # the person-only prompt, on the terminal
            assert select.select([master], [], [], 60)[0], shown  # a guard against a hang, not a timing
            shown += os.read(master, 1024)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        os.close(master)
        os.close(slave)
    assert proc.returncode == 130 and out == ""
    assert err.lstrip("\n") == "gitai: error: interrupted\n"  # after the line click ends the prompt with
