"""What the real hosts do to gitai that their documentation does not say: git config set through
the environment, hooks git does not run, models named only in transcripts or settings, PATH rebuilt
by a login shell, the installer's own files (docs/agents.md, "Seen in the real hosts")."""

from __future__ import annotations

from pathlib import Path

from conftest import gitai

# Gemini CLI's shell: git config from the environment, with an empty core.hooksPath.
GEMINI_GIT_CONFIG = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.hooksPath", "GIT_CONFIG_VALUE_0": ""}


def test_gitai_works_under_git_config_from_the_environment(repo: Path) -> None:
    status = gitai(repo, "status", env=GEMINI_GIT_CONFIG)
    assert status.returncode == 0, status.stderr
    selected = gitai(repo, "select", "INT-001", env=GEMINI_GIT_CONFIG)
    assert selected.returncode == 0, selected.stderr
    assert "INT-001" in gitai(repo, "status").stdout


def test_a_directory_outside_any_repository_is_still_refused(tmp_path: Path) -> None:
    status = gitai(tmp_path, "status", env=GEMINI_GIT_CONFIG)
    assert status.returncode == 2 and "not a git repository" in status.stderr
