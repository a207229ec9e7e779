"""Every fact gitai knows about each coding-agent host, in one place (docs/agents.md, "Hosts").

A new host goes here. The payload normalizer, the answers (protocol), the installer, `gitai hook`,
`gitai agents`, the agent-variable checks and the tests all read this table. Pure data that
imports nothing: `gitai hook` loads it on every tool call, and every layer may read it
(docs/development.md, "Layout"). Facts come from the hosts' documentation and sources and
from running them; what a real host does wins over what its documentation says.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

# What a host event means to gitai (gitai/agents/normalize.py turns payloads into these).
BEFORE_WRITE = "before-write"
BEFORE_SHELL = "before-shell"
AFTER_WRITE = "after-write"
AFTER_READ = "after-read"
AFTER_SHELL = "after-shell"
SESSION_START = "session-start"
PROMPT_SUBMIT = "prompt-submit"
SESSION_END = "session-end"
OTHER = "other"  # an event or tool gitai does not govern: answered with "allow", untouched
# A host event around any tool call: the tool's kind decides which of the above it is.
PRE_TOOL = "pre-tool"
POST_TOOL = "post-tool"
POST_TOOL_FAILURE = "post-tool-failure"  # after a tool call that failed: only a shell command's changes matter

# How an answer is expressed (gitai/agents/protocol.py renders each shape).
HOOK_SPECIFIC = "hook-specific"  # {"hookSpecificOutput": {"hookEventName", "permissionDecision"/"additionalContext"}}
CURSOR = "cursor"  # {"permission", "user_message", "agent_message"}; context as "additional_context"
DECISION = "decision"  # {"decision": "deny", "reason"}
PERMISSION_DECISION = "permission-decision"  # {"permissionDecision", "permissionDecisionReason"}
ADDITIONAL_CONTEXT = "additional-context"  # {"additionalContext"} at the top level
EXIT_2 = "exit-2"  # exit 2 with the reason on stderr: blocks any event, even one whose payload was unreadable

# How the installer writes gitai's entries (gitai/agents/install.py).
GROUPS = "groups"  # {"matcher", "hooks": [{"type": "command", "command", "timeout"}]} per event
NAMED_GROUPS = "named-groups"  # the same, each hook named "gitai"
FLAT = "flat"  # {"command", "matcher", "timeout"} per event, "failClosed" before a tool; "version": 1
PER_EVENT = "per-event"  # {"type", "bash", "powershell", "cwd", "timeoutSec"}, the event named on the command
# line (the payload does not carry it); "version": 1

# How a host's pre-tool hook can rewrite the tool's input (None: it cannot).
UPDATED_INPUT = "updated-input"  # hookSpecificOutput.updatedInput: the tool runs with it in place of the model's
UPDATED_INPUT_WITH_ALLOW = "updated-input-with-allow"  # the same, honoured only beside permissionDecision "allow"
TOOL_INPUT = "tool-input"  # hookSpecificOutput.tool_input: the tool is rebuilt from it (send every argument)
# Where a host keeps whether a folder, or each hook, may run (gitai/agents/trust.py reads each kind).
HOOK_APPROVALS = "hook-approvals"  # a trusted project, then each hook approved by its hash (Codex's [hooks.state])
FOLDER_RULES = "folder-rules"  # {"/path": "TRUST_FOLDER" | "TRUST_PARENT" | "DO_NOT_TRUST"}, the longest rule wins
FOLDER_LIST = "folder-list"  # a list of trusted folders in a JSON config, each trusting what is under it
TRUST_DIALOG = "trust-dialog"  # a per-project "trust this folder" answer; hooks may also be switched off in settings
FOLDER_LIST_KEYS = ("trustedFolders", "trusted_folders")  # where FOLDER_LIST keeps its folders (and its older name)

SECONDS = "seconds"
MILLISECONDS = "milliseconds"

# Agents with no hooks, known only by a variable they set in the shells they run.
UNHOOKED_AGENT_VARIABLES = ("AIDER_MODEL",)


class Host:
    """One host's facts. Immutable: the table is shared by every caller in the process."""

    __slots__ = ("name", "title", "project_configs", "user_configs", "events", "write_tools", "edit_tools",
                 "patch_tools", "delete_tools", "shell_tools", "read_tools", "stdin_tools", "install_events",
                 "config_style", "timeout", "timeout_unit", "refusal", "context", "failure", "asks",
                 "shell_variables", "hook_variables", "model_keys", "transcript_key", "transcript_names_model",
                 "trust", "instructions", "git_hooks_in_shell", "model_variables", "model_settings", "executables",
                 "login_shell", "input_rewrite", "exec_wrap", "command_in_subshell", "session_variables", "trust_kind",
                 "trust_file",
                 "trust_file_variable", "home_variable", "folder_trust_switch",
                 "hooks_switch", "escapes_tags", "trust_file_own_keys", "npm_packages", "user_mcp_configs")

    name: str  # on the command line: `gitai hook NAME`, `gitai agents install NAME`
    title: str
    project_configs: tuple[str, ...]  # relative to the worktree; the first is the one gitai writes
    user_configs: tuple[str, ...]  # relative to the home directory; () when hooks are read from the project only
    events: tuple[tuple[str, str], ...]  # (host event name, kind): every event gitai understands
    write_tools: tuple[str, ...]  # create or overwrite a file
    edit_tools: tuple[str, ...]  # change part of a file
    patch_tools: tuple[str, ...]  # a patch text naming its files (`*** Update File: path`)
    delete_tools: tuple[str, ...]  # remove or rename a file
    shell_tools: tuple[str, ...]  # run a command line
    read_tools: tuple[str, ...]  # read a file (remembered for the stale-write lock)
    stdin_tools: tuple[str, ...]  # type into a shell that is already running: no command line to check
    install_events: tuple[tuple[str, str | None], ...]  # (event, tool matcher or None) the installer hooks
    config_style: str  # GROUPS, NAMED_GROUPS, FLAT or PER_EVENT
    timeout: int  # per hook call, in `timeout_unit`
    timeout_unit: str
    refusal: str  # how a deny or an ask is expressed
    context: str  # how context is added at session start and prompt submit
    failure: str  # how a payload that could not be read is refused
    asks: bool  # a hook can ask the person; elsewhere an ask is a deny that says so
    shell_variables: tuple[str, ...]  # set in the shells it runs commands in: a commit made there is the agent's
    hook_variables: tuple[str, ...]  # also mark its processes (hooks, the host itself), not its commits
    model_keys: tuple[str, ...]  # payload keys that name the model; () when its payloads never do
    transcript_key: str | None  # payload key of the session transcript's path
    transcript_names_model: bool  # the transcript says which model answered
    trust: tuple[str, ...]  # what a person does for the hooks to run (trust, approval, restart), and CI: a line a step
    instructions: tuple[str, ...]  # the instructions files it reads, in the repository root
    # git runs the repository's hooks in its shell. False: its shell turns them off (an empty core.hooksPath),
    # so the agent hook gates a commit before the command and records it after; `gitai exec` and `gitai run`
    # point git at gitai's own trailer hook only (gitai/sandbox/enter.py)
    git_hooks_in_shell: bool
    model_variables: tuple[str, ...]  # environment variables that choose its model (its hooks inherit them)
    # (settings file, key path) that name the default model: "~/" under the home directory, else in the
    # worktree; the first found wins, so the project's file comes before the user's where it overrides it
    model_settings: tuple[tuple[str, tuple[str, ...]], ...]
    executables: tuple[str, ...]  # its program's names: a process above a hook with one is the host itself
    login_shell: bool  # runs the model's commands in a login shell that rebuilds PATH: the model is told gitai's path
    input_rewrite: str | None  # how its pre-tool hook can rewrite a tool's input (UPDATED_INPUT ...), or None
    exec_wrap: bool  # gitai's hook rewrites each shell command to run in `gitai exec` (the kernel domain)
    # its shell text puts the command inside its own `( ... )` (Gemini CLI): a command that closes it early
    # would run its tail after the line that enters the domain, so only a command bash parses whole is wrapped
    command_in_subshell: bool
    session_variables: tuple[str, ...]  # set in its shells to the session id its hook payloads carry
    trust_kind: str | None  # HOOK_APPROVALS, FOLDER_RULES, FOLDER_LIST, TRUST_DIALOG; None: no trust to read
    trust_file: str | None  # where it keeps that trust, relative to the home directory
    # (variable, file name in it) that moves `trust_file`; "" when the variable names the file itself
    trust_file_variable: tuple[str, str] | None
    # (variable, directory under HOME, where that directory is beneath the variable's value: "" where the
    # variable names it) where the variable moves that directory, every control in it too
    home_variable: tuple[str, str, str] | None
    # (user settings file, key path, default): folder trust is on, so an untrusted folder's hooks do not run
    folder_trust_switch: tuple[str, tuple[str, ...], bool] | None
    # (settings file, key path) whose true value switches every hook off; "~/" under the home directory
    hooks_switch: tuple[tuple[str, tuple[str, ...]], ...]
    escapes_tags: bool  # shows hook context to the model with < and > escaped: gitai's context has no tags there
    # The keys of its trust file it rewrites itself as it runs (Copilot CLI: its global state, in the file that
    # also holds the trusted folders), by renaming a new file onto it. Not empty: inside `gitai run` that file
    # cannot be a read-only mount, so gitai stays outside the domain as the session's parent and, when the
    # host exits, keeps these keys as the host left them, the repository's own folder added to its trust too,
    # and puts the rest back (gitai/sandbox/supervise.py).
    trust_file_own_keys: tuple[str, ...]
    npm_packages: tuple[str, ...]  # the npm packages it is installed from (`npx @github/copilot@latest` starts it)
    # relative to the home directory (moved with `home_variable`): the MCP servers it starts in every session,
    # files it never writes itself (a user control: one the agent added would run in the next session)
    user_mcp_configs: tuple[str, ...]

    def __init__(self, *, name: str, title: str, project_configs: tuple[str, ...], user_configs: tuple[str, ...],
                 events: tuple[tuple[str, str], ...], write_tools: tuple[str, ...], edit_tools: tuple[str, ...],
                 patch_tools: tuple[str, ...], delete_tools: tuple[str, ...], shell_tools: tuple[str, ...],
                 read_tools: tuple[str, ...], stdin_tools: tuple[str, ...],
                 install_events: tuple[tuple[str, str | None], ...], config_style: str, timeout: int,
                 timeout_unit: str, refusal: str, context: str, failure: str, asks: bool,
                 shell_variables: tuple[str, ...], hook_variables: tuple[str, ...], model_keys: tuple[str, ...],
                 transcript_key: str | None, transcript_names_model: bool, trust: tuple[str, ...],
                 instructions: tuple[str, ...], git_hooks_in_shell: bool = True,
                 model_variables: tuple[str, ...] = (),
                 model_settings: tuple[tuple[str, tuple[str, ...]], ...] = (),
                 executables: tuple[str, ...] = (), login_shell: bool = False, input_rewrite: str | None = None,
                 exec_wrap: bool = False, command_in_subshell: bool = False,
                 session_variables: tuple[str, ...] = (), trust_kind: str | None = None,
                 trust_file: str | None = None, trust_file_variable: tuple[str, str] | None = None,
                 home_variable: tuple[str, str, str] | None = None,
                 folder_trust_switch: tuple[str, tuple[str, ...], bool] | None = None,
                 hooks_switch: tuple[tuple[str, tuple[str, ...]], ...] = (), escapes_tags: bool = False,
                 trust_file_own_keys: tuple[str, ...] = (), npm_packages: tuple[str, ...] = (),
                 user_mcp_configs: tuple[str, ...] = ()) -> None:
        values = {"name": name, "title": title, "project_configs": project_configs, "user_configs": user_configs,
                  "events": events, "write_tools": write_tools, "edit_tools": edit_tools, "patch_tools": patch_tools,
                  "delete_tools": delete_tools, "shell_tools": shell_tools, "read_tools": read_tools,
                  "stdin_tools": stdin_tools, "install_events": install_events, "config_style": config_style,
                  "timeout": timeout, "timeout_unit": timeout_unit, "refusal": refusal, "context": context,
                  "failure": failure, "asks": asks, "shell_variables": shell_variables,
                  "hook_variables": hook_variables, "model_keys": model_keys, "transcript_key": transcript_key,
                  "transcript_names_model": transcript_names_model, "trust": trust, "instructions": instructions,
                  "git_hooks_in_shell": git_hooks_in_shell, "model_variables": model_variables,
                  "model_settings": model_settings, "executables": executables,
                  "login_shell": login_shell, "input_rewrite": input_rewrite, "exec_wrap": exec_wrap,
                  "command_in_subshell": command_in_subshell,
                  "session_variables": session_variables, "trust_kind": trust_kind,
                  "trust_file": trust_file, "trust_file_variable": trust_file_variable,
                  "home_variable": home_variable, "folder_trust_switch": folder_trust_switch,
                  "hooks_switch": hooks_switch,
                  "escapes_tags": escapes_tags, "trust_file_own_keys": trust_file_own_keys,
                  "npm_packages": npm_packages, "user_mcp_configs": user_mcp_configs}
        for key, value in values.items():
            object.__setattr__(self, key, value)

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError(f"host facts are read-only ({self.name}.{key})")

    def __repr__(self) -> str:
        return f"Host({self.name!r})"

    def event(self, kind: str) -> str | None:
        """The host's first event of `kind`, or None."""
        return next((name for name, k in self.events if k == kind), None)

    def file_tools(self) -> tuple[str, ...]:
        """Every tool that changes files: the scope gate checks the paths each one names."""
        return self.write_tools + self.edit_tools + self.patch_tools + self.delete_tools


