# Setups of the console examples in README.md and docs/*.md (tests/doc_examples.py): each
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
