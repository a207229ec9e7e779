"""Command risk: what a shell command an agent is about to run would do, parsed with
tree-sitter-bash (no regular expressions over command lines).

Classes, from harmless to worst: read_only < writes < destructive < circumvention. A compound
command (`a && b`, pipes, subshells, `$(...)`, `bash -c '...'`, here-documents fed to a shell,
`eval`) is as risky as its worst part. Wrappers (`timeout`, `env -u X`, `xargs`, `find -exec`,
`script -c` ...) are unwrapped with their options parsed. `writes` also collects the target paths
it can resolve (literal words, through symbolic links), which the hook checks against the scope
of each path's own repository. What cannot be told from the text (a command name that is an
expansion, a parse error, a shell fed from a pipe, the nesting limit) is "unsure": the hook asks.
The grammar is imported lazily: only before-shell needs it.
"""

from __future__ import annotations

import os
import posixpath

from gitai.agents import budget
from gitai.agents.hosts import PROTECTED_CONFIGS as CONFIG_FILES

READ_ONLY = "read_only"
WRITES = "writes"
DESTRUCTIVE = "destructive"
CIRCUMVENTION = "circumvention"
ORDER = (READ_ONLY, WRITES, DESTRUCTIVE, CIRCUMVENTION)
DEFAULT_DECISIONS = {READ_ONLY: "allow", WRITES: "allow", DESTRUCTIVE: "ask", CIRCUMVENTION: "deny"}
MAX_DEPTH = 6
MAX_NODES = 200_000
MAX_SCRIPT = 256 * 1024  # a script file read to classify `bash FILE`, `source FILE`, `git apply FILE`

SHELLS = ("bash", "sh", "zsh", "dash", "ksh", "mksh", "yash", "ash", "busybox", "fish", "rbash")
# Wrappers: (short options that take a value, long options that take a value, positional operands
# before the command). Other options are flags.
WRAPPERS: dict[str, tuple[str, tuple[str, ...], int]] = {
    "sudo": ("ugCDhprTUt", ("--user", "--group", "--chdir", "--prompt", "--close-from", "--host", "--role", "--type",
                            "--other-user", "--command-timeout"), 0),
    "doas": ("uC", (), 0),
    "env": ("uCS", ("--unset", "--chdir", "--split-string", "--default-signal", "--ignore-signal",
                    "--block-signal"), 0),
    "command": ("", (), 0),
    "builtin": ("", (), 0),
    "nohup": ("", (), 0),
    "time": ("fo", ("--format", "--output"), 0),
    "nice": ("n", ("--adjustment",), 0),
    "ionice": ("cnpPu", ("--class", "--classdata", "--pid", "--pgid", "--uid"), 0),
    "chrt": ("", (), 1),
    "exec": ("a", (), 0),
    "timeout": ("sk", ("--signal", "--kill-after"), 1),
    "stdbuf": ("ioe", ("--input", "--output", "--error"), 0),
    "setsid": ("", (), 0),
    "flock": ("wEo", ("--timeout", "--wait", "--conflict-exit-code"), 1),
    "xargs": ("IiEeLlnPsdaS", ("--replace", "--eof", "--max-lines", "--max-args", "--max-procs", "--max-chars",
                               "--delimiter", "--arg-file", "--process-slot-var"), 0),
    "taskset": ("", (), 1),
    "chronic": ("", (), 0),
    "unbuffer": ("", (), 0),
    "caffeinate": ("", (), 0),
    "catchsegv": ("", (), 0),
    "fakeroot": ("lsi", (), 0),
    "prlimit": ("p", ("--pid",), 0),
    "systemd-run": ("pEu", ("--property", "--setenv", "--unit", "--working-directory"), 0),
    "strace": ("eoOpPsSuEXb", (), 0),
    "ltrace": ("eoOpPsSuEXb", (), 0),
    "firejail": ("", (), 0),
    "proot": ("rbwq", (), 0),
    "unshare": ("S", ("--setuid", "--setgid", "--root", "--wd"), 0),
    "nsenter": ("tSGrw", ("--target",), 0),
    "runuser": ("ugc", ("--user", "--group", "--command"), 0),
}
# Programs that run their argument as shell text.
SHELL_TEXT = {"su": ("-c", "--command"), "runuser": ("-c", "--command"), "script": ("-c", "--command"),
              "flock": ("-c", "--command")}
