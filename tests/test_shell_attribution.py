"""Who wrote each line when agents also change files through their shell, and people edit between
agent steps: the before-shell and after-shell hooks compare the work tree, and the before-write and
before-shell hooks checkpoint a person's edits as theirs first (host simulator, real git, real commits)."""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from testing.commands import git, gitai_json, gitai_ok
from testing.host_simulator import Agent, HostSimulator
from testing.repos import catalogued, commit, write
from testing.sessions import agent_lines, agent_writes, line_counts, session
from testing.templates import Templates
from testing.traces import note, validate

from gitai.agents.install import install_host

CHECKPOINTS = Path(".git/gitai/checkpoints")


def with_claude_code(repo: Path) -> None:
    catalogued(repo)
    gitai_ok(repo, "agents", "install", "claude-code")
    with open(repo / ".git/info/exclude", "a") as handle:
        handle.write(".claude/\n")
    commit(repo, "the agent hooks need no intent", ".orchestration/.intentignore")
    (repo / "src/auth").mkdir(parents=True)
    (repo / "docs").mkdir()


@pytest.fixture
def repo(tmp_path: Path, templates: Templates) -> Path:
    """The test repository with Claude Code's hooks installed (what `sim` drives), built once per test
    process and copied."""
    return templates.make("shell-attribution", tmp_path / "repo", with_claude_code)


def agent_runs(agent: Agent, repo: Path, command: str) -> int:
    """The host's sequence for one shell command: before-shell (allowed), the command, after-shell
    (the failure event when it exits non-zero)."""
    outcome = agent.shell(command)
    assert outcome.decision == "allow", outcome.reason
    code = subprocess.run(["bash", "-c", command], cwd=repo, capture_output=True).returncode
    if code == 0:
        agent.shell_done(command)
    else:
        agent.shell_failed(command, code)
    return code


def person_edits(repo: Path, rel: str, lines: list[str], changes: dict[int, str]) -> list[str]:
    for index, text in changes.items():
        lines[index] = text
    write(repo, rel, "\n".join(lines) + "\n")
    return lines


def logs(repo: Path) -> dict[str, list[dict[str, Any]]]:
    """Every checkpoint log, by the path its entries name."""
    found: dict[str, list[dict[str, Any]]] = {}
    for log in (repo / CHECKPOINTS).glob("*.jsonl"):
        entries = [json.loads(line) for line in log.read_text().splitlines()]
        found[entries[-1]["path"]] = entries
    return found


def test_write_tool_shell_and_a_persons_edit_come_out_exact(repo: Path, sim: HostSimulator) -> None:
    """20 lines through the write tool, a person changes 2 of them, 10 more through `printf >>`:
    28 ai and 2 mixed in the record, in `stats` and in `blame-intent`."""
    agent = session(sim, repo, "s-one")
    lines = agent_lines(20)
    agent_writes(agent, repo, "src/auth/x.py", "\n".join(lines) + "\n")
    person_edits(repo, "src/auth/x.py", lines, {3: "v3 = 'a person'", 11: "v11 = 'a person'"})
    agent.read(str(repo / "src/auth/x.py"))  # the stale-write lock wants a fresh read first
    shell_lines = "".join(f"s{i} = {i}\\n" for i in range(10))
    agent_runs(agent, repo, f"printf '{shell_lines}' >> src/auth/x.py")
    commit(repo, "agent work, reviewed")
    record = note(repo)
    validate(record)
    assert line_counts(record, "src/auth/x.py") == {"ai": 28, "mixed": 2}
    assert gitai_json(repo, "stats", "HEAD")["totals"]["lines"] == {"ai": 28, "mixed": 2, "human": 0, "unknown": 0}
    rows = gitai_json(repo, "blame-intent", "src/auth/x.py")
    assert Counter(r["contributor"]["type"] for r in rows) == {"ai": 28, "mixed": 2}
    assert [r["line"] for r in rows if r["contributor"]["type"] == "mixed"] == [4, 12]
    assert not list((repo / CHECKPOINTS).glob("*.jsonl"))  # done with once committed


