"""The Python oracle: on real files reformatted by black and ruff, gitai's verdict agrees with
CPython's `ast` (what black uses to prove a reformat safe); disagreements are normal-form bugs.

The corpus is a fixed list of installed sources (the stdlib and click); black and ruff come with
the `test` extra, so a missing formatter fails here rather than skipping. The full benchmark over
every language is benchmarks/formatters.py.
"""

from __future__ import annotations

import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import black
import click
import pytest
from testing.python_oracle import ast_dump

from gitai.syntax.classify import FileChange, classify_changes

STDLIB = Path(sysconfig.get_paths()["stdlib"])
CLICK = Path(click.__file__).parent
CORPUS = [STDLIB / name for name in ("textwrap.py", "shlex.py", "heapq.py", "fractions.py", "json/encoder.py",
                                     "email/headerregistry.py", "email/quoprimime.py")]
CORPUS += [CLICK / name for name in ("types.py", "termui.py", "formatting.py", "utils.py", "decorators.py")]
RUFF = Path(sys.executable).parent / "ruff"


def ruff_format(source: str, *options: str) -> str:
    done = subprocess.run([str(RUFF), "format", "--isolated", *options, "-"], input=source.encode(),
                          capture_output=True, check=True)
    return done.stdout.decode()


FORMATTERS = {
    "black -l 60": lambda s: black.format_str(s, mode=black.Mode(line_length=60)),
    "black -l 100 -S -C": lambda s: black.format_str(s, mode=black.Mode(line_length=100, string_normalization=False,
                                                                         magic_trailing_comma=False)),
    "ruff 50 single quotes": lambda s: ruff_format(s, "--line-length", "50", "--config", "format.quote-style='single'"),
}


def gitai_says_same(old: str, new: str) -> bool:
    result = classify_changes([FileChange("a.py", "a.py", old.encode(), new.encode())])
    return result.classification == "AST_REFACTOR"


FLIPS = [(r"(?<=\w) \+ (?=\w)", " - "), (r"(?<=\w) < (?=\w)", " > "), (r" == ", " != "), (r" and ", " or "),
         (r"return True\b", "return False")]


def mutate(source: str) -> str:
    """A behaviour change in the code: the last operator (or `return True`) on a line with no
    comment or string before it, flipped."""
    for pattern, replacement in FLIPS:
        for match in reversed(list(re.finditer(pattern, source))):
            line_start = source.rfind("\n", 0, match.start()) + 1
            if not re.search(r"[#'\"]", source[line_start : match.start()]):
                return source[: match.start()] + replacement + source[match.end() :]
    raise AssertionError("the corpus file has an operator to flip")


@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_verdict_agrees_with_the_python_ast(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    source_dump = ast_dump(source)
    changed = 0
    for name, formatter in FORMATTERS.items():
        formatted = formatter(source)
        if formatted == source:
            continue
        changed += 1
        same = gitai_says_same(source, formatted)
        assert same == (source_dump == ast_dump(formatted)), name
        assert same, f"{name}: a pure reformat must be AST_REFACTOR"
        mutant = mutate(formatted)  # the sweep with one behaviour change in it: a change (one formatter run, not two)
        assert ast_dump(mutant) != source_dump
        assert not gitai_says_same(source, mutant), f"{name}: the flipped operator must be INTENT_EVOLUTION"
    assert changed, "every corpus file is reformatted by at least one setting"
