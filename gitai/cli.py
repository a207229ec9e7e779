"""The `gitai` command: a thin click shell over the library. Every command has --json.

Exit codes: 0 ok, 1 a check found a problem, 2 bad input or usage (`gitai: error: ...`).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import click

from gitai import __version__
from gitai.errors import EXIT_OK, EXIT_PROBLEM, EXIT_USAGE, GitaiError
from gitai.layout import Layout, find_layout

json_option = click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")


def emit_json(data: Any) -> None:
    """Pretty JSON on stdout; ASCII escapes when a path is not valid UTF-8 (as in the ledger)."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(data, indent=2, ensure_ascii=True)
    click.echo(text)


def layout() -> Layout:
    return find_layout()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="gitai")
def cli() -> None:
    """Tie every change in a git repository to the intent it serves."""


# --- foundation: init, hooks, intents, select, status, clear, check -------------------------


@cli.command()
@click.option("--no-hooks", is_flag=True, help="Create the skeleton only.")
@json_option
def init(no_hooks: bool, as_json: bool) -> int:
    """Create the .orchestration/ skeleton and install the hooks (idempotent)."""
    from gitai.hooks.install import install_hooks
    from gitai.intents.skeleton import check_orchestration_dir, init_orchestration

    lay = layout()
    check_orchestration_dir(lay)
    hooks = [] if no_hooks else install_hooks(lay)  # first: it may refuse, and then nothing is created
    created = init_orchestration(lay)
    if hooks:
        _warn_shared_hooks(lay)
    if as_json:
        emit_json({"created": [os.path.relpath(p, lay.root) for p in created], "hooks": [h.to_json() for h in hooks]})
        return EXIT_OK
    for path in created:
        click.echo(f"created {os.path.relpath(path, lay.root)}")
    if not created:
        click.echo(".orchestration/ already set up; nothing overwritten")
    for hook in hooks:
        click.echo(f"hook {hook.name}: {hook.state}{' (chained to the previous hook)' if hook.chained else ''}")
    click.echo("next: add intents to .orchestration/active_intents.yaml, then 'gitai select INT-ID'")
    return EXIT_OK


@cli.group()
def hooks() -> None:
    """Install, remove or inspect gitai's git hooks."""


def _warn_shared_hooks(lay: Layout) -> None:
    from gitai.hooks.install import shared_hooks_scope

    scope = shared_hooks_scope(lay)
    if scope:
        click.echo(f"gitai: warning: core.hooksPath comes from your {scope} git config, so these hooks run in every "
                   "repository; they do nothing where gitai is not set up", err=True)


def _print_hooks(states: list[Any], as_json: bool, lay: Layout) -> None:
    from gitai.hooks.install import hooks_path_setting

    hooks_path = hooks_path_setting(lay)
    if hooks_path:
        _warn_shared_hooks(lay)
    if as_json:
        emit_json({"hooks_dir": str(lay.repo.hooks_dir), "core_hooks_path": hooks_path, "hooks": [s.to_json() for s in states]})
        return
    if hooks_path:
        click.echo(f"core.hooksPath is set ({hooks_path}): hooks live in {lay.repo.hooks_dir}")
    for s in states:
        click.echo(f"{s.name:<13} {s.state:<9}{' chained' if s.chained else ''}  {s.path}")


@hooks.command("install")
@click.option("--force", is_flag=True, help="Replace a foreign hook instead of chaining it (it is kept aside).")
@json_option
def hooks_install(force: bool, as_json: bool) -> int:
    """Install the hooks where git runs them (worktrees, submodules, core.hooksPath)."""
    from gitai.hooks.install import install_hooks

    lay = layout()
    _print_hooks(install_hooks(lay, force=force), as_json, lay)
    return EXIT_OK


@hooks.command("uninstall")
@json_option
def hooks_uninstall(as_json: bool) -> int:
    """Remove gitai's hooks and restore the ones they replaced."""
    from gitai.hooks.install import uninstall_hooks

    lay = layout()
    _print_hooks(uninstall_hooks(lay), as_json, lay)
    return EXIT_OK