def test_a_persons_edit_before_the_agents_next_write_stays_theirs(repo: Path, sim: HostSimulator) -> None:
    """The person's lines are checkpointed before the agent's next write: before, the agent's
    rewrite of the file made them the agent's."""
    agent = session(sim, repo, "s-one")
    lines = agent_lines(10)
    agent_writes(agent, repo, "src/auth/x.py", "\n".join(lines) + "\n")
    lines = person_edits(repo, "src/auth/x.py", lines, {0: "v0 = 'a person'"}) + ["p = 'added by a person'"]
    write(repo, "src/auth/x.py", "\n".join(lines) + "\n")
    agent.read(str(repo / "src/auth/x.py"))
    agent_writes(agent, repo, "src/auth/x.py", "\n".join(lines + agent_lines(5, "w")) + "\n")
    commit(repo, "two agent writes around a person's")
    assert line_counts(note(repo)) == {"ai": 14, "mixed": 1, "human": 1}


def test_uncommitted_work_the_agent_starts_from_is_the_persons(repo: Path, sim: HostSimulator) -> None:
    base = [f"b{i} = {i}" for i in range(10)]
    write(repo, "src/auth/y.py", "\n".join(base) + "\n")
    commit(repo, "base", env={"GITAI_INTENT": "INT-001"})
    base[2], base[5] = "b2 = 'a person'", "b5 = 'a person'"
    write(repo, "src/auth/y.py", "\n".join(base) + "\n")  # not committed when the agent starts
    agent = session(sim, repo, "s-one")
    agent_writes(agent, repo, "src/auth/y.py", "\n".join(base + agent_lines(3)) + "\n")
    agent_runs(agent, repo, "sed -i 's/^b9 = 9$/b9 = 9  # the agent, through sed/' src/auth/y.py")
    command = "git add -A && git commit -q -m 'the agent commits everything'"
    assert agent.shell(command).decision == "allow"
    commit(repo, "the agent commits everything", env={"CLAUDECODE": "1"})  # in the agent's shell
    agent.shell_done(command)
    record = note(repo)
    assert record["files"][0]["conversations"][0]["contributor"]["type"] in ("ai", "human")
    assert line_counts(record) == {"ai": 4, "human": 2}  # the person's lines stay theirs in the agent's commit


def test_a_failed_command_still_changed_files(repo: Path, sim: HostSimulator) -> None:
    """Claude Code fires PostToolUseFailure, not PostToolUse, after a command that exits non-zero."""
    agent = session(sim, repo, "s-one")
    assert agent_runs(agent, repo, "printf 'a = 1\\nb = 2\\n' > src/auth/gen.py; exit 3") == 3
    commit(repo, "generated")
    assert line_counts(note(repo)) == {"ai": 2}


def test_a_reader_takes_no_snapshot(repo: Path, sim: HostSimulator) -> None:
    agent = session(sim, repo, "s-one")
    agent_runs(agent, repo, "cat src/auth/nothing.py 2>/dev/null; git status && ls | grep src")
    sessions = list((repo / ".git/gitai/sessions").glob("*.json"))
    assert sessions and all("shell_before" not in json.loads(p.read_text()) or
                            json.loads(p.read_text())["shell_before"] == {} for p in sessions)
    agent.shell("sed -n 1p README.md > /dev/null")  # a redirect: may write, so noted
    assert any(json.loads(p.read_text()).get("shell_before") for p in sessions)


def test_a_reader_with_an_option_that_writes_is_attributed_to_the_agent(repo: Path, sim: HostSimulator) -> None:
    """`sort -o`, `uniq IN OUT` and the like look like readers but write: their lines are the agent's,
    not left for the next step to take as a person's edit."""
    agent = session(sim, repo, "s-one")
    write(repo, "src/auth/names.txt", "b\na\n")
    agent_runs(agent, repo, "sort -o src/auth/sorted.txt src/auth/names.txt && uniq src/auth/names.txt src/auth/u.txt")
    agent_writes(agent, repo, "src/auth/x.py", "x = 1\n")  # the next agent step: no person's edit to catch up
    commit(repo, "sorted by the agent")
    counts = {path: line_counts(note(repo), path) for path in ("src/auth/sorted.txt", "src/auth/u.txt")}
    assert counts == {"src/auth/sorted.txt": {"ai": 2}, "src/auth/u.txt": {"ai": 2}}


