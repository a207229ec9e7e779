"""The scope policy: every intent's compiled scope plus `.intentignore`, cached for hooks.

The cache lives in the worktree's git dir and keeps the catalogue and `.intentignore` bytes it
was compiled from, so the pre-commit hook parses YAML (and imports pathspec) only after one of
them changed (compared whole: no checksum, and no `zlib` loaded on every hook). It also keeps
each intent's whole catalogue entry (`Intent.to_json()`), so that the agent hooks' session-start
context needs no YAML either.
"""

from __future__ import annotations

import marshal
import os
import sys

from gitai import __version__
from gitai.errors import GitaiError
from gitai.intents.patterns import Matcher, is_exempt
from gitai.layout import Layout
from gitai.util.files import write_atomic

# marshal, not JSON: built into the interpreter, where importing json (and with it re) would be a
# third of the gate's Python time. Written and read by the same gitai: the key names the Python too.
CACHE_NAME = "policy-cache.marshal"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gitai.intents.patterns import CompiledPattern


class IntentScope:
    """What the gate needs to know of one intent."""

    __slots__ = ("id", "name", "status", "patterns", "scope", "requires_approval", "details")

    def __init__(self, intent_id: str, name: str, status: str, patterns: list[CompiledPattern],
                 scope: list[str] | None = None, requires_approval: bool = False,
                 details: dict[str, Any] | None = None) -> None:
        self.id = intent_id
        self.name = name
        self.status = status
        self.patterns = patterns
        self.scope = scope or []  # the owned_scope as written, for messages
        self.requires_approval = requires_approval
        self.details = details or {}  # the catalogue entry as `Intent.to_json()` gives it


class Policy:
    """Answers: is a path exempt, which intents own it, is it in an intent's scope."""

    def __init__(self, intents: list[IntentScope], ignore: list[CompiledPattern],
                 agent_policy: dict[str, str] | None = None, bot_authors: list[str] | None = None) -> None:
        self.intents = {i.id: i for i in intents}
        self.agent_policy = agent_policy or {}  # the catalogue's `agent_policy:` (gitai/agents/shell_risk.py)
        self.bot_authors = bot_authors or []  # the catalogue's `bot_authors:`
        self._matchers = {i.id: Matcher(i.patterns) for i in intents}
        self.ignore = ignore
        self._ignore = Matcher(ignore)

    def is_exempt(self, path: str) -> bool:
        """`.orchestration/**` and paths matched by `.intentignore` need no scope."""
        return is_exempt(path) or self._ignore.matches(path)

    def owners(self, path: str) -> list[str]:
        """Every intent whose scope matches `path`, in catalogue order."""
        return [intent_id for intent_id, m in self._matchers.items() if m.matches(path)]

    def in_scope(self, intent_id: str, path: str) -> bool:
        return self._matchers[intent_id].matches(path)

    def is_bot(self, name: str, email: str) -> bool:
        """Whether an author is on the catalogue's `bot_authors` list (by name or email, `*` any text)."""
        if not self.bot_authors:
            return False
        import re

        for entry in self.bot_authors:
            pattern = re.compile(".*".join(re.escape(part) for part in entry.split("*")), re.IGNORECASE)
            if pattern.fullmatch(name) or pattern.fullmatch(email):
                return True
        return False

    def require(self, intent_id: str) -> IntentScope:
        if intent_id not in self.intents:
            known = ", ".join(self.intents) or "none"
            raise GitaiError(f"unknown intent '{intent_id}' (known: {known})")
        return self.intents[intent_id]


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def _cache_key(*parts: bytes | None) -> tuple[str, tuple[bytes | None, ...]]:
    """What a cached policy must have been compiled from: this gitai and Python, and the files' bytes."""
    python = f"py{sys.version_info[0]}.{sys.version_info[1]}.m{marshal.version}"
    return f"{__version__}:{python}", parts


def load_policy(layout: Layout) -> Policy:
    """The policy of this worktree, from the cache when the files did not change."""
    catalogue_bytes = _read(layout.catalogue)
    ignore_bytes = _read(layout.intentignore)
    key = _cache_key(catalogue_bytes, ignore_bytes)
    cache_path = os.path.join(layout.state_dir, CACHE_NAME)
    cached = _load_cache(cache_path, key)
    if cached is not None:
        return cached
    policy = compile_policy(layout.catalogue, layout.root, ignore_bytes, layout.relative(layout.intentignore))
    _store_cache(cache_path, key, policy)
    return policy


def compile_policy(catalogue_path: str, root: str | None, ignore_bytes: bytes | None, ignore_name: str) -> Policy:
    """The intents' compiled scopes, the compiled `.intentignore`, the catalogue's `agent_policy` and
    `bot_authors` (also for a bare repository's server gate, which reads both files from a commit)."""
    from gitai.intents.catalogue import load_catalogue
    from gitai.intents.patterns import PatternError, compile_pattern, compile_patterns

    catalogue = load_catalogue(catalogue_path, root)
    intents = [IntentScope(i.id, i.name, i.status, compile_patterns(i.owned_scope), list(i.owned_scope),
                           i.requires_approval, i.to_json()) for i in catalogue.intents]
    ignore: list[CompiledPattern] = []
    text = (ignore_bytes or b"").decode("utf-8", "replace")
    for number, line in enumerate(text.splitlines(), start=1):
        try:
            compiled = compile_pattern(line, anchors=True)
        except PatternError as exc:
            raise GitaiError(f"{ignore_name}:{number}: {exc}") from None
        if compiled:
            ignore.append(compiled)
    return Policy(intents, ignore, catalogue.agent_policy, list(catalogue.bot_authors))


def _load_cache(path: str, key: tuple[str, tuple[bytes | None, ...]]) -> Policy | None:
    data = _read(path)
    if data is None:
        return None
    try:
        cached = marshal.loads(data)
        if not isinstance(cached, dict) or cached.get("key") != key:
            return None
        intents = [
            IntentScope(i["id"], i["name"], i["status"], [(r, bool(inc)) for r, inc in i["patterns"]],
                        i["scope"], bool(i["requires_approval"]), i["details"])
            for i in cached["intents"]
        ]
        return Policy(intents, [(r, bool(inc)) for r, inc in cached["ignore"]], cached["agent_policy"],
                      cached["bot_authors"])
    except (ValueError, KeyError, TypeError, EOFError):
        return None


def _store_cache(path: str, key: tuple[str, tuple[bytes | None, ...]], policy: Policy) -> None:
    data = {
        "key": key,
        "intents": [{"id": i.id, "name": i.name, "status": i.status, "patterns": i.patterns, "scope": i.scope,
                     "requires_approval": i.requires_approval, "details": i.details} for i in policy.intents.values()],
        "ignore": policy.ignore,
        "agent_policy": policy.agent_policy,
        "bot_authors": policy.bot_authors,
    }
    try:
        write_atomic(path, marshal.dumps(data))
    except OSError:
        pass  # a read-only git dir only costs speed