@hooks.command("status")
@json_option
def hooks_status(as_json: bool) -> int:
    """Show each hook's state: installed, missing, foreign or stale."""
    from gitai.hooks.install import hook_status

    lay = layout()
    _print_hooks(hook_status(lay), as_json, lay)
    return EXIT_OK


@cli.command()
@json_option
def intents(as_json: bool) -> int:
    """List the intents of the catalogue."""
    from gitai.intents.active import active_intent
    from gitai.intents.catalogue import load_catalogue

    lay = layout()
    catalogue = load_catalogue(lay.catalogue, lay.root)
    active = active_intent(lay)
    active_id = active.id if active else None
    if as_json:
        emit_json([{**i.to_json(), "active": i.id == active_id} for i in catalogue.intents])
        return EXIT_OK
    if not catalogue.intents:
        click.echo("no intents yet: add some to .orchestration/active_intents.yaml")
        return EXIT_OK
    width_id = max(len(i.id) for i in catalogue.intents) + 2
    width_name = max(len(i.name) for i in catalogue.intents)
    for i in catalogue.intents:
        mark = "*" if i.id == active_id else " "
        click.echo(f"{mark} {i.id:<{width_id}}{i.status:<12}{i.name:<{width_name}}  {', '.join(i.owned_scope)}")
    return EXIT_OK


@cli.command()
@click.argument("intent_id")
@json_option
def select(intent_id: str, as_json: bool) -> int:
    """Make INTENT_ID the active intent of this worktree; print its <intent_context>."""
    from gitai.intents.selection import (
        intent_context,
        intent_context_xml,
        select_intent,
    )

    lay = layout()
    chosen = select_intent(lay, intent_id)
    if chosen.status_changed and not chosen.status_written:
        click.echo(
            f"gitai: warning: could not rewrite {intent_id}'s status in the catalogue safely "
            "(flow-style YAML?); the change to IN_PROGRESS is recorded in .orchestration/events.jsonl",
            err=True,
        )
    if os.environ.get("GITAI_INTENT", "").strip() not in ("", intent_id):
        click.echo("gitai: warning: GITAI_INTENT is set and overrides this selection in this process", err=True)
    if as_json:
        emit_json({"intent_context": intent_context(chosen.intent), "previous": chosen.previous,
                   "status_changed": chosen.status_changed})
    else:
        click.echo(intent_context_xml(chosen.intent))
    return EXIT_OK


@cli.command()
@json_option
def clear(as_json: bool) -> int:
    """Leave this worktree with no active intent."""
    from gitai.intents.selection import clear_intent

    previous = clear_intent(layout())
    if os.environ.get("GITAI_INTENT", "").strip():
        click.echo("gitai: warning: GITAI_INTENT is set and still applies in this process", err=True)
    if as_json:
        emit_json({"previous": previous})
    else:
        click.echo(f"cleared (was {previous})" if previous else "no intent was active")
    return EXIT_OK


@cli.command()
@json_option
def status(as_json: bool) -> int:
    """Active intent, and the staged paths in and out of its scope."""
    from gitai.gate.check import check_paths, staged_paths
    from gitai.gate.policy import load_policy
    from gitai.intents.active import active_intent
    from gitai.util.text import display_path

    lay = layout()
    active = active_intent(lay)
    paths = staged_paths(lay)
    policy = load_policy(lay)
    intent_id = active.id if active and active.id in policy.intents else None
    result = check_paths(policy, intent_id, paths)
    bad = {v.path for v in result.violations}
    rows: list[dict[str, Any]] = [
        {"path": p, "exempt": policy.is_exempt(p), "in_scope": p not in bad, "owners": policy.owners(p)} for p in paths
    ]
    if as_json:
        emit_json({"intent": active.id if active else None, "source": active.source if active else None,
                   "known": intent_id is not None, "ok": result.ok, "staged": rows})
        return EXIT_OK
    if active is None:
        click.echo("no active intent (gitai select INT-ID)")
    else:
        known = "" if intent_id else "  (not in the catalogue!)"
        name = policy.intents[intent_id].name if intent_id else ""
        click.echo(f"active intent: {active.id} {name} [{'GITAI_INTENT' if active.source == 'env' else 'this worktree'}]{known}")
    if not rows:
        click.echo("nothing staged")
    for row in rows:
        label = "exempt  " if row["exempt"] else ("in scope" if row["in_scope"] else "OUT     ")
        owners = f"  (owned by {', '.join(row['owners'])})" if not row["in_scope"] and row["owners"] else ""
        click.echo(f"  {label}  {display_path(row['path'])}{owners}")
    return EXIT_OK


