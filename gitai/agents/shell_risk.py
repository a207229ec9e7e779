"""Command risk: what a shell command an agent is about to run would do, parsed with
tree-sitter-bash (no regular expressions over command lines).

Classes, from harmless to worst: read_only < writes < destructive < circumvention. A compound
command (`a && b`, pipes, subshells, `$(...)`, `bash -c '...'`, `eval`) is as risky as its worst
part. `writes` also collects the target paths it can resolve (literal words), which the hook
checks against the session's scope. The grammar is imported lazily: only before-shell needs it.
"""

from __future__ import annotations

import os
import posixpath

from gitai.agents.hosts import PROJECT_CONFIGS as CONFIG_FILES

READ_ONLY = "read_only"
WRITES = "writes"
DESTRUCTIVE = "destructive"
CIRCUMVENTION = "circumvention"
ORDER = (READ_ONLY, WRITES, DESTRUCTIVE, CIRCUMVENTION)
DEFAULT_DECISIONS = {READ_ONLY: "allow", WRITES: "allow", DESTRUCTIVE: "ask", CIRCUMVENTION: "deny"}

SHELLS = ("bash", "sh", "zsh", "dash", "ksh")
WRAPPERS = ("sudo", "env", "command", "nohup", "time", "nice", "exec", "xargs", "timeout", "stdbuf")
# Environment variables whose only use is to switch hooks off.
HOOK_SWITCHES = {"HUSKY": ("0", "false"), "GITAI_HOOKS": None, "SKIP": None, "PRE_COMMIT_ALLOW_NO_CONFIG": None}

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


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

    def raise_to(self, klass: str, reason: str) -> None:
        if ORDER.index(klass) > ORDER.index(self.klass):
            self.klass = klass
        if klass != READ_ONLY and (klass, reason) not in self.reasons:
            self.reasons.append((klass, reason))

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


def classify(command: str, cwd: str, root: str, git_dir: str | None = None) -> Risk:
    """The risk of `command` run in `cwd`, in the repository at `root`."""
    risk = Risk()
    _Walker(risk, root, git_dir).walk_text(command, cwd, depth=0)
    return risk


def _word(node: Any) -> str | None:
    """The literal value of a word-like node, or None when it depends on expansion."""
    kind = node.type
    text: str = node.text.decode("utf-8", "surrogateescape")
    if kind in ("word", "number"):
        return None if any(c in text for c in "$`") else text.replace("\\", "")
    if kind == "raw_string":
        return text[1:-1]
    if kind == "string":
        if any(child.type in ("expansion", "simple_expansion", "command_substitution") for child in node.children):
            return None
        return text[1:-1]
    if kind == "concatenation":
        parts = [_word(child) for child in node.children]
        return None if any(p is None for p in parts) else "".join(p for p in parts if p is not None)
    return None


