"""`gitai exec` and `gitai run`: start a command inside the kernel domain of an intent
(docs/security.md, "The kernel domain")."""

from __future__ import annotations

import os

import click

from gitai.layout import find_layout


@click.command("exec", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
               epilog="Example: gitai exec --session claude-code-4f2a -- sh -c 'make test'")
@click.option("--session", "session_key", required=True, metavar="KEY",
              help="The agent session (its state file's name) whose selected intent gives the scope.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def exec_cmd(session_key: str, command: tuple[str, ...]) -> int:
    """Run COMMAND inside the kernel domain of the session's current intent (what an agent host's
    pre-tool hook wraps a shell command in)."""
    # A well-formed call never gets here: gitai/entry.py hands it to gitai.sandbox.enter without click.
    from gitai.sandbox.enter import exec_in_session

    exec_in_session(find_layout(), session_key, list(command))
    return 0  # not reached: the command replaced this process


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
    from gitai.errors import GitaiError
    from gitai.sandbox.enter import enter_domain, own_hooks_for_the_host, start, usable_scope

    scope, why = usable_scope(lay, intent_id)
    if why:
        raise GitaiError(f"{why}; gitai run needs a usable intent: gitai run INT-ID -- HOST")
    from gitai.sandbox.supervise import host_rewriting_its_trust_file, run_supervised, trust_file_path

    host, home = host_rewriting_its_trust_file(list(words)), os.environ.get("HOME")
    if host and home:  # gitai stays outside as its parent, and puts the trust file back after it
        return run_supervised(lay, scope, list(words), intent_id, host, trust_file_path(host, home, os.environ))
    enter_domain(lay, scope)
    own_hooks_for_the_host(lay, list(words), os.environ)
    os.environ[ENV_VAR] = intent_id or ""
    start(list(words), intent_id)
    return 0  # not reached: the command replaced this process
