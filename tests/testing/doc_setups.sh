# Setups of the console examples in README.md and docs/*.md (tests/testing/doc_examples.py): each
# `setup_NAME` scripts, in the current directory, the repository the example marked
# `<!-- example: NAME -->` runs in, and leaves the shell where the example starts (in `repo`,
# which the examples show as /path/to/repo). Commit dates are pinned so ids are reproducible.

setup_empty_directory() {
  :
}

_commit_at() {  # MINUTE GIT-COMMIT-ARGS...: a commit at 2026-11-22T03:MINUTE:00Z
  local at="2026-11-22T03:$1:00Z"
  shift
  GIT_AUTHOR_DATE=$at GIT_COMMITTER_DATE=$at git commit -q "$@"
}

CLI_CATALOGUE='active_intents:
  - id: INT-001
    name: JWT auth migration
    status: DRAFT
    owned_scope:
      - "src/auth/**"
      - "!src/auth/vendor/**"
    description: Replace session cookies with signed JWTs.
    constraints:
      - Keep the public login() signature.
    acceptance_criteria:
      - All auth tests pass with JWT sessions.
    related_specs: [docs/auth-spec.md]
  - id: INT-002
    name: Billing CSV export
    status: IN_PROGRESS
    owned_scope:
      - "src/billing/**"
      - "tests/billing/**"
  - id: INT-003
    name: Legacy API removal
    status: BLOCKED
    owned_scope:
      - "src/api/**"
    blocked_reason: waiting for the mobile client release'

# The catalogue of docs/cli.md, "The example repository", committed; no intent selected.
setup_catalogue() {
  git init -q -b main repo && cd repo
  gitai init >/dev/null
  printf '%s\n' "$CLI_CATALOGUE" >.orchestration/active_intents.yaml
  printf '*.lock\n' >>.orchestration/.intentignore
  git add -A && _commit_at 10 -m "Add intent catalogue"
}

# The example repository of docs/cli.md: its history, INT-001 selected, four uncommitted lines.
setup_example_repository() {
  setup_catalogue
  gitai select INT-001 >/dev/null
  git add -A && _commit_at 11 -m "Start INT-001"
  mkdir -p src/auth src/billing tests/billing docs
  printf 'import hmac\n\n\ndef login(user, password):\n    token = sign(user)\n    return token\n\n\ndef sign(user):\n    return hmac.new(b"k", user.encode(), "sha256").hexdigest()\n' >src/auth/login.py
  git add -A && GITAI_AGENT=claude-code GITAI_MODEL=anthropic/claude-sonnet-4-5 _commit_at 12 -m "Sign login tokens with HMAC"
  printf '# Example\n' >README.md
  printf 'README.md\n' >>.orchestration/.intentignore
  git add -A && _commit_at 13 -m "Add README; exempt it from scope"
  printf 'def export(rows):\n    return "\\n".join(",".join(r) for r in rows)\n' >src/billing/export.py
  git add -A && GITAI_INTENT=INT-002 _commit_at 14 -m "Add CSV export"
  printf "import hmac\n\n\ndef sign(user):\n    return hmac.new(b'k', user.encode(), 'sha256').hexdigest()\n\n\ndef login(user, password):  # entry point\n    token = sign(user)\n    return token\n" >src/auth/login.py
  git add -A && _commit_at 15 -m "Reorder and tidy login.py"
  printf '\n\ndef verify(token, user):\n    return hmac.compare_digest(token, sign(user))\n' >>src/auth/login.py
  sed -i "s/b'k'/b'key-2'/" src/auth/login.py
  git add -A && GITAI_AGENT=claude-code GITAI_MODEL=anthropic/claude-sonnet-4-5 _commit_at 16 -m "Rotate the signing key; add verify()"
  printf 'from src.billing.export import export\n\n\ndef test_export():\n    assert export([["a"]]) == "a"\n' >tests/billing/test_export.py
  git add -A && GIT_COMMITTER_DATE=2026-11-22T03:17:00Z git -c core.hooksPath=/dev/null commit -q \
    -m "Test the export (hooks off)" --date 2026-11-22T03:17:00Z
  printf 'HEADER = "id,amount"\n' >>src/billing/export.py
  git add -A && GIT_COMMITTER_DATE=2026-11-22T03:18:00Z git -c core.hooksPath=/dev/null commit -q \
    -m "Add CSV header" -m "Intent: INT-002" --date 2026-11-22T03:18:00Z
  printf 'FOOTER = "end"\n' >>src/billing/export.py
  git add -A && GITAI_INTENT=INT-002 _commit_at 19 -m "Add CSV footer"
  printf 'notes\n' >docs/notes.txt
  git add -A && GIT_COMMITTER_DATE=2026-11-22T03:20:00Z git -c core.hooksPath=/dev/null commit -q \
    -m "Add notes (hooks off)" --date 2026-11-22T03:20:00Z
  printf '\n\ndef logout(user):\n    revoke(user)\n    return True\n' >>src/auth/login.py
}