HOSTS = (
    Host(
        name="claude-code", title="Claude Code",
        project_configs=(".claude/settings.json", ".claude/settings.local.json"),
        user_configs=(".claude/settings.json",),
        # A command that exits non-zero fires PostToolUseFailure, not PostToolUse.
        events=(("PreToolUse", PRE_TOOL), ("PostToolUse", POST_TOOL), ("PostToolUseFailure", POST_TOOL_FAILURE),
                ("SessionStart", SESSION_START), ("UserPromptSubmit", PROMPT_SUBMIT), ("SessionEnd", SESSION_END)),
        write_tools=("Write",), edit_tools=("Edit", "MultiEdit", "NotebookEdit"), patch_tools=(), delete_tools=(),
        shell_tools=("Bash",), read_tools=("Read", "NotebookRead"), stdin_tools=(),
        install_events=(("PreToolUse", "Write|Edit|MultiEdit|NotebookEdit|Bash"),
                        ("PostToolUse", "Write|Edit|MultiEdit|NotebookEdit|Bash|Read"), ("PostToolUseFailure", "Bash"),
                        ("SessionStart", None), ("UserPromptSubmit", None), ("SessionEnd", None)),
        config_style=GROUPS, timeout=10, timeout_unit=SECONDS,
        refusal=HOOK_SPECIFIC, context=HOOK_SPECIFIC, failure=EXIT_2, asks=True,
        shell_variables=("CLAUDECODE",), hook_variables=("CLAUDE_CODE_ENTRYPOINT", "CLAUDE_PROJECT_DIR"),
        model_keys=("model",),  # at SessionStart, and only in interactive sessions (`claude -p` sends none)
        transcript_key="transcript_path", transcript_names_model=True,
        trust=("restart Claude Code (or open /hooks) so that it reads the new hooks",
               "accept the trust dialog Claude Code shows in a folder it has not seen (kept in ~/.claude.json)",
               "keep \"disableAllHooks\" out of ~/.claude/settings.json and .claude/settings*.json",
               "in CI: `claude -p` runs the committed project hooks without a dialog"),
        instructions=("CLAUDE.md", "AGENTS.md"),  # Claude Code 2.1 reads both
        model_variables=("ANTHROPIC_MODEL",),
        model_settings=((".claude/settings.local.json", ("model",)), (".claude/settings.json", ("model",)),
                        ("~/.claude/settings.json", ("model",))),
        executables=("claude",),
        npm_packages=("@anthropic-ai/claude-code",),
        # Applied with no permissionDecision too, so its own permission rules still ask; the after-tool
        # payload then carries the rewritten command. Seen in the real host (tests/realhosts).
        input_rewrite=UPDATED_INPUT, exec_wrap=True,
        session_variables=("CLAUDE_CODE_SESSION_ID",),
        trust_kind=TRUST_DIALOG, trust_file=".claude.json", trust_file_variable=("CLAUDE_CONFIG_DIR", ".claude.json"),
        home_variable=("CLAUDE_CONFIG_DIR", ".claude", ""),
        hooks_switch=(("~/.claude/settings.json", ("disableAllHooks",)),
                      (".claude/settings.json", ("disableAllHooks",)),
                      (".claude/settings.local.json", ("disableAllHooks",))),
    ),
    Host(
        name="cursor", title="Cursor",
        project_configs=(".cursor/hooks.json",), user_configs=(".cursor/hooks.json",),
        events=(("preToolUse", PRE_TOOL), ("postToolUse", POST_TOOL), ("sessionStart", SESSION_START),
                ("beforeSubmitPrompt", PROMPT_SUBMIT), ("sessionEnd", SESSION_END),
                ("beforeShellExecution", BEFORE_SHELL), ("afterShellExecution", AFTER_SHELL),
                ("afterFileEdit", AFTER_WRITE),
                ("beforeReadFile", AFTER_READ)),  # the read returns the content as it is now: remember it
        write_tools=("Write",), edit_tools=("StrReplace", "Edit"), patch_tools=("ApplyPatch",),
        delete_tools=("Delete",), shell_tools=("Shell",), read_tools=("Read",), stdin_tools=(),
        install_events=(("preToolUse", "Write|StrReplace|Delete|ApplyPatch|Edit|Shell"),
                        ("postToolUse", "Write|StrReplace|Delete|ApplyPatch|Edit|Shell|Read"),
                        ("sessionStart", None), ("beforeSubmitPrompt", None), ("sessionEnd", None)),
        config_style=FLAT, timeout=10, timeout_unit=SECONDS,
        refusal=CURSOR, context=CURSOR, failure=CURSOR, asks=True,
        shell_variables=("CURSOR_AGENT",), hook_variables=("CURSOR_TRACE_ID",),
        model_keys=("model",), transcript_key=None, transcript_names_model=False,
        trust=("restart Cursor so that it reads .cursor/hooks.json",),
        instructions=("AGENTS.md",),
        executables=("cursor-agent",),
        # input_rewrite None: unverified (third-party hook tools disagree on an `updated_input` answer)
    ),
    Host(
        name="gemini", title="Gemini CLI",
        project_configs=(".gemini/settings.json",), user_configs=(".gemini/settings.json",),
        events=(("BeforeTool", PRE_TOOL), ("AfterTool", POST_TOOL), ("SessionStart", SESSION_START),
                ("BeforeAgent", PROMPT_SUBMIT), ("SessionEnd", SESSION_END)),
        write_tools=("write_file",), edit_tools=("replace",), patch_tools=(), delete_tools=(),
        shell_tools=("run_shell_command",), read_tools=("read_file", "read_many_files"), stdin_tools=(),
        install_events=(("BeforeTool", "write_file|replace|run_shell_command"),
                        ("AfterTool", "write_file|replace|run_shell_command|read_file|read_many_files"),
                        ("SessionStart", None), ("BeforeAgent", None), ("SessionEnd", None)),
        config_style=NAMED_GROUPS, timeout=10000, timeout_unit=MILLISECONDS,
        refusal=DECISION, context=HOOK_SPECIFIC, failure=DECISION, asks=False,
        shell_variables=("GEMINI_CLI",), hook_variables=("GEMINI_PROJECT_DIR",),
        model_keys=(), transcript_key="transcript_path", transcript_names_model=True,
        trust=("Gemini CLI runs project hooks only in a trusted folder: choose \"Trust folder\" when it asks "
               "(kept in ~/.gemini/trustedFolders.json)",
               "in CI: GEMINI_CLI_TRUST_WORKSPACE=true or `gemini --skip-trust` trusts the folder for that run "
               "(untrusted, `gemini -p` exits)"),
        instructions=("GEMINI.md",),
        # Its shell tool sets git config through GIT_CONFIG_COUNT/KEY/VALUE, an empty core.hooksPath among it.
        git_hooks_in_shell=False,
        model_variables=("GEMINI_MODEL",),
        model_settings=((".gemini/settings.json", ("model", "name")), (".gemini/settings.json", ("model",)),
                        ("~/.gemini/settings.json", ("model", "name")), ("~/.gemini/settings.json", ("model",))),
        executables=("gemini",),
        npm_packages=("@google/gemini-cli",),
        input_rewrite=TOOL_INPUT, exec_wrap=True, command_in_subshell=True,
        trust_kind=FOLDER_RULES, trust_file=".gemini/trustedFolders.json",
        trust_file_variable=("GEMINI_CLI_TRUSTED_FOLDERS_PATH", ""),
        # GEMINI_CLI_HOME stands for the whole home directory (Gemini CLI 0.61's `homedir()`, and its
        # docs/reference/configuration.md): its ~/.gemini is $GEMINI_CLI_HOME/.gemini
        home_variable=("GEMINI_CLI_HOME", ".gemini", ".gemini"),
        folder_trust_switch=(".gemini/settings.json", ("security", "folderTrust", "enabled"), True),
        escapes_tags=True,  # `&lt;gitai_context&gt;` inside its own <hook_context>
    ),
    Host(
        name="codex", title="Codex CLI",
        project_configs=(".codex/config.toml", ".codex/hooks.json"), user_configs=(".codex/config.toml",),
        events=(("PreToolUse", PRE_TOOL), ("PostToolUse", POST_TOOL), ("SessionStart", SESSION_START),
                ("UserPromptSubmit", PROMPT_SUBMIT)),
        write_tools=(), edit_tools=(), patch_tools=("apply_patch",), delete_tools=(),
        shell_tools=("Bash", "exec_command", "shell", "local_shell"), read_tools=(), stdin_tools=("write_stdin",),
        install_events=tuple((event, "^(Bash|apply_patch|functions\\.apply_patch|exec_command|shell)$")
                             for event in ("PreToolUse", "PostToolUse")) + (("SessionStart", None),
                                                                            ("UserPromptSubmit", None)),
        config_style=GROUPS, timeout=30, timeout_unit=SECONDS,
        refusal=HOOK_SPECIFIC, context=HOOK_SPECIFIC, failure=EXIT_2, asks=False,
        shell_variables=("CODEX_SANDBOX",), hook_variables=("CODEX_SANDBOX_NETWORK_DISABLED", "CODEX_THREAD_ID"),
        model_keys=("model",), transcript_key="transcript_path", transcript_names_model=False,
        trust=("trust this project when Codex asks (kept as [projects.\"PATH\"] trust_level = \"trusted\" in "
               "$CODEX_HOME/config.toml)",
               "open /hooks in Codex and approve each gitai hook (kept under [hooks.state] in $CODEX_HOME/config.toml; "
               "gitai does not forge that approval); approve again after gitai's hooks change",
               "in CI: `codex exec --dangerously-bypass-hook-trust`"),
        instructions=("AGENTS.md",),
        executables=("codex",),
        npm_packages=("@openai/codex",),
        login_shell=True,  # the model's commands: `bash -lc COMMAND` (its hooks: `bash -c`, PATH kept)
        # Not used: "allow" would also skip Codex's own approval of the command.
        input_rewrite=UPDATED_INPUT_WITH_ALLOW,
        session_variables=("CODEX_THREAD_ID",),
        trust_kind=HOOK_APPROVALS, trust_file=".codex/config.toml", trust_file_variable=("CODEX_HOME", "config.toml"),
        home_variable=("CODEX_HOME", ".codex", ""),
    ),
    Host(
        name="copilot", title="Copilot CLI",
        project_configs=(".github/hooks/gitai.json",), user_configs=(),
        events=(("preToolUse", PRE_TOOL), ("postToolUse", POST_TOOL), ("sessionStart", SESSION_START),
                ("userPromptSubmitted", PROMPT_SUBMIT), ("sessionEnd", SESSION_END)),
        write_tools=("create", "create_file"),
        edit_tools=("edit", "str_replace", "replace_string_in_file", "insert_edit_into_file", "edit_file",
                    "edit_notebook_file"),
        patch_tools=("apply_patch",), delete_tools=("delete_file", "rename_file"),
        shell_tools=("bash", "powershell", "run_in_terminal"), read_tools=("view", "readFile"), stdin_tools=(),
        install_events=tuple((event, None) for event in ("preToolUse", "postToolUse", "sessionStart",
                                                         "userPromptSubmitted", "sessionEnd")),
        config_style=PER_EVENT, timeout=30, timeout_unit=SECONDS,
        refusal=PERMISSION_DECISION, context=ADDITIONAL_CONTEXT, failure=PERMISSION_DECISION, asks=False,
        shell_variables=(), hook_variables=("COPILOT_AGENT", "COPILOT_CLI"),
        model_keys=(), transcript_key=None, transcript_names_model=False,
        trust=("Copilot CLI loads repository hooks only in a trusted folder: trust it when asked (kept in "
               "~/.copilot/config.json, trustedFolders)",
               "in CI: `copilot -p ... --trust-folder`, or COPILOT_ALLOW_ALL=true (exactly \"true\": other yes-values "
               "approve tools without trusting the folder)",
               "the cloud coding agent reads .github/hooks/gitai.json from the default branch: commit it"),
        instructions=("AGENTS.md",),
        model_variables=("COPILOT_MODEL",),
        model_settings=(("~/.copilot/config.json", ("model",)),),
        executables=("copilot",),
        npm_packages=("@github/copilot",),
        # input_rewrite None: its command hooks cannot (only the Copilot SDK's modifiedArgs can; CLI 1.0.102)
        session_variables=("COPILOT_AGENT_SESSION_ID",),
        trust_kind=FOLDER_LIST, trust_file=".copilot/config.json", trust_file_variable=("COPILOT_HOME", "config.json"),
        home_variable=("COPILOT_HOME", ".copilot", ""),
        # its MCP servers (CLI 1.0.102 reads it at every start, writes it only through `/mcp add`, never at start)
        user_mcp_configs=(".copilot/mcp-config.json",),
        # config.json is its global state too (CLI 1.0.102, under strace and in its bundle): `firstLaunchAt` on
        # the first start (missing or not a date), then tips, recent models, plugins, sign-in; a folder trusted
        # with "remember" is added to trustedFolders (`--trust-folder` and COPILOT_ALLOW_ALL=true write nothing).
        # Not its own keys here: the plugins (a plugin brings hooks and MCP servers) and the sign-in (the account
        # the next session runs as), which no start writes: a session's change to them is put back
        trust_file_own_keys=("firstLaunchAt", "askedSetupTerminals", "recentModelIds", "appTipShown",
                             "sandboxOnboardingShown", "autoFeedbackLastPromptedAt",
                             "sandboxCredentialProxyCaDeclined"),
    ),
    Host(
        name="qwen", title="Qwen Code",
        project_configs=(".qwen/settings.json",), user_configs=(".qwen/settings.json",),
        events=(("PreToolUse", PRE_TOOL), ("PostToolUse", POST_TOOL), ("PostToolUseFailure", POST_TOOL_FAILURE),
                ("SessionStart", SESSION_START), ("UserPromptSubmit", PROMPT_SUBMIT), ("SessionEnd", SESSION_END)),
        write_tools=("write_file",), edit_tools=("edit", "replace"), patch_tools=(), delete_tools=(),
        shell_tools=("run_shell_command",), read_tools=("read_file",), stdin_tools=(),
        install_events=(("PreToolUse", "write_file|edit|replace|run_shell_command"),
                        ("PostToolUse", "write_file|edit|replace|run_shell_command|read_file"),
                        ("PostToolUseFailure", "run_shell_command"),
                        ("SessionStart", None), ("UserPromptSubmit", None), ("SessionEnd", None)),
        # Milliseconds: older versions read every timeout so, newer ones read seconds but still take a
        # value of 1000 or more as milliseconds.
        config_style=GROUPS, timeout=10000, timeout_unit=MILLISECONDS,
        # "ask" exists in its hook protocol, but what it does headless is unverified: gitai denies instead.
        refusal=HOOK_SPECIFIC, context=HOOK_SPECIFIC, failure=DECISION, asks=False,
        shell_variables=("QWEN_CODE",), hook_variables=("QWEN_PROJECT_DIR",),
        model_keys=("model",),  # at SessionStart
        transcript_key="transcript_path", transcript_names_model=False,
        trust=("restart Qwen Code so that it reads the new hooks",
               "with folder trust on (security.folderTrust.enabled in ~/.qwen/settings.json) it runs project hooks "
               "only in a trusted folder: trust it when asked (kept in ~/.qwen/trustedFolders.json)"),
        instructions=("QWEN.md", "AGENTS.md"),
        model_variables=("OPENAI_MODEL",),
        model_settings=((".qwen/settings.json", ("model", "name")), ("~/.qwen/settings.json", ("model", "name"))),
        executables=("qwen",),
        npm_packages=("@qwen-code/qwen-code",),
        # input_rewrite None: its PreToolUse answer cannot (only a PermissionRequest hook's; 0.24.4)
        session_variables=("QWEN_CODE_SESSION_ID",),
        trust_kind=FOLDER_RULES, trust_file=".qwen/trustedFolders.json",
        trust_file_variable=("QWEN_CODE_TRUSTED_FOLDERS_PATH", ""),
        folder_trust_switch=(".qwen/settings.json", ("security", "folderTrust", "enabled"), False),
        escapes_tags=True,  # `&lt;gitai_context&gt;` inside its own <qwen:session-start-context>
    ),
)

