"""An agent's session as the attribution tests drive it through the host simulator: INT-001 selected,
each write announced before and after."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from testing.commands import gitai_ok
from testing.host_simulator import Agent, HostSimulator
from testing.repos import write


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