# The example repository after `gitai backfill`: every commit traced.
setup_example_backfilled() {
  setup_example_repository
  gitai backfill >/dev/null
}

# A new repository, nothing in it.
setup_new_repository() {
  git init -q -b main repo && cd repo
}

# A new repository after `gitai init`.
setup_initialized() {
  setup_new_repository
  gitai init >/dev/null
}

# A new repository with the skeleton (`gitai init --no-hooks`) and a pre-commit hook of its own.
setup_foreign_hook() {
  setup_new_repository
  gitai init --no-hooks >/dev/null
  printf '#!/bin/sh\necho lint ok\n' >.git/hooks/pre-commit
  chmod +x .git/hooks/pre-commit
}

# The same after `gitai init`: gitai's hooks, the project's pre-commit chained.
setup_chained_hook() {
  setup_foreign_hook
  gitai init >/dev/null
}

# The catalogue committed, INT-001 selected, README.md and src/billing/export.py staged.
setup_staged_outside() {
  setup_catalogue
  gitai select INT-001 >/dev/null
  git add -A && _commit_at 11 -m "Start INT-001"
  mkdir -p src/billing && printf '# Example\n' >README.md && printf 'ROWS = []\n' >src/billing/export.py
  git add README.md src/billing/export.py
}

# gitai's hooks written by a gitai installation that is gone since; a file staged.
setup_stale_hooks() {
  setup_initialized
  sed -i "s|^GITAI_PYTHON=.*|GITAI_PYTHON='$(dirname "$PWD")/old-venv/bin/python'|" .git/hooks/pre-commit \
    .git/hooks/commit-msg .git/hooks/post-commit .git/hooks/post-merge .git/hooks/post-rewrite .git/hooks/pre-push
  printf 'a\n' >a.txt && git add a.txt
}

_commit_unhooked_at() {  # MINUTE GIT-COMMIT-ARGS...: the same, made with git's hooks off (untraced)
  local at="2026-11-22T03:$1:00Z"
  shift
  GIT_AUTHOR_DATE=$at GIT_COMMITTER_DATE=$at git -c core.hooksPath=/dev/null commit -q "$@"
}

_as_person() {  # COMMAND...: run it on a terminal of its own where a person types 'yes' when asked
  python3 -c 'import os, pty, sys
def typed(fd):
    data = os.read(fd, 1024)
    if data.endswith(b"to confirm: "):
        os.write(fd, b"yes\n")
    return data
sys.exit(os.waitstatus_to_exitcode(pty.spawn(sys.argv[1:], typed)))' "$@"
}