def test_a_file_deleted_by_the_shell_starts_afresh(repo: Path, sim: HostSimulator) -> None:
    agent = session(sim, repo, "s-one")
    agent_writes(agent, repo, "src/auth/gone.py", "a = 1\nb = 2\n")
    agent_runs(agent, repo, "rm src/auth/gone.py")
    assert logs(repo)["src/auth/gone.py"][-1]["deleted"] is True
    write(repo, "src/auth/gone.py", "a = 1\nb = 2\n")  # a person writes the same lines again
    commit(repo, "a person's file")
    assert line_counts(note(repo)) == {"human": 2}


def test_a_file_the_shell_makes_outside_the_scope_is_not_claimed(repo: Path, sim: HostSimulator) -> None:
    """A script in scope writes docs/: no checkpoint for it, one event naming it; committed later
    under the intent that owns docs/, its lines follow that commit's contributor (a person's)."""
    agent = session(sim, repo, "s-one")
    agent_writes(agent, repo, "src/auth/gen.py",
                 "import pathlib\npathlib.Path('docs/made.md').write_text('made\\nby a script\\n')\n")
    agent_runs(agent, repo, "python3 src/auth/gen.py")
    assert (repo / "docs/made.md").exists()
    assert "docs/made.md" not in logs(repo)
    events = [json.loads(line) for line in (repo / ".orchestration/events.jsonl").read_text().splitlines()]
    (outside,) = [e for e in events if e["event"] == "agent-shell-outside-scope"]
    assert outside["paths"] == ["docs/made.md"] and outside["intent_id"] == "INT-001"
    commit(repo, "the agent's script", "src/auth")
    assert line_counts(note(repo)) == {"ai": 2}
    commit(repo, "docs, by a person", "docs", env={"GITAI_INTENT": "INT-002"})
    record = note(repo)
    assert line_counts(record) == {"human": 2}
    assert "INT-001" not in json.dumps(record)


def test_a_binary_file_from_the_shell_is_not_checkpointed(repo: Path, sim: HostSimulator) -> None:
    agent = session(sim, repo, "s-one")
    agent_runs(agent, repo, "printf 'PNG\\000\\001\\002' > src/auth/logo.png && printf 'x = 1\\n' > src/auth/x.py")
    assert set(logs(repo)) == {"src/auth/x.py"}
    commit(repo, "binary and text")
    record = note(repo)
    validate(record)
    assert record["metadata"]["dev.gitai"]["files"]["src/auth/logo.png"]["content"] == "binary"
    assert line_counts(record, "src/auth/x.py") == {"ai": 1}


def test_git_mv_by_the_shell_keeps_each_lines_author(repo: Path, sim: HostSimulator) -> None:
    agent = session(sim, repo, "s-one")
    lines = agent_lines(6)
    agent_writes(agent, repo, "src/auth/a.py", "\n".join(lines) + "\n")
    git(repo, "add", "src/auth/a.py")
    person_edits(repo, "src/auth/a.py", lines, {2: "v2 = 'a person'"})
    agent.read(str(repo / "src/auth/a.py"))
    agent_runs(agent, repo, "git mv src/auth/a.py src/auth/b.py && printf 'tail = 1\\n' >> src/auth/b.py")
    assert set(logs(repo)) == {"src/auth/b.py"}  # the log followed the file
    commit(repo, "moved")
    record = note(repo)
    assert [e["path"] for e in record["files"]] == ["src/auth/b.py"]
    assert line_counts(record) == {"ai": 6, "mixed": 1}


def test_git_mv_of_a_committed_file_attributes_only_the_new_lines(repo: Path, sim: HostSimulator) -> None:
    write(repo, "src/auth/old.py", "".join(f"o{i} = {i}\n" for i in range(8)))
    commit(repo, "base", env={"GITAI_INTENT": "INT-001"})
    agent = session(sim, repo, "s-one")
    agent_runs(agent, repo, "git mv src/auth/old.py src/auth/new.py")
    agent_runs(agent, repo, "printf 'n = 1\\n' >> src/auth/new.py")
    commit(repo, "renamed")
    record = note(repo)
    assert record["metadata"]["dev.gitai"]["files"]["src/auth/new.py"]["renamed_from"] == "src/auth/old.py"
    assert line_counts(record) == {"ai": 1}


