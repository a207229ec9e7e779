"""Answering each host in its own protocol (PROTOCOLS.md): a deny that the host really enforces,
with a reason the model reads; context for session-start and prompt-submit, and a warning after a shell
command (a commit nothing gated) where the host reads one after a tool call.

Every answer is (stdout text, stderr text, exit code). A deny is always exit 0 with the host's
deny JSON, which every host reads (and which, unlike exit 2, carries the reason everywhere).
"""

from __future__ import annotations

from gitai.agents.hosts import (
    ADDITIONAL_CONTEXT,
    AFTER_SHELL,
    BY_NAME,
    CURSOR,
    DECISION,
    PERMISSION_DECISION,
    PROMPT_SUBMIT,
    SESSION_START,
    TOOL_INPUT,
    UPDATED_INPUT,
)
from gitai.util import hookjson

ALLOW = "allow"
ASK = "ask"
DENY = "deny"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitai.agents.normalize import AgentEvent


class Answer:
    """What gitai decided for one event."""

    __slots__ = ("decision", "reason", "context", "updated_input")

    def __init__(self, decision: str = ALLOW, reason: str = "", context: str = "") -> None:
        self.decision = decision
        self.reason = reason
        self.context = context
        # the tool's input to run in place of the model's (an allow or an ask only; hosts with input_rewrite)
        self.updated_input: dict[str, object] | None = None


def render(event: AgentEvent, answer: Answer) -> tuple[str, str, int]:
    """stdout, stderr and exit code for `answer` to `event`, in `event.host`'s protocol."""
    host = BY_NAME[event.host]
    decision = answer.decision
    reason = answer.reason
    if decision == ASK and not host.asks:
        decision = DENY
        reason = f"{reason}\n(this host cannot ask the person from a hook: ask them to run it, or to allow it)"
    if decision == DENY and not reason.strip():
        reason = "gitai: refused"  # a deny never goes out without a reason (Codex would fail open)
    rewrite = answer.updated_input if decision != DENY else None
    if rewrite is not None and host.input_rewrite == TOOL_INPUT and decision == ALLOW:
        return _dumps({"hookSpecificOutput": {"hookEventName": event.hook_event or "BeforeTool",
                                              "tool_input": rewrite}}), "", 0
    if host.input_rewrite != UPDATED_INPUT:
        rewrite = None
    if decision in (DENY, ASK):
        refusal = _refusal(host.refusal, event, decision, reason)
        if rewrite is not None and isinstance(refusal.get("hookSpecificOutput"), dict):
            refusal["hookSpecificOutput"]["updatedInput"] = rewrite  # type: ignore[index]
        return _dumps(refusal), "", 0
    if rewrite is not None:  # no permissionDecision: the host's own permission rules still apply
        return _dumps({"hookSpecificOutput": {"hookEventName": event.hook_event or "PreToolUse",
                                              "updatedInput": rewrite}}), "", 0
    if answer.context and event.kind in (SESSION_START, PROMPT_SUBMIT):
        return _dumps(_context(host.context, event, answer.context)), "", 0
    if answer.context and event.kind == AFTER_SHELL and host.context != CURSOR:  # Cursor's after-shell reads none
        return _dumps(_context(host.context, event, answer.context)), "", 0
    if (host.refusal == CURSOR and event.kind not in (SESSION_START, PROMPT_SUBMIT)
            and event.hook_event.startswith(("pre", "before"))):
        return _dumps({"permission": "allow"}), "", 0  # Cursor wants its allow said
    return "", "", 0


def _dumps(data: object) -> str:
    return hookjson.dumps(data, ensure_ascii=False) + "\n"


def _refusal(shape: str, event: AgentEvent, decision: str, reason: str) -> dict[str, object]:
    if shape == CURSOR:
        if event.kind == PROMPT_SUBMIT:
            return {"continue": False, "user_message": reason}
        return {"permission": decision, "user_message": reason.split("\n", 1)[0], "agent_message": reason}
    if shape == DECISION:
        return {"decision": decision, "reason": reason}
    if shape == PERMISSION_DECISION:
        return {"permissionDecision": decision, "permissionDecisionReason": reason}
    return {"hookSpecificOutput": {"hookEventName": event.hook_event or "PreToolUse", "permissionDecision": decision,
                                   "permissionDecisionReason": reason}}


def _context(shape: str, event: AgentEvent, text: str) -> dict[str, object]:
    if shape == CURSOR:
        return {"additional_context": text} if event.kind == SESSION_START else {"continue": True}
    if shape == ADDITIONAL_CONTEXT:
        return {"additionalContext": text}
    return {"hookSpecificOutput": {"hookEventName": event.hook_event, "additionalContext": text}}


def render_failure(host: str, hook_event: str, reason: str) -> tuple[str, str, int]:
    """Fail closed when the payload could not even be read: the host's deny JSON, or exit 2 with
    the reason on stderr for the hosts where that blocks any event."""
    reason = reason or "gitai: internal error"
    shape = BY_NAME[host].failure
    if shape == CURSOR:
        return _dumps({"permission": DENY, "user_message": reason, "agent_message": reason}), "", 0
    if shape == DECISION:
        return _dumps({"decision": DENY, "reason": reason}), "", 0
    if shape == PERMISSION_DECISION:
        return _dumps({"permissionDecision": DENY, "permissionDecisionReason": reason}), "", 0
    return "", reason + "\n", 2  # EXIT_2: with a non-empty stderr it blocks any event


def render_unwritten(reason: str) -> tuple[str, str, int]:
    """An answer that could not be written (the hook's stdout closed, or a pipe its host no longer reads):
    exit 2 with the reason on stderr, which every host takes as a block (Copilot CLI: any non-zero exit),
    where the exit 1 of a failed write would let the call through."""
    return "", reason + "\n", 2
