#!/bin/sh
# gitai-managed-hook: installed by `gitai hooks install`; `gitai hooks uninstall` removes it
# and restores any hook that was here before (kept beside it as HOOK.gitai-chained, run first).
# Shell, not a line that only starts Python, for speed (docs/development.md, "Where the time goes"):
# commit-msg adds its trailer here for about a quarter of a Python hook's time, and pre-commit starts
# `git diff --cached` before Python so that git reads the index while the interpreter starts.
GITAI_PYTHON='@GITAI_PYTHON@'
# Where gitai and its dependencies import from: Python starts with -I -S (no site, no .pth
# processing, no current directory on sys.path), which halves its start-up time.
GITAI_PATH='@GITAI_PATH@'
GITAI_PACKAGE='@GITAI_PACKAGE@'
hook='@GITAI_HOOK@'
# Set in the copy in gitai's own hooks directory (Layout.own_hooks_dir), where git runs no pre-commit:
# fixed when the hook is written, so nothing in the agent's environment turns it on or off.
own_hooks='@GITAI_OWN_HOOKS@'
case $0 in */*) chained=${0%/*}/$hook.gitai-chained ;; *) chained=./$hook.gitai-chained ;; esac  # no dirname process

if [ ! -x "$GITAI_PYTHON" ] || [ ! -d "$GITAI_PACKAGE" ]; then
  gone="the gitai this $hook hook was installed with is gone ($GITAI_PYTHON); reinstall gitai and run 'gitai hooks install'"
  case "$hook" in
    post-*) echo "gitai: warning: $gone; this commit is not traced (later: 'gitai backfill')" >&2; exit 0 ;;
    pre-push) echo "gitai: warning: $gone; the notes do not travel with this push (later: 'gitai sync')" >&2; exit 0 ;;
    *) echo "gitai: error: $gone" >&2; exit 1 ;;
  esac
fi

run_gitai() {  # HOOK ARGS...
  "$GITAI_PYTHON" -I -S -c 'import sys; sys.path[:0] = sys.argv[1].split("\n"); from gitai.hook_main import main; sys.exit(main(sys.argv[2:]))' "$GITAI_PATH" "$@"
}

# commit-msg: add "Intent: <active intent>" once, in shell (no Python start on this hook).
# The active intent is GITAI_INTENT, else this worktree's `gitai select` (gitai/intents/active.py).
commit_msg() {
  message=$1
  if [ -z "${GIT_DIR:-}" ] && [ -d .git ]; then
    gitdir=.git  # hooks run at the top of the worktree: spare a git call
  else
    gitdir=$(git rev-parse --git-dir) || return 0
  fi
  # A shared core.hooksPath runs this hook in repositories without gitai too: do nothing there.
  [ -d .orchestration ] || [ -f "$(git rev-parse --git-common-dir)/gitai/installed" ] || return 0
  set -f
  set -- ${GITAI_INTENT:-}  # trims surrounding whitespace, as gitai/intents/active.py does
  intent=${1:-}
  set +f
  if [ -z "$intent" ] && [ -f "$gitdir/gitai/active" ]; then
    read -r intent <"$gitdir/gitai/active"
  fi
  comment=$(git config core.commentChar) || comment='#'
  [ "$comment" = auto ] && comment='#'
  # One pass over the message: does it say anything (an empty or comment-only message aborts
  # the commit, and a trailer must not rescue it), and does a line look like an Intent trailer?
  shape=$(awk -v c="$comment" 'index($0, c " ------------------------ >8") == 1 { exit }
    index($0, c) == 1 { next }  /[^[:space:]]/ { text = 1 }  tolower($0) ~ /^intent *:/ { named = 1 }
    END { print (text ? "text" : "empty") (named ? "+named" : "") }' "$message")
  case "$shape" in empty*) return 0 ;; esac
  written=
  if [ "$shape" = text+named ]; then
    written=$(git interpret-trailers --parse "$message" | sed -n 's/^[Ii][Nn][Tt][Ee][Nn][Tt]: *//p' | head -n 1)
  fi
  if [ -n "$own_hooks" ]; then
    # No pre-commit ran (the host turned git's hooks off), and the intent here may come from the
    # agent's own GITAI_INTENT: the commit passes the gate under the intent it will be recorded under.
    GITAI_INTENT=${written:-$intent} run_gitai pre-commit || return $?
  elif [ -n "$written" ] && [ "$written" != "$intent" ]; then
    # A message naming another intent than the active one is recorded under that intent,
    # so the staged paths must fit its scope too.
    GITAI_INTENT=$written run_gitai pre-commit || return $?
  fi
  [ -n "$intent" ] || return 0
  # `git merge` writes its message without a final newline; without one the trailer would be
  # glued to the subject and not be a trailer at all.
  if [ -f "$gitdir/MERGE_HEAD" ] && [ -n "$(tail -c 1 "$message")" ]; then
    printf '\n' >>"$message"
  fi
  git interpret-trailers --in-place --if-exists doNothing --trailer "Intent: $intent" "$message"
}

if [ -x "$chained" ]; then
  case "$hook" in post-rewrite|pre-push|pre-receive)
    # Both hooks read the same standard input (rewritten commits, pushed refs).
    input=$(mktemp "${TMPDIR:-/tmp}/gitai-$hook.XXXXXX") || exit 1
    cat >"$input"
    "$chained" "$@" <"$input"
    status=$?
    if [ "$hook" != post-rewrite ] && [ $status -ne 0 ]; then
      rm -f "$input"
      exit $status
    fi
    run_gitai "$hook" "$@" <"$input"
    status=$?
    rm -f "$input"
    [ "$hook" = post-rewrite ] && exit 0
    exit $status
  esac
  "$chained" "$@" || {
    status=$?
    case "$hook" in post-*) ;; *) exit $status ;; esac
  }
fi
if [ "$hook" = commit-msg ]; then
  commit_msg "$@"
  exit $?
fi
if [ "$hook" = pre-commit ] && [ $# -eq 0 ]; then
  # The staged paths (gitai/gate/check.py STAGED_DIFF) and git's exit status, piped in: git reads
  # the index (in proportion to the repository's files) while Python starts, not after.
  { git diff --cached --name-only -z --no-renames --no-ext-diff 2>/dev/null; printf '%s' "$?"; } |
    run_gitai pre-commit --staged-stdin
  exit $?
fi
run_gitai "$hook" "$@"
