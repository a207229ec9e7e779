"""Every `gitai` subcommand: its name, where it lives, and its one-line summary (pip's
`commands_dict`). gitai/cli.py imports a command's module only when that command runs, so
`gitai --help` lists them all without importing any; the agent hooks read the names to tell a
command a host must run apart from prose (gitai/util/program.py). Pure data: every layer may read it.
A new command: its module in gitai/commands/, a line here (tests/test_docs.py checks the summary
against the command's docstring), its section in docs/cli.md and, with --json, its schema."""

from __future__ import annotations

COMMANDS: dict[str, tuple[str, str, str]] = {
    "agents": ("agents", "agents",
        "Install, inspect or remove the agent hooks (Claude Code, Cursor, Gemini CLI, Codex CLI, Copilot CLI, Qwen "
        "Code)."),
    "approve": ("approve", "approve",
        "Approve INTENT_ID so that agents may select it (for requires_approval: true); records who and when."),
    "backfill": ("backfill", "backfill",
        "Trace commits that have no record: intent from the trailer, else per file from the scope owner."),
    "blame-intent": ("blame_intent", "blame_intent_cmd",
        "Which intent each line of FILE serves, looking through refactor commits and moved code."),
    "block": ("approve", "block",
        "Mark INTENT_ID BLOCKED with a reason: no new work goes under it until a person unblocks it."),
    "carry": ("carry", "carry_cmd",
        "Build the records of the commits that replaced A..B (squash/rebase merge) from A..B's records, line by "
        "line."),
    "check": ("check", "check",
        "Check staged changes, a commit range or PATHs against an intent's scope (exit 1 on violations)."),
    "ci": ("ci", "ci_cmd",
        "Write a CI workflow: `gitai check --range` on pull/merge requests, `gitai carry` and notes push on merge."),
    "classify": ("classify", "classify_cmd",
        "AST_REFACTOR or INTENT_EVOLUTION, per file and per definition, for REV (default HEAD) or --staged."),
    "clear": ("select", "clear", "Leave this worktree with no active intent."),
    "context": ("context", "context",
        "The active intent's context for an agent (scope, constraints, lessons), or how to select one."),
    "coverage": ("coverage", "coverage",
        "Files at HEAD owned by no intent or by several (exit 1 when there are any, so CI can require full "
        "coverage)."),
    "done": ("approve", "done", "Mark INTENT_ID DONE: no new work goes under it."),
    "exec": ("sandbox", "exec_cmd",
        "Run COMMAND inside the kernel domain of the session's current intent (what an agent host's pre-tool hook "
        "wraps a shell command in)."),
    "export": ("export", "export_cmd",
        "Write the trace as relational tables for analysis across repositories (docs/export.md)."),
    "gc": ("gc", "gc_cmd",
        "Trim the local caches (line origins, syntax hashes, notes index) to a size bound; all are rebuilt on "
        "demand."),
    "help": ("help", "help_cmd", "Show the help of gitai, or of COMMAND (a subcommand such as `trace verify`)."),
    "hook": ("hook", "hook",
        "Answer one agent hook call: reads the host's payload on stdin (what agents' configs run)."),
    "hooks": ("hooks", "hooks", "Install, remove or inspect gitai's git hooks."),
    "init": ("init", "init",
        "Create the .orchestration/ skeleton, the gitai section of AGENTS.md and the hooks (idempotent)."),
    "intent": ("intent", "intent", "Look at one intent."),
    "intents": ("intents", "intents", "List the intents of the catalogue."),
    "lesson": ("lesson", "lesson",
        "Append a dated, attributed lesson to .orchestration/AGENT.md (never rewrites earlier ones)."),
    "log": ("log", "log_cmd", "Commits traced to an intent (or to any), newest first, with the files they touched."),
    "map": ("map", "map_cmd",
        "Regenerate .orchestration/intent_map.md from the notes (files each intent changed in meaning)."),
    "owners": ("owners", "owners", "Which intents own each PATH, and whether it is exempt (needs no intent)."),
    "report": ("report", "report_cmd",
        "Write an HTML report that works offline: intent map, provenance, history, per-file blame."),
    "run": ("sandbox", "run_cmd",
        "Start an agent host (or any command) inside the kernel domain of INTENT (default: this worktree's selected"
        " intent): for the whole session it can write only within the intent's scope."),
    "select": ("select", "select", "Make INTENT_ID the active intent of this worktree; print its <intent_context>."),
    "show": ("show", "show", "Show the trace record of a commit (default HEAD)."),
    "stats": ("stats", "stats_cmd",
        "Lines added by ai / mixed (an agent's line a person changed) / human / unknown, over REV (one commit), "
        "A..B (a range) or the whole current branch; AI share and accepted-as-written share."),
    "status": ("status", "status", "Active intent, and the staged paths in and out of its scope."),
    "sync": ("sync", "sync", "Fetch, merge and push refs/notes/gitai with REMOTE, losing no record of either side."),
    "trace": ("trace", "trace", "Check, repair or rebuild the trace (notes are the source of truth)."),
}
"""name -> (module in gitai.commands, attribute, summary: the first sentence of its help)."""
