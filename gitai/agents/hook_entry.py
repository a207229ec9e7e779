"""`gitai hook HOST [EVENT]`: the one command every host's hook configuration calls.

Reads the host's payload on stdin, normalizes it (gitai/agents/normalize.py), decides, and answers
in the host's protocol (gitai/agents/protocol.py). Reached without click (gitai/entry.py), and
imports only lean modules, plus tree-sitter-bash for shell commands.

Fail closed: an internal error denies with a one-line reason and logs the traceback in
`<git common dir>/gitai/errors.log`. A person who must get past a broken hook starts the agent
with `GITAI_HOOKS=off` in its environment (docs/agents.md); an agent cannot set it for the hooks.
"""

from __future__ import annotations

import os
import sys

from gitai.agents import normalize as ev
from gitai.agents.hosts import BY_NAME, NAMES, PER_EVENT
from gitai.agents.protocol import ALLOW, ASK, DENY, Answer, render, render_failure, render_unwritten

USAGE = """\
usage: gitai hook HOST [EVENT]

The command the agent hosts' hook configurations call (`gitai agents install` writes them).
Reads the host's hook payload (JSON) on stdin and answers in the host's protocol.
HOST: %(hosts)s. EVENT: the host's event name, for hosts
whose payload does not carry it (%(per_event)s).

Example:
  echo '{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"x"}}' \
    | gitai hook claude-code
"""
MAX_PAYLOAD = 8 * 1024 * 1024
BEFORE_KINDS = (ev.BEFORE_WRITE, ev.BEFORE_SHELL, ev.BEFORE_UNKNOWN, ev.BEFORE_STDIN)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

    from gitai.agents.gate import Governor
    from gitai.agents.sessions import Session
    from gitai.errors import error_handler
    from gitai.layout import Layout


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        per_event = ", ".join(h.title for h in BY_NAME.values() if h.config_style == PER_EVENT)
        _written(sys.stdout, USAGE % {"hosts": ", ".join(NAMES), "per_event": per_event})
        return 0 if argv else 2
    host = argv[0]
    if host not in BY_NAME:
        _written(sys.stderr, f"gitai: error: unknown host {host!r} (known: {', '.join(NAMES)})\n")
        return 2
    event_arg = argv[1] if len(argv) > 1 else None
    stdin = sys.stdin  # None where the host closed it: no payload, refused as an unreadable one
    out, err, code = run(host, event_arg, stdin.buffer.read(MAX_PAYLOAD + 1) if stdin is not None else b"")
    if out and not _written(sys.stdout, out):
        out, err, code = render_unwritten("gitai: refused: the hook's answer could not be written to its "
                                          "standard output (fail closed).")
    if err:
        _written(sys.stderr, err)
    return code


def _written(stream: TextIO | None, text: str) -> bool:
    """Whether `text` reached `stream`, which is None where the host started the hook with it closed."""
    if stream is None:
        return False
    try:
        stream.write(text)
        stream.flush()
    except (OSError, ValueError):  # EPIPE: the reader is gone
        return False
    return True


def run(host: str, event_arg: str | None, data: bytes) -> tuple[str, str, int]:
    """The whole hook: payload bytes in, (stdout, stderr, exit code) out; never raises."""
    from gitai.agents import budget
    from gitai.errors import AGENT_HOOK, error_handler

    budget.start()
    handled = error_handler(AGENT_HOOK, f"gitai hook {host}")
    with handled:
        return _answer(host, event_arg, data, handled)
    return render_failure(host, event_arg or "", handled.reason)  # fail closed: an error is never an allow


