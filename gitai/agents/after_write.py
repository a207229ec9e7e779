"""After an agent wrote files: the one place that handles the after-write event.

Extension point (issue 12, line-level provenance): `on_after_write` receives the normalized event
(`event.host`, `event.session_id`, `event.model`, `event.paths` absolute, `event.transcript_path`,
`event.tool`, `event.tool_input`, `event.raw`) and the session (its `intent`); a checkpoint of the
written lines belongs here, after the fingerprints are remembered. It must stay fast and never raise
into the host: the caller logs an exception and lets the (already done) write stand.
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
    """An agent's write happened: the session now knows these files' content."""
    remember_seen(layout, session, event.paths)
