"""The `gitai` console entry: `gitai hook ...` goes straight to the lean agent-hook entry (it runs on
every tool call of an agent, so it must not import click and the command modules), and so do
`gitai exec --again KEY NONCE` and `gitai exec ... -- COMMAND` (before each wrapped shell command);
`gitai hooks run HOOK` (the pre-commit framework's, on every commit) goes to the git hooks' entry; everything
else goes to the click CLI (gitai/cli.py), `blame-intent` after starting its `git blame` (a fresh
clone's first run waits mostly for it: gitai/blame/early.py).

An agent hook ends with `os._exit` once its answer is flushed: the interpreter's own shutdown (freeing
every module, a last garbage collection) costs about 3 ms of CPU on every tool call and does nothing
the hook needs: its files are written and closed, and its git processes have ended, before it answers."""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import NoReturn


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "hook":
        from gitai.util.code_bundle import serve

        bundle = serve()  # the hook's modules from one file (gitai/util/code_bundle.py)
        from gitai.agents.hook_entry import main as hook_main

        code = hook_main(sys.argv[2:])
        _answered(code, bundle.save)
    if sys.argv[1:3] == ["hooks", "run"] and len(sys.argv) > 3:  # the pre-commit framework's entry: every commit
        from gitai.hook_main import FRAMEWORK_HOOKS, run_for_framework

        if sys.argv[3] in FRAMEWORK_HOOKS:
            sys.exit(run_for_framework(sys.argv[3], sys.argv[4:]))
    if sys.argv[1:3] == ["exec", "--again"]:  # the line before every wrapped shell command: no click
        from gitai.sandbox.enter import again_main

        sys.exit(again_main(sys.argv[2:]))
    if sys.argv[1:2] == ["exec"] and "--" in sys.argv and not {"-h", "--help"} & set(sys.argv[:sys.argv.index("--")]):
        from gitai.sandbox.enter import exec_main  # a wrapped shell command in the older, quoted form: no click

        sys.exit(exec_main(sys.argv[2:]))
    if len(sys.argv) > 1 and sys.argv[1] == "blame-intent":
        from gitai.blame.early import start_blame_ahead

        start_blame_ahead(sys.argv[2:])
    from gitai.cli import main as cli_main

    cli_main()


def _answered(code: int, after: Callable[[], None]) -> NoReturn:
    """Leave without the interpreter's shutdown, with `code` whatever became of the streams: a stream
    that was closed when the hook started is None, and a host reads exit 1 as "let the call through".
    `after` runs once the answer is out, and nothing it raises changes the exit code."""
    import os

    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            try:
                stream.flush()
            except (OSError, ValueError):  # a reader gone, a stream closed: the answer says what it could
                pass
    try:
        after()
    except Exception:  # noqa: BLE001 -- the answer is given: a failure here must not turn it into another
        pass
    os._exit(code)
