"""The console examples of README.md and docs/*.md, parsed and run (tests/test_doc_examples.py).

Every ```console block is preceded by `<!-- example: NAME -->`, NAME being a setup in
tests/doc_setups.sh (a shell function that scripts the repository the example runs in). The
block's `$ ` lines run in order in one bash, in that repository, stderr merged into stdout as a
terminal shows them; a here-document's lines belong to its command. The lines after a command,
up to the next one, are its output as documented, compared with what it printed after both are
normalised: the scenario's directory reads `/path/to/repo`, commit ids, record ids and times are
placeholders, `...` on a line of its own stands for any lines. A command shown without output is
run, its output not compared.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SETUPS = Path(__file__).parent / "doc_setups.sh"
MARKER = re.compile(r"^\s*<!-- example: ([\w-]+) -->\s*$")
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
                                 ordinal))
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


def run(example: Example, scratch: Path) -> list[list[str]]:
    """Each command's output lines, run after the example's setup in `scratch`."""
    setup = f"setup_{(example.setup or '').replace('-', '_')}"
    script = [f"source {SETUPS}", "exec 2>&1", f"cd {scratch}",
              f"{setup} >{scratch}/setup.log 2>&1 || {{ cat {scratch}/setup.log; exit 97; }}"]
    for command in example.commands:
        script += [f"printf '\\n{SENTINEL}\\n'", command.text]
    proc = subprocess.run(["bash", "-c", "\n".join(script)], capture_output=True, text=True, cwd=scratch,
                          stdin=subprocess.DEVNULL, timeout=300)
    if proc.returncode == 97:
        raise AssertionError(f"{example.where}: setup {example.setup} failed:\n{proc.stdout}")
    parts = proc.stdout.split(f"\n{SENTINEL}\n")[1:]
    return [part.splitlines() for part in parts]


def normalise(lines: list[str], scratch: Path) -> list[str]:
    out = []
    for line in lines:
        line = line.replace(str(scratch), "/path/to").rstrip()
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
    for command, output in zip(example.commands, outputs):
        body += ["$ " + command.text]
        if not command.expected or matches(normalise(command.expected, scratch), normalise(output, scratch)):
            body += command.expected
        else:
            body += [line.replace(str(scratch), "/path/to").rstrip() for line in output]
    lines = example.path.read_text(encoding="utf-8").split("\n")
    example.line = [i + 1 for i, line in enumerate(lines) if FENCE.match(line)][example.ordinal]  # rewrites move blocks
    end = next(i for i in range(example.line, len(lines)) if lines[i].strip() == "```")
    pad = " " * example.indent
    lines[example.line:end] = [pad + line if line else line for line in body]
    example.path.write_text("\n".join(lines), encoding="utf-8")
