"""`gitai carry`: records for squash and rebase merges made with plain git, as a server makes them."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml
from testing.commands import git, gitai, gitai_json
from testing.repos import catalogued, commit, head, write
from testing.templates import Templates
from testing.traces import note, notes, validate

SERVER = ("-c", "core.hooksPath=/dev/null")  # a server runs none of gitai's hooks
AI = {"GITAI_AGENT": "1", "GITAI_MODEL": "acme/coder-1"}


def feature_branch(repo: Path) -> None:
    """main with a base file; a branch `feature` with two commits of two intents in one file."""
    catalogued(repo)
    write(repo, "src/auth/a.py", "def a():\n    return 0\n")
    commit(repo, "base", env={"GITAI_INTENT": "INT-001"})
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, "src/auth/a.py", "def a():\n    return 1\n\n\ndef login():\n    return 'token'\n")
    commit(repo, "login", env={"GITAI_INTENT": "INT-001", **AI})
    write(repo, "src/auth/a.py", (repo / "src/auth/a.py").read_text() + "\n\ndef charge():\n    return 10\n")
    write(repo, "src/billing/b.py", "RATE = 10\n")
    commit(repo, "charge", extra=("--no-verify",), env={"GITAI_INTENT": "INT-003"})  # no trailer: active
    git(repo, "checkout", "-q", "main")


@pytest.fixture
def feature(tmp_path: Path, templates: Templates) -> tuple[Path, str, list[str]]:
    """`feature_branch`, built once per test process and copied: the repository, main's commit and
    the branch's two."""
    repo = templates.make("carry-feature", tmp_path / "repo", feature_branch)
    base, first, second = git(repo, "rev-parse", "main", "feature~1", "feature").stdout.split()
    return repo, base, [first, second]


def test_carry_a_squash_merge_whose_message_lost_the_trailers(feature: tuple[Path, str, list[str]]) -> None:
    repo, base, originals = feature
    git(repo, *SERVER, "merge", "-q", "--squash", "feature")
    git(repo, *SERVER, "commit", "-q", "-m", "Feature (#1)")  # the server's message: no Intent: trailer
    squash = head(repo)
    assert squash not in notes(repo)
    result = gitai_json(repo, "carry", f"{base}..feature", "--to", "HEAD")
    assert result["carried"] == [{"commit": squash, "carry": "squash", "carried_from": originals,
                                  "lines": 10, "known": 10}]
    record = note(repo)
    validate(record)
    meta = record["metadata"]["dev.gitai"]
    assert meta["carry"] == "squash" and meta["carried_from"] == originals
    assert "intent_id" not in meta and meta["intents"] == {"src/auth/a.py": None, "src/billing/b.py": "INT-003"}
    assert meta["intent_source"] == "active"  # the least declared of the lines' sources
    talks = next(f for f in record["files"] if f["path"] == "src/auth/a.py")["conversations"]
    assert [(t["contributor"], t["related"][0]["url"]) for t in talks] == [
        ({"type": "ai", "model_id": "acme/coder-1"}, "gitai:intent/INT-001"),
        ({"type": "human"}, "gitai:intent/INT-003")]
    rows = gitai_json(repo, "blame-intent", "src/auth/a.py")
    assert [r["intent_id"] for r in rows] == ["INT-001"] * 6 + ["INT-003"] * 4
    assert {r["commit"] for r in rows[1:]} == {squash}
    assert gitai(repo, "trace", "verify").returncode == 0
    again = gitai_json(repo, "carry", f"{base}..feature", "--to", "HEAD")
    assert again == {"carried": [], "skipped": [squash]}  # a commit with its own record is left alone