BY_NAME = {host.name: host for host in HOSTS}
NAMES = tuple(BY_NAME)

# The variables that mark a process as running inside an agent, and the narrower set that makes a
# commit the agent's (a host's own hook variables may also be set for a person's commands).
COMMIT_VARIABLES = tuple(v for host in HOSTS for v in host.shell_variables) + UNHOOKED_AGENT_VARIABLES
AGENT_VARIABLES = (tuple(v for host in HOSTS for v in host.shell_variables + host.hook_variables)
                   + UNHOOKED_AGENT_VARIABLES)
# Every project file whose edit could switch an agent's hooks off.
PROJECT_CONFIGS = tuple(dict.fromkeys(path for host in HOSTS for path in host.project_configs))
# Not a host's, but it decides whether gitai's git hooks run where the pre-commit framework (or prek)
# installs them: protected from agents like the hosts' own configs.
GIT_HOOK_FRAMEWORK_CONFIGS = (".pre-commit-config.yaml", ".pre-commit-config.yml")
# The project's MCP server lists: each names programs a host starts outside any domain (after asking
# the person once), so an agent that adds one runs code there: protected like the hosts' own configs.
PROJECT_MCP_CONFIGS = (".mcp.json", ".cursor/mcp.json", ".vscode/mcp.json")
PROTECTED_CONFIGS = PROJECT_CONFIGS + GIT_HOOK_FRAMEWORK_CONFIGS + PROJECT_MCP_CONFIGS
# Files in HOME that decide whether a host runs gitai's hooks at all: its user-level hooks (and any
# project config name a host also reads from HOME), where it keeps trust and hook approvals, and the MCP
# servers it starts in every session where it keeps them in a file of their own.
# (Claude Code's ~/.claude.json is not among them: the host itself rewrites it all the time.)
TRUST_FILES = tuple(host.trust_file for host in HOSTS
                    if host.trust_file and host.trust_kind in (FOLDER_RULES, FOLDER_LIST))
