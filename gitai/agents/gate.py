"""The decisions taken before an agent acts: the scope gate before a write, the stale-write lock,
and command risk before a shell command. Each returns an Answer with a reason the model can act on
(each path, who owns it, the allowed scope, how to fix it: a gitai.refusal.Refusal). Lean: no YAML, no pathspec.
"""

from __future__ import annotations

import os

from gitai.agents.hosts import PROTECTED_CONFIGS as AGENT_CONFIG_FILES  # an agent that edits them can switch gitai off
from gitai.agents.protocol import ALLOW, ASK, DENY, Answer
from gitai.intents.patterns import is_exempt
from gitai.intents.statuses import CLOSED
from gitai.util.files import realpaths

MAX_DELETED = 20_000  # files under a recursive delete checked one by one; more is asked

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitai.agents.sessions import Session
    from gitai.agents.shell_risk import Risk
    from gitai.gate.policy import Policy
    from gitai.layout import Layout
    from gitai.refusal import Refusal


def repo_relative(layout: Layout, path: str) -> str | None:
    """`path` relative to the worktree root with `/` separators, or None when outside it."""
    return _under(layout.root, path)


def _under(root: str, path: str) -> str | None:
    rel = os.path.relpath(path, root)
    if rel != ".." and not rel.startswith(".." + os.sep) and not os.path.isabs(rel):
        return "." if rel == "." else rel.replace(os.sep, "/")
    return None


def path_forms(path: str) -> list[str]:
    """The path as named and where it really leads: every component resolved (links made earlier
    in the session included), and the final link itself."""
    forms = [os.path.normpath(path)]
    try:
        directory = os.path.dirname(path)
        resolved = realpaths([directory, path])
        forms.append(resolved[path])
        forms.append(os.path.join(resolved[directory], os.path.basename(path)))
    except (OSError, ValueError):
        pass
    return list(dict.fromkeys(forms))


def inside_git_dir(path: str) -> bool:
    """`path` is a git directory or inside one: a `.git` component, or any directory that holds
    HEAD, objects/ and refs/ (a common dir of linked worktrees, a bare repository, a
    --separate-git-dir), wherever it lives."""
    current = path
    while True:
        if os.path.basename(current) == ".git":
            return True
        if os.path.isfile(os.path.join(current, "HEAD")) and os.path.isdir(os.path.join(current, "objects")) \
                and os.path.isdir(os.path.join(current, "refs")):
            return True
        parent = os.path.dirname(current)
        if parent == current:
            return False
        current = parent


def worktree_tops(path: str) -> list[str]:
    """The tops of the work trees that hold `path`, nearest first (a submodule or nested repository,
    then the repositories around it): each directory above it with a `.git`."""
    tops = []
    current = os.path.dirname(path)
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            tops.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            return tops
        current = parent


