"""`gitai exec` and `gitai run`: start a command inside the kernel domain of an intent
(docs/security.md, "The kernel domain")."""

from __future__ import annotations

import os

import click

from gitai.errors import GitaiError
from gitai.layout import Layout, find_layout


def _usable_scope(lay: Layout, intent_id: str | None) -> tuple[tuple[str, ...], str | None]:
    """(the intent's owned scope, None) or ((), why there is none)."""
    from gitai.intents.approval import is_approved
    from gitai.intents.catalogue import load_catalogue
    from gitai.intents.statuses import CLOSED

    if not intent_id:
        return (), "no intent is selected"
    try:
        intent = load_catalogue(lay.catalogue, lay.root).get(intent_id)
    except GitaiError as exc:
        return (), str(exc)
    if intent.status in CLOSED:
        return (), f"intent {intent.id} is {intent.status}"
    if intent.requires_approval and not is_approved(lay, intent.id):
        return (), f"intent {intent.id} requires a person's approval (gitai approve {intent.id})"
    return intent.owned_scope, None


def _enter_domain(lay: Layout, scope: tuple[str, ...]) -> None:
    """Restrict this process to the domain, or say in one line why the kernel cannot hold it."""
    from gitai.sandbox.domain import plan_domain
    from gitai.sandbox.landlock import LandlockUnavailable, MountsUnavailable, abi_version, restrict

    home = os.environ.get("HOME") or None
    try:
        abi_version()
        try:
            plan = plan_domain(lay, scope, home, mounts=True)
            restrict(plan.writable, plan.readonly)
        except MountsUnavailable:
            plan = plan_domain(lay, scope, home, mounts=False)
            restrict(plan.writable, [])
    except LandlockUnavailable as exc:
        click.echo(f"gitai: warning: no kernel domain ({exc}); only the agent hooks and git hooks hold the scope",
                   err=True)
        return
    for note in plan.notes:
        click.echo(f"gitai: note: {note}", err=True)
    import tempfile

    # ~/.cache is not writable in the domain (programs there run later outside it): a cache of its own
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="gitai-domain-cache-")


def _exec(command: tuple[str, ...], intent_id: str | None) -> int:
    from gitai.sandbox.domain import DOMAIN_VARIABLE

    os.environ[DOMAIN_VARIABLE] = intent_id or ""
    try:
        os.execvp(command[0], list(command))
    except OSError as exc:
        raise GitaiError(f"cannot run {command[0]}: {exc.strerror}") from None
    return 0  # not reached: exec replaced this process


@click.command("exec", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
               epilog="Example: gitai exec --session claude-code-4f2a -- sh -c 'make test'")
@click.option("--session", "session_key", required=True, metavar="KEY",
              help="The agent session (its state file's name) whose selected intent gives the scope.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def exec_cmd(session_key: str, command: tuple[str, ...]) -> int:
    """Run COMMAND inside the kernel domain of the session's current intent (what an agent host's
    pre-tool hook wraps a shell command in)."""
    from gitai.sandbox.domain import session_intent

    lay = find_layout()
    intent_id = session_intent(lay, session_key)
    scope, why = _usable_scope(lay, intent_id)
    if why:
        click.echo(f"gitai: note: {why}: the domain allows no writes in the work tree", err=True)
    _enter_domain(lay, scope)
    return _exec(command, intent_id if not why else None)


class _RunArguments(click.Command):
    """`gitai run [INTENT] -- HOST ...`: the words before `--` name the intent."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" not in args:
            if args and args[0] in ("-h", "--help"):
                return super().parse_args(ctx, args)
            raise click.UsageError("gitai run needs the command after '--': gitai run [INTENT] -- HOST [ARGS]...")
        split = args.index("--")
        before, after = args[:split], args[split + 1:]
        if len(before) > 1 or any(word.startswith("-") for word in before):
            raise click.UsageError(f"gitai run takes at most one intent before '--' (got: {' '.join(before)})")
        if not after:
            raise click.UsageError("gitai run needs a command after '--'")
        ctx.meta["gitai.run.intent"] = before[0] if before else None
        return super().parse_args(ctx, ["--", *after])


@click.command("run", cls=_RunArguments,
               epilog="Example: gitai run INT-001 -- claude")
@click.argument("words", nargs=-1, required=True, type=click.UNPROCESSED, metavar="[INTENT] -- HOST [ARGS]...")
def run_cmd(words: tuple[str, ...]) -> int:
    """Start an agent host (or any command) inside the kernel domain of INTENT (default: this
    worktree's selected intent): for the whole session it can write only within the intent's scope."""
    from gitai.intents.active import ENV_VAR, selected_intent

    lay = find_layout()
    given = click.get_current_context().meta.get("gitai.run.intent")
    if given is None:
        chosen = selected_intent(lay)
        intent_id = chosen.id if chosen else None
    else:
        intent_id = given
    scope, why = _usable_scope(lay, intent_id)
    if why:
        raise GitaiError(f"{why}; gitai run needs a usable intent: gitai run INT-ID -- HOST")
    _enter_domain(lay, scope)
    os.environ[ENV_VAR] = intent_id or ""
    return _exec(words, intent_id)
