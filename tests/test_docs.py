"""The docs are checked against the code: every command and option is in docs/cli.md, and every
`--help` ends with a one-line example."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import click
from click.testing import CliRunner

from gitai.cli import cli, subcommands
from gitai.commands.registry import COMMANDS

CLI_MD = (Path(__file__).resolve().parent.parent / "docs" / "cli.md").read_text(encoding="utf-8")


def commands(group: click.Group = cli, prefix: str = "") -> list[tuple[str, click.Command]]:
    found: list[tuple[str, click.Command]] = []
    for name, command in sorted(subcommands(group).items()):
        found.append((f"{prefix}{name}", command))
        if isinstance(command, click.Group):
            found += commands(command, f"{prefix}{name} ")
    return found


def section(name: str) -> str:
    """The text of `## gitai NAME` up to the next second-level heading."""
    match = re.search(rf"^## gitai {re.escape(name)}\n(.*?)(?=^## |\Z)", CLI_MD, re.M | re.S)
    assert match, f"docs/cli.md has no section '## gitai {name}'"
    return match.group(1)


def test_every_command_and_option_is_documented() -> None:
    missing = []
    for name, command in commands():
        if isinstance(command, click.Group):
            continue  # documented through its subcommands
        text = section(name)
        for param in command.params:
            if isinstance(param, click.Option) and param.name != "help":
                documented = [opt for opt in param.opts + param.secondary_opts
                              if re.search(rf"(?<![\w-]){re.escape(opt)}(?![\w-])", text)]
                if not documented:
                    missing.append(f"gitai {name} {param.opts[0]}")
    assert not missing, f"options not in docs/cli.md: {missing}"


def test_every_help_has_a_one_line_example() -> None:
    runner = CliRunner()
    for name, _ in [("", cli), *commands()]:
        result = runner.invoke(cli, [*name.split(), "--help"])
        assert result.exit_code == 0, result.output
        examples = [line.strip() for line in result.output.splitlines() if line.strip().startswith("Example: gitai")]
        assert len(examples) == 1, f"gitai {name} --help has no one-line example"
        assert examples[0].startswith(f"Example: gitai {name}".rstrip()), examples[0]


def test_the_registry_summarises_each_command_as_its_help_does() -> None:
    """`gitai --help` lists the registry's summaries without importing the commands: each is the first
    sentence of its command's help."""
    loaded = subcommands(cli)
    assert sorted(loaded) == sorted(COMMANDS)
    for name, (_, _, summary) in COMMANDS.items():
        assert click.Command(name, help=summary).get_short_help_str(10_000) == loaded[name].get_short_help_str(10_000)


def test_gitai_help_imports_no_command() -> None:
    code = ("import sys\nfrom gitai.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('gitai.commands.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "Commands:\n  agents " in out
    assert out.splitlines()[-1] == "['gitai.commands.registry']"
