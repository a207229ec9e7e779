"""Which model an agent session runs, where its hook payloads do not say (headless Claude Code,
Gemini CLI, Copilot CLI): the host's transcript, the variable or command-line option it was started
with, its settings (docs/trace-format.md, `model_source`). Lean: `gitai hook` imports this until a
session's model is known.
"""

from __future__ import annotations

import json
import os
import re

from gitai.agents.hosts import BY_NAME, home_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PAYLOAD = "payload"
TRANSCRIPT = "transcript"
ENVIRONMENT = "environment"
COMMAND_LINE = "command-line"
SETTINGS = "settings"

TRANSCRIPT_TAIL = 256 * 1024  # the newest turns name the model that answers now
MODEL_IN_JSON = re.compile(rb'"model(?:Version|_id|Id)?"\s*:\s*"([^"\\]{1,200})"')
MODEL_OPTIONS = ("-m", "--model")
ANCESTORS = 4  # the host may run its hooks through a shell or two


def find_model(host: str, transcript_path: str | None, worktree: str) -> tuple[str, str] | None:
    """(model, where it was found) for a session whose payloads name none, or None."""
    facts = BY_NAME[host]
    if transcript_path and facts.transcript_names_model:
        model = _from_transcript(transcript_path)
        if model:
            return model, TRANSCRIPT
    for name in facts.model_variables:
        value = os.environ.get(name, "").strip()
        if value:
            return value[:250], ENVIRONMENT
    model = _from_command_line(facts.executables)
    if model:
        return model, COMMAND_LINE
    for path, keys in facts.model_settings:
        full = home_path(path, os.path.expanduser("~"), os.environ) if path.startswith("~/") \
            else os.path.join(worktree, path)
        model = _from_settings(full, keys)
        if model:
            return model, SETTINGS
    return None


def _from_transcript(path: str) -> str | None:
    """The last model a JSON Lines (or JSON) transcript names."""
    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, os.fstat(handle.fileno()).st_size - TRANSCRIPT_TAIL))
            tail = handle.read()
    except OSError:
        return None
    found = MODEL_IN_JSON.findall(tail)
    models = [m.decode("utf-8", "replace") for m in found if m.strip() and m not in (b"<synthetic>",)]
    return models[-1] if models else None


def _from_command_line(executables: tuple[str, ...]) -> str | None:
    """`-m MODEL` / `--model MODEL` / `--model=MODEL` on the command line of the host's process
    above this hook (its program, or node running it, named in `executables`)."""
    pid = os.getppid()
    for _ in range(ANCESTORS):
        if pid <= 1:
            return None
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                argv = handle.read().decode("utf-8", "replace").split("\0")
            with open(f"/proc/{pid}/stat", "rb") as handle:
                stat = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            return None
        if not any(os.path.basename(arg) in executables for arg in argv[:2]):
            argv = []
        for index, arg in enumerate(argv):
            if arg in MODEL_OPTIONS and index + 1 < len(argv) and argv[index + 1].strip():
                return argv[index + 1].strip()[:250]
            if arg.startswith("--model="):
                return arg.split("=", 1)[1].strip()[:250] or None
        try:
            pid = int(stat[1])
        except (IndexError, ValueError):
            return None
    return None


def _from_settings(path: str, keys: tuple[str, ...]) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            value: Any = json.load(handle)
    except (OSError, ValueError):
        return None
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value.strip()[:250] if isinstance(value, str) and value.strip() else None