class Governor:
    """Judges the paths of one call by each path's own repository, not by the payload's cwd: the
    session's repository (`home`, None when the cwd is in none that gitai governs), nested
    repositories and submodules inside it, and any other repository gitai governs."""

    def __init__(self, home: Layout | None, host: str, session_id: str, home_intent: str | None = None) -> None:
        self.home = home
        self.host = host
        self.session_id = session_id
        self.layouts: dict[str, Layout | None] = {}
        self.intents: dict[str, str | None] = {}
        self._user_controls: frozenset[str] | None = None
        self._user_control_dirs: tuple[str, ...] = ()
        self._installation: tuple[frozenset[str], tuple[str, ...]] | None = None
        self._on_path: frozenset[str] | None = None
        if home is not None:
            self.layouts[home.root] = home
            self.intents[home.root] = home_intent

    def user_controls(self) -> frozenset[str]:
        """The files in HOME (or where a host's variable moves them) that decide whether the hosts run
        gitai's hooks, in every resolved form."""
        if self._user_controls is None:
            from gitai.agents.hosts import user_control_dirs, user_controls

            home = os.environ.get("HOME") or os.path.expanduser("~")
            paths = user_controls(home, os.environ) if home and home != "~" else []
            directories = user_control_dirs(home, os.environ) if home and home != "~" else []
            resolved = realpaths([*paths, *directories])
            self._user_controls = frozenset(p for path in paths for p in (path, resolved[path]))
            self._user_control_dirs = tuple(dict.fromkeys(p for path in directories for p in (path, resolved[path])))
        return self._user_controls

    def is_user_control(self, path: str) -> bool:
        """`path` (one resolved form) is a user control: one of `user_controls`, or in (or is) a directory
        of them (~/.gemini/policies/), there or not yet."""
        if path in self.user_controls():
            return True
        return any(path == d or path.startswith(d.rstrip(os.sep) + os.sep) for d in self._user_control_dirs)

    def is_gitai_itself(self, path: str) -> bool:
        """`path` (one resolved form) is what the hooks run when they run `gitai`: gitai's Python and script,
        anything in its installation, a `gitai` on PATH (there or not yet) or a PATH directory itself."""
        from gitai.util.installation import PROGRAM_NAMES

        if self._installation is None:
            from gitai.util.installation import installation_dirs, interpreter_programs

            own, installed = interpreter_programs(), installation_dirs()
            resolved = realpaths([*own, *installed])
            self._installation = (frozenset([*own, *(resolved[p] for p in own)]),
                                  tuple(dict.fromkeys([*installed, *(resolved[p] for p in installed)])))
        files, directories = self._installation
        if path in files or any(path == d or path.startswith(d.rstrip(os.sep) + os.sep) for d in directories):
            return True
        if os.path.basename(path) not in PROGRAM_NAMES and not os.path.isdir(path):
            return False  # the PATH is resolved only for a path it could hold
        if self._on_path is None:
            from gitai.util.installation import path_programs

            on_path = path_programs(os.environ)
            # each PATH directory resolved once for both names (path_forms gives a path's resolved directory)
            resolved = realpaths(list(dict.fromkeys(os.path.dirname(p) for p in on_path)))
            self._on_path = frozenset([*on_path, *resolved, *resolved.values(),
                                       *(os.path.join(resolved[os.path.dirname(p)], os.path.basename(p))
                                         for p in on_path)])
        return path in self._on_path

    def layout_of(self, top: str) -> Layout | None:
        """The governed layout whose work tree is `top` (None: a repository gitai does not govern)."""
        if top in self.layouts:
            return self.layouts[top]
        from gitai.errors import GitaiError
        from gitai.layout import find_layout

        try:
            layout: Layout | None = find_layout(top)
        except GitaiError:
            layout = None
        if layout is not None and not layout.uses_gitai():
            layout = None
        self.layouts[top] = layout
        return layout

    def intent_in(self, layout: Layout) -> str | None:
        """The session's intent in `layout` (its own session file there, else that worktree's selection)."""
        if layout.root not in self.intents:
            from gitai.agents.hook_entry import session_intent
            from gitai.agents.sessions import Session

            self.intents[layout.root] = session_intent(layout, Session(layout, self.host, self.session_id))
        return self.intents[layout.root]

    def protected(self, path: str) -> str | None:
        """Why `path` (one resolved form) is never for an agent, or None."""
        if inside_git_dir(path):
            return "is inside a git directory (hooks, refs and notes are not for agents)"
        if self.is_user_control(path):
            return ("holds an agent host's user-level hooks, its trust in them, its permission rules or the MCP "
                    "servers it starts (the next session would run without gitai, unasked, or the agent's programs); "
                    "only a person changes it")
        if self.is_gitai_itself(path):
            return ("is gitai itself or a `gitai` on PATH, which the hooks run by name (the next hook would run "
                    "what the agent wrote); only a person changes it")
        home = self.home
        if home is not None:
            for directory in (home.repo.git_dir, home.repo.common_dir, home.repo.hooks_dir):
                if path == directory or path.startswith(directory.rstrip(os.sep) + os.sep):
                    return "is inside the repository's git directory or hooks (not for agents)"
        return None

    def check(self, paths: list[str], what: str = "write") -> Answer:
        """The scope gate for absolute paths an agent is about to write."""
        return _deny_or_allow(self.refusal(paths, what))

    def refusal(self, paths: list[str], what: str = "write") -> Refusal | None:
        """Why an agent may not write these absolute paths, or None."""
        from gitai.agents.budget import charge

        by_layout: dict[str, tuple[Layout, list[str]]] = {}
        for path in paths:
            charge()
            for form in path_forms(path):
                if not os.path.isabs(form):
                    continue  # another platform's path (`C:/x` on POSIX): no file here can be written through it
                why = self.protected(form)
                if why:
                    from gitai.refusal import Refusal
                    from gitai.util.text import display_path

                    return Refusal(f"{what} refused: {display_path(form)} {why}.")
                tops = worktree_tops(form)
                if self.home is not None and _under(self.home.root, form) is not None and self.home.root not in tops:
                    tops.append(self.home.root)  # a linked worktree's root may be named differently
                for top in tops:
                    layout = self.layout_of(top)
                    if layout is None:
                        continue
                    rel = _under(layout.root, form)
                    if rel is None:
                        from gitai.refusal import Refusal
                        from gitai.util.text import display_path

                        return Refusal(f"{what} refused: cannot tell which repository governs {display_path(form)}.")
                    by_layout.setdefault(layout.root, (layout, []))[1].append(rel)
        for layout, rels in by_layout.values():
            from gitai.gate.policy import load_policy

            policy = load_policy(layout)
            refusal = write_refusal(layout, policy, self.intent_in(layout), list(dict.fromkeys(rels)), what)
            if refusal is not None:
                if self.home is None or layout.root != self.home.root:
                    from gitai.util.text import display_path

                    refusal = refusal.with_rows(f"(in the repository at {display_path(layout.root)})")
                return refusal
        return None


