"""`gitai map --format`: the intent map as Markdown, Mermaid, Graphviz dot and JSON on stdout."""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from testing.commands import gitai, gitai_json
from testing.repos import commit, write

ODD = 'src/billing/we"ird\\name [x] #1.py'


@pytest.fixture
def mapped(repo: Path) -> Path:
    gitai(repo, "select", "INT-001")
    write(repo, "src/auth/login.py", "def login():\n    return 1\n")
    commit(repo, "login")
    gitai(repo, "select", "INT-003")
    write(repo, "src/billing/pay.py", "def pay():\n    return 2\n")
    write(repo, ODD, "def odd():\n    return 3\n")
    commit(repo, "pay")
    return repo


def _paths(repo: Path) -> dict[str, list[str]]:
    return {i["intent_id"]: [f["path"] for f in i["files"]]
            for i in gitai_json(repo, "map", "--format", "json")["intents"]}


def test_formats_print_and_leave_the_markdown_file_alone(mapped: Path) -> None:
    target = mapped / ".orchestration" / "intent_map.md"
    assert _paths(mapped) == {"INT-001": ["src/auth/login.py"], "INT-003": ["src/billing/pay.py", ODD]}
    markdown = gitai(mapped, "map", "--format", "markdown")
    assert markdown.returncode == 0 and markdown.stdout.startswith("# Intent map\n")
    assert not target.exists()  # only the default writes the file
    assert gitai(mapped, "map").returncode == 0
    assert target.read_text(encoding="utf-8") == markdown.stdout
    assert gitai(mapped, "map", "--format", "svg").returncode == 2


def test_dot_output_parses_with_graphviz(mapped: Path) -> None:
    if shutil.which("dot") is None:
        message = "GRAPHVIZ TEST NOT RUN: no 'dot'; run 'make provision' (apt-get install graphviz)"
        pytest.fail(message) if os.environ.get("CI") else pytest.skip(message)
    text = gitai(mapped, "map", "--format", "dot").stdout
    proc = subprocess.run(["dot", "-Tsvg"], input=text, capture_output=True, text=True)
    assert proc.returncode == 0 and not proc.stderr, proc.stderr
    labels = [html.unescape(t) for t in re.findall(r'<text [^>]*>(.*?)</text>', proc.stdout)]
    assert sorted(labels) == sorted(["INT-001: JWT auth migration", "INT-003: Billing", "src/auth/login.py",
                                     "src/billing/pay.py", ODD])
    assert len(re.findall(r'class="node"', proc.stdout)) == 5
    assert len(re.findall(r'class="edge"', proc.stdout)) == 3


MERMAID_NODE = re.compile(r'^    (?P<id>[if]\d+)(?:\(\["(?P<intent>[^"]*)"\]\)|\["(?P<file>[^"]*)"\])$')
MERMAID_EDGE = re.compile(r"^    (?P<src>i\d+) --> (?P<dst>f\d+)$")


def _unescape(label: str) -> str:
    return label.replace("#quot;", '"').replace("#lt;", "<").replace("#gt;", ">").replace("#35;", "#")


def test_mermaid_output_is_a_well_formed_flowchart(mapped: Path) -> None:
    """A structural parse (Mermaid's own parser needs a browser and the npm package; it was run by
    hand on this output and on click's map, see docs/cli.md): every line is a node or an edge, every
    label is quoted with no raw quote inside, every edge joins declared nodes."""
    lines = gitai(mapped, "map", "--format", "mermaid").stdout.splitlines()
    assert lines[0] == "flowchart LR"
    nodes: dict[str, str] = {}
    edges: list[tuple[str, str]] = []
    for line in lines[1:]:
        node, edge = MERMAID_NODE.match(line), MERMAID_EDGE.match(line)
        assert node or edge, line
        if node:
            assert node["id"] not in nodes
            nodes[node["id"]] = _unescape(node["intent"] if node["intent"] is not None else node["file"])
        else:
            assert edge["src"] in nodes and edge["dst"] in nodes  # declared before use
            edges.append((nodes[edge["src"]], nodes[edge["dst"]]))
    assert sorted(edges) == sorted([("INT-001: JWT auth migration", "src/auth/login.py"),
                                    ("INT-003: Billing", "src/billing/pay.py"), ("INT-003: Billing", ODD)])