def test_stash_and_pop_between_agent_steps_keep_the_authors(repo: Path, sim: HostSimulator) -> None:
    agent = session(sim, repo, "s-one")
    agent_writes(agent, repo, "src/auth/x.py", "\n".join(agent_lines(5)) + "\n")
    git(repo, "add", "-A")
    git(repo, "stash")
    agent_runs(agent, repo, "printf 'other = 1\\n' > src/auth/other.py")
    git(repo, "stash", "pop")
    agent_runs(agent, repo, "printf 'more = 1\\n' >> src/auth/x.py")
    commit(repo, "after a stash")
    assert line_counts(note(repo), "src/auth/x.py") == {"ai": 6}


def agent_commits(agent: Agent, repo: Path, command: str) -> None:
    """One shell command that edits and commits, in the agent's shell: git's post-commit hook runs
    inside it, before the host's after-shell hook."""
    assert agent.shell(command).decision == "allow"
    subprocess.run(["bash", "-c", command], cwd=repo, check=True, capture_output=True,
                   env={**os.environ, "CLAUDECODE": "1"})
    agent.shell_done(command)


def test_edits_and_a_commit_in_one_command_are_the_agents(repo: Path, sim: HostSimulator) -> None:
    """`sed -i ... && printf ... >> F && git commit` at once: 28 ai, 2 mixed; before, the command's
    lines were a person's (the record was made before the after-shell hook checkpointed them)."""
    agent = session(sim, repo, "s-one")
    lines = agent_lines(20)
    agent_writes(agent, repo, "src/auth/x.py", "\n".join(lines) + "\n")
    person_edits(repo, "src/auth/x.py", lines, {3: "v3 = 'a person'", 11: "v11 = 'a person'"})
    agent.read(str(repo / "src/auth/x.py"))
    shell_lines = "".join(f"s{i} = {i}\\n" for i in range(10))
    agent_commits(agent, repo, "sed -i 's/^v0 = 0 /v0 = 100 /' src/auth/x.py"
                  f" && printf '{shell_lines}' >> src/auth/x.py"
                  " && git add src/auth/x.py && git commit -q -m 'edited and committed at once'")
    assert (repo / "src/auth/x.py").read_text().startswith("v0 = 100 ")
    assert line_counts(note(repo), "src/auth/x.py") == {"ai": 28, "mixed": 2}
    assert not list((repo / CHECKPOINTS).glob("*.jsonl"))  # the after-shell hook claims nothing twice
    write(repo, "src/auth/x.py", (repo / "src/auth/x.py").read_text() + "p = 'a person'\n")
    commit(repo, "a person's line")  # a person's own commit afterwards: theirs
    assert line_counts(note(repo), "src/auth/x.py") == {"human": 1}


def test_two_commits_in_one_command_each_get_the_agents_lines(repo: Path, sim: HostSimulator) -> None:
    write(repo, "src/auth/y.py", "a = 1\n")
    commit(repo, "base", env={"GITAI_INTENT": "INT-001"})
    agent = session(sim, repo, "s-one")
    agent_writes(agent, repo, "src/auth/y.py", "a = 1\nw = 'the write tool'\n")
    agent_commits(agent, repo, "printf 'b = 2\\n' >> src/auth/y.py && git commit -qam one"
                  " && printf 'c = 3\\nd = 4\\n' >> src/auth/y.py && git commit -qam two")
    assert line_counts(note(repo, "HEAD~1"), "src/auth/y.py") == {"ai": 2}
    assert line_counts(note(repo), "src/auth/y.py") == {"ai": 2}


