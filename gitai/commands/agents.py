"""`gitai agents install | status | uninstall`: the coding agents' hook configurations."""

from __future__ import annotations

import os
from typing import Any

import click

from gitai.agents.hosts import BY_NAME, HOSTS
from gitai.agents.install import host_status, ignore_in_scopes, install_host, resolve_hosts, uninstall_host
from gitai.commands.output import emit_json, json_option, layout
from gitai.errors import EXIT_OK
from gitai.intents.approval import require_person

HOST_HELP = f"HOSTS: {' '.join(BY_NAME)} (default: all)."


@click.group(epilog="Example: gitai agents status",
             help=f"Install, inspect or remove the agent hooks ({', '.join(h.title for h in HOSTS)}).")
def agents() -> None:
    pass


def _report(rows: list[dict[str, Any]], as_json: bool, manual: bool) -> None:
    if as_json:
        emit_json(rows)
        return
    for row in rows:
        changed = {True: " (written)", False: " (unchanged)"}.get(bool(row["changed"])) if "changed" in row else ""
        click.echo(f"{row['host']:<12} {row['state']:<10} {row['path']}{changed}")
        if row.get("will_run") is True:
            click.echo(f"  will run: {row['trust_detail']}")
        elif row.get("will_run") is False:
            click.echo(f"  {row['state']} but will not run: {row['trust_detail']}")
        elif row.get("will_run") is None and "trust_detail" in row:
            click.echo(f"  {row['state']}, runs only once trusted: {row['trust_detail']}")
        if row.get("will_run") is not True and row.get("fix"):
            click.echo("  how to fix:")
            for step in row["fix"]:
                click.echo(f"    - {step}")
        own = row.get("own_hook")
        if own:
            click.echo(f"  gitai's own {own['hook']} hook ({own['why']}): {own['state']}  {own['path']}")
            if own["fix"]:
                click.echo("  how to fix:")
            for step in own["fix"]:
                click.echo(f"    - {step}")
    if manual:
        todo = [row for row in rows if row["state"] == "installed" and row.get("will_run") is True]
        if todo:
            click.echo("For the hooks to run:")
            for row in todo:
                click.echo(f"  {row['host']}:")
                for step in BY_NAME[row["host"]].trust:
                    click.echo(f"    - {step}")


@agents.command("install", epilog="Example: gitai agents install claude-code codex",
                help=f"Write gitai's hooks into each host's configuration, keeping everything else in it. {HOST_HELP}")
@click.argument("hosts", nargs=-1)
@click.option("--all", "all_hosts", is_flag=True, help="Every supported host.")
@click.option("--user", is_flag=True, help="Your user-level configuration (~/...) instead of this project's.")
@json_option
def agents_install(hosts: tuple[str, ...], all_hosts: bool, user: bool, as_json: bool) -> int:

    root = layout().root
    rows = []
    for host in resolve_hosts(hosts, all_hosts):
        state, changed = install_host(host, root, user)
        rows.append({**state.to_json(), "changed": changed})
    written = [] if user else [str(row["path"]) for row in rows]
    ignored = ignore_in_scopes(root, written)
    instructions = [] if user else _instructions_for(root, [str(row["host"]) for row in rows])
    _report(rows, as_json, manual=True)
    if instructions and not as_json:
        click.echo(f"Wrote gitai's section into {', '.join(instructions)} (the instructions those hosts read; "
                   "they read no AGENTS.md)")
    if written and not as_json:
        if ignored:
            click.echo(f"Added to .orchestration/.intentignore (no intent needs to own them): {', '.join(ignored)}")
        shown = " ".join([*(os.path.relpath(p, root) for p in written), *instructions])
        click.echo(f"To commit them (a person, under any intent or none): git add {shown} "
                   ".orchestration/.intentignore && git commit -m 'gitai agent hooks'")
    return EXIT_OK


def _instructions_for(root: str, hosts: list[str]) -> list[str]:
    """Give each host that reads no AGENTS.md the instructions section in the file it reads."""
    from gitai.agents.instructions import write_instructions

    own = tuple(BY_NAME[h].instructions[0] for h in hosts if "AGENTS.md" not in BY_NAME[h].instructions)
    return [name for name in write_instructions(root, create=own) if name in own] if own else []


@agents.command("status", epilog="Example: gitai agents status --json")
@click.argument("hosts", nargs=-1)
@click.option("--user", is_flag=True, help="Look at your user-level configuration instead of this project's.")
@json_option
def agents_status(hosts: tuple[str, ...], user: bool, as_json: bool) -> int:
    """Show per host whether gitai's hooks are installed, stale (differ from this gitai's) or missing, and
    whether the host will run them: its own trust state (folder trust, Codex's hook approvals, a setting that
    switches hooks off), read where the host keeps it."""
    from gitai.hooks.install import own_hook_for_host

    lay = layout()
    names = resolve_hosts(hosts, False)
    rows = [host_status(h, lay.root, user).to_json() for h in names if not (user and not BY_NAME[h].user_configs)]
    for row in rows:
        own = own_hook_for_host(lay, row["host"], os.environ) if row["state"] != "missing" else None
        if own is not None:
            row["own_hook"] = own
    _report(rows, as_json, manual=False)
    return EXIT_OK


@agents.command("uninstall", epilog="Example: gitai agents uninstall cursor")
@click.argument("hosts", nargs=-1)
@click.option("--user", is_flag=True, help="Your user-level configuration instead of this project's.")
@json_option
def agents_uninstall(hosts: tuple[str, ...], user: bool, as_json: bool) -> int:
    """Remove only gitai's entries from each host's configuration (default: all hosts)."""
    root = layout().root
    require_person("agents uninstall", " ".join(hosts) or "(every host)")
    rows = []
    for host in resolve_hosts(hosts, False):
        if user and not BY_NAME[host].user_configs:
            continue
        state, changed = uninstall_host(host, root, user)
        rows.append({**state.to_json(), "changed": changed})
    _report(rows, as_json, manual=False)
    return EXIT_OK