@cli.command()
@click.option("--staged", "mode", flag_value="staged", help="Check the index (the default).")
@click.option("--range", "revision_range", metavar="A..B", help="Check each commit against its Intent: trailer.")
@click.option("--intent", "intent_id", metavar="ID", help="Check against this intent instead of the active one.")
@click.argument("paths", nargs=-1)
@json_option
def check(mode: str | None, revision_range: str | None, intent_id: str | None, paths: tuple[str, ...], as_json: bool) -> int:
    """Check staged changes, a commit range or PATHs against an intent's scope (exit 1 on violations)."""
    from gitai.gate.check import check_paths, check_range, staged_paths
    from gitai.gate.policy import load_policy
    from gitai.intents.active import active_intent
    from gitai.util.text import display_path

    if sum(bool(x) for x in (mode, revision_range, paths)) > 1:
        raise GitaiError("use one of --staged, --range A..B or PATH...")
    lay = layout()
    policy = load_policy(lay)
    if revision_range:
        result = check_range(lay, policy, revision_range, intent_id)
    else:
        if intent_id is None:
            active = active_intent(lay)
            intent_id = active.id if active else None
        targets = [lay.repo_path(p) for p in paths] if paths else staged_paths(lay)
        result = check_paths(policy, intent_id, targets)
    if as_json:
        emit_json(result.to_json())
    elif result.ok:
        click.echo(f"ok: {result.checked} {'commits' if revision_range else 'paths'} checked")
    else:
        for v in result.violations:
            where = f"{v.commit[:12]} " if v.commit else ""
            owners = ", ".join(v.owners) or "no intent"
            against = f" [{v.intent}]" if v.intent else ""
            click.echo(f"{where}{v.reason}{against}: {display_path(v.path)} (owned by: {owners})")
    return EXIT_OK if result.ok else EXIT_PROBLEM


# --- trace: show, log, backfill, trace verify/rebuild, sync ----------------------------------


@cli.command()
@click.argument("rev", default="HEAD")
@json_option
def show(rev: str, as_json: bool) -> int:
    """Show the trace record of a commit (default HEAD). JSON: a list of records."""
    from gitai.trace.log import commit_records, describe_record

    sha, records = commit_records(layout(), rev)
    if as_json:
        emit_json(records)
    elif not records:
        click.echo(f"commit {sha} has no trace record (run 'gitai backfill')")
    else:
        click.echo("\n\n".join("\n".join(describe_record(r)) for r in records))
    return EXIT_OK if records else EXIT_PROBLEM


@cli.command("log")
@click.argument("intent_id", required=False)
@json_option
def log_cmd(intent_id: str | None, as_json: bool) -> int:
    """Commits traced to an intent (or to any), newest first, with the files they touched."""
    from gitai.trace.log import traced_log
    from gitai.util.text import display_path

    lay = layout()
    entries = traced_log(lay, intent_id)
    if intent_id is not None and not entries:
        from gitai.intents.catalogue import load_catalogue

        load_catalogue(lay.catalogue, lay.root).get(intent_id)  # unknown intent: exit 2
    if as_json:
        emit_json([e.to_json() for e in entries])
        return EXIT_OK
    for e in entries:
        kind = f" [{e.classification}]" if e.classification else ""
        click.echo(f"{e.commit[:12]} {e.date[:10]} {e.intent_id or '(none)'}{kind} {e.subject}")
        for path in e.files:
            click.echo(f"    {display_path(path)}")
    if not entries:
        click.echo("no traced commits" + (f" for {intent_id}" if intent_id else ""))
    return EXIT_OK


