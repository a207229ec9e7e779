# Sourced by an agent host's shell in place of the agent's command (gitai/sandbox/wrap.py):
#   . exec-in-domain.sh GITAI SESSION_KEY COMMAND
# runs COMMAND inside `GITAI exec --session SESSION_KEY --` (the kernel domain of the session's
# intent) and keeps what the host's shell keeps between calls. Sourced, not run, so that a `cd` in
# COMMAND moves the host's shell, which reports its directory after the call (Claude Code: `pwd -P`).
__gitai_program=$1 __gitai_session=$2 __gitai_command=$3
shift 3
# A private directory for the hand-over: the shell's functions, aliases and options go in; the
# inner shell's last directory comes out.
__gitai_state=$(mktemp -d "${TMPDIR:-/tmp}/gitai-exec.XXXXXX" 2>/dev/null) || __gitai_state=
if [ -n "$__gitai_state" ] && [ -n "${BASH:-}" ]; then
    { shopt -p; alias -p; declare -f; } >| "$__gitai_state/shell" 2>/dev/null
fi
# The inner shell is the same shell (bash, or zsh); it runs COMMAND as the host does, with `eval`.
__gitai_shell=${BASH:-}
if [ -z "$__gitai_shell" ] && [ -n "${ZSH_NAME:-}" ]; then __gitai_shell=$(command -v zsh); fi
GITAI_EXEC_STATE=$__gitai_state "$__gitai_program" exec --session "$__gitai_session" -- \
    "${__gitai_shell:-/bin/sh}" -c '__gitai_state=$GITAI_EXEC_STATE; unset GITAI_EXEC_STATE
if [ -n "$__gitai_state" ]; then
    [ -s "$__gitai_state/shell" ] && . "$__gitai_state/shell" 2>/dev/null
    trap '\''pwd -P >| "$__gitai_state/cwd" 2>/dev/null'\'' EXIT
fi
__gitai_command=$1; shift; eval "$__gitai_command"' bash "$__gitai_command"
__gitai_status=$?
if [ -n "$__gitai_state" ] && [ -s "$__gitai_state/cwd" ]; then
    cd -- "$(cat -- "$__gitai_state/cwd")" 2>/dev/null || :
fi
rm -rf -- "$__gitai_state" 2>/dev/null
unset __gitai_program __gitai_session __gitai_command __gitai_state __gitai_shell
(exit "$__gitai_status")
