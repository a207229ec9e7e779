"""Line-level provenance (issue 12): agent sessions through the host simulator write files, people
edit them, and each committed line is attributed ai / mixed / human / unknown."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import commit, git, gitai, gitai_json, gitai_ok, write
from host_simulator import Agent, HostSimulator
from trace_helpers import note, notes, validate


@pytest.fixture
def sim(repo: Path) -> HostSimulator:
    gitai_ok(repo, "agents", "install", "claude-code")
    with open(repo / ".git/info/exclude", "a") as handle:
        handle.write(".claude/\n")
    return HostSimulator("claude-code", repo, {**os.environ})


def session(sim: HostSimulator, repo: Path, name: str, model: str = "claude-sonnet-4-5") -> Agent:
    agent = Agent(sim, name, model)
    agent.start()
    command = "gitai select INT-001"
    assert agent.shell(command).decision == "allow"
    gitai_ok(repo, "select", "INT-001", env={"CLAUDECODE": "1"})
    agent.shell_done(command)
    return agent


def agent_writes(agent: Agent, repo: Path, rel: str, text: str) -> None:
    """The host's sequence for one write: before-write (allowed), the write, after-write."""
    out = agent.write(str(repo / rel))
    assert out.decision == "allow", out
    write(repo, rel, text)
    agent.wrote(str(repo / rel))


def line_counts(record: dict[str, Any], path: str | None = None) -> Counter[str]:
    counts: Counter[str] = Counter()
    for entry in record["files"]:
        if path and entry["path"] != path:
            continue
        for conversation in entry["conversations"]:
            for r in conversation["ranges"]:
                kind = r.get("contributor", conversation.get("contributor", {})).get("type", "unknown")
                counts[kind] += r["end_line"] - r["start_line"] + 1
    return counts


def agent_lines(n: int, tag: str = "v") -> list[str]:
    return [f"{tag}{i} = {i}  # agent line {i}" for i in range(n)]


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