# (and the Gemini CLI policy that lets the line before each wrapped command run: gitai/agents/wrap_rules.py)
USER_CONTROLS = tuple(sorted({path for host in HOSTS
                              for path in (*host.user_configs, *host.project_configs, *host.user_mcp_configs)}
                             | set(TRUST_FILES)))
# Directories in HOME every file of which is a user control, there or not yet: Gemini CLI reads each policy
# in ~/.gemini/policies/ (gitai's allow rules for its wrap among them; one the agent made could allow more).
USER_CONTROL_DIRS = (".gemini/policies",)


def moved_homes(environ: Mapping[str, str]) -> dict[str, str]:
    """Each directory under HOME that a host's `home_variable` in `environ` moves -> where it is now
    (CLAUDE_CONFIG_DIR: ~/.claude; CODEX_HOME: ~/.codex; COPILOT_HOME: ~/.copilot; GEMINI_CLI_HOME:
    ~/.gemini, as $GEMINI_CLI_HOME/.gemini)."""
    found = {}
    for host in HOSTS:
        if host.home_variable and environ.get(host.home_variable[0]):
            variable, directory, beneath = host.home_variable
            moved = environ[variable].rstrip("/")
            found[directory] = f"{moved}/{beneath}" if beneath else moved or "/"
    return found