@cli.command()
@click.option("--range", "revision_range", metavar="A..B", help="Only these commits (default: all of HEAD).")
@json_option
def backfill(revision_range: str | None, as_json: bool) -> int:
    """Trace commits that have no record: intent from the trailer, else the scope owner."""
    from gitai.backfill import backfill as run_backfill
    from gitai.backfill import terminal_progress
    from gitai.gate.policy import load_policy

    lay = layout()
    policy = load_policy(lay) if os.path.exists(lay.catalogue) else None  # no catalogue: trailers only
    progress = terminal_progress if sys.stderr.isatty() and not as_json else None
    result = run_backfill(lay, policy, revision_range, progress)
    if as_json:
        emit_json(result.to_json())
    else:
        src = result.by_source
        click.echo(f"traced {len(result.traced)} commits ({src['trailer']} by trailer, {src['scope']} by scope, "
                   f"{src['unattributed']} unattributed); {result.skipped} already traced")
    return EXIT_OK


@cli.group()
def trace() -> None:
    """Check or rebuild the trace (notes are the source of truth)."""


@trace.command("verify")
@json_option
def trace_verify(as_json: bool) -> int:
    """Recompute every range hash from git and compare notes with the ledger (exit 1 on mismatch)."""
    from gitai.trace.audit import verify

    result = verify(layout())
    if as_json:
        emit_json(result.to_json())
    else:
        for problem in result.problems:
            where = f"{problem.commit[:12]}: " if problem.commit else ""
            click.echo(f"{problem.kind}: {where}{problem.message}")
        status = "ok" if result.ok else f"{len(result.problems)} problems"
        click.echo(f"{status}: {result.notes} notes, {result.records} records, {result.ranges} ranges, "
                   f"{result.ledger_lines} ledger lines" + (f", {len(result.orphaned)} orphaned notes" if result.orphaned else ""))
    return EXIT_OK if result.ok else EXIT_PROBLEM


@trace.command("rebuild")
@json_option
def trace_rebuild(as_json: bool) -> int:
    """Regenerate the ledger from the notes."""
    from gitai.trace.audit import rebuild

    lay = layout()
    count = rebuild(lay)
    if as_json:
        emit_json({"records": count, "ledger": lay.relative(lay.ledger)})
    else:
        click.echo(f"wrote {count} records to {lay.relative(lay.ledger)}")
    return EXIT_OK


@cli.command()
@click.argument("remote", default="origin")
@json_option
def sync(remote: str, as_json: bool) -> int:
    """Fetch, merge and push refs/notes/gitai with REMOTE, losing no record of either side."""
    from gitai.trace.sync import sync as run_sync

    result = run_sync(layout(), remote)
    if as_json:
        emit_json(result.to_json())
    else:
        click.echo(f"{remote}: received {result.received} records; " + ("pushed" if result.pushed else "nothing to push"))
    return EXIT_OK


# --- classification and the intent map ------------------------------------------------------


@cli.command("classify")
@click.argument("rev", required=False)
@click.option("--staged", is_flag=True, help="Classify the staged changes instead of a commit.")
@json_option
def classify_cmd(rev: str | None, staged: bool, as_json: bool) -> int:
    """AST_REFACTOR or INTENT_EVOLUTION, per file and per definition, for REV (default HEAD) or --staged."""
    from gitai.trace.classify_commit import classify_revision, classify_staged

    if staged and rev:
        raise GitaiError("use one of REV or --staged")
    lay = layout()
    result = classify_staged(lay) if staged else classify_revision(lay, rev or "HEAD")
    if as_json:
        emit_json(result.to_json())
        return EXIT_OK
    click.echo(f"{result.commit[:12] if result.commit else 'staged'}: {result.classification}")
    for path, info in sorted(result.files.items()):
        reason = f" ({info['reason']})" if info.get("reason") else ""
        click.echo(f"  {path}: {info['classification']}{reason}")
        for d in info.get("definitions", []):
            if d["status"] != "unchanged":
                where = d.get("moved_from") or d.get("moved_to")
                extra = f" ({'from' if d.get('moved_from') else 'to'} {where['path']}:{where['name']})" if where else ""
                click.echo(f"      {d['status']:<9} {d['kind']} {d['name']}{extra}")
    return EXIT_OK