def _answer(host: str, event_arg: str | None, data: bytes, handled: error_handler) -> tuple[str, str, int]:
    from gitai.agents import budget

    hook_event = event_arg or ""
    try:
        if len(data) > MAX_PAYLOAD:
            raise ev.PayloadError(f"the hook payload is larger than {MAX_PAYLOAD} bytes")
        payload = ev.parse_payload(data.decode("utf-8", "surrogateescape"))
        event = ev.normalize(host, payload, event_arg)
        hook_event = event.hook_event
        if event.kind == ev.AFTER_SHELL and event.command and BY_NAME[host].exec_wrap:
            from gitai.sandbox.wrap import unwrap  # the host reports the command gitai ran in its place

            event.command = unwrap(event.command) or event.command
        if event.kind == ev.OTHER or os.environ.get("GITAI_HOOKS", "").lower() == "off":
            return render(event, Answer(ALLOW))
        if event.kind == ev.BEFORE_SHELL and BY_NAME[host].stdin_tools and _truthy(event.tool_input.get("tty")):
            return render(event, Answer(DENY, _interactive()))  # in any repository or none: what is typed is unseen
        if host == "claude-code" and _handled_elsewhere(payload):
            return render(event, Answer(ALLOW))
        from gitai.errors import GitaiError
        from gitai.layout import find_layout

        if event.unreadable:
            from gitai.refusal import Refusal

            return render(event, Answer(DENY, Refusal(f"{event.tool or 'tool'} refused: its target cannot be read: "
                                                      f"{event.unreadable} (fail closed).").for_agent()))
        try:
            layout = find_layout(event.cwd if os.path.isdir(event.cwd) else None)
        except GitaiError:
            layout = None  # the cwd is in no repository: the paths are judged by their own
        if layout is not None and not layout.uses_gitai():
            layout = None
        handled.label = f"gitai hook {host} {hook_event}"
        handled.state_dir = layout.shared_state_dir if layout else None
        try:
            if layout is None:
                answer = _foreign(event) if event.kind in BEFORE_KINDS else Answer(ALLOW)
            else:
                answer = handle(layout, event)
        except GitaiError as exc:  # e.g. a malformed catalogue: say so, and refuse what needs it
            from gitai.util.text import one_line

            answer = Answer(DENY if event.kind in BEFORE_KINDS else ALLOW, f"gitai: {one_line(str(exc))}")
        if BY_NAME[host].login_shell and (answer.reason or answer.context):
            from gitai.util.program import program_note, with_program  # its shell does not find `gitai` by name

            answer.reason, answer.context = with_program(answer.reason), with_program(answer.context)
            if event.kind == ev.SESSION_START:
                answer.context += program_note()
        return render(event, answer)
    except ev.PayloadError as exc:
        return render_failure(host, hook_event, f"gitai: refused: {exc} (fail closed)")
    except budget.BudgetSpent as exc:
        return render_failure(host, hook_event, f"gitai: refused: {exc}; split the work into smaller calls, "
                                                "or ask a person to run it.")


def _handled_elsewhere(payload: dict[str, object]) -> bool:
    """Cursor and VS Code's Copilot also run `.claude/settings.json` hooks: when their own gitai
    hooks are installed, leave the call to them so that it is not handled twice."""
    transcript = str(payload.get("transcript_path") or "")
    if "cursor_version" in payload or "/.cursor/" in transcript:
        config = BY_NAME["cursor"].project_configs[0]
    elif "github.copilot" in transcript:
        config = BY_NAME["copilot"].project_configs[0]
    else:
        return False
    roots = payload.get("workspace_roots")
    base = str(payload.get("cwd") or (roots[0] if isinstance(roots, list) and roots else "") or os.getcwd())
    for folder in (base, os.path.expanduser("~")):
        try:
            with open(os.path.join(folder, config), encoding="utf-8") as handle:
                if "gitai hook" in handle.read():
                    return True
        except OSError:
            continue
    return False


def session_intent(layout: Layout, session: Session) -> str | None:
    """The intent a session works under: the one it selected, else GITAI_INTENT, else the worktree's."""
    if session.intent:
        return session.intent
    from gitai.intents.active import active_intent

    active = active_intent(layout)
    return active.id if active else None


