"""Run a real agent host (the npm packages pinned beside this file) offline against the scripted model.

Each session gets a scratch HOME and a fresh git repository: gitai initialised, the test catalogue
committed, gitai's hooks installed with `gitai agents install HOST`, and the host's own settings
written so that it talks only to the model on 127.0.0.1 and sends nothing anywhere else.

The moves a scenario scripts (run a shell command, read, write, edit a file) are spelled in each host's
own tool vocabulary by `Host`, so that one scenario runs in every host.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .model_server import ModelServer, Request, Step, call, custom

HERE = Path(__file__).resolve().parent
NODE_BIN = HERE / "node_modules" / ".bin"
VENV_BIN = Path(sys.executable).parent
GITAI = str(VENV_BIN / "gitai")
HOSTS = ("claude-code", "codex", "gemini", "copilot", "qwen")
EXECUTABLE = {"claude-code": "claude", "codex": "codex", "gemini": "gemini", "copilot": "copilot", "qwen": "qwen"}
# A hung host fails the test instead of hanging the run.
RUN_TIMEOUT = float(os.environ.get("GITAI_REALHOST_TIMEOUT", "120"))
PROMPT = "Do the task."

# Everything that would make a host phone home (telemetry, update checks, feedback, error reports).
QUIET_ENV = {
    "DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1", "DISABLE_BUG_COMMAND": "1", "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1",
    "NO_UPDATE_NOTIFIER": "1", "NPM_CONFIG_UPDATE_NOTIFIER": "false", "GEMINI_TELEMETRY_ENABLED": "false",
    "GEMINI_CLI_NO_RELAUNCH": "true", "COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false",
    "QWEN_TELEMETRY_ENABLED": "false", "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1", "QWEN_CODE_NO_RELAUNCH": "true",
}
# User-level settings shared by the Gemini CLI fork family: no telemetry, no statistics, no updates.
_GEMINI_FAMILY_QUIET = {"privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False},
                        "general": {"disableAutoUpdate": True, "disableUpdateNag": True}}
# The model each host is told to use (Codex needs a slug it knows, so that it offers apply_patch).
MODEL = {"claude-code": "claude-sonnet-4-5", "codex": "gpt-5.5", "gemini": "gemini-2.5-flash",
         "copilot": "gpt-4.1", "qwen": "qwen3-coder-plus"}


def available(host: str) -> bool:
    return (NODE_BIN / EXECUTABLE[host]).exists()


@dataclass
class Result:
    """One host session: its exit, its output and every request the model received."""

    returncode: int
    stdout: str
    stderr: str
    requests: list[Request]

    def agent_requests(self) -> list[Request]:
        return [r for r in self.requests if isinstance(r.body, dict) and _offers_tools(r.body)]

    def first_prompt(self) -> str:
        """What the model was sent in its first agent turn (system text, context, the prompt)."""
        agent = self.agent_requests()
        assert agent, f"the host never asked the model (exit {self.returncode}): {self.stderr[-2000:]}"
        return agent[0].text()

    def tool_results(self) -> list[str]:
        """The tool results the host sent back, in order, each as text (what the model read)."""
        agent = self.agent_requests()
        return _tool_results(agent[-1].body) if agent else []


def _offers_tools(body: dict[str, Any]) -> bool:
    inner = body.get("request") if isinstance(body.get("request"), dict) else body
    return bool(body.get("tools") or (isinstance(inner, dict) and inner.get("tools")))


def _tool_results(body: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for m in body.get("messages", []):  # Anthropic, chat completions
        if m.get("role") == "tool":
            out.append(json.dumps(m.get("content"), ensure_ascii=False))
        elif isinstance(m.get("content"), list):
            out.extend(json.dumps(b.get("content"), ensure_ascii=False) for b in m["content"]
                       if isinstance(b, dict) and b.get("type") == "tool_result")
    out.extend(json.dumps(i.get("output"), ensure_ascii=False) for i in body.get("input", [])  # Responses
               if isinstance(i, dict) and str(i.get("type", "")).endswith("call_output"))
    inner = body.get("request") if isinstance(body.get("request"), dict) else body
    out.extend(json.dumps(p["functionResponse"], ensure_ascii=False)  # Gemini
               for c in inner.get("contents", []) for p in c.get("parts", [])
               if isinstance(p, dict) and "functionResponse" in p)
    return out


@dataclass
class Host:
    """One host's tool vocabulary, settings and command line."""

    name: str
    repo: Path
    home: Path
    extra_env: dict[str, str] = field(default_factory=dict)
    trusted: bool = True  # False: started as a person would before trusting the hooks (see `untrusted`)

    # ---- the moves, in this host's words ----
    def shell(self, command: str) -> Step:
        return {
            "claude-code": lambda: call("Bash", command=command, description="run a command"),
            "codex": lambda: call("exec_command", cmd=command),
            "gemini": lambda: call("run_shell_command", command=command, description="run a command"),
            "copilot": lambda: call("bash", command=command, description="run a command"),
            "qwen": lambda: call("run_shell_command", command=command, description="run a command"),
        }[self.name]()

    def read(self, rel: str) -> Step:
        path = str(self.repo / rel)
        return {
            "claude-code": lambda: call("Read", file_path=path),
            "codex": lambda: call("exec_command", cmd=f"cat {rel}"),
            "gemini": lambda: call("read_file", file_path=path),
            "copilot": lambda: call("view", path=path),
            "qwen": lambda: call("read_file", file_path=path),
        }[self.name]()

    def write(self, rel: str, content: str) -> Step:
        """Create a new file with the host's write tool."""
        path = str(self.repo / rel)
        return {
            "claude-code": lambda: call("Write", file_path=path, content=content),
            "codex": lambda: custom("apply_patch", _add_file_patch(rel, content)),
            "gemini": lambda: call("write_file", file_path=path, content=content),
            "copilot": lambda: call("create", path=path, file_text=content),
            "qwen": lambda: call("write_file", file_path=path, content=content),
        }[self.name]()

    def edit(self, rel: str, old: str, new: str) -> Step:
        """Replace one line `old` by `new` with the host's edit tool."""
        path = str(self.repo / rel)
        return {
            "claude-code": lambda: call("Edit", file_path=path, old_string=old, new_string=new, replace_all=False),
            "codex": lambda: custom("apply_patch", f"*** Begin Patch\n*** Update File: {rel}\n@@\n-{old}\n+{new}\n"
                                                   "*** End Patch\n"),
            "gemini": lambda: call("replace", file_path=path, old_string=old, new_string=new,
                                   instruction="Change the line as asked."),
            "copilot": lambda: call("edit", path=path, old_str=old, new_str=new),
            "qwen": lambda: call("edit", file_path=path, old_string=old, new_string=new),
        }[self.name]()

    # ---- settings and command line ----
    def configure(self, url: str) -> tuple[list[str], dict[str, str]]:
        """Write the host's user settings for this server; return its argv and environment."""
        env: dict[str, str] = {}
        exe = str(NODE_BIN / EXECUTABLE[self.name])
        if self.name == "claude-code":
            env |= {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "sk-scripted", "IS_SANDBOX": "1"}
            argv = [exe, "-p", PROMPT, "--permission-mode", "bypassPermissions", "--model", MODEL[self.name]]
            if not self.trusted:
                _write_json(self.home / ".claude" / "settings.json", {"disableAllHooks": True})
        elif self.name == "codex":
            codex_home = self.home / ".codex"
            codex_home.mkdir(parents=True, exist_ok=True)
            (codex_home / "config.toml").write_text(
                f'model = "{MODEL[self.name]}"\nmodel_provider = "scripted"\napproval_policy = "never"\n'
                'sandbox_mode = "danger-full-access"\ncheck_for_update_on_startup = false\n\n'
                '[analytics]\nenabled = false\n\n'
                f'[model_providers.scripted]\nname = "scripted"\nbase_url = "{url}/v1"\n'
                'env_key = "SCRIPTED_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n'
                'stream_max_retries = 0\n\n'
                f'[projects."{self.repo}"]\ntrust_level = "trusted"\n')
            env |= {"CODEX_HOME": str(codex_home), "SCRIPTED_API_KEY": "scripted"}
            argv = [exe, "exec", *(["--dangerously-bypass-hook-trust"] if self.trusted else []), PROMPT]
        elif self.name == "gemini":
            _write_json(self.home / ".gemini" / "settings.json",
                        {"security": {"auth": {"selectedType": "gemini-api-key"}}, **_GEMINI_FAMILY_QUIET})
            env |= {"GOOGLE_GEMINI_BASE_URL": url, "GEMINI_API_KEY": "scripted"}
            if self.trusted:
                env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
            else:
                _write_json(self.home / ".gemini" / "trustedFolders.json", {str(self.repo): "DO_NOT_TRUST"})
            argv = [exe, "-p", PROMPT, "-m", MODEL[self.name], "--yolo"]
        elif self.name == "copilot":
            env |= {"COPILOT_PROVIDER_BASE_URL": f"{url}/v1", "COPILOT_PROVIDER_API_KEY": "scripted",
                    # exactly "true" also trusts the folder; "yes" approves the tools only
                    "COPILOT_MODEL": MODEL[self.name], "COPILOT_ALLOW_ALL": "true" if self.trusted else "yes",
                    "COPILOT_HOME": str(self.home / ".copilot")}
            argv = [exe, "-p", PROMPT, "--no-auto-update"]
        else:  # qwen: its OpenAI-compatible provider
            security: dict[str, Any] = {"auth": {"selectedType": "openai"}}
            if not self.trusted:
                security["folderTrust"] = {"enabled": True}
                _write_json(self.home / ".qwen" / "trustedFolders.json", {str(self.repo): "DO_NOT_TRUST"})
            _write_json(self.home / ".qwen" / "settings.json", {"security": security, **_GEMINI_FAMILY_QUIET})
            env |= {"OPENAI_BASE_URL": f"{url}/v1", "OPENAI_API_KEY": "scripted", "OPENAI_MODEL": MODEL[self.name]}
            argv = [exe, "-p", PROMPT, "--yolo"]
        return argv, env


