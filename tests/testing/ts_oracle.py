"""The TypeScript compiler's verdict on a reformat (tests/formatters/ts_ast.cjs): its AST without
trivia, parentheses and positions. Shared by the oracle test and the formatter benchmark."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[1] / "formatters"
NODE_MODULES = TOOLS / "node_modules"


def ts_dumps(files: dict[str, bytes]) -> dict[str, str | None]:
    """The AST dump of each file (by name; the extension picks TS, TSX or JS), None when it does not parse."""
    payload = json.dumps([{"name": name, "text": data.decode("utf-8", "replace")} for name, data in files.items()])
    done = subprocess.run(["node", str(TOOLS / "ts_ast.cjs")], input=payload.encode(), capture_output=True,
                          check=True, cwd=TOOLS)
    result: dict[str, str | None] = json.loads(done.stdout)
    return result