def home_path(path: str, home: str, environ: Mapping[str, str]) -> str:
    """`path` under the home directory ("~/" or not) where the host finds it: beneath the directory a
    host's `home_variable` in `environ` moves (CLAUDE_CONFIG_DIR: ~/.claude/settings.json), else beneath `home`."""
    relative = path[2:] if path.startswith("~/") else path
    for directory, moved in moved_homes(environ).items():
        if relative.startswith(directory + "/"):
            return moved.rstrip("/") + "/" + relative[len(directory) + 1:]
    return home.rstrip("/") + "/" + relative


def user_controls(home: str, environ: Mapping[str, str]) -> list[str]:
    """USER_CONTROLS as absolute paths under `home`, and where `environ` moves them: a trust file the
    variable names itself (GEMINI_CLI_TRUSTED_FOLDERS_PATH ...), and every control in a directory a host's
    `home_variable` moves (CLAUDE_CONFIG_DIR: settings.json and settings.local.json; CODEX_HOME; COPILOT_HOME)."""
    at_home = [home_path(path, home, {}) for path in USER_CONTROLS]
    found = list(at_home)
    for host in HOSTS:
        variable, name = host.trust_file_variable or ("", "")
        if variable and not name and environ.get(variable):
            found.append(environ[variable])
    where_found = [home_path(path, home, environ) for path in USER_CONTROLS]
    return found + [path for path in where_found if path not in at_home]


