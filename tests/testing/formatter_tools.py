"""The formatters and oracles the reformat tests run beyond Python: clang-format (Debian's package)
and the npm tools pinned in tests/formatters (prettier, its PHP plugin, the TypeScript compiler).

`make provision` installs them. A missing tool skips its tests with the reason; under CI (`CI` set)
it fails them instead, so CI never passes without running them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from testing.ts_oracle import NODE_MODULES, TOOLS

PRETTIER = NODE_MODULES / "prettier" / "bin" / "prettier.cjs"
PHP_PLUGIN = NODE_MODULES / "@prettier" / "plugin-php" / "src" / "index.mjs"
TYPESCRIPT = NODE_MODULES / "typescript"


def require(tool: str) -> None:
    """Skip (or in CI, fail) when `tool` ("clang-format", "prettier", "typescript") is missing."""
    missing = {
        "clang-format": shutil.which("clang-format") is None,
        "prettier": not PRETTIER.exists() or not PHP_PLUGIN.exists() or shutil.which("node") is None,
        "typescript": not TYPESCRIPT.exists() or shutil.which("node") is None,
    }[tool]
    if not missing:
        return
    how = ("apt-get install clang-format" if tool == "clang-format"
           else "npm ci --prefix tests/formatters (needs node)")
    reason = f"FORMATTER TEST NOT RUN: {tool} missing; run 'make provision' ({how})"
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


def clang_format(source: str, filename: str, style: str) -> str:
    """`source` formatted by clang-format as `filename` with `style` (e.g. "{BasedOnStyle: LLVM, ColumnLimit: 40}")."""
    done = subprocess.run(["clang-format", f"--assume-filename={filename}", f"--style={style}"],
                          input=source.encode(), capture_output=True, check=True)
    return done.stdout.decode()


def prettier(jobs: list[tuple[str, str, dict[str, object]]]) -> list[str | None]:
    """Each (text, file name, options) formatted by prettier (API options, e.g. {"printWidth": 40}; the
    PHP plugin loaded), in one node process; None where prettier refused the input."""
    payload = json.dumps([{"filepath": name, "text": text, "options": options} for text, name, options in jobs])
    done = subprocess.run(["node", str(TOOLS / "format.mjs")], input=payload.encode(), capture_output=True,
                          check=True, cwd=TOOLS)
    result: list[str | None] = json.loads(done.stdout)
    return result
