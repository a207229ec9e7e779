"""Line-level provenance: agent sessions through the host simulator write files, people
edit them, and each committed line is attributed ai / mixed / human / unknown."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from testing.commands import git, gitai, gitai_json, gitai_ok
from testing.host_simulator import HostSimulator
from testing.repos import catalogued, commit, write
from testing.sessions import agent_lines, agent_writes, line_counts, session
from testing.templates import Templates
from testing.traces import note, notes, validate


def with_claude_code(repo: Path) -> None:
    catalogued(repo)
    gitai_ok(repo, "agents", "install", "claude-code")
    with open(repo / ".git/info/exclude", "a") as handle:
        handle.write(".claude/\n")
    commit(repo, "the agent hooks need no intent", ".orchestration/.intentignore")  # before the measured work


@pytest.fixture
def repo(tmp_path: Path, templates: Templates) -> Path:
    """The test repository with Claude Code's hooks installed (what `sim` drives), built once per test
    process and copied."""
    return templates.make("attribution", tmp_path / "repo", with_claude_code)


def test_ai_mixed_human_split(repo: Path, sim: HostSimulator) -> None:
    agent = session(sim, repo, "s-one")
    lines = agent_lines(100)
    agent_writes(agent, repo, "src/auth/x.py", "\n".join(lines) + "\n")
    for i in range(0, 100, 10):  # a person edits 10 of the agent's lines ...
        lines[i] = f"v{i} = {i} * 2  # changed by a person"
    lines += [f"extra{i} = {i}" for i in range(5)]  # ... and adds 5
    write(repo, "src/auth/x.py", "\n".join(lines) + "\n")
    commit(repo, "agent work, reviewed")
    record = note(repo)
    assert line_counts(record, "src/auth/x.py") == {"ai": 90, "mixed": 10, "human": 5}
    assert record["metadata"]["dev.gitai"]["attribution"] == "checkpoints"
    ai = [c for e in record["files"] for c in e["conversations"] if c["contributor"]["type"] == "ai"]
    assert ai[0]["contributor"]["model_id"] == "anthropic/claude-sonnet-4-5"
    assert {"type": "session", "url": "gitai:session/claude-code-s-one"} in ai[0]["related"]
    assert "url" not in ai[0]  # the transcript path only when opted in
    stats = gitai_json(repo, "stats", "HEAD")
    assert stats["totals"]["lines"] == {"ai": 90, "mixed": 10, "human": 5, "unknown": 0}
    # the checkpoints are done with once committed
    assert not list((repo / ".git/gitai/checkpoints").glob("*.jsonl"))


def test_stats_validates_and_groups(repo: Path, sim: HostSimulator) -> None:
    from testing.schemas import validate as validate_output

    agent = session(sim, repo, "s-one")
    agent_writes(agent, repo, "src/auth/x.py", "\n".join(agent_lines(20)) + "\n")
    commit(repo, "agent work")
    for by in ("intent", "contributor", "model", "file"):
        data = gitai_json(repo, "stats", "--by", by)
        validate_output("stats", data)
    by_model = gitai_json(repo, "stats", "--by", "model")
    assert {row["key"]: row["lines"]["ai"] for row in by_model["rows"]}["anthropic/claude-sonnet-4-5"] == 20
    table = gitai(repo, "stats", "HEAD~1..HEAD", "--by", "contributor").stdout
    assert "ai" in table and "100%" in table
    assert gitai(repo, "stats", "nope").returncode == 2


def test_two_sessions_with_different_models_in_one_file(repo: Path, sim: HostSimulator) -> None:
    one = session(sim, repo, "s-one", "claude-opus-4-1")
    first = agent_lines(30, "a")
    agent_writes(one, repo, "src/auth/x.py", "\n".join(first) + "\n")
    two = session(sim, repo, "s-two", "gpt-5")
    two.read(str(repo / "src/auth/x.py"))
    both = first + agent_lines(20, "b")
    agent_writes(two, repo, "src/auth/x.py", "\n".join(both) + "\n")
    commit(repo, "two sessions")
    record = note(repo)
    by_model: Counter[str] = Counter()
    sessions = set()
    for conversation in record["files"][0]["conversations"]:
        for r in conversation["ranges"]:
            by_model[conversation["contributor"].get("model_id", "")] += r["end_line"] - r["start_line"] + 1
        sessions |= {x["url"] for x in conversation.get("related", []) if x["type"] == "session"}
    assert by_model == {"anthropic/claude-opus-4-1": 30, "openai/gpt-5": 20}
    assert sessions == {"gitai:session/claude-code-s-one", "gitai:session/claude-code-s-two"}


def test_formatter_after_the_agent_keeps_ai(repo: Path, sim: HostSimulator) -> None:
    agent = session(sim, repo, "s-one")
    agent_writes(agent, repo, "src/auth/x.py", "def f(a,b):\n    return (a+b)\n\n\ndef g(x):\n    return x*2\n")
    write(repo, "src/auth/x.py", "def f(a, b):\n    return a + b\n\n\ndef g(x):\n    return x * 2\n")  # the formatter
    commit(repo, "formatted")
    assert line_counts(note(repo)) == {"ai": 6}
    # a person's change of meaning is not a reformat: those lines are mixed
    agent.read(str(repo / "src/auth/x.py"))
    agent_writes(agent, repo, "src/auth/x.py", "def f(a, b):\n    return a + b\n\n\ndef g(x):\n    return x * 3\n")
    write(repo, "src/auth/x.py", "def f(a, b):\n    return a - b\n\n\ndef g(x):\n    return x * 4\n")
    commit(repo, "changed")
    assert line_counts(note(repo)) == {"human": 1, "mixed": 1}  # a line the agent did not touch; one it did


def test_partial_staging_attributes_only_staged_lines(repo: Path, sim: HostSimulator) -> None:
    agent = session(sim, repo, "s-one")
    lines = agent_lines(100)
    agent_writes(agent, repo, "src/auth/x.py", "\n".join(lines) + "\n")
    write(repo, "src/auth/x.py", "\n".join(lines[:50]) + "\n")  # what `git add -p` of half stages
    git(repo, "add", "src/auth/x.py")
    write(repo, "src/auth/x.py", "\n".join(lines) + "\n")
    git(repo, "commit", "-m", "first half")
    assert line_counts(note(repo)) == {"ai": 50}
    commit(repo, "second half")  # the remaining checkpoint lines are attributed in the next commit
    assert line_counts(note(repo)) == {"ai": 50}


def split_commit(repo: Path, sim: HostSimulator) -> None:
    """The 90 / 10 / 5 scenario, committed."""
    agent = session(sim, repo, "s-one")
    lines = agent_lines(100)
    agent_writes(agent, repo, "src/auth/x.py", "\n".join(lines) + "\n")
    for i in range(0, 100, 10):
        lines[i] = f"v{i} = {i} * 2  # changed by a person"
    write(repo, "src/auth/x.py", "\n".join(lines + [f"extra{i} = {i}" for i in range(5)]) + "\n")
    commit(repo, "agent work, reviewed")


def test_amend_keeps_the_split(repo: Path, sim: HostSimulator) -> None:
    split_commit(repo, sim)
    git(repo, "commit", "--amend", "-m", "reworded")
    record = note(repo)
    assert line_counts(record) == {"ai": 90, "mixed": 10, "human": 5}
    assert record["metadata"]["dev.gitai"]["attribution"] == "carried"


def test_interactive_rebase_squash_keeps_the_split(repo: Path, sim: HostSimulator) -> None:
    split_commit(repo, sim)
    write(repo, "src/auth/y.py", "y = 1\n")
    commit(repo, "a person's file")
    editor = {"GIT_SEQUENCE_EDITOR": "sed -i -e '2s/^pick/squash/'", "GIT_EDITOR": "true"}
    git(repo, "rebase", "-i", "HEAD~2", env=editor)
    record = note(repo)
    assert line_counts(record, "src/auth/x.py") == {"ai": 90, "mixed": 10, "human": 5}
    assert line_counts(record, "src/auth/y.py") == {"human": 1}
    for records in notes(repo).values():
        for r in records:
            validate(r)


def test_cherry_pick_keeps_the_split(repo: Path, sim: HostSimulator) -> None:
    base = git(repo, "rev-parse", "HEAD").stdout.strip()
    split_commit(repo, sim)
    picked = git(repo, "rev-parse", "HEAD").stdout.strip()
    git(repo, "checkout", "-q", "-b", "release", base)
    write(repo, "src/auth/release.py", "RELEASE = 1\n")
    commit(repo, "release branch work")
    git(repo, "cherry-pick", picked)
    record = note(repo)
    assert record["vcs"]["revision"] != picked
    assert line_counts(record, "src/auth/x.py") == {"ai": 90, "mixed": 10, "human": 5}
    assert record["metadata"]["dev.gitai"]["attribution"] == "carried"


def test_a_commit_without_hooks_is_unknown_not_human(plain_repo: Path) -> None:
    write(plain_repo, "src/auth/z.py", "z = 1\nz = 2\n")
    git(plain_repo, "add", "-A")
    git(plain_repo, "-c", "core.hooksPath=/dev/null", "commit", "-m", "no hooks")
    gitai_ok(plain_repo, "backfill")
    record = note(plain_repo)
    assert line_counts(record) == {"unknown": 2}
    assert gitai_json(plain_repo, "stats", "HEAD")["totals"]["lines"]["unknown"] == 2


def test_blame_intent_and_show_name_the_contributor(repo: Path, sim: HostSimulator) -> None:
    split_commit(repo, sim)
    rows = gitai_json(repo, "blame-intent", "src/auth/x.py")
    kinds = Counter(row["contributor"]["type"] for row in rows)
    assert kinds == {"ai": 90, "mixed": 10, "human": 5}
    assert rows[1]["contributor"] == {"type": "ai", "model_id": "anthropic/claude-sonnet-4-5",
                                      "session": "claude-code-s-one"}
    assert rows[0]["intent_id"] == "INT-001" and rows[0]["contributor"]["type"] == "mixed"
    summary = gitai_json(repo, "blame-intent", "src/auth/x.py", "--summary")
    assert {(r["contributor"], r["lines"]) for r in summary} == {("ai", 90), ("mixed", 10), ("human", 5)}
    text = gitai(repo, "blame-intent", "src/auth/x.py").stdout
    assert "ai:anthropic/claude-sonnet-4-5" in text and " human " in text
    shown = gitai(repo, "show").stdout
    assert "ai anthropic/claude-sonnet-4-5 session claude-code-s-one" in shown and "mixed" in shown


def test_many_writes_stash_and_rename(repo: Path, sim: HostSimulator) -> None:
    base = [f"base{i} = {i}" for i in range(30)]
    write(repo, "src/auth/old.py", "\n".join(base) + "\n")
    commit(repo, "base", env={"GITAI_INTENT": "INT-001"})
    agent = session(sim, repo, "s-one")
    git(repo, "mv", "src/auth/old.py", "src/auth/new.py")
    lines = list(base)
    for n in range(5):  # many writes to one file, each adding two lines
        lines += [f"step{n}a = {n}", f"step{n}b = {n}"]
        agent_writes(agent, repo, "src/auth/new.py", "\n".join(lines) + "\n")
    git(repo, "stash")
    git(repo, "stash", "pop")
    lines[30] = "step0a = 'a person'"
    write(repo, "src/auth/new.py", "\n".join(lines) + "\n")
    commit(repo, "renamed and written")
    record = note(repo)
    assert record["metadata"]["dev.gitai"]["files"]["src/auth/new.py"]["renamed_from"] == "src/auth/old.py"
    assert line_counts(record) == {"ai": 9, "mixed": 1}
