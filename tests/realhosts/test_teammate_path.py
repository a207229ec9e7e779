"""The committed `.codex/config.toml` on a teammate's machine: installed where gitai lives in one
virtualenv, run by Codex where gitai lives somewhere else. Codex lets a call through when its hook
command fails (exit 127 included), so a machine's path in the shared file would leave the teammate
ungoverned without a word."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from .conftest import make_session
from .harness import GITAI, VENV_BIN, Session


def a_second_virtualenv(where: Path) -> Path:
    """Another machine's gitai: a virtualenv at `where` whose own `gitai` runs this checkout's gitai."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    site_dir = next((where / "lib").glob("python*/site-packages"))
    (site_dir / "this_gitai.pth").write_text(f"import site; site.addsitedir({sysconfig.get_path('purelib')!r})\n")
    program = where / "bin" / "gitai"
    _, rest = Path(GITAI).read_text().split("\n", 1)
    program.write_text(f"#!{where / 'bin' / 'python'}\n{rest}")
    program.chmod(0o755)
    return program


def on_a_teammates_machine(s: Session, bin_dir: Path) -> None:
    """`s`'s environment as a teammate's: gitai found on PATH in `bin_dir`, not in the installer's virtualenv."""
    bin_dir.mkdir(parents=True)
    (bin_dir / "gitai").symlink_to(GITAI)
    kept = [d for d in s.env["PATH"].split(os.pathsep) if Path(d) != VENV_BIN]
    s.env["PATH"] = os.pathsep.join([str(bin_dir), *kept])


def test_a_teammates_codex_runs_the_committed_hooks_with_gitai_elsewhere(tmp_path: Path) -> None:
    s = make_session("codex", tmp_path)
    machine_a = tmp_path / "machine-a"
    installed = subprocess.run([str(a_second_virtualenv(machine_a)), "agents", "install", "codex"], cwd=s.repo,
                               env=s.env, capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr
    config = (s.repo / ".codex" / "config.toml").read_text()
    assert str(machine_a) not in config and config.count('command = "gitai hook codex"') == 4, config
    shutil.rmtree(machine_a)  # the teammate has no such path
    on_a_teammates_machine(s, tmp_path / "teammate" / "bin")
    s.gitai("select", "INT-001")
    result = s.run([s.host.write("docs/notes.md", "# notes\n")])
    assert not (s.repo / "docs" / "notes.md").exists(), result.tool_results()
    assert "outside the scope of INT-001" in result.tool_results()[-1]


def test_codex_lets_a_call_through_when_its_hook_command_is_not_found(tmp_path: Path) -> None:
    """The host's own behaviour, pinned (docs/agents/codex.md): a PreToolUse hook that exits 127 does not
    stop the call. Why the hook command must not depend on a path only one machine has. The commit is
    still refused: no gitai hook saw the session."""
    s = make_session("codex", tmp_path)
    config = s.repo / ".codex" / "config.toml"
    config.write_text(config.read_text().replace('"gitai hook codex"', f'"{tmp_path / "gone" / "gitai"} hook codex"'))
    s.gitai("select", "INT-001")
    before = s.head()
    result = s.run([s.host.write("docs/notes.md", "# notes\n"),
                    s.host.shell("git add docs/notes.md && git commit -m notes")])
    assert (s.repo / "docs" / "notes.md").read_text() == "# notes\n", result.tool_results()
    assert "PreToolUse Failed" in result.stdout + result.stderr
    assert s.head() == before, result.tool_results()
    assert "a session gitai's hooks never saw" in result.tool_results()[-1]
