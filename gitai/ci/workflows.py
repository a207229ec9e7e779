"""`gitai ci github|gitlab`: the CI side of gitai as a file in the repository, reviewed like code.

Two jobs. On every pull/merge request: `gitai check --range` over its commits (the CI gate).
When one is merged: fetch and merge the notes (`gitai sync`), rebuild the records of the
commits the server made (`gitai carry BASE..HEAD --to MERGED`: a squash or rebase merge
leaves them none), and push the notes back. The scripts only read plain environment
variables, so the same shell runs on either host (and in gitai's tests).
"""

from __future__ import annotations

import os

from gitai import __version__
from gitai.errors import GitaiError
from gitai.layout import Layout
from gitai.util.files import write_atomic

INSTALL = f'pip install "gitai-intent-trace=={__version__}"'

GATE_SCRIPT = """\
base=$(git merge-base "$GITAI_BASE" "$GITAI_HEAD")
gitai check --range "$base..$GITAI_HEAD"
"""

CARRY_SCRIPT = """\
git config user.name >/dev/null || git config user.name "gitai"
git config user.email >/dev/null || git config user.email "gitai@localhost"
gitai sync "$GITAI_REMOTE"
base=$(git merge-base "$GITAI_BASE" "$GITAI_HEAD")
if [ "$(git rev-list --count --min-parents=2 -n 1 "$GITAI_MERGED^!")" = 1 ]; then
  echo "gitai: $GITAI_MERGED is a merge commit: the branch's own records stay valid"
else
  gitai carry "$base..$GITAI_HEAD" --to "$GITAI_MERGED"
fi
gitai sync "$GITAI_REMOTE"
"""


def _indent(script: str, spaces: int) -> str:
    return "".join(" " * spaces + line + "\n" for line in script.splitlines())


def github_workflow() -> str:
    return f"""\
# Written by `gitai ci github` (gitai {__version__}). Review and change it like any code.
# On pull requests: the scope gate over the PR's commits. When a PR is merged: the records of
# the commits GitHub made (squash or rebase merge) are carried over from the PR's commits, and
# the notes (refs/notes/gitai) are pushed back. Fork PRs: GITHUB_TOKEN cannot push there; the
# carry job then runs on the base repository only after the branch authors pushed their notes.
name: gitai
on:
  pull_request:
    types: [opened, synchronize, reopened, closed]
permissions:
  contents: write
jobs:
  gate:
    if: github.event.action != 'closed'
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - run: {INSTALL}
      - name: gitai check --range (commits outside their intent's scope fail the check)
        env:
          GITAI_BASE: ${{{{ github.event.pull_request.base.sha }}}}
          GITAI_HEAD: ${{{{ github.event.pull_request.head.sha }}}}
        run: |
{_indent(GATE_SCRIPT, 10)}  carry:
    if: github.event.action == 'closed' && github.event.pull_request.merged == true
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
          ref: ${{{{ github.event.pull_request.base.ref }}}}
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - run: {INSTALL}
      - name: carry the PR's records to the merged commits, push the notes
        env:
          GITAI_REMOTE: origin
          GITAI_BASE: ${{{{ github.event.pull_request.base.sha }}}}
          GITAI_HEAD: ${{{{ github.event.pull_request.head.sha }}}}
          GITAI_MERGED: ${{{{ github.event.pull_request.merge_commit_sha }}}}
        run: |
          git fetch -q origin "+refs/pull/${{{{ github.event.pull_request.number }}}}/head:refs/gitai/pr-head"
{_indent(CARRY_SCRIPT, 10)}"""


def gitlab_pipeline() -> str:
    return f"""\
# Written by `gitai ci gitlab` (gitai {__version__}). Review and change it like any code.
# Include it from .gitlab-ci.yml:   include: [{{local: .gitlab/gitai.gitlab-ci.yml}}]
# Merge requests: the scope gate over the MR's commits. Pushes to the default branch (a merged
# MR): the records of the commits GitLab made (squash or fast-forward rebase) are carried over
# from the MR's commits, and the notes are pushed back. Needs a CI/CD variable GITAI_TOKEN (a
# project access token with api and write_repository scopes).
gitai-gate:
  image: python:3.11
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
  variables:
    GIT_DEPTH: 0
  script:
    - {INSTALL}
    - git fetch -q origin "$CI_MERGE_REQUEST_TARGET_BRANCH_NAME"
    - export GITAI_BASE="$CI_MERGE_REQUEST_DIFF_BASE_SHA" GITAI_HEAD="$CI_COMMIT_SHA"
    - |
{_indent(GATE_SCRIPT, 6)}
gitai-carry:
  image: python:3.11
  rules:
    - if: $CI_PIPELINE_SOURCE == "push" && $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH
  variables:
    GIT_DEPTH: 0
  script:
    - {INSTALL}
    - git checkout -q -B "$CI_COMMIT_BRANCH" "$CI_COMMIT_SHA"
    - git remote add gitai "https://oauth2:$GITAI_TOKEN@$CI_SERVER_HOST/$CI_PROJECT_PATH.git"
    - >-
      curl -sf --header "PRIVATE-TOKEN: $GITAI_TOKEN"
      "$CI_API_V4_URL/projects/$CI_PROJECT_ID/repository/commits/$CI_COMMIT_SHA/merge_requests" >mr.json
    - export GITAI_REMOTE=gitai GITAI_MERGED="$CI_COMMIT_SHA"
    - export GITAI_HEAD=$(python3 -c 'import json; m=json.load(open("mr.json")); print(m[0]["sha"] if m else "")')
    - export GITAI_BASE=$(python3 -c 'import json; m=json.load(open("mr.json")); print(m[0]["diff_refs"]["base_sha"] if m else "")')
    - 'if [ -z "$GITAI_HEAD" ]; then echo "gitai: no merge request for $CI_COMMIT_SHA"; exit 0; fi'
    - git fetch -q gitai "$GITAI_HEAD" || true
    - |
{_indent(CARRY_SCRIPT, 6)}"""


TARGETS = {"github": (".github/workflows/gitai.yml", github_workflow),
           "gitlab": (".gitlab/gitai.gitlab-ci.yml", gitlab_pipeline)}


def write_ci(layout: Layout, host: str, force: bool = False) -> str:
    """Write the host's CI file; refuse to overwrite one (it may have been reviewed and changed)."""
    relative, render = TARGETS[host]
    path = os.path.join(layout.root, relative)
    if os.path.lexists(path) and not force:
        raise GitaiError(f"{relative} exists; review it, or run again with --force to overwrite it")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_atomic(path, render())
    return path