def _deny_or_allow(refusal: Refusal | None) -> Answer:
    return Answer(ALLOW) if refusal is None else Answer(DENY, refusal.for_agent())


def selectable(policy: Policy) -> list[str]:
    return [f"  {i.id}  {i.name} ({i.status}{', needs approval' if i.requires_approval else ''}): "
            f"{', '.join(i.scope)}" for i in policy.intents.values() if i.status not in CLOSED]


def no_intent_refusal(policy: Policy, what: str, paths: list[str]) -> Refusal:
    from gitai.refusal import Refusal
    from gitai.util.text import display_path

    owners = sorted({o for p in paths for o in policy.owners(p)})
    pick = owners[0] if len(owners) == 1 else "INT-ID"
    return Refusal(f"{what} refused: this session has no intent selected, so no write is allowed yet.",
                   [f"{display_path(p)}  owned by: {', '.join(policy.owners(p)) or 'no intent'}" for p in paths],
                   [f"run this shell command to select the intent this work serves: gitai select {pick}",
                    "the selectable intents:",
                    *(selectable(policy)
                      or ["  (none: ask a person to add one to .orchestration/active_intents.yaml)"]),
                    "(`gitai context` shows the details; `gitai owners PATH` tells who owns a path.)"])


def scope_refusal(policy: Policy, intent_id: str, what: str, outside: list[str]) -> Refusal:
    from gitai.refusal import Refusal
    from gitai.util.text import display_path

    intent = policy.intents[intent_id]
    owning = sorted({o for p in outside for o in policy.owners(p) if o != intent_id})
    width = max(len(display_path(p)) for p in outside)
    rows = [f"{display_path(path):<{width}}  owned by: {', '.join(policy.owners(path)) or 'no intent'}"
            for path in outside]
    rows.append(f"allowed scope of {intent.id}: {', '.join(intent.scope)}")
    hints = [f"stay in scope: change only paths matching {', '.join(intent.scope)}"]
    if owning:
        hints.append(f"or, if this work belongs to {' or '.join(owning)}, switch: gitai select {owning[0]}")
    hints.append(f"or ask a person to widen {intent.id}'s owned_scope or to add the path to "
                 ".orchestration/.intentignore")
    return Refusal(f"{what} refused: {len(outside)} path{'s' if len(outside) > 1 else ''} outside the scope of "
                   f"{intent.id} ({intent.name}):", rows, hints)


def check_write_paths(layout: Layout, policy: Policy, intent_id: str | None, rel_paths: list[str],
                      what: str = "write") -> Answer:
    """The scope gate for paths an agent is about to write (repository-relative)."""
    return _deny_or_allow(write_refusal(layout, policy, intent_id, rel_paths, what))


