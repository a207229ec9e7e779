"""After an agent wrote files: the one place that handles the after-write event.

It remembers each file's fingerprint (the stale-write lock) and records a checkpoint of each
written file (gitai/agents/checkpoints.py): the source of line-level provenance at commit time.
It must stay fast and never raise into the host: the caller logs an exception and lets the
(already done) write stand.
"""

from __future__ import annotations

import os

from gitai.agents.gate import repo_relative
from gitai.agents.sessions import fingerprint

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitai.agents.normalize import AgentEvent
    from gitai.agents.sessions import Session
    from gitai.layout import Layout


def remember_seen(layout: Layout, session: Session, paths: list[str]) -> list[str]:
    """Remember each file's content as this session now knows it (stale-write lock); returns the
    repository-relative paths remembered."""
    files = session.files()
    remembered = []
    for path in paths:
        rel = repo_relative(layout, path)
        if rel is None or rel == ".":
            continue
        files[rel] = fingerprint(os.path.join(layout.root, rel))
        remembered.append(rel)
    return remembered


def on_after_write(layout: Layout, event: AgentEvent, session: Session) -> None:
    """An agent's write happened: the session now knows these files' content, and each file's
    content is checkpointed as the agent's version."""
    from gitai.agents.checkpoints import record_checkpoint

    files = session.files()
    written = session.data.get("written")
    if not isinstance(written, dict):
        written = session.data["written"] = {}
    before = {rel: files.get(rel) for rel in (repo_relative(layout, p) for p in event.paths) if rel}
    model = event.model or session.data.get("model")
    intent_id = session.intent
    if intent_id is None:
        from gitai.agents.hook_entry import session_intent

        intent_id = session_intent(layout, session)
    for rel in remember_seen(layout, session, event.paths):
        if rel.startswith(".git/") or rel.startswith(".orchestration/"):
            continue
        unchanged = before.get(rel) is not None and before.get(rel) == written.get(rel)
        record_checkpoint(layout, rel, event.host, session.key, model if isinstance(model, str) else None,
                          intent_id, event.transcript_path, unchanged)
        written[rel] = files[rel]
