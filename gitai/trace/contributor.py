"""Who wrote a commit's lines: an AI agent or a person (docs/trace-format.md, "Intent and contributor")."""

from __future__ import annotations

import os
from collections.abc import Mapping

from gitai.agents.hosts import COMMIT_VARIABLES
from gitai.trace.record import Contributor


def detect_contributor(environ: Mapping[str, str] = os.environ, session_model: str | None = None,
                       session_host: str | None = None) -> Contributor:
    """`{"type": "ai", "model_id": ...}` under an agent, else `{"type": "human"}`. `session_model` and
    `session_host`: those of the agent session whose commit command is running (gitai/agents/sessions.py),
    which makes the commit the agent's even when the command took the agent's variables away."""
    is_agent = (bool(environ.get("GITAI_AGENT")) or bool(session_host)
                or any(environ.get(name) for name in COMMIT_VARIABLES))
    if not is_agent:
        return {"type": "human"}
    contributor: Contributor = {"type": "ai"}
    model = environ.get("GITAI_MODEL") or environ.get("AIDER_MODEL") or session_model
    if model:
        contributor["model_id"] = model[:250]
    return contributor