_require_landlock() {  # exit 98 (the example is skipped, and fails under CI) where the kernel has no Landlock
  local missing
  missing=$(python3 -c 'from gitai.sandbox.landlock import LandlockUnavailable, abi_version
try:
    abi_version()
except LandlockUnavailable as exc:
    print(exc)') || exit 3
  [ -z "$missing" ] || { echo "no Landlock here: $missing"; exit 98; }
}

# A bare repository people push to, with the server gate, and a clone whose last commit (made with its
# hooks off) names INT-001 but changes src/billing/ (INT-002's).
setup_server() {
  setup_catalogue
  git init -q --bare -b main ../server.git
  (cd ../server.git && gitai hooks install --server >/dev/null)
  git remote add origin ../server.git
  git push -q origin main
  mkdir -p src/billing && printf 'RATE = 3\n' >src/billing/c.py
  git add -A && _commit_unhooked_at 11 -m "Billing rate" -m "Intent: INT-001"
}

# The catalogue written, not committed, README.md beside it, all staged; no intent selected.
setup_catalogue_staged() {
  setup_initialized
  printf '%s\n' "$CLI_CATALOGUE" >.orchestration/active_intents.yaml
  printf '# Example\n' >README.md
  git add -A
}

# main and a branch `auth` that both changed src/billing/conf.py; `auth` also added src/auth/login.py.
setup_merge_conflict() {
  setup_catalogue
  mkdir -p src/billing src/auth && printf 'RATE = 1\n' >src/billing/conf.py
  git add -A && GITAI_INTENT=INT-002 _commit_at 11 -m "Billing rate"
  git checkout -q -b auth
  printf 'def login(user):\n    return user\n' >src/auth/login.py
  git add -A && GITAI_INTENT=INT-001 _commit_at 12 -m "Add login"
  printf 'RATE = 2\n' >src/billing/conf.py
  git add -A && GITAI_INTENT=INT-002 _commit_at 13 -m "Rate 2"
  git checkout -q main
  printf 'RATE = 3\n' >src/billing/conf.py
  git add -A && GITAI_INTENT=INT-002 _commit_at 14 -m "Rate 3"
}

# INT-001 selected, src/auth/a.py written (not staged).
setup_auth_file() {
  setup_catalogue
  gitai select INT-001 >/dev/null
  git add -A && _commit_at 11 -m "Start INT-001"
  mkdir -p src/auth && printf 'def a():\n    return 1\n' >src/auth/a.py
}

# The same, src/auth/a.py committed, then a second function added and staged.
setup_auth_amend() {
  setup_auth_file
  git add -A && _commit_at 12 -m "Add a()"
  printf '\n\ndef b():\n    return 2\n' >>src/auth/a.py
  git add -A
}

# A new repository whose post-rewrite hook is not gitai's, and a post-rewrite.gitai-chained beside it.
setup_hook_collision() {
  setup_new_repository
  printf '#!/bin/sh\necho rewritten\n' >.git/hooks/post-rewrite
  cp .git/hooks/post-rewrite .git/hooks/post-rewrite.gitai-chained
  chmod +x .git/hooks/post-rewrite .git/hooks/post-rewrite.gitai-chained
}

# The catalogue repository, and beside it (../broken/) two broken versions of the catalogue.
setup_broken_catalogues() {
  mkdir broken
  printf 'active_intents:\n  - id: INT-001\n    name: JWT auth migration\n    status: IN_PROGRESS\n    owned_scope: src/auth/**\n' \
    >broken/scope-not-a-list.yaml
  printf 'active_intents:\n  - id: INT-001\n    name: JWT auth migration\n    status: IN_PROGRESS\n    owned_scope: ["src/auth/**"\n' \
    >broken/unclosed-list.yaml
  setup_catalogue
}

# Files at HEAD that no intent owns (scripts/release.sh) and that two own (src/shared/money.py).
setup_coverage() {
  setup_initialized
  cat >.orchestration/active_intents.yaml <<'YAML'
active_intents:
  - id: INT-001
    name: JWT auth migration
    status: IN_PROGRESS
    owned_scope: ["src/auth/**", "src/shared/**"]
  - id: INT-002
    name: Billing CSV export
    status: IN_PROGRESS
    owned_scope: ["src/billing/**"]
  - id: INT-003
    name: Currency rounding
    status: IN_PROGRESS
    owned_scope: ["src/shared/money.py"]
YAML
  mkdir -p src/auth src/billing src/shared scripts
  printf 'def login():\n    pass\n' >src/auth/login.py
  printf 'def pay():\n    pass\n' >src/billing/pay.py
  printf 'def round_cents(x):\n    return round(x, 2)\n' >src/shared/money.py
  printf '#!/bin/sh\n' >scripts/release.sh
  git add -A && _commit_unhooked_at 10 -m "Initial import"
}

# Billing work under INT-002 on main and on a branch `more`, merged without changes of its own.
setup_merges() {
  setup_catalogue
  mkdir -p src/billing
  printf 'def pay():\n    return 1\n' >src/billing/pay.py
  git add -A && GITAI_INTENT=INT-002 _commit_at 11 -m "pay"
  git checkout -q -b more
  printf 'def pay():\n    return 2\n' >src/billing/pay.py
  git add -A && GITAI_INTENT=INT-002 _commit_at 12 -m "pay more"
  git checkout -q main
  printf 'def refund():\n    return 0\n' >src/billing/refund.py
  git add -A && GITAI_INTENT=INT-002 _commit_at 13 -m "refund"
  GIT_AUTHOR_DATE=2026-11-22T03:14:00Z GIT_COMMITTER_DATE=2026-11-22T03:14:00Z GITAI_INTENT=INT-002 \
    git merge -q --no-ff --no-edit more
  printf 'def refund():\n    return 1\n' >src/billing/refund.py
  git add -A && GITAI_INTENT=INT-002 _commit_at 15 -m "refund more"
}

# A bare remote, and the example repository, its branch pushed but not its notes (notes travel off).
setup_unsynced() {
  setup_example_repository
  git init -q --bare -b main ../server.git
  git config gitai.notesTravel false
  git remote add origin ../server.git
  git push -q --no-verify origin main
}

# The same after `gitai sync`, then two more commits traced here and not synced.
setup_synced_then_two() {
  setup_unsynced
  gitai sync >/dev/null
  printf 'def logout2(user):\n    return None\n' >>src/auth/login.py
  git add -A && _commit_at 21 -m "Add logout"
  printf '# more\n' >>src/auth/login.py
  git add -A && _commit_at 22 -m "More login"
}

# A feature branch of two commits under INT-001, squash-merged into main by a server (no hooks there).
setup_squashed() {
  setup_catalogue
  gitai select INT-001 >/dev/null
  git add -A && _commit_at 11 -m "Start INT-001"
  git checkout -q -b feature
  mkdir -p src/auth
  printf 'def login(user):\n    return user\n\n\ndef logout(user):\n    return None\n' >src/auth/login.py
  git add -A && GITAI_AGENT=claude-code GITAI_MODEL=anthropic/claude-sonnet-4-5 _commit_at 12 -m "Add login"
  printf 'def verify(token):\n    return bool(token)\n\n\ndef sign(user):\n    return user\n' >src/auth/token.py
  git add -A && GITAI_AGENT=claude-code GITAI_MODEL=anthropic/claude-sonnet-4-5 _commit_at 13 -m "Add tokens"
  git checkout -q main
  git merge -q --squash feature
  _commit_unhooked_at 14 -m "Auth (#1)"
}

# The example repository's first commits, then login.py's definitions reordered, quotes changed and a
# comment added, staged.
setup_reorder_staged() {
  setup_catalogue
  gitai select INT-001 >/dev/null
  git add -A && _commit_at 11 -m "Start INT-001"
  mkdir -p src/auth
  printf 'import hmac\n\n\ndef login(user, password):\n    token = sign(user)\n    return token\n\n\ndef sign(user):\n    return hmac.new(b"k", user.encode(), "sha256").hexdigest()\n' >src/auth/login.py
  git add -A && _commit_at 12 -m "Sign login tokens with HMAC"
  printf "import hmac\n\n\ndef sign(user):\n    return hmac.new(b'k', user.encode(), 'sha256').hexdigest()\n\n\ndef login(user, password):  # entry point\n    token = sign(user)\n    return token\n" >src/auth/login.py
  git add -A
}

# The catalogue repository with the hooks of Claude Code and Codex installed.
setup_agents_installed() {
  setup_catalogue
  gitai agents install claude-code codex
}

# INT-001 selected, and payload.json: what Claude Code sends before writing src/billing/pay.py.
setup_hook_payload() {
  setup_catalogue
  gitai select INT-001 >/dev/null
  printf '{"session_id": "s1", "hook_event_name": "PreToolUse", "tool_name": "Write", "cwd": "%s", "tool_input": {"file_path": "%s/src/billing/pay.py", "content": "RATE = 1\\n"}}\n' "$PWD" "$PWD" >payload.json
}

# A catalogue with a parent intent, a spec owned by another intent, a lesson; INT-001 selected.
setup_context() {
  setup_initialized
  cat >.orchestration/active_intents.yaml <<'YAML'
active_intents:
  - id: INT-000
    name: Security roadmap
    status: IN_PROGRESS
    owned_scope: ["security/**"]
    constraints: ["No secrets in the repository"]
  - id: INT-001
    name: JWT auth migration
    status: IN_PROGRESS
    parent_intent: INT-000
    owned_scope: ["src/auth/**"]
    constraints: ["Keep the public login() signature"]
    related_specs: [docs/auth-spec.md]
  - id: INT-002
    name: Docs
    status: IN_PROGRESS
    owned_scope: ["docs/**"]
YAML
  git add -A && _commit_at 10 -m "Add intent catalogue"
  gitai select INT-001 >/dev/null
  gitai lesson "login() callers are in src/web; run their tests too" >/dev/null
}

_APPROVAL_INTENT='  - id: INT-004
    name: Payment provider switch
    status: DRAFT
    requires_approval: true
    owned_scope:
      - "src/payments/**"'

# The catalogue with INT-004, which requires a person's approval.
setup_approval_needed() {
  setup_new_repository
  gitai init >/dev/null
  printf '%s\n%s\n' "$CLI_CATALOGUE" "$_APPROVAL_INTENT" >.orchestration/active_intents.yaml
  git add -A && _commit_at 10 -m "Add intent catalogue"
}

# The same, INT-004 approved by a person.
setup_approved() {
  setup_approval_needed
  _as_person gitai approve INT-004
}

# The catalogue repository with INT-001 selected, where the kernel has Landlock.
setup_landlock() {
  _require_landlock
  setup_catalogue
  gitai select INT-001 >/dev/null
  mkdir -p src/auth docs && printf 'def login():\n    pass\n' >src/auth/login.py && printf '# Guide\n' >docs/guide.md
  printf 'docs/**\n' >>.orchestration/.intentignore
  git add -A && _commit_at 11 -m "Start INT-001"
}

# INT-001 selected, and a Claude Code session (s1) that selected it through its shell: the hooks
# Claude Code calls, SessionStart and PostToolUse of that command, called here as it calls them.
setup_session() {
  setup_landlock
  printf '{"session_id": "s1", "hook_event_name": "SessionStart", "source": "startup", "cwd": "%s"}\n' "$PWD" |
    gitai hook claude-code
  gitai select INT-001
  printf '{"session_id": "s1", "hook_event_name": "PostToolUse", "tool_name": "Bash", "cwd": "%s", "tool_input": {"command": "gitai select INT-001"}, "tool_response": {"stdout": "", "stderr": "", "interrupted": false}}\n' "$PWD" |
    gitai hook claude-code
}
