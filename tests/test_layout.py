"""The packages depend on each other one way (docs/development.md, "Layout"): a module may import
from its own layer and the layers below, never above, so no package cycle can form."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "gitai"

LAYERS: dict[str, int] = {
    "gitai": 0, "errors": 0, "refusal": 0, "util": 0,
    "git": 1,
    "layout": 2,
    "intents": 3,
    "gate": 4,
    "syntax": 5, "agents": 5, "sandbox": 5,
    "trace": 6,
    "blame": 7,
    "recording": 8, "backfill": 8, "carry": 8, "gc": 8, "ci": 8, "report": 8,
    "hooks": 9, "hook_main": 9,
    "commands": 10,
    "cli": 11, "__main__": 11, "entry": 11,
}
# Modules with a layer of their own: the host and command registries are pure data that every layer reads.
MODULE_LAYERS: dict[str, int] = {"agents.hosts": 0, "commands.registry": 0}


def unit(module: str) -> str:
    """The layer unit of a module: `gitai.trace.record` -> `trace`, `gitai` -> `gitai`,
    `gitai.agents.hosts` -> `agents.hosts` (MODULE_LAYERS)."""
    parts = module.split(".")
    if ".".join(parts[1:3]) in MODULE_LAYERS:
        return ".".join(parts[1:3])
    return parts[1] if len(parts) > 1 else "gitai"


def imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):  # lazy imports inside functions count too
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("gitai") and not node.level:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name.startswith("gitai")]
    return found


def test_dependencies_go_one_way() -> None:
    layers = {**LAYERS, **MODULE_LAYERS}
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")
        here = unit(module)
        assert here in layers, (
            f"{module}: package '{here}' has no layer in tests/test_layout.py (and docs/development.md)")
        for target in imports(path):
            there = unit(target)
            assert there in layers, f"{module} imports {target}: no layer for '{there}'"
            if layers[there] > layers[here]:
                wrong.append(f"{module} -> {target}")
    assert not wrong, "imports against the layering: " + ", ".join(wrong)


def test_subpackage_inits_import_nothing() -> None:
    """Importing gitai.x must not pull in more than gitai.x: the hook path stays lean."""
    for init in PACKAGE.rglob("__init__.py"):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        assert not [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))], init