def user_control_dirs(home: str, environ: Mapping[str, str]) -> list[str]:
    """USER_CONTROL_DIRS as absolute paths under `home`, and where a host's `home_variable` in `environ`
    moves them (GEMINI_CLI_HOME: $GEMINI_CLI_HOME/.gemini/policies)."""
    at_home = [home_path(path, home, {}) for path in USER_CONTROL_DIRS]
    where_found = [home_path(path, home, environ) for path in USER_CONTROL_DIRS]
    return at_home + [path for path in where_found if path not in at_home]


# Programs that start the program named after them (`env copilot`, `timeout 8h gemini`, `npx @github/copilot`,
# `node .../gemini`) -> their options that take the next word as a value (`-n 10`; `-n10` and `--adjustment=10`
# are one word). The host a command starts is then named by the first word past them that is not an option or a
# NAME=VALUE (`timeout`: the word after its duration), or by an npm package (`@github/copilot@latest`) or a file
# in one (`node .../node_modules/@github/copilot/npm-loader.js`). `env -S` splits its value into words.
# A package runner's (PACKAGE_RUNNERS) next word names an npm package, never a program: `npx gemini` runs
# the package `gemini`, not Gemini CLI.
LAUNCHERS = {
    "env": ("-u", "--unset", "-C", "--chdir", "-S", "--split-string"),
    "timeout": ("-s", "--signal", "-k", "--kill-after"),
    "nice": ("-n", "--adjustment"),
    "time": ("-f", "--format", "-o", "--output"),
    "stdbuf": ("-i", "-o", "-e", "--input", "--output", "--error"),
    "ionice": ("-c", "--class", "-n", "--classdata"),
    "setsid": (), "nohup": (),
    "node": ("-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions", "--title"),
    "npx": ("-p", "--package", "-c", "--call"), "bunx": ("-p", "--package"), "pnpx": ("-p", "--package"),
    "pnpm dlx": ("--package",), "npm exec": ("-p", "--package", "-c", "--call"), "bun x": ("-p", "--package"),
    "yarn dlx": ("-p", "--package"),
}
PACKAGE_RUNNERS = ("npx", "bunx", "pnpx", "pnpm dlx", "npm exec", "bun x", "yarn dlx")
_SPLIT = ("-S", "--split-string")
_TAKES_ONE_WORD = ("timeout",)  # a positional word (the duration) before the program