def test_a_persons_edit_committed_by_the_agent_in_another_worktree_stays_the_persons(plain_repo: Path,
                                                                                   tmp_path: Path) -> None:
    """A session seen in the main worktree may now commit in another (`git -C ../wt commit`). Its own
    lines there are the agent's, and a person's uncommitted line in that worktree stays the person's, as
    it does when the same command commits in the session's own worktree."""
    install_host("claude-code", str(plain_repo))
    with open(plain_repo / ".git/info/exclude", "a") as handle:
        handle.write(".claude/\n")
    write(plain_repo, "src/auth/y.py", "a = 1\n")
    commit(plain_repo, "base", env={"GITAI_INTENT": "INT-001"})
    other = tmp_path / "other"
    git(plain_repo, "worktree", "add", "-q", "-b", "other", str(other))
    gitai_ok(other, "select", "INT-001")
    write(other, "src/auth/y.py", "a = 1\np = 'a person'\n")  # a person's edit, not committed
    agent = session(HostSimulator("claude-code", plain_repo, dict(os.environ)), plain_repo, "s-wt")
    command = f"printf 'b = 2\\n' >> {other}/src/auth/y.py && git -C {other} commit -qam 'in the other worktree'"
    assert agent.shell(command).decision == "allow"
    subprocess.run(["bash", "-c", command], cwd=plain_repo, check=True, capture_output=True,
                   env={**os.environ, "CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s-wt"})
    agent.shell_done(command)
    record = note(other)
    assert line_counts(record, "src/auth/y.py") == {"human": 1, "ai": 1}
    (entry,) = [f for f in record["files"] if f["path"] == "src/auth/y.py"]
    assert any(c["contributor"].get("model_id") for c in entry["conversations"]), entry


def test_a_failure_settling_the_running_command_still_records_the_commit(repo: Path, sim: HostSimulator) -> None:
    """The post-commit's settling of the agent's running command cannot write its checkpoint (its log
    is a directory here): the lines' authors are lost, logged in errors.log, but the commit has its record."""
    from gitai.agents.checkpoints import log_path
    from gitai.layout import find_layout

    agent = session(sim, repo, "s-fail")
    command = "printf 'z = 1\\n' > src/auth/z.py && git add src/auth/z.py && git commit -qm 'the agent commits'"
    assert agent.shell(command).decision == "allow"
    os.makedirs(log_path(find_layout(str(repo)), "src/auth/z.py"))
    subprocess.run(["bash", "-c", command], cwd=repo, check=True, capture_output=True,
                   env={**os.environ, "CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s-fail"})
    assert [f["path"] for f in note(repo)["files"]] == ["src/auth/z.py"]
    assert "settling the running command" in (repo / ".git/gitai/errors.log").read_text()


def test_what_a_command_changed_where_git_status_failed_after_it_is_claimed_at_the_next_listing(
        repo: Path, sim: HostSimulator) -> None:
    """git status fails after a command (a damaged index): what the command changed is unknown, so
    nothing is recorded then, and the next command's before-shell, while git still cannot list, catches
    up nothing as a person's. The first listing that works compares with the last known state: the
    new file is the agent's, not the uncommitted work of a person its next catch-up would have made it."""
    agent = session(sim, repo, "s-one")
    index = repo / ".git/index"
    command = "printf 'a = 1\\nb = 2\\n' > src/auth/new.py"
    assert agent.shell(command).decision == "allow"
    subprocess.run(["bash", "-c", command], cwd=repo, check=True)
    kept = index.read_bytes()
    index.write_bytes(b"DIRC this index is damaged")
    assert git(repo, "status", check=False).returncode != 0  # for real
    agent.shell_done(command)
    assert "src/auth/new.py" not in logs(repo)
    agent_runs(agent, repo, "printf 'c = 3\\n' > src/auth/more.py")  # git still cannot list
    assert "src/auth/new.py" not in logs(repo)
    index.write_bytes(kept)
    agent_runs(agent, repo, "printf 'd = 4\\n' >> src/auth/more.py")
    assert [e.get("kind", "agent") for e in logs(repo)["src/auth/new.py"]] == ["agent"]  # no kind: an agent's
    commit(repo, "the agent's work, committed by a person")
    record = note(repo)
    validate(record)
    assert line_counts(record, "src/auth/new.py") == {"ai": 2}
    assert line_counts(record, "src/auth/more.py") == {"ai": 2}
