"""The console examples of README.md and docs/*.md, parsed and run (tests/test_doc_examples.py).

Every ```console block is preceded by `<!-- example: NAME -->`, NAME being a setup in
tests/testing/doc_setups.sh (a shell function that scripts the repository the example runs in; each is
run once per suite run, test processes sharing it, and copied for each example). The block's `$ ` lines run in order in
one bash, in that repository, stderr merged into stdout as a terminal shows them; a
here-document's lines belong to its command. The bash has no controlling terminal, as an agent's
tool call; `<!-- example: NAME, typed: WORD -->` runs it on a terminal instead (a pty: stdout is
the terminal too), where a person types WORD at each `... to confirm: ` prompt, which the
output shows as a terminal does. The lines after a command,
up to the next one, are its output as documented, compared with what it printed after both are
normalised: the scenario's directory reads `/path/to/repo`, commit ids, record ids and times are
placeholders, `...` on a line of its own stands for any lines. A command shown without output is
run, its output not compared.
"""

from __future__ import annotations

import fcntl
import functools
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from testing.templates import copy_tree

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SETUPS = Path(__file__).parent / "doc_setups.sh"
MARKER = re.compile(r"^\s*<!-- example: ([\w-]+)(?:, typed: (\w+))? -->\s*$")
PROMPT = b"to confirm: "
UNAVAILABLE = 98  # a setup's exit code: what the example needs is missing here (its output says what)
TIMEOUT = 300
PERSON = {"USER": "ann", "LOGNAME": "ann"}  # who runs the examples (lessons and approvals name them)
FENCE = re.compile(r"^(\s*)```console\s*$")
SENTINEL = "@@gitai-doc-example@@"
PLACEHOLDERS = [
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"), "<uuid>"),
    (re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\b"), "<time>"),
    (re.compile(r"\b\d{4}-\d\d-\d\d\b"), "<date>"),
    (re.compile(r"\b[0-9a-f]{7,64}\b"), "<hex>"),
]


@dataclass
class Command:
    text: str
    expected: list[str] = field(default_factory=list)


@dataclass
class Example:
    path: Path
    line: int  # of the opening fence, 1-based
    setup: str | None  # None: the block has no marker
    commands: list[Command]
    indent: int = 0
    ordinal: int = 0  # the page's how-manieth console block, from 0
    typed: str | None = None  # run on a terminal where a person types this at each prompt

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def examples() -> list[Example]:
    found = []
    for path in DOCS:
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines):
            fence = FENCE.match(line)
            if not fence:
                continue
            marker = next((MARKER.match(lines[i]) for i in range(number - 1, -1, -1) if lines[i].strip()), None)
            indent = len(fence.group(1))
            body = []
            for inner in lines[number + 1:]:
                if inner.strip() == "```":
                    break
                body.append(inner[indent:])
            ordinal = sum(e.path == path for e in found)
            found.append(Example(path, number + 1, marker.group(1) if marker else None, _commands(body), indent,
                                 ordinal, marker.group(2) if marker else None))
    return found


def _commands(body: list[str]) -> list[Command]:
    commands: list[Command] = []
    heredoc: str | None = None
    for line in body:
        if heredoc is not None:
            commands[-1].text += "\n" + line
            if line.strip() == heredoc:
                heredoc = None
        elif line.startswith("$ "):
            commands.append(Command(line[2:]))
            opened = re.search(r"<<-?\s*'?(\w+)'?", line)
            heredoc = opened.group(1) if opened else None
        elif commands:
            commands[-1].expected.append(line)
    return commands


class Unavailable(Exception):
    """What the example needs is missing on this machine (the setup said what)."""


def prepare(setup: str, cache: Path) -> tuple[Path, str]:
    """The scripted directory of `setup`, built once under `cache`, and where in it the example starts.
    Test processes may share `cache`: the first to need a setup builds it while the others wait."""
    built = cache / setup
    with open(cache / f"{setup}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _build(setup, built)
    return built / "root", os.path.relpath((built / ".cwd").read_text().strip(), built / "root")


def _build(setup: str, built: Path) -> None:
    """Run `setup_SETUP` in `built/root`; one that starts with another setup starts from that one's
    copy (built first, once) and runs only the rest of its lines."""
    if (built / ".cwd").exists():
        return
    shutil.rmtree(built, ignore_errors=True)
    (built / "root").mkdir(parents=True)
    function = f"setup_{setup.replace('-', '_')}"
    first, rest = _bodies().get(function, ("", ""))
    start = built / "root"
    if first in _bodies():
        parent = first.removeprefix("setup_").replace("_", "-")
        parent_root, parent_start = prepare(parent, built.parent)
        copy_tree(parent_root, built / "root")
        start = built / "root" / parent_start
        function = "_rest"
    script = (f"source {SETUPS}\n_rest() {{\n{rest}\n}}\ncd {start}\n{function} >{built}/setup.log 2>&1 "
              f"|| {{ code=$?; cat {built}/setup.log; exit $code; }}\npwd >{built}/.cwd-new")
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          env={**os.environ, **PERSON}, start_new_session=True, timeout=TIMEOUT)
    if proc.returncode == UNAVAILABLE:
        raise Unavailable(proc.stdout.strip())
    if proc.returncode:
        raise AssertionError(f"setup {setup} failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}")
    (built / ".cwd-new").rename(built / ".cwd")


