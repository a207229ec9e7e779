"""`gitai hooks install | uninstall | status`."""

from __future__ import annotations

from typing import Any

import click

from gitai.commands.output import emit_json, json_option, layout
from gitai.errors import EXIT_OK
from gitai.hooks.install import (
    hook_status,
    hooks_path_setting,
    install_hooks,
    own_hook_status,
    shared_hooks_scope,
    uninstall_hooks,
)
from gitai.intents.approval import require_person
from gitai.layout import Layout


@click.group(epilog="Example: gitai hooks status")
def hooks() -> None:
    """Install, remove or inspect gitai's git hooks."""


def warn_shared_hooks(lay: Layout) -> None:
    scope = shared_hooks_scope(lay)
    if scope:
        click.echo(f"gitai: warning: core.hooksPath comes from your {scope} git config, so these hooks run in every "
                   "repository; they do nothing where gitai is not set up", err=True)


def _print_hooks(states: list[Any], as_json: bool, lay: Layout) -> None:
    """The hooks git runs, then gitai's own (the ones git runs inside the kernel domain of a host that turns
    hooks off)."""
    hooks_path = hooks_path_setting(lay)
    own = own_hook_status(lay)
    if hooks_path:
        warn_shared_hooks(lay)
    if as_json:
        emit_json({"hooks_dir": str(lay.repo.hooks_dir), "core_hooks_path": hooks_path,
                   "hooks": [s.to_json() for s in states],
                   "own_hooks_dir": lay.own_hooks_dir, "own_hooks": [s.to_json() for s in own]})
        return
    if hooks_path:
        click.echo(f"core.hooksPath is set ({hooks_path}): hooks live in {lay.repo.hooks_dir}")
    for s in states:
        behind = f" (run by {s.framework})" if s.framework and s.state != "framework" else ""
        click.echo(f"{s.name:<13} {s.state:<9}{' chained' if s.chained else ''}  {s.path}{behind}")
    for s in own:
        click.echo(f"{s.name:<13} {s.state:<9}  {s.path} (gitai's own, for hosts that turn hooks off)")


@hooks.command("install", epilog="Example: gitai hooks install")
@click.option("--force", is_flag=True, help="Replace a foreign hook instead of chaining it (it is kept aside); "
                                            "allow a global or system core.hooksPath.")
@click.option("--server", is_flag=True, help="In a bare repository: the pre-receive gate refusing out-of-scope pushes.")
@json_option
def hooks_install(force: bool, server: bool, as_json: bool) -> int:
    """Install the hooks where git runs them (worktrees, submodules, core.hooksPath)."""
    if server:
        import os

        from gitai.hooks.install import install_server_hook

        state = install_server_hook(os.getcwd(), force)
        if as_json:
            emit_json({"hooks_dir": str(state.path.parent), "core_hooks_path": None, "hooks": [state.to_json()],
                       "own_hooks_dir": None, "own_hooks": []})
        else:
            click.echo(f"{state.name:<13} {state.state:<9}{' chained' if state.chained else ''}  {state.path}")
        return EXIT_OK
    lay = layout()
    _print_hooks(install_hooks(lay, force=force), as_json, lay)
    return EXIT_OK


@hooks.command("uninstall", epilog="Example: gitai hooks uninstall")
@json_option
def hooks_uninstall(as_json: bool) -> int:
    """Remove gitai's hooks and restore the ones they replaced."""
    lay = layout()
    require_person("hooks uninstall", lay.root)
    _print_hooks(uninstall_hooks(lay), as_json, lay)
    return EXIT_OK


@hooks.command("status", epilog="Example: gitai hooks status --json")
@json_option
def hooks_status(as_json: bool) -> int:
    """Show each hook's state: installed, missing, foreign, stale or framework."""
    lay = layout()
    _print_hooks(hook_status(lay), as_json, lay)
    return EXIT_OK



@hooks.command("run", context_settings={"ignore_unknown_options": True},
               epilog="Example: gitai hooks run commit-msg .git/COMMIT_EDITMSG")
@click.argument("hook", type=click.Choice(["pre-commit", "commit-msg", "post-commit", "post-merge", "post-rewrite",
                                           "pre-push"]))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def hooks_run(hook: str, args: tuple[str, ...]) -> int:
    """Run gitai's git hook HOOK as installed: for the pre-commit framework (.pre-commit-hooks.yaml).

    Does nothing when git already runs gitai's own hook for HOOK (installed by `gitai init`, or kept
    by the framework as HOOK.legacy), so nothing runs twice."""
    from gitai.hook_main import run_for_framework

    return run_for_framework(hook, list(args))