def host_of_command(command: list[str]) -> Host | None:
    """The host `command` starts, known by its program's name (`gitai run`: whether it rewrites its own trust
    file, whether its shell runs git's hooks): the first word's, or past the launchers (LAUNCHERS) the next
    program's, an npm package's or a file's in one; None where it is none of the hosts or cannot be told."""
    words, package_only = list(command), False
    while words and (launcher := _launcher(words)):
        words, valued, positional = words[len(launcher.split()):], LAUNCHERS[launcher], launcher in _TAKES_ONE_WORD
        package_only = launcher in PACKAGE_RUNNERS
        while words and (words[0].startswith("-") or "=" in words[0] or positional):  # `env -`: `env -i`
            word = words.pop(0)
            if not word.startswith("-") and "=" not in word:
                positional = False  # timeout's duration
                continue
            if word == "--":
                break
            option, joined = _option(word, valued)
            if option in _SPLIT:
                value = joined if joined is not None else (words.pop(0) if words else "")
                words = value.split() + words  # `env -S 'copilot -p x'` (quotes and escapes are not followed)
            elif option in valued and joined is None and words:
                words.pop(0)
    if not words:
        return None
    word = words[0]
    for host in HOSTS:
        if _package_name(word) in host.npm_packages:
            return host
        if not package_only and (word.rsplit("/", 1)[-1] in host.executables
                                 or any(f"/{package}/" in word for package in host.npm_packages)):
            return host
    return None


def _launcher(words: list[str]) -> str | None:
    """The launcher (LAUNCHERS) `words` begin with: its program's name, or that and its subcommand (`npm exec`)."""
    first = words[0].rsplit("/", 1)[-1]
    two = f"{first} {words[1]}" if len(words) > 1 else ""
    return two if two in LAUNCHERS else first if first in LAUNCHERS else None


def _option(word: str, valued: tuple[str, ...]) -> tuple[str, str | None]:
    """(option, its value where it is in the same word) of `word`: `--chdir=/tmp`, `-C/tmp`, `-oL`, `-n10`."""
    if word.startswith("--"):
        name, _, value = word.partition("=")
        return name, value if "=" in word else None
    if len(word) > 2 and word[:2] in valued:
        return word[:2], word[2:]
    return word, None


def _package_name(word: str) -> str:
    """An npm package's name without its version: `@github/copilot@latest` -> `@github/copilot`."""
    at = word.find("@", 1)
    return word[:at] if at > 0 else word


# The instructions files the hosts read; AGENTS.md is the one every project gets.
INSTRUCTIONS = tuple(dict.fromkeys(["AGENTS.md", *(name for host in HOSTS for name in host.instructions)]))