def test_carry_a_rebase_merge_is_exact_per_commit(feature: tuple[Path, str, list[str]]) -> None:
    repo, base, originals = feature
    write(repo, "README.md", "moved on\n")
    commit(repo, "main moves on", env={"GITAI_INTENT": "INT-002"})
    before = head(repo)
    git(repo, "checkout", "-q", "--detach", "feature")
    git(repo, *SERVER, "rebase", "-q", "main")  # the server rebases, then moves the branch
    git(repo, "update-ref", "refs/heads/main", "HEAD")
    git(repo, "checkout", "-q", "main")
    rebased = git(repo, "rev-list", "--reverse", f"{before}..main").stdout.split()
    result = gitai_json(repo, "carry", f"{base}..feature", "--to", "main")  # finds the rebased copies
    assert gitai_json(repo, "carry", f"{base}..feature", "--to", f"{before}..main")["skipped"] == rebased
    assert [(c["commit"], c["carry"], c["carried_from"]) for c in result["carried"]] == [
        (rebased[0], "rebase", [originals[0]]), (rebased[1], "rebase", [originals[1]])]
    for new, old in zip(rebased, originals, strict=True):
        carried, original = note(repo, new), note(repo, old)
        assert carried["vcs"]["revision"] == new
        for key in ("intent_id", "intent_source"):
            assert carried["metadata"]["dev.gitai"][key] == original["metadata"]["dev.gitai"][key]
        assert [[t["contributor"] for t in f["conversations"]] for f in carried["files"]] == \
            [[t["contributor"] for t in f["conversations"]] for f in original["files"]]
        assert [f["conversations"][0]["ranges"] for f in carried["files"]] == \
            [f["conversations"][0]["ranges"] for f in original["files"]]
    assert gitai(repo, "trace", "verify").returncode == 0


def test_carry_refuses_bad_input(repo: Path) -> None:
    assert gitai(repo, "carry", "HEAD", "--to", "HEAD").returncode == 2
    assert gitai(repo, "carry", "nope..HEAD", "--to", "HEAD").returncode == 2
    assert gitai(repo, "carry", "HEAD~1..HEAD", "--to", "nope").returncode == 2


def test_ci_workflow_carries_a_server_squash_and_pushes_the_notes(feature: tuple[Path, str, list[str]],
                                                                   tmp_path: Path) -> None:
    repo, base, originals = feature
    assert gitai(repo, "ci", "github").returncode == 0 and gitai(repo, "ci", "gitlab").returncode == 0
    assert gitai(repo, "ci", "github").returncode == 2  # never overwrites a reviewed file unasked
    workflow = yaml.safe_load((repo / ".github/workflows/gitai.yml").read_text())
    assert "gitai-carry" in yaml.safe_load((repo / ".gitlab/gitai.gitlab-ci.yml").read_text())
    gate = workflow["jobs"]["gate"]["steps"][-1]["run"]
    carry = workflow["jobs"]["carry"]["steps"][-1]["run"].split("\n", 1)[1]  # without the GitHub-only PR fetch
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "origin", "main", "feature")
    assert gitai(repo, "sync").returncode == 0
    server = tmp_path / "server"  # the hosting service merges with plain git: no hooks, no trailers
    git(tmp_path, "clone", "-q", "-b", "main", str(remote), str(server))
    git(server, "merge", "-q", "--squash", "origin/feature")
    git(server, "commit", "-q", "-m", "Feature (#7)")
    git(server, "push", "-q", "origin", "main")
    merged = head(server)
    runner = tmp_path / "ci"
    git(tmp_path, "clone", "-q", "-b", "main", str(remote), str(runner))  # a plain clone, as on a CI runner
    env = {**os.environ, "GITAI_REMOTE": "origin", "GITAI_BASE": base, "GITAI_HEAD": originals[-1],
           "GITAI_MERGED": merged}
    gated = subprocess.run(["sh", "-ec", gate], cwd=runner, capture_output=True, text=True, env=env)
    assert gated.returncode == 1 and "no_intent_trailer" in gated.stdout  # the --no-verify commit has no trailer
    ran = subprocess.run(["sh", "-ec", carry], cwd=runner, capture_output=True, text=True, env=env)
    assert ran.returncode == 0, ran.stderr
    assert "squash (best effort): 10/10 lines" in ran.stdout
    git(repo, "fetch", "-q", "origin")
    assert gitai(repo, "sync").returncode == 0
    record = note(repo, merged)
    assert record["metadata"]["dev.gitai"]["carry"] == "squash"
    assert record["metadata"]["dev.gitai"]["carried_from"] == originals