# Environment variables whose only use is to switch hooks off, or that change git's configuration
# or repository behind the command line's back.
HOOK_SWITCHES = {"HUSKY": ("0", "false"), "GITAI_HOOKS": None, "SKIP": None, "PRE_COMMIT_ALLOW_NO_CONFIG": None}
GIT_CONFIG_VARIABLES = ("GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG", "GIT_CONFIG_GLOBAL",
                        "GIT_CONFIG_SYSTEM", "GIT_NOTES_REF", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR")
GIT_REPOSITORY_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY")
# git configuration keys (lower case; `*` = any middle part) that switch gitai's hooks or notes off,
# or pull configuration from elsewhere.
GIT_CIRCUMVENTING_KEYS = ("core.hookspath", "include.path", "includeif.*", "core.notesref", "notes.rewriteref",
                          "notes.rewrite.*", "notes.displayref", "core.worktree", "core.bare", "alias.*")
GIT_NO_HOOK_OPTIONS = ("--no-verify", "--no-post-rewrite")
# git subcommands that never change the work tree, refs or configuration.
GIT_SAFE = {"status", "log", "diff", "show", "blame", "grep", "ls-files", "ls-tree", "rev-parse", "rev-list",
            "cat-file", "describe", "shortlog", "whatchanged", "version", "help", "fetch", "remote", "tag", "branch",
            "add", "commit", "merge", "pull", "rebase", "cherry-pick", "revert", "switch", "checkout", "restore",
            "reset", "clean", "push", "stash", "config", "notes", "update-ref", "commit-tree", "rm", "mv", "apply",
            "am", "worktree", "submodule", "bisect", "init", "clone", "gc", "reflog", "replace", "symbolic-ref",
            "filter-branch", "format-patch", "archive", "bundle", "for-each-ref", "show-ref", "name-rev",
            "merge-base", "range-diff", "hash-object", "mktree", "read-tree", "write-tree", "update-index",
            "check-ignore", "check-attr", "count-objects", "fsck", "prune", "repack", "maintenance", "sparse-checkout",
            "var", "hook", "difftool", "mergetool", "send-email", "request-pull", "instaweb", "citool", "gui", "gitk",
            "annotate", "credential", "column", "interpret-trailers", "mailinfo", "stripspace", "verify-commit",
            "verify-tag", "fast-export", "fast-import", "pack-refs", "ls-remote", "shell", "daemon", "rerere"}

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

UNKNOWN_INPUT = "\0unknown"  # the stdin of a command fed by a pipe


class Risk:
    """The worst class found, why, and the paths the command would write (repository-relative
    when inside the repository, else absolute)."""

    def __init__(self) -> None:
        self.klass = READ_ONLY
        self.reasons: list[tuple[str, str]] = []  # (class, why)
        self.targets: list[str] = []
        self.recursive_deletes: list[str] = []
        self.selects: list[str] = []  # intents named by `gitai select ID`
        self.commits = False  # runs `git commit`
        self.unsure: list[str] = []  # what could not be told from the text: at least "ask"
        self.git_dirs: list[str] = []  # the directories git commands run in (their repositories are governed)

    def raise_to(self, klass: str, reason: str) -> None:
        if ORDER.index(klass) > ORDER.index(self.klass):
            self.klass = klass
        if klass != READ_ONLY and (klass, reason) not in self.reasons:
            self.reasons.append((klass, reason))

    def doubt(self, reason: str) -> None:
        if reason not in self.unsure:
            self.unsure.append(reason)

    def why(self, klass: str | None = None) -> list[str]:
        """The reasons for `klass` (default: the worst class found)."""
        wanted = klass or self.klass
        return [reason for k, reason in self.reasons if k == wanted]


_PARSER: Any = None


def _parser() -> Any:
    global _PARSER
    if _PARSER is None:
        core, bash = _binding("tree_sitter"), _binding("tree_sitter_bash")
        _PARSER = core.Parser(core.Language(bash.language()))
    return _PARSER


def _binding(package: str) -> Any:
    """The package's compiled `_binding` module. The packages' __init__ import typing and
    importlib.resources (about 10 ms on every shell command of an agent), so a process that has not
    imported them yet loads the extension directly, registered under its own name: a later
    `import tree_sitter` then reuses it."""
    import sys

    name = package + "._binding"
    if name in sys.modules or package in sys.modules:
        import importlib

        return importlib.import_module(name)
    from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader, ModuleSpec

    for entry in sys.path:
        folder = os.path.join(entry or ".", package)
        if not os.path.isdir(folder):
            continue
        for file in sorted(os.listdir(folder)):
            if file.startswith("_binding.") and file.endswith(tuple(EXTENSION_SUFFIXES)):
                path = os.path.join(folder, file)
                loader = ExtensionFileLoader(name, path)
                module = loader.create_module(ModuleSpec(name, loader, origin=path))
                loader.exec_module(module)
                sys.modules[name] = module
                return module
    import importlib

    return importlib.import_module(name)


def classify(command: str, cwd: str, root: str, git_dirs: tuple[str, ...] = ()) -> Risk:
    """The risk of `command` run in `cwd`, in the repository at `root` (`git_dirs`: its git directory,
    common directory and hooks directory, wherever they live)."""
    risk = Risk()
    if len(command) > budget.MAX_COMMAND:
        risk.raise_to(CIRCUMVENTION, f"the command is longer than {budget.MAX_COMMAND // 1024} KB: too long to check")
        return risk
    _Walker(risk, root, git_dirs, cwd).walk_text(command, depth=0)
    return risk


def _word(node: Any) -> str | None:
    """The literal value of a word-like node, or None when it depends on expansion."""
    kind = node.type
    text: str = node.text.decode("utf-8", "surrogateescape")
    if kind in ("word", "number"):
        if any(c in text for c in "$`"):
            return None
        return _unescape(text)
    if kind == "raw_string":
        return text[1:-1]
    if kind == "ansi_c_string":
        return None if "\\" in text else text[2:-1]
    if kind == "string":
        if any(child.type in ("expansion", "simple_expansion", "command_substitution", "arithmetic_expansion")
               for child in node.children):
            return None
        return text[1:-1].replace('\\"', '"').replace("\\\\", "\\").replace("\\$", "$").replace("\\`", "`")
    if kind == "concatenation":
        parts = [_word(child) for child in node.children]
        return None if any(p is None for p in parts) else "".join(p for p in parts if p is not None)
    return None


def _unescape(text: str) -> str:
    out, escaped = [], False
    for ch in text:
        if escaped or ch != "\\":
            out.append(ch)
            escaped = False
        else:
            escaped = True
    return "".join(out)


def _git_dir_substitution(node: Any) -> bool:
    """A word built from `$(git rev-parse --git-dir|--git-path ...|--git-common-dir)` or `$GIT_DIR`:
    a path inside the git directory."""
    text: str = node.text.decode("utf-8", "replace")
    return ("rev-parse" in text and "--git-" in text) or "GIT_DIR" in text or "--absolute-git-dir" in text


def _matches_key(key: str, patterns: tuple[str, ...]) -> bool:
    key = key.lower()
    for pattern in patterns:
        if pattern.endswith(".*") and key.startswith(pattern[:-1]):
            return True
        if "*" in pattern:
            head, _, tail = pattern.partition("*")
            if key.startswith(head) and key.endswith(tail):
                return True
        elif key == pattern:
            return True
    return False


def long_option(arg: str, name: str, shortest: int = 3) -> bool:
    """`arg` is git's `name` option, spelled out or as an unambiguous prefix (`--no-verif`) as git
    accepts it (an ambiguous prefix is refused by git itself, so a match is never too lenient)."""
    given = arg.split("=", 1)[0]
    return given.startswith("--") and len(given) >= shortest + 2 and name.startswith(given)


def _word_after(words: Sequence[str | None], index: int) -> str | None:
    """The word after `words[index]`: an option's value (None: there is none)."""
    return words[index + 1] if index + 1 < len(words) else None


def _option_value(words: Sequence[str | None], index: int) -> str | None:
    """The value of the long option `words[index]`: after its `=`, else the next word."""
    arg = words[index] or ""
    return arg.split("=", 1)[1] if "=" in arg else _word_after(words, index)


class _Walker:
    def __init__(self, risk: Risk, root: str, git_dirs: tuple[str, ...], cwd: str) -> None:
        self.risk = risk
        self.root = root
        self.git_dirs = git_dirs
        self.cwd = cwd
        self.depth = 0
        self.nodes = 0
        self.links: dict[str, str] = {}  # symbolic links this command creates: link -> target
        self.env: dict[str, str | None] = {}  # variables this command sets (None: not a literal)

    def walk_text(self, text: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            self.risk.doubt("shell nested deeper than gitai analyses")
            return
        source = text.encode("utf-8", "surrogateescape")
        tree = _parser().parse(source)
        if tree.root_node.has_error:
            self.risk.doubt("the command does not parse as shell, so what it does cannot be told")
        saved = self.depth, self.source
        self.depth, self.source = depth, source
        self._visit(tree.root_node, None)
        self.depth, self.source = saved

    source = b""

    def _visit(self, node: Any, stdin: str | None) -> None:
        self.nodes += 1
        if self.nodes % 512 == 0:
            budget.charge()
            if self.nodes > MAX_NODES:
                raise budget.BudgetSpent(f"the command has more than {MAX_NODES} parts")
        kind = node.type
        if kind == "command":
            self._command(node, stdin)
            return
        if kind == "redirected_statement":
            self._redirected(node, stdin)
            return
        if kind == "pipeline":
            first = bool(node.children) and node.children[0].is_named  # `| sh` after a here-document: piped too
            for child in node.children:
                if child.is_named:
                    self._visit(child, stdin if first else UNKNOWN_INPUT)
                    first = False
            return
        if kind == "file_redirect":
            self._redirect(node)
        elif kind == "declaration_command":
            self._declaration(node)
        elif kind == "unset_command":
            self._unset(node)
        elif kind == "variable_assignment":
            self._assignment(node)
        for child in node.children:
            self._visit(child, None)

    def _redirected(self, node: Any, stdin: str | None) -> None:
        """A statement with redirections: a here-document or here-string is the body's input."""
        feed = stdin
        for child in node.children:
            if child.type == "heredoc_redirect":
                feed = self._heredoc(child)
            elif child.type == "herestring_redirect":
                feed = self._herestring(child)
            elif child.type == "file_redirect" and any(c.type == "<" for c in child.children):
                source = self._target_path(_word(child.children[-1]))
                feed = self._read_script(source) if source else UNKNOWN_INPUT
        body = node.child_by_field_name("body")
        for child in node.children:
            if child == body or (body is None and child.is_named and child.type not in (
                    "heredoc_redirect", "herestring_redirect", "file_redirect")):
                self._visit(child, feed)
            else:
                self._visit(child, None)

    def _heredoc(self, node: Any) -> str:
        """A here-document's body, from the source between its first line and its end marker: the
        grammar misreads some bodies (a line that starts with a backslash becomes words), and then
        the command is unsure as well."""
        parts = {c.type: c for c in node.children}
        start, end = parts.get("heredoc_start"), parts.get("heredoc_end")
        if start is None or end is None:
            self.risk.doubt("a here-document gitai cannot delimit")
            return UNKNOWN_INPUT
        line_end = self.source.find(b"\n", start.end_byte)
        body = self.source[line_end + 1:end.start_byte] if 0 <= line_end < end.start_byte else b""
        parsed = parts["heredoc_body"].text if "heredoc_body" in parts else b""
        if parsed != body and body.strip() and (not parsed or parsed not in body):
            self.risk.doubt("a here-document the shell grammar misreads")
        return body.decode("utf-8", "surrogateescape")

    def _herestring(self, node: Any) -> str:
        for part in node.children:
            if part.is_named:
                value = _word(part)
                return value if value is not None else UNKNOWN_INPUT
        return UNKNOWN_INPUT

    # -- pieces -------------------------------------------------------------------------
    def _target_path(self, value: str | None) -> str | None:
        """The absolute path of a word, through links this command made (None: not a literal)."""
        if value is None:
            return None
        if value.startswith("~"):
            value = os.path.expanduser(value)
        path = posixpath.normpath(posixpath.join(self.cwd, value))
        for link, target in self.links.items():
            if path == link or path.startswith(link + "/"):
                path = posixpath.normpath(target + path[len(link):])
        return path

    def _shown(self, path: str) -> str:
        rel = posixpath.relpath(path, self.root)
        if rel == "." or (not rel.startswith("../") and rel != ".."):
            return rel
        return path

    def _targets(self, value: str | None) -> list[str]:
        """A written path as the repository sees it: the path named and, when links lead elsewhere,
        where they lead (empty when it cannot be resolved)."""
        if value is None or value.startswith("&") or value in ("/dev/null", "/dev/stdout", "/dev/stderr", "-"):
            return []
        path = self._target_path(value)
        if path is None:
            return []
        paths = [path]
        try:
            real = os.path.realpath(path)
        except (OSError, ValueError):
            real = path
        if real != path:
            paths.append(real)
        shown = [self._shown(p) for p in paths]
        for p, s in zip(paths, shown, strict=True):
            self._sensitive(p, s)
        return shown

    def _sensitive(self, path: str, shown: str) -> None:
        git_dirs = [posixpath.join(self.root, ".git"), *self.git_dirs]
        if any(path == d or path.startswith(d + "/") for d in git_dirs) or "/.git/" in path + "/":
            self.risk.raise_to(CIRCUMVENTION,
                               f"writes inside the git directory ({shown}): hooks and refs are not for agents")
        if shown in CONFIG_FILES:
            self.risk.raise_to(CIRCUMVENTION,
                               f"writes {shown}, which decides which hooks or MCP servers run beside the agent "
                               "(only a person changes it)")
        if shown == ".orchestration" or shown.startswith(".orchestration/"):
            self.risk.raise_to(CIRCUMVENTION, f"writes gitai's own files ({shown}): only gitai commands and people do")

    git_dir_words = False  # the current command has a word built from the git directory's path

    def _add_target(self, value: str | None, what: str = "writes a path") -> None:
        if value is None:
            if self.git_dir_words:
                self.risk.raise_to(CIRCUMVENTION, "writes inside the git directory: hooks and refs are not for agents")
            self.risk.doubt(f"{what} that is not a literal")
            return
        self.risk.targets.extend(self._targets(value))

    def _redirect(self, node: Any) -> None:
        operators = [c.type for c in node.children if not c.is_named]
        if not any(op in (">", ">>", "&>", "&>>", ">|", "<>") for op in operators):
            return
        destination = node.child_by_field_name("destination") or node.children[-1]
        self.risk.raise_to(WRITES, "redirects output into a file")
        if _word(destination) is None and _git_dir_substitution(destination):
            self.risk.raise_to(CIRCUMVENTION, "writes inside the git directory: hooks and refs are not for agents")
        self._add_target(_word(destination), "redirects into a file")

    def _set_variable(self, var: str, literal: str | None) -> None:
        self.env[var] = literal
        if var in HOOK_SWITCHES:
            allowed = HOOK_SWITCHES[var]
            if allowed is None or literal is None or literal in allowed:
                self.risk.raise_to(CIRCUMVENTION, f"sets {var}, which switches commit hooks off")
        elif var in GIT_CONFIG_VARIABLES or var.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_")):
            self.risk.raise_to(CIRCUMVENTION, f"sets {var}, which changes git's configuration (hooks, notes) "
                                              "behind the command line")
        elif var in GIT_REPOSITORY_VARIABLES:
            self.risk.doubt(f"sets {var}, which points git at another repository or index")
        elif var in ("PATH", "BASH_ENV", "ENV", "LD_PRELOAD", "PROMPT_COMMAND"):
            self.risk.doubt(f"sets {var}, which changes which programs run")

    def _assignment(self, node: Any) -> None:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name is None:
            return
        self._set_variable(name.text.decode("utf-8", "replace"), _word(value) if value is not None else "")

    def _declaration(self, node: Any) -> None:
        unexports = any(child.type == "word" and _word(child) in ("-n", "+x") for child in node.children)
        for child in node.children:
            if child.type == "variable_assignment":
                self._assignment(child)
            elif unexports and child.type == "variable_name":  # `export -n VAR`: gone from what git sees
                self._unset_variable(child.text.decode("utf-8", "replace"))

    def _unset(self, node: Any) -> None:
        words = [_word(child) if child.type != "variable_name" else child.text.decode("utf-8", "replace")
                 for child in node.children if child.is_named]
        if "-f" in words:
            return  # functions
        for word in words:
            if word is None or not word.startswith("-"):
                self._unset_variable(word)

    def _unset_variable(self, var: str | None) -> None:
        """`unset VAR`, `env -u VAR`: dropping git's configuration from the environment is as much a
        circumvention as setting it (gitai's own hooks come through it where a host's shell turns git's
        hooks off: `gitai run`, `gitai exec`)."""
        if var is None:
            self.risk.doubt("unsets a variable that is not a literal")
        elif var in GIT_CONFIG_VARIABLES or var.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_")):
            self.risk.raise_to(CIRCUMVENTION, f"unsets {var}, which carries git's configuration (gitai's own hooks "
                                              "among it) into the command")

    cleared_env = False  # the command runs under `env -i`: git gets none of the configuration gitai gave it

    def _command(self, node: Any, stdin: str | None) -> None:
        for child in node.children:
            if child.type == "variable_assignment":
                self._assignment(child)
            elif child.type in ("herestring_redirect",):
                stdin = self._herestring(child)
        name_node = node.child_by_field_name("name")
        for child in node.children:  # substitutions run before the command: $(...) anywhere
            if child.type not in ("variable_assignment", "herestring_redirect"):
                for sub in child.children:
                    self._visit(sub, None)
            if child.type == "file_redirect":
                self._redirect(child)
        if name_node is None:
            return
        first = name_node.children[0] if name_node.children else name_node
        words: list[str | None] = [_word(first)]
        nodes: list[Any] = [first]
        for child in node.children:
            if child.type in ("word", "string", "raw_string", "ansi_c_string", "concatenation", "number",
                              "simple_expansion", "expansion", "command_substitution", "process_substitution",
                              "arithmetic_expansion"):
                if child.start_byte >= name_node.end_byte:
                    words.append(_word(child))
                    nodes.append(child)
        self.git_dir_words = any(_word(n) is None and _git_dir_substitution(n) for n in nodes)
        self._argv(words, stdin)

    def _argv(self, words: list[str | None], stdin: str | None = None) -> None:
        saved = self.cleared_env
        try:
            self._run_argv(words, stdin)
        finally:
            self.cleared_env = saved

    def _run_argv(self, words: list[str | None], stdin: str | None) -> None:
        budget.charge()
        while words:
            head = words[0]
            if head is None:
                self.risk.doubt("a command name that is an expansion (a variable or a substitution)")
                return
            name = os.path.basename(head)
            if name in SHELL_TEXT and self._shell_text_option(name, words[1:]):
                return
            if name not in WRAPPERS:
                break
            unwrapped = self._unwrap(name, words[1:])
            if unwrapped is None:
                return
            words = unwrapped
            if name == "xargs":
                stdin = UNKNOWN_INPUT
        if not words or words[0] is None:
            return
        name = os.path.basename(words[0])
        not_a_word = not name or any(c in name for c in "*?[]{}$`'\"\\ \t\n=") or name.startswith("-")
        if name not in ("[", "[[") and not_a_word:
            self.risk.doubt(f"a command name that is not a plain word ({name!r})")
            return
        args = words[1:]
        if name in SHELLS or name == "eval":
            self._nested(name, args, stdin)
            return
        if name in ("source", "."):
            self._run_script(args[0] if args else None)
            return
        handler = COMMAND_HANDLERS.get(name)
        if handler is not None:
            self.stdin_text = stdin if stdin is not None else UNKNOWN_INPUT
            handler(self, args)

    def _unwrap(self, name: str, args: list[str | None]) -> list[str | None] | None:
        """The wrapped command of `name ARGS`, its options skipped (None: nothing runs, or already handled)."""
        short_values, long_values, positional = WRAPPERS[name]
        index = 0
        while index < len(args):
            arg = args[index]
            if arg is None:
                self.risk.doubt(f"{name} with an option that is an expansion")
                return None
            if arg == "--":
                index += 1
                break
            if name == "env" and "=" in arg and not arg.startswith("-"):
                var, _, value = arg.partition("=")
                self._set_variable(var, value)
                index += 1
                continue
            if not arg.startswith("-") or arg == "-":
                if arg == "-" and name == "env":
                    self.cleared_env = True
                    index += 1
                    continue
                break
            if name == "command" and arg in ("-v", "-V"):
                return None  # only says where a command is
            if arg.startswith("--"):
                option = arg.split("=", 1)[0]
                if name == "env" and long_option(option, "--split-string", 3):
                    split = _option_value(args, index)
                    return self._split_string(split, args[index + (1 if "=" in arg else 2):])
                if name == "env" and long_option(option, "--chdir", 3):
                    self._chdir(_option_value(args, index))
                if name == "env" and long_option(option, "--unset", 3):
                    self._unset_variable(_option_value(args, index))
                if name == "env" and long_option(option, "--ignore-environment", 3):
                    self.cleared_env = True
                takes = any(long_option(option, lv, 2) for lv in long_values)
                index += 2 if takes and "=" not in arg else 1
                continue
            letters = arg[1:]
            if name == "nice" and letters.lstrip("-").isdigit():
                index += 1
                continue
            skip = 1
            for pos, letter in enumerate(letters):
                if name == "env" and letter == "i":
                    self.cleared_env = True
                if letter in short_values:
                    given: str | None = letters[pos + 1:] or _word_after(args, index)
                    if not letters[pos + 1:]:
                        skip = 2
                    if name == "env" and letter == "S":
                        return self._split_string(given, args[index + skip:])
                    if name == "env" and letter == "C":
                        self._chdir(given)
                    if name == "env" and letter == "u":
                        self._unset_variable(given)
                    break
            index += skip
        rest = args[index + positional:]
        if name == "xargs":
            return [w if w not in ("{}",) else None for w in rest] + [None] if rest else None
        return rest

    def _split_string(self, text: str | None, rest: list[str | None]) -> list[str | None] | None:
        if text is None:
            self.risk.doubt("env -S with a string that is not a literal")
            return None
        import shlex

        try:
            return [*shlex.split(text), *rest]
        except ValueError:
            self.risk.doubt("env -S with a string that does not split")
            return None

    def _chdir(self, value: str | None) -> None:
        if value is None:
            self.risk.doubt("changes to a directory that is not a literal")
        else:
            self.cwd = posixpath.normpath(posixpath.join(self.cwd, os.path.expanduser(value)))

    def _shell_text_option(self, name: str, args: list[str | None]) -> bool:
        """`script -qec CMD`, `su -c CMD`, `flock FILE -c CMD`: the option's value is shell text."""
        short, long = SHELL_TEXT[name]
        for index, arg in enumerate(args):
            if arg is None:
                continue
            value: str | None | bool = False
            if arg.startswith("--") and long_option(arg, long, 3):
                value = _option_value(args, index)
            elif arg.startswith("-") and not arg.startswith("--") and short[1] in arg[1:]:
                after = arg[arg.index(short[1], 1) + 1:]
                value = after or _word_after(args, index)
            if value is not False:
                if value is None or not isinstance(value, str):
                    self.risk.doubt(f"{name} runs shell text that is not a literal")
                else:
                    self.walk_text(value, self.depth + 1)
                return True
        return False

    def _nested(self, name: str, args: list[str | None], stdin: str | None) -> None:
        script: str | None = None
        if name == "eval":
            if any(a is None for a in args):
                self.risk.doubt("eval of an expansion")
                return
            script = " ".join(a for a in args if a is not None)
        else:
            if name == "busybox":
                self._argv(args, stdin)
                return
            index, from_option = 0, False
            while index < len(args):
                arg = args[index]
                if arg is None:
                    self.risk.doubt(f"{name} with an argument that is an expansion")
                    return
                if arg == "--":
                    index += 1
                    break
                if arg.startswith("-") or arg.startswith("+"):
                    if arg in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
                        index += 2
                        continue
                    if not arg.startswith("--") and "c" in arg[1:]:
                        from_option = True
                    index += 1
                    continue
                break
            operands = args[index:]
            if from_option:
                script = operands[0] if operands else None
                if script is None:
                    self.risk.doubt(f"{name} -c with an expansion or no text")
                    return
            elif operands:
                self._run_script(operands[0])
                return
            elif stdin is None:
                return  # an interactive shell: a host's shell tool has no terminal
            elif stdin == UNKNOWN_INPUT:
                self.risk.doubt(f"{name} runs commands read from a pipe or a file that gitai cannot read")
                return
            else:
                script = stdin
        saved = self.cwd
        self.walk_text(script, self.depth + 1)
        self.cwd = saved

    def _read_script(self, path: str | None) -> str:
        if path is None:
            return UNKNOWN_INPUT
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_SCRIPT + 1)
        except OSError:
            return UNKNOWN_INPUT
        if len(data) > MAX_SCRIPT:
            return UNKNOWN_INPUT
        return data.decode("utf-8", "surrogateescape")

    def _run_script(self, value: str | None) -> None:
        """`bash FILE`, `source FILE`: the file's commands, when it can be read."""
        text = self._read_script(self._target_path(value))
        if text == UNKNOWN_INPUT:
            self.risk.doubt(f"runs a script gitai cannot read ({value if value is not None else 'an expansion'})")
            return
        saved = self.cwd
        self.walk_text(text, self.depth + 1)
        self.cwd = saved

    # -- commands ----------------------------------------------------------------------
    def _cmd_assigns(self, args: list[str | None]) -> None:
        """`read VAR`, `printf -v VAR`, `mapfile`, `getopts`: builtins that set the variables they name
        (an exported one among them reaches git as it is set)."""
        for arg in args:
            name = arg[2:] if arg is not None and arg.startswith("-v") else arg
            if name is not None and (name in GIT_CONFIG_VARIABLES or name in HOOK_SWITCHES
                                     or name.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"))):
                self._set_variable(name, None)

    def _cmd_cd(self, args: list[str | None]) -> None:
        operands = [a for a in args if a is None or not a.startswith("-")]
        if len(operands) == 1:
            self._chdir(operands[0])
        elif operands:
            self.risk.doubt("cd with several operands")

    def _operands(self, args: list[str | None]) -> list[str | None]:
        operands, rest = [], False
        for arg in args:
            if not rest and arg == "--":
                rest = True
            elif rest or arg is None or not arg.startswith("-") or arg == "-":
                operands.append(arg)
        return operands

    def _cmd_rm(self, args: list[str | None]) -> None:
        flags = "".join(a[1:] for a in args if a is not None and a.startswith("-") and not a.startswith("--"))
        recursive = "r" in flags or "R" in flags or any(
            a is not None and long_option(a, "--recursive", 1) for a in args)
        operands = self._operands(args)
        if not recursive:
            self.risk.raise_to(WRITES, "deletes files")
            for operand in operands:
                self._add_target(operand, "deletes a path")
            return
        self.risk.raise_to(WRITES, "deletes files recursively")
        for operand in operands:
            self._recursive_delete(operand, "rm -r")

    def _recursive_delete(self, operand: str | None, what: str) -> None:
        targets = self._targets(operand)
        if operand is None and self.git_dir_words:
            self.risk.raise_to(CIRCUMVENTION, "deletes inside the git directory: hooks and refs are not for agents")
        if operand is None or not targets:
            if operand != "/dev/null":
                self.risk.raise_to(DESTRUCTIVE, f"{what} of a path that cannot be resolved")
            return
        for target in targets:
            if target == "." or os.path.isabs(target):
                self.risk.raise_to(DESTRUCTIVE, f"{what} of {'the repository' if target == '.' else target}")
            else:
                self.risk.recursive_deletes.append(target)  # judged as a whole by the hook (scope or ask)

    def _writes_all(self, what: str, args: list[str | None]) -> None:
        self.risk.raise_to(WRITES, what)
        for operand in self._operands(args):
            self._add_target(operand, what)

    def _target_directory(self, args: list[str | None]) -> tuple[bool, list[str | None]]:
        """`-t DIR`, `-tDIR`, `--target-directory[=]DIR` (and its prefixes): the directory, and the other
        arguments."""
        rest: list[str | None] = []
        found = False
        index = 0
        while index < len(args):
            arg = args[index]
            if arg is not None and arg.startswith("--") and long_option(arg, "--target-directory", 2):
                found = True
                value = _option_value(args, index)
                self._add_target(value, "writes into a directory")
                index += 1 if "=" in arg else 2
                continue
            if arg is not None and arg.startswith("-") and not arg.startswith("--") and "t" in arg[1:]:
                after = arg[arg.index("t", 1) + 1:]
                found = True
                self._add_target(after or _word_after(args, index), "writes into a directory")
                index += 1 if after else 2
                continue
            rest.append(arg)
            index += 1
        return found, rest

    def _cmd_mv(self, args: list[str | None]) -> None:
        self.risk.raise_to(WRITES, "moves files")
        found, rest = self._target_directory(args)
        for operand in self._operands(rest):  # sources disappear, and the destination is written
            self._add_target(operand, "moves a path")

    def _cmd_touch(self, args: list[str | None]) -> None:
        self._writes_all("creates files", args)

    def _cmd_tee(self, args: list[str | None]) -> None:
        self._writes_all("writes files through tee", args)

    def _cmd_truncate(self, args: list[str | None]) -> None:
        values, rest, index = ("-s", "--size", "-r", "--reference"), [], 0
        while index < len(args):
            arg = args[index]
            if arg in values:
                index += 2
                continue
            rest.append(arg)
            index += 1
        self._writes_all("truncates files", rest)

    def _cmd_mkdir(self, args: list[str | None]) -> None:
        self._writes_all("creates directories", args)

    def _cmd_chmod(self, args: list[str | None]) -> None:
        self._writes_all("changes file modes", args[1:] if args and args[0] and not args[0].startswith("-") else args)

    def _cmd_cp(self, args: list[str | None]) -> None:
        self.risk.raise_to(WRITES, "copies files")
        found, rest = self._target_directory(args)
        if found:
            return
        operands = self._operands(rest)
        if operands:
            self._add_target(operands[-1], "copies to a path")

    def _cmd_ln(self, args: list[str | None]) -> None:
        """A link is judged as a write of the link and of what it points to; a link into the git
        directory or gitai's files is refused (writes through it would land there)."""
        self._cmd_cp(args)
        found, rest = self._target_directory(args)
        operands = self._operands(rest)
        if len(operands) < 1 or found:
            return
        source = operands[0]
        link = operands[-1] if len(operands) > 1 else posixpath.basename(source or "")
        link_path = self._target_path(link)
        if source is None:
            self.risk.doubt("ln of a path that is not a literal")
            return
        base = posixpath.dirname(link_path) if link_path else self.cwd
        target = posixpath.normpath(posixpath.join(base, os.path.expanduser(source)))
        if link_path is not None:
            if os.path.isdir(link_path) and not os.path.islink(link_path):
                link_path = posixpath.join(link_path, posixpath.basename(source))
            self.links[link_path] = os.path.realpath(target)
        self.risk.targets.extend(self._targets(target))

    def _cmd_sed(self, args: list[str | None]) -> None:
        if not any(a is not None and (a.startswith("-i") or long_option(a, "--in-place", 3) or
                                      (a.startswith("-") and not a.startswith("--") and "i" in a[1:].split("e")[0]))
                   for a in args):
            return
        self.risk.raise_to(WRITES, "edits files in place (sed -i)")
        operands: list[str | None] = []
        script_given = False
        index = 0
        while index < len(args):
            arg = args[index]
            if arg in ("-e", "-f") or (arg is not None and arg.startswith("--") and
                                       (long_option(arg, "--expression", 3) or long_option(arg, "--file", 3))):
                script_given = True
                index += 1 if "=" in (arg or "") else 2
                continue
            if (arg is not None and arg.startswith("-") and not arg.startswith("--")
                    and arg[-1] in "ef" and len(arg) > 2):
                script_given = True
                index += 2
                continue
            if (arg is not None and arg.startswith("-") and not arg.startswith("--")
                    and ("e" in arg[1:] or "f" in arg[1:])):
                script_given = True  # -ne'script', -iescript
                index += 1
                continue
            if arg is None or not arg.startswith("-"):
                operands.append(arg)
            index += 1
        for operand in operands[0 if script_given else 1:]:
            self._add_target(operand, "edits a file in place")

    def _cmd_perl(self, args: list[str | None]) -> None:
        if not any(a is not None and a.startswith("-") and not a.startswith("--") and "i" in a[1:] for a in args):
            return
        self.risk.raise_to(WRITES, "edits files in place (perl -i)")
        operands: list[str | None] = []
        script_given, index = False, 0
        while index < len(args):
            arg = args[index]
            if arg is not None and arg.startswith("-") and not arg.startswith("--") and arg[-1] in "eE":
                script_given = True
                index += 2
                continue
            if arg is None or not arg.startswith("-"):
                operands.append(arg)
            index += 1
        for operand in operands[0 if script_given else 1:]:
            self._add_target(operand, "edits a file in place")

    def _cmd_watch(self, args: list[str | None]) -> None:
        index = 0
        while index < len(args) and args[index] is not None and (args[index] or "").startswith("-"):
            index += 2 if args[index] in ("-n", "--interval", "-d") else 1
        words = args[index:]
        if any(w is None for w in words):
            self.risk.doubt("watch runs a command that is not a literal")
        elif words:
            self.walk_text(" ".join(str(w) for w in words), self.depth + 1)

    def _cmd_parallel(self, args: list[str | None]) -> None:
        self.risk.doubt("parallel runs commands built from its input")

    def _cmd_dd(self, args: list[str | None]) -> None:
        for arg in args:
            if arg is None:
                self.risk.doubt("dd with an operand that is not a literal")
            elif arg.startswith("of="):
                self._writes_all("writes a file with dd", [arg[3:]])

    def _cmd_find(self, args: list[str | None]) -> None:
        """`find ROOTS... -delete` deletes under its roots; `-exec CMD {} ;` runs CMD on paths under them."""
        roots: list[str | None] = []
        index = 0
        while index < len(args) and (args[index] is None or not (args[index] or "").startswith(("-", "(", "!"))):
            roots.append(args[index])
            index += 1
        roots = roots or ["."]
        while index < len(args):
            arg = args[index]
            if arg == "-delete":
                self.risk.raise_to(WRITES, "deletes files (find -delete)")
                for root in roots:
                    self._recursive_delete(root, "find -delete")
            elif arg in ("-exec", "-execdir", "-ok", "-okdir"):
                end = index + 1
                while end < len(args) and args[end] not in (";", "+"):
                    end += 1
                command = args[index + 1:end]
                for root in roots:  # `{}` stands for a path under the root
                    placeholder = None if root is None else posixpath.join(root, "{}")
                    self._argv([placeholder if w == "{}" else w for w in command])
                index = end
            elif arg in ("-fprint", "-fprint0", "-fprintf", "-fls"):
                self._writes_all("writes a file (find -fprint)", [_word_after(args, index)])
            index += 1

    def _cmd_gitai(self, args: list[str | None]) -> None:
        sub = [a for a in args if a is not None and not a.startswith("-")]
        if not sub:
            return
        if sub[0] in ("approve", "done", "block"):
            self.risk.raise_to(CIRCUMVENTION, f"'gitai {sub[0]}' is for people, not agents: ask a person to run it")
        elif sub[0] in ("hooks", "agents") and len(sub) > 1 and sub[1] == "uninstall":
            self.risk.raise_to(CIRCUMVENTION, f"'gitai {sub[0]} uninstall' would switch gitai off")
        elif sub[0] == "select" and len(sub) > 1:
            self.risk.selects.append(sub[1])

    def _cmd_pip(self, args: list[str | None]) -> None:
        if "uninstall" in args and any(a is not None and a.startswith("gitai") for a in args):
            self.risk.raise_to(CIRCUMVENTION, "uninstalls gitai")

    def _cmd_patch(self, args: list[str | None]) -> None:
        """`patch [-pN] [-i FILE | < FILE]`: the files the patch names are written."""
        self.risk.raise_to(WRITES, "applies a patch")
        strip: int | None = None
        source: str | None = None
        index = 0
        while index < len(args):
            arg = args[index]
            if arg is None:
                self.risk.doubt("patch with an argument that is not a literal")
                return
            if arg.startswith("-p") and arg[2:].isdigit():
                strip = int(arg[2:])
            elif arg == "-p" and index + 1 < len(args) and (args[index + 1] or "").isdigit():
                strip = int(args[index + 1] or 0)
                index += 1
            elif arg.startswith("--strip="):
                strip = int(arg.split("=", 1)[1]) if arg.split("=", 1)[1].isdigit() else None
            elif arg in ("-i", "--input"):
                source = _word_after(args, index)
                index += 1
            elif arg.startswith("--input="):
                source = arg.split("=", 1)[1]
            elif arg in ("-d", "--directory"):
                self._chdir(_word_after(args, index))
                index += 1
            elif not arg.startswith("-"):
                self._add_target(arg, "patches a file")
            index += 1
        text = self._read_script(self._target_path(source)) if source else self.stdin_text
        self._patch_targets(text, strip, basename_default=True)

    stdin_text: str = UNKNOWN_INPUT

    def _patch_targets(self, text: str, strip: int | None, basename_default: bool = False) -> None:
        if text == UNKNOWN_INPUT:
            self.risk.doubt("applies a patch gitai cannot read")
            return
        from gitai.agents.normalize import diff_paths

        for name, strippable in diff_paths(text):
            parts = [p for p in name.split("/") if p]
            candidates = {"/".join(parts[n:]) for n in range(min(len(parts), 3)) if parts[n:]}
            for candidate in candidates:  # the git dir and gitai's files, whatever the strip level
                self._targets(candidate)
            if not strippable:
                chosen = parts
            elif strip is None:
                chosen = parts[-1:] if basename_default else parts[1:]
            else:
                chosen = parts[strip:]
            if chosen:
                self._add_target("/".join(chosen), "patches a file")

    def _cmd_git(self, args: list[str | None]) -> None:
        self.risk.git_dirs.append(self.cwd)
        if self.cleared_env:
            self.risk.raise_to(CIRCUMVENTION, "runs git under `env -i`, which drops git's configuration (gitai's own "
                                              "hooks among it) from its environment")
        index = 0
        saved_cwd = self.cwd
        while index < len(args):
            arg = args[index]
            if arg is None:
                self.risk.doubt("git with an option that is an expansion")
                return
            if arg == "-c" or (arg.startswith("-c") and len(arg) > 2 and not arg.startswith("--")):
                setting = arg[2:] if len(arg) > 2 else _word_after(args, index)
                self._git_setting(setting, "git -c")
                index += 1 if len(arg) > 2 else 2
            elif arg.startswith("--config-env"):
                self.risk.raise_to(CIRCUMVENTION, "git --config-env takes configuration from the environment "
                                                  "(it can switch hooks off)")
                index += 1 if "=" in arg else 2
            elif arg == "-C":
                self._chdir(_word_after(args, index))
                self.risk.git_dirs.append(self.cwd)
                index += 2
            elif (arg in ("--git-dir", "--work-tree", "--namespace", "--exec-path", "--super-prefix",
                          "--attr-source", "--list-cmds")
                  or arg.startswith(("--git-dir=", "--work-tree=", "--exec-path="))):
                if arg.startswith(("--git-dir", "--work-tree", "--exec-path")):
                    self.risk.doubt(f"git {arg.split('=')[0]} points git at another repository or program")
                index += 1 if "=" in arg or arg in ("--exec-path",) else 2
            elif arg.startswith("-"):
                index += 1
            else:
                break
        if index >= len(args):
            self.cwd = saved_cwd
            return
        sub, rest = args[index], args[index + 1:]
        if sub is None:
            self.risk.doubt("git with a subcommand that is an expansion")
        else:
            self._git_sub(sub, rest)
        self.cwd = saved_cwd

    def _git_setting(self, setting: str | None, how: str) -> None:
        if setting is None:
            self.risk.raise_to(CIRCUMVENTION, f"{how} with a setting that is not a literal (it can switch hooks off)")
            return
        key = setting.split("=", 1)[0]
        if _matches_key(key, GIT_CIRCUMVENTING_KEYS):
            self.risk.raise_to(CIRCUMVENTION, f"{how} {key} changes where git finds its hooks, notes or commands")

    def _git_sub(self, sub: str, rest: list[str | None]) -> None:
        flags = [a for a in rest if a is not None and a.startswith("-")]
        longs = [f for f in flags if f.startswith("--")]
        short = "".join(_short_flags(a) for a in flags)

        def has(name: str, letter: str = "", shortest: int = 3) -> bool:
            return (bool(letter) and letter in short) or any(long_option(f, name, shortest) for f in longs)

        if sub not in GIT_SAFE:
            self._git_alias(sub, rest)
            return
        if sub in ("commit", "merge", "am", "rebase", "cherry-pick", "revert", "pull"):
            if sub == "commit":
                self.risk.commits = True
            if (sub == "commit" and "n" in short) or any(has(o, "", 4) for o in GIT_NO_HOOK_OPTIONS):
                self.risk.raise_to(CIRCUMVENTION, f"git {sub} --no-verify skips gitai's scope gate")
            if sub == "am":
                self.risk.doubt("git am commits patches without gitai's pre-commit gate")
            if sub == "rebase":
                self._git_exec_option(rest, ("-x", "--exec"))
        elif sub == "config":
            self._git_config(rest)
        elif sub in ("update-ref", "commit-tree", "replace", "symbolic-ref", "fast-import", "filter-branch"):
            self.risk.raise_to(CIRCUMVENTION, f"git {sub} writes commits, refs or the index without the hooks")
        elif sub == "notes":
            self._git_notes(rest)
        elif sub == "reset" and has("--hard"):
            self.risk.raise_to(DESTRUCTIVE, "git reset --hard discards uncommitted work")
        elif sub == "reset" and has("--merge"):
            self.risk.raise_to(DESTRUCTIVE, "git reset --merge can discard uncommitted work")
        elif sub == "clean" and ("f" in short or has("--force")):
            self.risk.raise_to(DESTRUCTIVE, "git clean -f deletes untracked files")
        elif sub == "push":
            self._git_push(rest, short, has)
        elif sub == "fetch":
            if any(a is not None and "notes" in a and (a.startswith("+") or has("--force", "f")) for a in rest):
                self.risk.raise_to(DESTRUCTIVE, "a forced fetch of notes replaces gitai's trace notes")
        elif sub == "branch" and ("D" in short or (has("--delete", "d") and has("--force", "f"))):
            self.risk.raise_to(DESTRUCTIVE, "git branch -D deletes a branch that may not be merged")
        elif sub in ("checkout", "restore", "switch"):
            self._git_checkout(sub, rest, short, has)
        elif sub == "stash":
            words = [a for a in rest if a is None or not a.startswith("-")]
            if words and words[0] in ("drop", "clear"):
                self.risk.raise_to(DESTRUCTIVE, f"git stash {words[0]} deletes stashed work")
        elif sub in ("rm", "mv"):
            self.risk.raise_to(WRITES, f"git {sub} changes files")
            operands = self._git_paths(rest)
            if sub == "rm" and ("r" in short):
                for operand in operands:
                    self._recursive_delete(operand, "git rm -r")
            else:
                for operand in operands:
                    self._add_target(operand, f"git {sub} of a path")
        elif sub == "apply":
            self._git_apply(rest, has)
        elif sub == "submodule":
            words = [a for a in rest if a is None or not a.startswith("-")]
            if words and words[0] == "foreach":
                text = words[1:]
                if any(w is None for w in text):
                    self.risk.doubt("git submodule foreach with a command that is not a literal")
                elif text:
                    self.walk_text(" ".join(str(w) for w in text), self.depth + 1)
        elif sub == "bisect":
            words = [a for a in rest if a is None or not a.startswith("-")]
            if words and words[0] == "run":
                self._argv(words[1:])
        elif sub == "reflog":
            words = [a for a in rest if a is None or not a.startswith("-")]
            if words and words[0] in ("delete", "expire"):
                self.risk.raise_to(DESTRUCTIVE, f"git reflog {words[0]} drops the history that recovers lost work")
        elif sub == "worktree":
            words = [a for a in rest if a is None or not a.startswith("-")]
            if words and words[0] == "remove" and has("--force", "f"):
                self.risk.raise_to(DESTRUCTIVE, "git worktree remove --force discards a worktree's changes")

    def _git_exec_option(self, rest: list[str | None], names: tuple[str, str]) -> None:
        for index, arg in enumerate(rest):
            if arg is None:
                continue
            value: str | None | bool = False
            if arg == names[0] or (arg.startswith("--") and long_option(arg, names[1], 3) and "=" not in arg):
                value = _word_after(rest, index)
            elif arg.startswith("--") and long_option(arg, names[1], 3):
                value = arg.split("=", 1)[1]
            if value is not False:
                if value is None or not isinstance(value, str):
                    self.risk.doubt("git runs a command that is not a literal")
                else:
                    self.walk_text(value, self.depth + 1)

    def _git_paths(self, rest: list[str | None]) -> list[str | None]:
        paths: list[str | None] = []
        after = False
        for arg in rest:
            if arg == "--" and not after:
                after = True
            elif after or arg is None or not arg.startswith("-"):
                paths.append(arg)
        return paths

    def _git_checkout(self, sub: str, rest: list[str | None], short: str, has: Any) -> None:
        if has("--force", "f") or has("--discard-changes") or (sub == "checkout" and has("--merge", "m")):
            self.risk.raise_to(DESTRUCTIVE, f"git {sub} --force discards uncommitted work")
        if sub == "switch":
            return
        if "--" in rest:
            paths = rest[rest.index("--") + 1:]
        elif sub == "restore":
            paths = [a for a in rest if a is None or not a.startswith("-")]
            values = {"-s", "--source"}
            paths = [a for i, a in enumerate(rest) if (a is None or not a.startswith("-"))
                     and not (i > 0 and rest[i - 1] in values)]
        else:  # without `--`, the words that name existing paths are paths (the others: branches, commits)
            words = [a for a in rest if a is None or not a.startswith("-")]
            paths = [w for w in words if w is None or os.path.lexists(posixpath.join(self.cwd, w))]
        if sub == "restore" and (has("--staged", "S") and not has("--worktree", "W")):
            return
        for path in paths:
            if path is None:
                self.risk.doubt(f"git {sub} of a path that is not a literal")
            elif path in (".", ":/", "*", ":/*", "./") or any(c in path for c in "*?[") or path.startswith(":"):
                self.risk.raise_to(DESTRUCTIVE, f"git {sub} {path} discards uncommitted work")
            else:
                target = self._target_path(path)
                if target and os.path.isdir(target):
                    self.risk.raise_to(DESTRUCTIVE, f"git {sub} {path} discards uncommitted work in a directory")
                self.risk.raise_to(WRITES, f"git {sub} overwrites files with their committed version")
                self._add_target(path, f"git {sub} of a path")

    def _git_push(self, rest: list[str | None], short: str, has: Any) -> None:
        refspecs = [a for a in rest if a is None or not a.startswith("-")][1:]
        deleting = has("--delete", "d") or any(r is not None and r.startswith(":") for r in refspecs)
        forcing = has("--force", "f") or has("--force-with-lease") or has("--force-if-includes") or any(
            r is not None and r.startswith("+") for r in refspecs)
        wholesale = has("--mirror") or has("--prune")
        touches_notes = any(r is None or "notes" in r for r in refspecs)
        if (deleting or forcing) and touches_notes:
            self.risk.raise_to(CIRCUMVENTION, "git push that deletes or replaces gitai's trace notes on the remote")
        if deleting:
            self.risk.raise_to(DESTRUCTIVE, "git push --delete deletes a branch on the remote")
        if forcing:
            self.risk.raise_to(DESTRUCTIVE, "git push --force rewrites a shared branch")
        if wholesale:
            self.risk.raise_to(DESTRUCTIVE, "git push --mirror/--prune deletes refs on the remote")

    def _git_notes(self, rest: list[str | None]) -> None:
        ref: str | None = self.env.get("GIT_NOTES_REF", "") if "GIT_NOTES_REF" in self.env else ""
        words: list[str | None] = []
        index = 0
        while index < len(rest):
            arg = rest[index]
            if arg is not None and arg.startswith("--") and long_option(arg, "--ref", 2) and not words:
                ref = _option_value(rest, index)
                index += 1 if "=" in arg else 2
                continue
            if arg is None or not arg.startswith("-"):
                words.append(arg)
            index += 1
        editing = bool(words) and words[0] in (None, "add", "append", "edit", "copy", "remove", "prune", "merge")
        if not editing:
            return
        if ref is None or ref == "" or "gitai" in ref:
            self.risk.raise_to(CIRCUMVENTION, "edits git notes that may be gitai's trace (refs/notes/gitai)")
        else:
            self.risk.raise_to(WRITES, "edits git notes")

    def _git_config(self, rest: list[str | None]) -> None:
        words: list[str | None] = []
        index = 0
        while index < len(rest):
            arg = rest[index]
            if arg in ("-f", "--file", "--blob") or (arg or "").startswith(("--file=",)):
                value = _option_value(rest, index)
                self.risk.raise_to(WRITES, "git config writes a configuration file")
                self._add_target(value, "git config --file")
                index += 1 if "=" in (arg or "") else 2
                continue
            if arg is None or not arg.startswith("-"):
                words.append(arg)
            index += 1
        if words and words[0] in ("set", "unset", "get", "list", "edit", "rename-section", "remove-section",
                                  "get-regexp", "get-all", "get-urlmatch"):
            action, words = words[0], words[1:]
            if action in ("get", "list", "get-regexp", "get-all", "get-urlmatch"):
                return
        reading = any(a is not None and a.startswith("--get") or a in ("-l", "--list") for a in rest)
        if reading or not words:
            return
        key = words[0]
        if key is None:
            self.risk.raise_to(CIRCUMVENTION, "git config of a key that is not a literal")
            return
        self.risk.raise_to(WRITES, "changes git's configuration")
        if _matches_key(key, GIT_CIRCUMVENTING_KEYS) or key.lower() == "alias" or key.lower().startswith("include"):
            self.risk.raise_to(CIRCUMVENTION, f"git config {key} changes where git finds its hooks, notes or commands")

    def _git_alias(self, sub: str, rest: list[str | None]) -> None:
        """A subcommand git does not have: an alias, whose expansion is classified."""
        import subprocess

        try:
            proc = subprocess.run(["git", "config", "--get", f"alias.{sub}"],
                                  cwd=self.cwd if os.path.isdir(self.cwd) else None, capture_output=True, timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            self.risk.doubt(f"git {sub}: an alias gitai could not read")
            return
        if proc.returncode != 0:
            return  # no alias: git runs `git-{sub}` from PATH, or fails
        expansion = proc.stdout.decode("utf-8", "surrogateescape").strip()
        if expansion.startswith("!"):
            self.walk_text(expansion[1:], self.depth + 1)
            return
        import shlex

        try:
            words: list[str | None] = [*shlex.split(expansion), *rest]
        except ValueError:
            self.risk.doubt(f"git {sub}: an alias gitai could not split")
            return
        if self.depth >= MAX_DEPTH:
            self.risk.doubt("git aliases nested deeper than gitai analyses")
            return
        self.depth += 1
        self._cmd_git(words)
        self.depth -= 1

    def _git_apply(self, rest: list[str | None], has: Any) -> None:
        if has("--check") or has("--stat") or has("--numstat") or has("--summary"):
            return
        strip = 1
        files: list[str | None] = []
        index = 0
        while index < len(rest):
            arg = rest[index]
            if arg is None:
                files.append(None)
            elif arg.startswith("-p") and arg[2:].isdigit():
                strip = int(arg[2:])
            elif arg == "--directory" or arg.startswith("--directory="):
                self.risk.doubt("git apply --directory moves the patch's paths")
            elif arg in ("--exclude", "--include"):
                index += 1
            elif not arg.startswith("-"):
                files.append(arg)
            index += 1
        self.risk.raise_to(WRITES, "applies a patch")
        if not files:
            self._patch_targets(self.stdin_text, strip)
        for name in files:
            self._patch_targets(self._read_script(self._target_path(name)) if name else UNKNOWN_INPUT, strip)


COMMAND_HANDLERS: dict[str, Callable[[_Walker, list[str | None]], None]] = {
    "cd": _Walker._cmd_cd, "rm": _Walker._cmd_rm, "mv": _Walker._cmd_mv, "touch": _Walker._cmd_touch,
    "tee": _Walker._cmd_tee, "truncate": _Walker._cmd_truncate, "mkdir": _Walker._cmd_mkdir,
    "chmod": _Walker._cmd_chmod, "cp": _Walker._cmd_cp, "ln": _Walker._cmd_ln, "sed": _Walker._cmd_sed,
    "perl": _Walker._cmd_perl, "watch": _Walker._cmd_watch, "parallel": _Walker._cmd_parallel, "dd": _Walker._cmd_dd,
    "find": _Walker._cmd_find, "gitai": _Walker._cmd_gitai, "pip": _Walker._cmd_pip, "patch": _Walker._cmd_patch,
    "git": _Walker._cmd_git, "pushd": _Walker._cmd_cd, "install": _Walker._cmd_cp, "rsync": _Walker._cmd_cp,
    "pipx": _Walker._cmd_pip, "uv": _Walker._cmd_pip, "read": _Walker._cmd_assigns, "printf": _Walker._cmd_assigns,
    "mapfile": _Walker._cmd_assigns, "readarray": _Walker._cmd_assigns, "getopts": _Walker._cmd_assigns,
}
"""The commands whose effect the walker reads from their arguments, by name."""


def _short_flags(arg: str) -> str:
    """The letters of a short-option cluster (`-anm` -> "anm"), stopping at an option that takes a value."""
    if arg.startswith("--") or len(arg) < 2:
        return ""
    letters = ""
    for ch in arg[1:]:
        letters += ch
        if ch in "mFcCtSuo":  # commit -m MSG, -F FILE, -C REV ...: the rest is the value
            break
    return letters
