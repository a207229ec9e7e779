"""Docs that cannot drift: every console example of README.md and docs/*.md runs against the
repository its setup scripts (tests/testing/doc_setups.sh), and prints what the page says it prints
(the rules: tests/testing/doc_examples.py; the mechanism: docs/development.md, "Examples in the docs")."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest
from testing.doc_examples import Example, Unavailable, examples, matches, normalise, rewrite, run

ALL = examples()


def test_every_console_example_names_its_setup() -> None:
    unmarked = [e.where for e in ALL if e.setup is None]
    assert not unmarked, f"console examples without '<!-- example: SETUP -->' before them: {unmarked}"


@pytest.fixture(scope="session")
def setups(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where each setup is built once for the whole run, for every test process (examples get copies)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):  # one process
        return tmp_path_factory.mktemp("doc-setups")
    shared = tmp_path_factory.getbasetemp().parent / "doc-setups"  # the run's directory, above each worker's
    shared.mkdir(exist_ok=True)
    return shared


@pytest.mark.parametrize("example", [e for e in ALL if e.setup], ids=lambda e: e.where)
def test_console_example_prints_what_the_docs_say(example: Example, tmp_path: Path, setups: Path) -> None:
    scratch = tmp_path / "example"
    try:
        outputs = run(example, scratch, setups)
    except Unavailable as missing:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"{example.where}: {missing}")
    assert len(outputs) == len(example.commands), f"{example.where}: the block stopped early: {outputs}"
    problems = []
    for command, output in zip(example.commands, outputs, strict=True):
        if not command.expected:
            continue
        expected, actual = normalise(command.expected, scratch), normalise(output, scratch)
        if not matches(expected, actual):
            diff = "\n".join(difflib.unified_diff(expected, actual, "documented", "printed", lineterm=""))
            problems.append(f"$ {command.text}\n{diff}")
    if problems and os.environ.get("UPDATE_DOC_EXAMPLES") == "1":
        rewrite(example, outputs, scratch)
        return
    assert not problems, f"{example.where}:\n" + "\n\n".join(problems)


def test_the_matcher_can_fail(tmp_path: Path) -> None:
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"]) and not matches(["a", "d"], ["a", "b", "d"])
    assert normalise([f"{tmp_path}/repo 1f4f4d30 2026-11-22T03:18:39.086312Z"], tmp_path) == [
        "/path/to/repo <hex> <time>"]