def _add_file_patch(rel: str, content: str) -> str:
    body = "".join(f"+{line}\n" for line in content.splitlines())
    return f"*** Begin Patch\n*** Add File: {rel}\n{body}*** End Patch\n"


def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2))


def base_env(home: Path) -> dict[str, str]:
    """git and gitai without the caller's identity, config or agent markers; gitai and the hosts on PATH."""
    from testing.hermetic import agent_variables

    agent_vars = agent_variables()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GIT_", "GITAI_", "ANTHROPIC_", "OPENAI_", "GEMINI_", "GOOGLE_", "COPILOT_",
                                "CODEX_", "QWEN_", "CLAUDE"))
           and k not in agent_vars}
    env |= {
        "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Test Author", "GIT_AUTHOR_EMAIL": "author@example.com",
        "GIT_COMMITTER_NAME": "Test Committer", "GIT_COMMITTER_EMAIL": "committer@example.com",
        "NO_COLOR": "1", "TERM": "dumb",
        # Temporary files beside the repository, not above it: a Landlock domain (`gitai run`) cannot
        # open a directory that holds the repository, so the hosts' temp files go where it can.
        "TMPDIR": str(home.parent / "tmp"),
        "PATH": os.pathsep.join([str(VENV_BIN), str(NODE_BIN), os.environ.get("PATH", "/usr/bin:/bin")]),
    }
    env |= QUIET_ENV
    return env