@functools.cache
def _bodies() -> dict[str, tuple[str, str]]:
    """Each setup function of doc_setups.sh: its first line, and the lines after it."""
    found = {}
    for match in re.finditer(r"^(setup_\w+)\(\) \{\n(.*?)^\}", SETUPS.read_text(), re.M | re.S):
        lines = match.group(2).strip("\n").splitlines()  # a here-document's blank lines are its text
        found[match.group(1)] = (lines[0].strip(), "\n".join(lines[1:]).strip() or ":") if lines else ("", ":")
    return found


def run(example: Example, scratch: Path, cache: Path) -> list[list[str]]:
    """Each command's output lines, run in a copy of the example's setup in `scratch`."""
    built, start = prepare(example.setup or "", cache)
    copy_tree(built, scratch)  # as if scripted there
    script = ["exec 2>&1", f"cd {scratch / start}"]
    for command in example.commands:
        script += [f"printf '\\n{SENTINEL}\\n'", command.text]
    argv = ["bash", "-c", "\n".join(script)]
    if example.typed is None:
        output = subprocess.run(argv, capture_output=True, text=True, cwd=scratch, stdin=subprocess.DEVNULL,
                                env={**os.environ, **PERSON}, start_new_session=True, timeout=TIMEOUT).stdout
    else:
        output = on_terminal(argv, scratch, example.typed)
    parts = output.split(f"\n{SENTINEL}\n")[1:]
    return [part.splitlines() for part in parts]


def on_terminal(argv: list[str], cwd: Path, typed: str) -> str:
    """What `argv` prints on a terminal of its own (a pty, its controlling terminal), where
    `typed` and Enter are typed at each confirmation prompt."""
    pid, terminal = pty.fork()
    if pid == 0:  # the child: a new session whose controlling terminal, stdin and stdout are the pty
        try:
            os.chdir(cwd)
            os.execvpe(argv[0], argv, {**os.environ, **PERSON})
        finally:
            os._exit(127)
    seen, deadline = b"", time.monotonic() + TIMEOUT
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([terminal], [], [], 1.0)
            if not ready:
                continue
            try:
                chunk = os.read(terminal, 65536)
            except OSError:  # EIO: every process holding the terminal is gone
                break
            if not chunk:
                break
            seen += chunk
            if seen.endswith(PROMPT):
                os.write(terminal, typed.encode() + b"\n")
    finally:
        os.close(terminal)
        if time.monotonic() >= deadline:
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    return seen.decode("utf-8", "replace").replace("\r\n", "\n")


def placed(line: str, scratch: Path) -> str:
    """`line` with the scenario's directory as `/path/to` and the test's HOME as `/home/me`."""
    line = line.replace(str(scratch), "/path/to")
    home = os.environ.get("HOME", "")
    return line.replace(home + "/", "/home/me/").rstrip() if len(home) > 1 else line.rstrip()


def normalise(lines: list[str], scratch: Path) -> list[str]:
    out = []
    for line in lines:
        line = placed(line, scratch)
        for pattern, placeholder in PLACEHOLDERS:
            line = pattern.sub(placeholder, line)
        out.append(line)
    return out


def matches(expected: list[str], actual: list[str]) -> bool:
    """`expected` (with `...` lines standing for any lines) against `actual`, line by line."""
    if not expected:
        return not actual
    if expected[0].strip() == "...":
        return any(matches(expected[1:], actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and matches(expected[1:], actual[1:])


def rewrite(example: Example, outputs: list[list[str]], scratch: Path) -> None:
    """Write what the commands printed into the block (UPDATE_DOC_EXAMPLES=1): a command's documented
    output is kept when it matches (its `...` lines too), or when none was shown."""
    body = []
    for command, output in zip(example.commands, outputs, strict=True):
        body += ["$ " + command.text]
        if not command.expected or matches(normalise(command.expected, scratch), normalise(output, scratch)):
            body += command.expected
        else:
            body += [placed(line, scratch) for line in output]
    lines = example.path.read_text(encoding="utf-8").split("\n")
    example.line = [i + 1 for i, line in enumerate(lines) if FENCE.match(line)][example.ordinal]  # rewrites move blocks
    end = next(i for i in range(example.line, len(lines)) if lines[i].strip() == "```")
    pad = " " * example.indent
    lines[example.line:end] = [pad + line if line else line for line in body]
    example.path.write_text("\n".join(lines), encoding="utf-8")