class _Walker:
    def __init__(self, risk: Risk, root: str, git_dir: str | None) -> None:
        self.risk = risk
        self.root = root
        self.git_dir = git_dir

    def walk_text(self, text: str, cwd: str, depth: int) -> None:
        if depth > 4:
            self.risk.raise_to(WRITES, "deeply nested shell: not analysed further")
            return
        tree = _parser().parse(text.encode("utf-8", "surrogateescape"))
        self.cwd = cwd
        self.depth = depth
        self._visit(tree.root_node)

    def _visit(self, node: Any) -> None:
        kind = node.type
        if kind == "command":
            self._command(node)
        elif kind == "file_redirect":
            self._redirect(node)
        elif kind == "declaration_command":
            self._declaration(node)
        elif kind == "variable_assignment":
            self._assignment(node)
        for child in node.children:
            if kind == "command" and child.type in ("variable_assignment",):
                continue  # handled by _command
            self._visit(child)

    # -- pieces -------------------------------------------------------------------------
    def _target(self, value: str | None) -> str | None:
        """A written path, as the repository sees it (None when it cannot be resolved)."""
        if value is None or value.startswith("&") or value in ("/dev/null", "/dev/stdout", "/dev/stderr", "-"):
            return None
        if value.startswith("~"):
            value = os.path.expanduser(value)
        path = posixpath.normpath(posixpath.join(self.cwd, value))
        rel = posixpath.relpath(path, self.root)
        if rel == "." or (not rel.startswith("../") and rel != ".."):
            shown = "." if rel == "." else rel
        else:
            shown = path
        self._sensitive(path, shown)
        return shown

    def _sensitive(self, path: str, shown: str) -> None:
        git_dirs = [posixpath.join(self.root, ".git")] + ([self.git_dir] if self.git_dir else [])
        for git_dir in git_dirs:
            if path == git_dir or path.startswith(git_dir + "/"):
                self.risk.raise_to(CIRCUMVENTION, f"writes inside the git directory ({shown}): hooks and refs are not for agents")
        if shown in CONFIG_FILES:
            self.risk.raise_to(CIRCUMVENTION, f"writes the agent hook configuration {shown} (that would uninstall gitai)")

    def _add_target(self, value: str | None) -> None:
        target = self._target(value)
        if target is not None:
            self.risk.targets.append(target)

    def _redirect(self, node: Any) -> None:
        operators = [c.type for c in node.children if not c.is_named]
        if not any(op in (">", ">>", "&>", "&>>", ">|") for op in operators):
            return
        destination = node.child_by_field_name("destination") or node.children[-1]
        self.risk.raise_to(WRITES, "redirects output into a file")
        self._add_target(_word(destination))

    def _assignment(self, node: Any) -> None:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name is None:
            return
        var = name.text.decode("utf-8", "replace")
        if var in HOOK_SWITCHES:
            allowed = HOOK_SWITCHES[var]
            literal = _word(value) if value is not None else ""
            if allowed is None or literal is None or literal in allowed:
                self.risk.raise_to(CIRCUMVENTION, f"sets {var}, which switches commit hooks off")

    def _declaration(self, node: Any) -> None:
        for child in node.children:
            if child.type == "variable_assignment":
                self._assignment(child)

    def _command(self, node: Any) -> None:
        for child in node.children:
            if child.type == "variable_assignment":
                self._assignment(child)
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        words: list[str | None] = [_word(name_node.children[0] if name_node.children else name_node)]
        for child in node.children:
            if child.type in ("word", "string", "raw_string", "concatenation", "number", "simple_expansion",
                              "expansion", "command_substitution"):
                if child.start_byte >= name_node.end_byte:
                    words.append(_word(child))
        self._argv(words)

    def _argv(self, words: list[str | None]) -> None:
        while words and words[0] is not None and os.path.basename(words[0]) in WRAPPERS:
            words = words[1:]
            while words and words[0] is not None and (words[0].startswith("-") or "=" in words[0]):
                if "=" in words[0]:
                    var = words[0].split("=", 1)[0]
                    if var in HOOK_SWITCHES:
                        self.risk.raise_to(CIRCUMVENTION, f"sets {var}, which switches commit hooks off")
                words = words[1:]
        if not words or words[0] is None:
            return
        name = os.path.basename(words[0])
        args = words[1:]
        handler = getattr(self, "_cmd_" + name.replace("-", "_").replace(".", "_"), None)
        if name in SHELLS or name == "eval":
            self._nested(name, args)
        elif handler is not None:
            handler(args)

    def _nested(self, name: str, args: list[str | None]) -> None:
        script = None
        if name == "eval":
            if any(a is None for a in args):
                self.risk.raise_to(WRITES, "eval of an expansion: not analysed")
                return
            script = " ".join(a for a in args if a is not None)
        else:
            for index, arg in enumerate(args):
                if arg is not None and arg.startswith("-") and "c" in arg.lstrip("-") and not arg.startswith("--"):
                    script = args[index + 1] if index + 1 < len(args) else None
                    if script is None:
                        self.risk.raise_to(WRITES, f"{name} -c with an expansion: not analysed")
                        return
                    break
        if script is not None:
            saved = (self.cwd, self.depth)
            self.walk_text(script, self.cwd, self.depth + 1)
            self.cwd, self.depth = saved

    # -- commands ----------------------------------------------------------------------
    def _cmd_cd(self, args: list[str | None]) -> None:
        if len(args) == 1 and args[0] is not None and not args[0].startswith("-"):
            self.cwd = posixpath.normpath(posixpath.join(self.cwd, os.path.expanduser(args[0])))

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
        recursive = "r" in flags or "R" in flags or "--recursive" in args
        operands = self._operands(args)
        if not recursive:
            self.risk.raise_to(WRITES, "deletes files")
            for operand in operands:
                self._add_target(operand)
            return
        self.risk.raise_to(WRITES, "deletes files recursively")
        for operand in operands:
            target = self._target(operand)
            if target is None:
                self.risk.raise_to(DESTRUCTIVE, "rm -r of a path that cannot be resolved")
            elif target == "." or os.path.isabs(target):
                self.risk.raise_to(DESTRUCTIVE, f"rm -r of {'the repository' if target == '.' else target}")
            else:
                self.risk.recursive_deletes.append(target)  # judged as a whole by the hook (scope or ask)

    def _writes_all(self, what: str, args: list[str | None]) -> None:
        self.risk.raise_to(WRITES, what)
        for operand in self._operands(args):
            self._add_target(operand)

    def _cmd_mv(self, args: list[str | None]) -> None:
        self._writes_all("moves files", args)

    def _cmd_touch(self, args: list[str | None]) -> None:
        self._writes_all("creates files", args)

    def _cmd_tee(self, args: list[str | None]) -> None:
        self._writes_all("writes files through tee", args)

    def _cmd_truncate(self, args: list[str | None]) -> None:
        self._writes_all("truncates files", args)

    def _cmd_mkdir(self, args: list[str | None]) -> None:
        self._writes_all("creates directories", args)

    def _cmd_chmod(self, args: list[str | None]) -> None:
        self._writes_all("changes file modes", args[1:] if args and args[0] and not args[0].startswith("-") else args)

    def _cmd_cp(self, args: list[str | None]) -> None:
        self.risk.raise_to(WRITES, "copies files")
        operands = self._operands(args)
        for index, arg in enumerate(args):
            if arg in ("-t", "--target-directory") and index + 1 < len(args):
                self._add_target(args[index + 1])
                return
        if operands:
            self._add_target(operands[-1])

    _cmd_ln = _cmd_cp
    _cmd_install = _cmd_cp
    _cmd_rsync = _cmd_cp

    def _cmd_sed(self, args: list[str | None]) -> None:
        if not any(a is not None and (a.startswith("-i") or a.startswith("--in-place")) for a in args):
            return
        self.risk.raise_to(WRITES, "edits files in place (sed -i)")
        operands: list[str | None] = []
        script_given = False
        index = 0
        while index < len(args):
            arg = args[index]
            if arg in ("-e", "-f", "--expression", "--file"):
                script_given = True
                index += 2
                continue
            if arg is None or not arg.startswith("-"):
                operands.append(arg)
            index += 1
        for operand in operands[0 if script_given else 1:]:
            self._add_target(operand)

    def _cmd_dd(self, args: list[str | None]) -> None:
        for arg in args:
            if arg is not None and arg.startswith("of="):
                self._writes_all("writes a file with dd", [arg[3:]])

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

    _cmd_pipx = _cmd_pip
    _cmd_uv = _cmd_pip

    def _cmd_git(self, args: list[str | None]) -> None:
        index = 0
        while index < len(args):
            arg = args[index]
            if arg == "-c" and index + 1 < len(args):
                setting = args[index + 1]
                if setting is None or setting.lower().startswith("core.hookspath"):
                    self.risk.raise_to(CIRCUMVENTION, "git -c core.hooksPath runs git without gitai's hooks")
                index += 2
            elif arg in ("-C", "--git-dir", "--work-tree", "--namespace") and index + 1 < len(args):
                if arg == "-C" and args[index + 1] is not None:
                    self._cmd_cd([args[index + 1]])
                index += 2
            elif arg is not None and arg.startswith("-"):
                if arg.lower().startswith("--config-env") or arg.lower().startswith("-ccore.hookspath"):
                    self.risk.raise_to(CIRCUMVENTION, "git with a configuration override that can switch hooks off")
                index += 1
            else:
                break
        if index >= len(args) or args[index] is None:
            return
        sub, rest = args[index], args[index + 1:]
        flags = [a for a in rest if a is not None and a.startswith("-")]
        short = "".join(_short_flags(a) for a in flags)
        if sub == "commit":
            self.risk.commits = True
            if "--no-verify" in flags or "n" in short:
                self.risk.raise_to(CIRCUMVENTION, "git commit --no-verify skips gitai's scope gate")
        elif sub in ("merge", "am", "rebase", "cherry-pick", "revert", "pull") and "--no-verify" in flags:
            self.risk.raise_to(CIRCUMVENTION, f"git {sub} --no-verify skips gitai's hooks")
        elif sub == "config":
            if any(a is None or "hookspath" in a.lower() for a in rest):
                self.risk.raise_to(CIRCUMVENTION, "git config core.hooksPath would move the hooks away from gitai")
        elif sub in ("update-ref", "commit-tree"):
            self.risk.raise_to(CIRCUMVENTION, f"git {sub} writes commits or refs without the hooks")
        elif sub == "notes":
            refs = [a for a in rest if a is not None]
            gitai_ref = any(a in ("gitai", "refs/notes/gitai", "--ref=gitai", "--ref=refs/notes/gitai") for a in refs)
            editing = any(a in ("add", "append", "edit", "copy", "remove", "prune", "merge") for a in refs)
            if gitai_ref and editing:
                self.risk.raise_to(CIRCUMVENTION, "edits gitai's trace notes (refs/notes/gitai)")
        elif sub == "reset" and "--hard" in flags:
            self.risk.raise_to(DESTRUCTIVE, "git reset --hard discards uncommitted work")
        elif sub == "clean" and ("f" in short or "--force" in flags):
            self.risk.raise_to(DESTRUCTIVE, "git clean -f deletes untracked files")
        elif sub == "push" and ("--force" in flags or "f" in short or any(f.startswith("--force-with-lease") for f in flags)
                                or any(a is not None and a.startswith("+") for a in rest)):
            self.risk.raise_to(DESTRUCTIVE, "git push --force rewrites a shared branch")
        elif sub == "branch" and ("D" in short or ("--delete" in flags and "--force" in flags)):
            self.risk.raise_to(DESTRUCTIVE, "git branch -D deletes a branch that may not be merged")
        elif sub == "checkout" and "." in rest:
            self.risk.raise_to(DESTRUCTIVE, "git checkout . discards uncommitted work")


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