class Session:
    """A scratch HOME and repository set up for one host, ready to run scripted sessions in."""

    def __init__(self, host: str, tmp: Path, catalogue: str, hooks: bool = True, trusted: bool = True) -> None:
        self.home = tmp / "home"
        self.repo = tmp / "repo"
        self.home.mkdir()
        self.repo.mkdir()
        (tmp / "tmp").mkdir()
        self.env = base_env(self.home)
        self.host = Host(host, self.repo, self.home, trusted=trusted)
        self.git("init", "-q", "-b", "main")
        self.gitai("init")
        (self.repo / ".orchestration" / "active_intents.yaml").write_text(catalogue)
        (self.repo / "src" / "auth").mkdir(parents=True)
        (self.repo / "src" / "auth" / "login.py").write_text("def login():\n    return 'session'\n")
        (self.repo / "docs").mkdir()
        (self.repo / "docs" / "guide.md").write_text("# Guide\n")
        self.git("add", "-A")
        self.git("commit", "-q", "--no-verify", "-m", "catalogue and first files")  # a person's setup
        if hooks:
            self.install_hooks()

    def install_hooks(self) -> None:
        self.gitai("agents", "install", self.host.name)

    def git(self, *args: str) -> str:
        return subprocess.run(["git", *args], cwd=self.repo, env=self.env, check=True, capture_output=True,
                              text=True).stdout

    def gitai(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run([GITAI, *args], cwd=self.repo, env=self.env, capture_output=True, text=True)
        if check and proc.returncode != 0:
            raise AssertionError(f"gitai {' '.join(args)} exited {proc.returncode}: {proc.stderr}")
        return proc

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").strip()

    def run(self, steps: list[Step], wrap: tuple[str, ...] = ()) -> Result:
        """One headless session of the host in the repository, the model playing `steps`; `wrap` is
        a command the host is started under (`gitai run INT-001 --`)."""
        with ModelServer(steps) as server:
            argv, host_env = self.host.configure(server.url)
            argv = [*wrap, *argv]
            proc = subprocess.Popen(argv, cwd=self.repo, env=self.env | host_env, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    start_new_session=True)
            try:
                out, err = proc.communicate(timeout=RUN_TIMEOUT)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                out, err = proc.communicate()
                requests = [r.path for r in server.requests]
                raise AssertionError(f"{self.host.name} did not finish within {RUN_TIMEOUT:.0f}s; "
                                     f"model requests: {requests}; stderr: {err[-2000:]}") from None
            return Result(proc.returncode, out, err, list(server.requests))