def write_refusal(layout: Layout, policy: Policy, intent_id: str | None, rel_paths: list[str],
                  what: str = "write") -> Refusal | None:
    """Why an agent may not write these repository-relative paths, or None. (The refusal's modules are
    imported only when something is refused: a write let through never needs them.)"""
    protected = [p for p in rel_paths if p == ".git" or p.startswith(".git/")]
    if protected:
        from gitai.refusal import Refusal
        from gitai.util.text import display_path

        return Refusal(f"{what} refused: {', '.join(map(display_path, protected))} is inside the git directory "
                       "(hooks, refs and notes are not for agents).")
    configs = [p for p in rel_paths if p in AGENT_CONFIG_FILES]
    if configs:
        from gitai.refusal import Refusal

        return Refusal(f"{what} refused: {', '.join(configs)} decides which hooks or MCP servers run beside the "
                       "agent; only a person changes it (gitai's own hooks: `gitai agents install|uninstall`).")
    orchestration = [p for p in rel_paths if is_exempt(p)]
    if orchestration:
        from gitai.refusal import Refusal

        hints = []
        for p in orchestration:
            if p.endswith("AGENT.md"):
                hints.append(f"{p}: add a lesson with: gitai lesson \"TEXT\"")
            elif p.endswith(("active_intents.yaml", ".intentignore")):
                hints.append(f"{p}: the catalogue and .intentignore decide every scope: ask a person to change them")
            else:
                hints.append(f"{p}: gitai's own files are written by gitai commands only")
        return Refusal(f"{what} refused: agents do not edit .orchestration/ directly.", hints=hints)
    governed = [p for p in rel_paths if p != "." and not policy.is_exempt(p)]
    if not governed:
        return None
    if intent_id is None:
        return no_intent_refusal(policy, what, governed)
    if intent_id not in policy.intents:
        from gitai.refusal import Refusal

        return Refusal(f"{what} refused: the session's intent {intent_id} is not in the catalogue.",
                       hints=["select another: gitai select INT-ID (see `gitai context`)"])
    intent = policy.intents[intent_id]
    if intent.status in CLOSED:
        from gitai.refusal import Refusal

        return Refusal(f"{what} refused: intent {intent.id} ({intent.name}) is {intent.status}; no new work goes "
                       "under it.", hints=["select an open intent: gitai select INT-ID (see `gitai context`)"])
    outside = [p for p in governed if not policy.in_scope(intent_id, p)]
    if outside:
        return scope_refusal(policy, intent_id, what, outside)
    return None


def check_stale(layout: Layout, session: Session, rel_paths: list[str]) -> Answer:
    """The stale-write lock: refuse a write to a file that changed since this session last saw it."""
    from gitai.agents.sessions import fingerprint, live_sessions

    files = session.files()
    for rel in rel_paths:
        seen = files.get(rel)
        if seen is None:
            continue
        now = fingerprint(os.path.join(layout.root, rel))
        if now == seen:
            continue
        by = "outside any agent"
        for other in live_sessions(layout):
            if (other.get("key") != session.key and isinstance(other.get("files"), dict)
                    and other["files"].get(rel) == now):
                by = f"by session {other['key']}" + (
                    f" (intent {other['intent_id']})" if other.get("intent_id") else "")
                break
        from gitai.refusal import Refusal
        from gitai.util.text import display_path

        return Answer(DENY, Refusal(f"write refused: {display_path(rel)} changed since you read it ({by}).",
                                    hints=["read it again, then redo your change on the current content"]).for_agent())
    return Answer(ALLOW)


