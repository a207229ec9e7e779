# Sourced by an agent host's shell at the head of the agent's own command (gitai/sandbox/wrap.py):
#   . enter-domain.sh GITAI SESSION_KEY NONCE; COMMAND
# The host's permission rules still see COMMAND verbatim. This line never returns in the host's
# shell: it runs the shell's whole command string again inside `GITAI exec --session SESSION_KEY`
# (the kernel domain of the session's intent), with this line there replaced by `:`, so that
# COMMAND and the host's own lines around it (its shell snapshot, Claude Code's `pwd -P >| FILE`)
# run confined, with the host's stdin, stdout, stderr and exit status. Where that cannot be done it
# exits 126 saying why: COMMAND never runs outside the domain. Nothing is read that the agent could
# plant: no variable and no file says "already inside"; inside, this line is simply gone.
__gitai_refuse() {
    printf 'gitai: refused: %s, so the command did not run (docs/security.md, "The second way in")\n' "$1" >&2
    exit 126
}
if [ -z "${BASH_VERSION:-}" ] || [ -z "${BASH_EXECUTION_STRING:-}" ]; then
    __gitai_refuse "this shell is not bash started with -c: gitai cannot run its command in the kernel domain"
fi
__gitai_marker=". ${BASH_SOURCE[0]} $1 $2 $3"
__gitai_string=$BASH_EXECUTION_STRING
__gitai_rest=${__gitai_string#*"$__gitai_marker"}
if [ "$__gitai_rest" = "$__gitai_string" ]; then
    __gitai_refuse "the host's shell does not run the command as gitai's hook wrote it"
fi
case $__gitai_rest in
    *"$__gitai_marker"*) __gitai_refuse "the line entering the kernel domain occurs twice in the host's command" ;;
esac
__gitai_flags=${-//[cis]/}
__gitai_login=
shopt -q login_shell && __gitai_login=-l
exec "$1" exec --session "$2" -- "$BASH" $__gitai_login ${__gitai_flags:+"-$__gitai_flags"} \
    -c "${__gitai_string%%"$__gitai_marker"*}:$__gitai_rest" "$0"
__gitai_refuse "gitai could not be started"  # exec returned (the shell's execfail option)
