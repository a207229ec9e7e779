"""Human approval of intents (`requires_approval: true`): recorded as `approve` events, so an
agent cannot select such an intent before a person ran `gitai approve ID`.

Approvals live in `.orchestration/events.jsonl`, which is local to the clone (shared by its
worktrees): a person approves where the agents run. Lean: the agent hook imports this.
"""

from __future__ import annotations

import os

from gitai.layout import Layout

# Variables a coding agent sets in its hooks' and shells' environments (see also
# gitai/trace/contributor.py KNOWN_AGENT_VARIABLES, which identifies commits' authors).
AGENT_VARIABLES = ("GITAI_AGENT", "CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_PROJECT_DIR", "GEMINI_CLI",
                   "GEMINI_PROJECT_DIR", "CODEX_SANDBOX", "CODEX_SANDBOX_NETWORK_DISABLED", "CODEX_THREAD_ID",
                   "CURSOR_AGENT", "CURSOR_TRACE_ID", "COPILOT_AGENT", "COPILOT_CLI", "AIDER_MODEL",
                   "GITAI_HOOK_HOST")


def agent_variable(environ: dict[str, str] | None = None) -> str | None:
    """The first agent variable set in the environment: this process runs inside an agent."""
    env = os.environ if environ is None else environ
    return next((name for name in AGENT_VARIABLES if env.get(name)), None)


def is_approved(layout: Layout, intent_id: str) -> bool:
    """Whether a person approved `intent_id` (an `approve` event, not revoked by a later one)."""
    from gitai.util.jsonl import read_jsonl

    approved = False
    for _, event in read_jsonl(layout.events).records:
        if event.get("intent_id") != intent_id:
            continue
        if event.get("event") == "approve":
            approved = True
        elif event.get("event") in ("done", "block"):
            approved = False
    return approved