def handle(layout: Layout, event: ev.AgentEvent) -> Answer:
    from gitai.agents.sessions import Session

    session = Session(layout, event.host, event.session_id)
    if event.model:
        if session.data.get("model") != event.model:
            session.data["model"], session.data["model_source"] = event.model, "payload"
    elif session.data.get("model_source") not in ("payload", "transcript"):
        probe = _model_probe(event)
        if session.data.get("model_probe") != probe or event.kind == ev.SESSION_START:
            from gitai.agents.model import find_model

            found = find_model(event.host, event.transcript_path, layout.root)
            if found:
                session.data["model"], session.data["model_source"] = found
            session.data["model_probe"] = probe  # kept when the session is next saved
    kind = event.kind
    if kind == ev.BEFORE_WRITE:
        return _before_write(layout, event, session)
    if kind == ev.BEFORE_SHELL:
        return _before_shell(layout, event, session)
    if kind in (ev.BEFORE_UNKNOWN, ev.BEFORE_STDIN):
        answer = _unknown_tool(_governor(layout, event, session_intent(layout, session)), event)
        return answer if answer.decision == ALLOW else _denied(layout, event, session, session_intent(layout, session),
                                                                 answer, paths=event.paths)
    if kind == ev.AFTER_WRITE:
        from gitai.agents.after_write import on_after_write

        on_after_write(layout, event, session)
        session.save()
        return Answer(ALLOW)
    if kind == ev.AFTER_READ:
        from gitai.agents.after_write import remember_seen

        remember_seen(layout, session, event.paths)
        session.save()
        return Answer(ALLOW)
    if kind == ev.AFTER_SHELL:
        return Answer(ALLOW, context=_after_shell(layout, event, session))
    if kind == ev.SESSION_START:
        from gitai.agents.context import context_text
        from gitai.agents.sessions import prune_stale

        prune_stale(layout)
        session.data.setdefault("started", _now())
        session.data.setdefault("cwd", event.cwd)
        session.save()
        return Answer(ALLOW, context=context_text(layout, session_intent(layout, session),
                                                  tags=not BY_NAME[event.host].escapes_tags))
    if kind == ev.PROMPT_SUBMIT:
        return Answer(ALLOW, context=_reminder(layout, session))
    if kind == ev.SESSION_END:
        session.remove()
    return Answer(ALLOW)


def _model_probe(event: ev.AgentEvent) -> str:
    """What `find_model`'s answer depends on that changes during a session: the transcript, where
    the host writes the model into it. The same probe again finds the same model, or none."""
    if not (event.transcript_path and BY_NAME[event.host].transcript_names_model):
        return "-"
    try:
        return str(os.stat(event.transcript_path).st_size)
    except OSError:
        return "absent"


def _now() -> str:
    from gitai.util.time import utc_now

    return utc_now()


def _policy(layout: Layout):  # type: ignore[no-untyped-def]
    from gitai.gate.policy import load_policy

    return load_policy(layout)


def _denied(layout: Layout, event: ev.AgentEvent, session: Session, intent_id: str | None, answer: Answer,
            **fields: object) -> Answer:
    """A refusal leaves one line in the events, which `gitai context` summarizes later."""
    from gitai.intents.events import record_event

    record_event(layout, "agent-denied", False, actor=f"agent:{event.host}", intent_id=intent_id, host=event.host,
                 session=session.key,
                 model=session.data.get("model"), tool=event.tool, decision=answer.decision,
                 reason=answer.reason.split("\n", 1)[0], **fields)
    return answer


def _governor(layout: Layout | None, event: ev.AgentEvent, intent_id: str | None = None) -> Governor:
    from gitai.agents.gate import Governor

    return Governor(layout, event.host, event.session_id, intent_id)


def _foreign(event: ev.AgentEvent) -> Answer:
    """A call whose cwd is in no repository gitai governs: its paths and commands may still reach one."""
    gov = _governor(None, event)
    if event.kind == ev.BEFORE_WRITE:
        return gov.check(event.paths)
    if event.kind == ev.BEFORE_SHELL:
        from gitai.agents.gate import check_shell

        if event.paths:
            answer = gov.check(event.paths, what="patch")
            if answer.decision != ALLOW:
                return answer
        return check_shell(gov, event.command or "", event.cwd)[0]
    return _unknown_tool(gov, event)


def _unknown_tool(gov: Governor, event: ev.AgentEvent) -> Answer:
    """A tool gitai does not know (or text typed into a running shell): never allowed unseen."""
    if event.paths:
        answer = gov.check(event.paths, what=event.tool or "tool")
        if answer.decision != ALLOW:
            return answer
    if event.kind == ev.BEFORE_STDIN:
        why = "it types into a running process, and gitai cannot see what that process does with it"
    else:
        why = "it is a tool gitai does not know, and its input names a path or content"
    return Answer(ASK, f"gitai: {event.tool} needs a person's approval: {why}.")


def _before_write(layout: Layout, event: ev.AgentEvent, session: Session) -> Answer:
    from gitai.agents.gate import check_stale, repo_relative

    rel_paths = [r for r in (repo_relative(layout, p) for p in event.paths) if r is not None]
    intent_id = session_intent(layout, session)
    answer = _governor(layout, event, intent_id).check(event.paths)
    if answer.decision == ALLOW:
        answer = check_stale(layout, session, rel_paths)
    if answer.decision != ALLOW:
        return _denied(layout, event, session, intent_id, answer, paths=rel_paths)
    from gitai.agents.checkpoints import catch_up

    for rel in rel_paths:  # a person's edits since the last checkpoint stay the person's
        if rel != "." and not rel.startswith((".git/", ".orchestration/")):
            catch_up(layout, rel)
    return answer