def check_shell(gov: Governor, command: str, cwd: str) -> tuple[Answer, Risk]:
    """Command risk before a shell command; returns the answer and the Risk (for the caller). The
    catalogue that decides is the session's repository's, else that of the first governed repository
    the command works in; what cannot be told from the text is asked, never allowed."""
    from gitai.agents.shell_risk import DEFAULT_DECISIONS, DESTRUCTIVE, WRITES, classify
    from gitai.gate.policy import load_policy
    from gitai.intents.approval import is_approved
    from gitai.refusal import Refusal
    from gitai.util.text import display_path

    home = gov.home
    root = home.root if home is not None else cwd
    git_dirs = (home.repo.git_dir, home.repo.common_dir, home.repo.hooks_dir) if home is not None else ()
    risk = classify(command, cwd, root, git_dirs)
    targets = [t if os.path.isabs(t) else os.path.join(root, t) for t in risk.targets]
    deletes = [os.path.join(root, t) for t in risk.recursive_deletes]
    layout = home
    if layout is None:
        for place in [*risk.git_dirs, *targets, *deletes]:
            for top in worktree_tops(os.path.join(place, "x")):
                layout = gov.layout_of(top)
                if layout is not None:
                    break
            if layout is not None:
                break
    short = command if len(command) <= 120 else command[:117] + "..."
    if layout is None:  # no repository gitai governs is involved: only what cannot be told is asked
        if risk.unsure:
            return Answer(ASK, Refusal(f"command needs a person's approval: {'; '.join(risk.unsure)}.",
                                       [short]).for_agent()), risk
        return Answer(ALLOW), risk
    policy = load_policy(layout)
    intent_id = gov.intent_in(layout)
    decisions = {**DEFAULT_DECISIONS, **policy.agent_policy}
    for selected in risk.selects:
        intent = policy.intents.get(selected)
        if intent is not None and intent.requires_approval and not is_approved(layout, selected):
            return Answer(DENY, Refusal(f"command refused: {selected} ({intent.name}) requires a person's approval "
                                        "before an agent selects it.",
                                        hints=[f"ask a person to run: gitai approve {selected}"]).for_agent()), risk
    # A recursive delete is destructive when anything it would delete is outside the scope.
    for target in deletes:
        rel = repo_relative(layout, target)
        outside = rel if rel is None else _outside_under(layout, policy, intent_id, rel)
        if rel is None or outside:
            risk.raise_to(DESTRUCTIVE, f"deleting {display_path(rel or target)} recursively deletes paths outside "
                                       f"the intent's scope (e.g. {outside or target})")
    decision = decisions.get(risk.klass, "allow")
    if risk.klass != WRITES and decision != ALLOW:
        label = risk.klass.replace("_", "-")
        verb = "needs a person's approval" if decision == ASK else "refused"
        why = "; ".join(risk.why())
        forward = ("a person can allow it in the prompt, or run it themselves" if decision == ASK
                   else "do it another way that keeps gitai's checks, or ask a person")
        return Answer(decision, Refusal(f"command {verb} ({label}): {why}.", [short], [forward]).for_agent()), risk
    if targets:
        refusal = gov.refusal(targets, what="command")
        if refusal is not None:
            return Answer(DENY, refusal.with_rows(f"command: {short}").for_agent()), risk
    if risk.klass == WRITES and decision != ALLOW:
        return Answer(decision, Refusal(f"command {'needs approval' if decision == ASK else 'refused'} (writes): "
                                        f"{'; '.join(risk.why())}.", [short]).for_agent()), risk
    if risk.unsure:
        return Answer(ASK, Refusal(f"command needs a person's approval: gitai cannot tell what it does "
                                   f"({'; '.join(risk.unsure)}).", [short],
                                   ["write it with literal words (no variables in command position, no pipes into a "
                                    "shell), or ask a person"]).for_agent()), risk
    return Answer(ALLOW), risk


def _outside_under(layout: Layout, policy: Policy, intent_id: str | None, target: str) -> str | None:
    """A path under `target` (file or directory) that the intent may not delete, if any."""
    if target == ".git" or target.startswith(".git/"):
        return target
    if intent_id is None or intent_id not in policy.intents:
        return target
    if not (policy.in_scope(intent_id, target) or policy.in_scope(intent_id, target + "/x")):
        return target
    root = os.path.join(layout.root, target)
    if not os.path.lexists(root):
        return None
    from gitai.agents.budget import charge

    if not os.path.isdir(root) or os.path.islink(root):
        candidates = [target]
    else:
        candidates = []
        for directory, subdirs, names in os.walk(root):
            charge()
            if ".git" in subdirs or ".git" in names:
                return f"{os.path.relpath(directory, layout.root)}/.git"  # a nested repository's git directory
            rel_dir = os.path.relpath(directory, layout.root).replace(os.sep, "/")
            candidates.extend(f"{rel_dir}/{n}" if rel_dir != "." else n for n in names)
            if len(candidates) > MAX_DELETED:
                return f"{target} (more than {MAX_DELETED} files: too many to check)"
    for index, path in enumerate(candidates):
        if index % 1024 == 0:
            charge()
        if path.startswith(".git/"):
            return path
        if policy.is_exempt(path) and not is_exempt(path):
            continue
        if intent_id is None or intent_id not in policy.intents or not policy.in_scope(intent_id, path):
            return path
    return None