@cli.command("map")
@json_option
def map_cmd(as_json: bool) -> int:
    """Regenerate .orchestration/intent_map.md from the notes (files each intent changed in meaning)."""
    from gitai.trace.intent_map import build_map, map_json, write_map

    lay = layout()
    intents = build_map(lay)
    path = write_map(lay, intents)
    if as_json:
        emit_json({"path": lay.relative(path), "intents": map_json(intents)})
    else:
        click.echo(f"wrote {lay.relative(path)}: {len(intents)} intents, {sum(len(i.files) for i in intents)} files")
    return EXIT_OK


# --- blame-intent ----------------------------------------------------------------------------

INTENT_COLOURS = ("cyan", "green", "yellow", "magenta", "blue", "bright_cyan", "bright_green", "bright_magenta")


@cli.command("blame-intent")
@click.argument("file")
@click.option("-L", "line_range", metavar="START,END", help="Only these lines (1-based, inclusive).")
@click.option("--rev", metavar="REV", help="Blame the file at REV instead of the working tree.")
@click.option("--porcelain", is_flag=True, help="Tab-separated: line, intent, commit, classification, text.")
@click.option("--summary", is_flag=True, help="Lines and share per intent.")
@json_option
def blame_intent_cmd(file: str, line_range: str | None, rev: str | None, porcelain: bool, summary: bool,
                     as_json: bool) -> int:
    """Which intent each line of FILE serves, looking through refactor commits and moved code."""
    from gitai.blame.blame_intent import blame_intent, summarize

    if porcelain and as_json:
        raise GitaiError("use one of --json or --porcelain")
    lay = layout()
    lines = blame_intent(lay, lay.repo_path(file), rev, line_range)
    if summary:
        rows = summarize(lines)
        if as_json:
            emit_json(rows)
        else:
            for row in rows:
                label = (row["intent_id"] or "(unattributed)") + (" (uncommitted)" if row["uncommitted"] else "")
                click.echo(f"{label:<32} {row['lines']:>7}  {row['share'] * 100:5.1f}%")
        return EXIT_OK
    if as_json:
        emit_json([line.to_json() for line in lines])
        return EXIT_OK
    if porcelain:  # empty fields for null: an intent id is never empty
        sys.stdout.write("".join(
            f"{line.line}\t{line.intent_id or ''}\t{line.commit or ''}\t{line.classification or ''}\t{line.content}\n"
            for line in lines))
        return EXIT_OK
    colour = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    width = max((len(line.intent_id or "-") for line in lines), default=1)
    digits = len(str(lines[-1].line)) if lines else 1
    palette: dict[str, str] = {}
    out: list[str] = []
    for line in lines:
        intent = line.intent_id or "-"
        cell = f"{intent:<{width}}"
        if colour and line.intent_id:
            palette.setdefault(intent, INTENT_COLOURS[len(palette) % len(INTENT_COLOURS)])
            cell = click.style(cell, fg=palette[intent])
        commit = line.commit[:8] if line.commit else "uncommit"
        out.append(f"{cell} {commit} {line.line:>{digits}}) {line.content}\n")
    sys.stdout.write("".join(out))
    return EXIT_OK


def main(argv: list[str] | None = None) -> None:
    """Console entry point: one-line errors, stable exit codes."""
    try:
        code = cli.main(args=argv, prog_name="gitai", standalone_mode=False)
    except GitaiError as exc:
        click.echo(f"gitai: error: {exc}", err=True)
        code = exc.exit_code
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.ctx.get_help() if exc.ctx else str(exc))
        code = EXIT_OK
    except click.UsageError as exc:
        click.echo(f"gitai: error: {exc.format_message()}", err=True)
        code = EXIT_USAGE
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except click.Abort:
        click.echo("gitai: error: aborted", err=True)
        code = EXIT_USAGE
    except BrokenPipeError:
        code = EXIT_OK
    sys.exit(code if isinstance(code, int) else EXIT_OK)