def _before_shell(layout: Layout, event: ev.AgentEvent, session: Session) -> Answer:
    from gitai.agents.gate import check_shell

    intent_id = session_intent(layout, session)
    gov = _governor(layout, event, intent_id)
    if event.paths:  # a shell command carrying a patch: the patch's paths, then the command itself
        answer = gov.check(event.paths, what="patch")
        if answer.decision != ALLOW:
            return _denied(layout, event, session, intent_id, answer, command=(event.command or "")[:500])
    if not event.command:
        return Answer(ALLOW)
    answer, risk = check_shell(gov, event.command, event.cwd)
    wraps = answer.decision != DENY and _wraps(event, bool(risk.commits))
    if wraps and BY_NAME[event.host].command_in_subshell:
        answer = _refuse_incomplete(event.command) or answer
    if answer.decision == ALLOW and session.data.get("files"):  # shell writes (and patches) wait for a fresh read too
        from gitai.agents.gate import check_stale, repo_relative

        patched = [r for r in (repo_relative(layout, p) for p in event.paths) if r is not None]
        answer = check_stale(layout, session, patched + [t for t in risk.targets if not os.path.isabs(t)])
    if answer.decision != ALLOW:
        if answer.decision == ASK and wraps:  # what the person lets through runs in the domain too
            _wrap_in_domain(event, session, answer)
        return _denied(layout, event, session, intent_id, answer, command=event.command[:500])
    from gitai.agents.shell_changes import before_shell

    saved = not before_shell(layout, event, session, intent_id, risk.git_dirs if risk.commits else [])
    hookless = _git_hooks_off(event.host)
    if risk.commits:
        from gitai.agents.commits import commit_refusal
        from gitai.agents.sessions import note_commit, remember_head

        if hookless:
            refusal = commit_refusal(layout, _policy(layout), intent_id, event.command, event.cwd)
            if refusal:
                return _denied(layout, event, session, intent_id, Answer(DENY, refusal), command=event.command[:500])
        note_commit(layout, session, event.tool_use_id or "")
        if session.intent:
            _commit_under_session(layout, session)
        if hookless:  # elsewhere git's own post-commit hook records the commit
            remember_head(layout, session)
        saved = False
    elif hookless:  # a program the command runs may commit, and no hook of git's would see it
        from gitai.agents.shell_changes import may_write

        if may_write(event.command):
            from gitai.agents.sessions import remember_head

            remember_head(layout, session, gated=False)
            saved = False
    if not saved:
        session.save()
    if wraps:
        _wrap_in_domain(event, session, answer)
    return answer


def _git_hooks_off(host: str) -> bool:
    """`git_hooks_off` (gitai/sandbox/enter.py), imported only where the answer is not plain: the host's
    shell runs git's hooks (a registry fact) and the environment gives git no config (no GIT_CONFIG_COUNT)."""
    if BY_NAME[host].git_hooks_in_shell and "GIT_CONFIG_COUNT" not in os.environ:
        return False
    from gitai.sandbox.enter import git_hooks_off

    return git_hooks_off(host, os.environ)


def _wraps(event: ev.AgentEvent, commits: bool) -> bool:
    """Whether the command will run inside `gitai exec` (docs/security.md, "The second way in"): where
    the host lets its hook rewrite the command, a kernel domain can be had, and the person did not
    turn it off (GITAI_EXEC_WRAP=0 where the host starts). A command that commits is left unwrapped
    where no read-only mounts can be made: a domain without them cannot write git's index."""
    command = event.tool_input.get("command")
    if not BY_NAME[event.host].exec_wrap or not isinstance(command, str) or command != event.command:
        return False
    from gitai.sandbox.landlock import mounts_available
    from gitai.sandbox.wrap import domain_available, wrapping_wanted

    return wrapping_wanted() and domain_available() and not (commits and not mounts_available())


def _refuse_incomplete(command: str) -> Answer | None:
    """A command bash would not parse on its own is refused where the host puts it inside its own
    `( ... )`: part of it could close that and run after the line that enters the domain, outside it.
    (Inside Claude Code's `eval '...'` a command that does not parse runs nothing at all.)"""
    from gitai.sandbox.wrap import incomplete

    why = incomplete(command)
    if not why:
        return None
    from gitai.refusal import Refusal

    return Answer(DENY, Refusal(f"command refused: it is not a complete shell command on its own ({why}).",
                                hints=["finish it (close its quotes, brackets and here-documents), or split it"]
                                ).for_agent())


def _wrap_in_domain(event: ev.AgentEvent, session: Session, answer: Answer) -> None:
    """Run the command inside `gitai exec` (where `_wraps` said so): the kernel then holds the session's
    scope for whatever the command starts."""
    from gitai.sandbox.wrap import wrap
    from gitai.util.program import gitai_program

    command = str(event.tool_input["command"])
    line = wrap(gitai_program(), session.key, command)
    answer.updated_input = {**event.tool_input, "command": line}


def _interactive() -> str:
    from gitai.refusal import Refusal

    return Refusal("command refused (interactive): a shell started with a terminal takes input that gitai's hooks "
                   "never see (what is typed into it with write_stdin is not checked).",
                   hints=["run each command on its own, without tty"]).for_agent()


def _truthy(value: object) -> bool:
    return value is True or (isinstance(value, str) and value.lower() in ("true", "1", "yes"))


def _commit_under_session(layout: Layout, session: Session) -> None:
    """The session is about to `git commit`: the worktree's selection becomes the session's intent,
    so that the git hooks (pre-commit gate, Intent trailer, record) see the session's intent."""
    from gitai.intents.active import selected_intent, write_active
    from gitai.intents.events import record_event

    current = selected_intent(layout)
    if current is None or current.id != session.intent:
        write_active(layout, session.intent)
        record_event(layout, "select", intent_id=session.intent, previous_intent_id=current.id if current else None,
                     reason="agent session commits", session=session.key, host=session.data.get("host"),
                     model=session.data.get("model"))


def _after_shell(layout: Layout, event: ev.AgentEvent, session: Session) -> str:
    """Settle what the command did; a warning for the agent where it committed what nothing gated, else ""."""
    command = event.command or ""
    changed = False
    if session.data.get("session_id"):
        from gitai.agents.sessions import commit_command_done

        commit_command_done(layout, session)
    if "gitai" in command and ("select" in command or "clear" in command):
        from gitai.intents.active import selected_intent

        selected = selected_intent(layout)
        if event.exit_code in (None, 0):
            if "select" in command and selected is not None and selected.id in command.split("select", 1)[1]:
                changed = session.data.get("intent_id") != selected.id
                session.data["intent_id"] = selected.id
            elif "clear" in command and selected is None:
                changed = session.data.pop("intent_id", None) is not None
    from gitai.agents.shell_reads import shell_reads

    read = shell_reads(command, event.cwd)
    if read and event.exit_code in (None, 0):  # what the agent saw through its shell counts as a read
        from gitai.agents.after_write import remember_seen

        changed = bool(remember_seen(layout, session, read)) or changed
    if session.data.get("files") and (any(c in command for c in ">|") or any(
            w in command for w in ("sed", "mv", "cp", "tee", "rm", "touch", "truncate"))):
        from gitai.agents.after_write import remember_seen
        from gitai.agents.shell_risk import classify

        targets = classify(command, event.cwd, layout.root).targets
        known = session.files()
        mine = [os.path.join(layout.root, t) for t in targets if t in known]
        changed = bool(remember_seen(layout, session, mine)) or changed
    from gitai.agents.shell_changes import after_shell

    changed = after_shell(layout, event, session, session_intent(layout, session)) or changed
    from gitai.agents.sessions import HEAD_BEFORE, current_head, forget_head, remembered_head

    warning = ""
    before, _ = remembered_head(session)
    if HEAD_BEFORE in session.data and (before is None or before == current_head(layout)):  # none made, or stale
        forget_head(session)
        changed = True
    elif HEAD_BEFORE in session.data:  # after the checkpoints: the commit's record reads them
        from gitai.agents.commits import record_new_commits

        warning = record_new_commits(layout, session, session_intent(layout, session))
    if changed or not session.exists:
        session.save()
    return warning


def _reminder(layout: Layout, session: Session) -> str:
    """One line per prompt: cheap (the policy cache), so every prompt carries the intent."""
    policy = _policy(layout)
    intent_id = session_intent(layout, session)
    intent = policy.intents.get(intent_id or "")
    if intent is None:
        return ("gitai: no intent is selected for this session: writes are refused until you run "
                "`gitai select INT-ID` (`gitai context` lists them).")
    return f"gitai: this session works under {intent.id} ({intent.name}); scope: {', '.join(intent.scope)}."
