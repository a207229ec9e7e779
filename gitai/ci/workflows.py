"""`gitai ci github|gitlab`: the CI side of gitai as a file in the repository, reviewed like code.

Two jobs. On every pull/merge request: `gitai check --range` over its commits (the CI gate),
with a read-only token. On a push to the default branch (a merged request, from a fork too:
the job runs in the base repository with its own token): find the request the push merged,
fetch its head from the base repository (the source branch may be gone), fetch and merge the
notes (`gitai sync`), rebuild the records of the commits the server made (`gitai carry
BASE..HEAD --to MERGED`: a squash or rebase merge leaves them none), and push the notes back.
The scripts only read plain environment variables, so the same shell runs on either host (and
in gitai's tests).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass

from gitai import __version__
from gitai.errors import GitaiError
from gitai.layout import Layout
from gitai.util.files import write_atomic

DISTRIBUTION = "gitai-intent-trace"
# What pip accepts as one requirement, URL or path, with nothing a shell or YAML would read
# (no quotes, `$`, spaces, `{`): the spec is written into a double-quoted YAML string.
SPEC_RE = re.compile(r"^[A-Za-z0-9._+/:@=<>!~,#%?&\[\]-]+$")
VERSION_RE = re.compile(r"^\d+(\.\d+)*([a-z0-9.+-]*)$")


@dataclass(frozen=True)
class InstallSource:
    """How the CI job installs gitai: a pip requirement, and where it came from (for the comment)."""

    spec: str
    origin: str  # "option" (--install), "vcs" (the installed gitai's own VCS URL), "version" (the installed version)

    def comment(self) -> list[str]:
        """The generated file's lines on where gitai comes from and how to change it."""
        if self.origin == "version":
            said = (f"the version that wrote this file, from the runner's package index; if {self.spec} "
                    "is not published there, change it")
        elif self.origin == "vcs":
            said = "the commit of the VCS URL the gitai that wrote this file was installed from"
        else:
            said = "as given to `gitai ci --install`"
        import textwrap

        return textwrap.wrap(
            f"Installing gitai: pip install \"$GITAI_INSTALL\" ({said}). GITAI_INSTALL may be a pinned version "
            f"({DISTRIBUTION}==X.Y.Z), a VCS URL your team controls "
            "(git+https://git.example.com/team/gitai.git@v1.2.0) or the path of a wheel committed in this "
            "repository (ci/gitai_intent_trace-X.Y.Z-py3-none-any.whl); edit it below or run "
            "`gitai ci HOST --install SPEC --force`.", 96, break_long_words=False, break_on_hyphens=False)


def install_source(given: str | None) -> InstallSource:
    """`--install` as given (a bare version means this distribution at that version), or else
    what the running gitai was installed from: its VCS URL and commit, or its version."""
    if given is not None:
        if not SPEC_RE.match(given):
            raise GitaiError(f"--install {given!r}: give a version, a pip requirement, a VCS URL or a wheel path "
                             "(no spaces, quotes, '$' or braces)")
        return InstallSource(f"{DISTRIBUTION}=={given}" if VERSION_RE.match(given) else given, "option")
    vcs = _installed_vcs_url()
    if vcs:
        return InstallSource(vcs, "vcs")
    return InstallSource(f"{DISTRIBUTION}=={__version__}", "version")


def _installed_vcs_url() -> str | None:
    """`git+URL@COMMIT` when the running gitai was installed from a VCS URL (PEP 610)."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        text = distribution(DISTRIBUTION).read_text("direct_url.json")
    except PackageNotFoundError:
        return None
    try:
        data = json.loads(text or "{}")
    except ValueError:
        return None
    vcs, url = data.get("vcs_info") or {}, str(data.get("url", ""))
    if vcs.get("vcs") != "git" or not vcs.get("commit_id") or url.startswith("file:"):
        return None
    spec = f"git+{url}@{vcs['commit_id']}"
    return spec if SPEC_RE.match(spec) else None


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

# The merged pull request of a push (GitHub: GET /commits/SHA/pulls), as environment lines.
GITHUB_FIND_PR = """\
import json, sys
merged = [p for p in json.load(open(sys.argv[1])) if p.get("merged_at")]
if merged:
    p = merged[0]
    print(f"GITAI_PR={p['number']}\\nGITAI_HEAD={p['head']['sha']}\\nGITAI_BASE={p['base']['sha']}")
else:
    print("gitai: no merged pull request for this push: nothing to carry", file=sys.stderr)
"""

# The same for GitLab (GET /repository/commits/SHA/merge_requests), as `export` lines.
GITLAB_FIND_MR = """\
import json, sys
merged = [m for m in json.load(open(sys.argv[1])) if m.get("state") == "merged"]
if merged:
    m = merged[0]
    print(f"export GITAI_MR={m['iid']} GITAI_HEAD={m['sha']} GITAI_BASE={m['diff_refs']['base_sha']}")
else:
    print("gitai: no merged merge request for this push: nothing to carry", file=sys.stderr)
"""


def _indent(script: str, spaces: int) -> str:
    return "".join(" " * spaces + line + "\n" if line else "\n" for line in script.splitlines())


def _comment(lines: list[str]) -> str:
    return "".join(f"# {line}\n" for line in lines)


def github_workflow(source: InstallSource) -> str:
    return f"""\
# Written by `gitai ci github` (gitai {__version__}). Review and change it like any code.
# Pull requests: the scope gate over the PR's commits, with a read-only token.
# Pushes to the default branch (a merged PR, from a fork too: this runs in the base repository
# with its own token, the only place that can push the notes): the records of the commits GitHub
# made (squash or rebase merge) are carried over from the PR's commits, and the notes
# (refs/notes/gitai) are pushed back. A fork's own records stay in the fork (a fork could write
# anything there), so carried lines no base-repository record wrote are "unknown".
# Concurrency: a PR's newer push cancels its running gate; carry runs are never cancelled or
# queued behind each other (GitHub keeps only the newest pending run of a group, which would
# drop a merge's records): `gitai sync` retries when two push notes at once.
{_comment(source.comment())}name: gitai
on:
  pull_request:
  push:
permissions: {{}}
concurrency:
  group: gitai-${{{{ github.event.pull_request.number || github.sha }}}}
  cancel-in-progress: ${{{{ github.event_name == 'pull_request' }}}}
env:
  GITAI_INSTALL: "{source.spec}"
jobs:
  gate:
    if: github.event_name == 'pull_request'
    runs-on: ubuntu-latest
    permissions:
      contents: read
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
          persist-credentials: false
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - run: pip install "$GITAI_INSTALL"
      - name: gitai check --range (commits outside their intent's scope fail the check)
        env:
          GITAI_BASE: ${{{{ github.event.pull_request.base.sha }}}}
          GITAI_HEAD: ${{{{ github.event.pull_request.head.sha }}}}
        run: |
{_indent(GATE_SCRIPT, 10)}  carry:
    if: github.event_name == 'push' && github.ref_name == github.event.repository.default_branch
    runs-on: ubuntu-latest
    permissions:
      contents: write  # push refs/notes/gitai
      pull-requests: read  # find the pull request a push merged
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - run: pip install "$GITAI_INSTALL"
      - name: the pull request this push merged
        env:
          GH_TOKEN: ${{{{ github.token }}}}
        run: |
          curl -sSf -H "Authorization: Bearer $GH_TOKEN" -H "Accept: application/vnd.github+json" \\
            "$GITHUB_API_URL/repos/$GITHUB_REPOSITORY/commits/$GITHUB_SHA/pulls" >"$RUNNER_TEMP/pulls.json"
          python3 - "$RUNNER_TEMP/pulls.json" >>"$GITHUB_ENV" <<'EOF'
{_indent(GITHUB_FIND_PR, 10)}          EOF
      - name: carry the PR's records to the merged commits, push the notes
        if: env.GITAI_HEAD != ''
        env:
          GITAI_REMOTE: origin
          GITAI_MERGED: ${{{{ github.sha }}}}
        run: |
          git fetch -q origin "+refs/pull/$GITAI_PR/head:refs/gitai/pr-head"
{_indent(CARRY_SCRIPT, 10)}"""


def gitlab_pipeline(source: InstallSource) -> str:
    return f"""\
# Written by `gitai ci gitlab` (gitai {__version__}). Review and change it like any code.
# Include it from .gitlab-ci.yml:   include: [{{local: .gitlab/gitai.gitlab-ci.yml}}]
# Merge requests: the scope gate over the MR's commits (CI_JOB_TOKEN only, read access).
# Pushes to the default branch (a merged MR, from a fork too): the records of the commits GitLab
# made (squash or fast-forward rebase) are carried over from the MR's commits, and the notes are
# pushed back. The MR's head is fetched from refs/merge-requests/IID/head, which GitLab keeps
# after the source branch is merged and deleted. Carry jobs run one at a time (resource_group).
# Needs a CI/CD variable GITAI_TOKEN: a project access token with api and write_repository scopes,
# marked protected and masked, so that only pipelines of protected branches (the default branch)
# see it; the merge-request gate never uses it.
{_comment(source.comment())}variables:
  GITAI_INSTALL: "{source.spec}"

gitai-gate:
  image: python:3.11
  interruptible: true
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
  variables:
    GIT_DEPTH: 0
  script:
    - pip install "$GITAI_INSTALL"
    - git fetch -q origin "$CI_MERGE_REQUEST_TARGET_BRANCH_NAME"
    - export GITAI_BASE="$CI_MERGE_REQUEST_DIFF_BASE_SHA" GITAI_HEAD="$CI_COMMIT_SHA"
    - |
{_indent(GATE_SCRIPT, 6)}
gitai-carry:
  image: python:3.11
  resource_group: gitai-notes
  rules:
    - if: $CI_PIPELINE_SOURCE == "push" && $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH
  variables:
    GIT_DEPTH: 0
  script:
    - pip install "$GITAI_INSTALL"
    - git checkout -q -B "$CI_COMMIT_BRANCH" "$CI_COMMIT_SHA"
    - git remote add gitai "https://oauth2:$GITAI_TOKEN@$CI_SERVER_HOST/$CI_PROJECT_PATH.git"
    - >-
      curl -sSf --header "PRIVATE-TOKEN: $GITAI_TOKEN"
      "$CI_API_V4_URL/projects/$CI_PROJECT_ID/repository/commits/$CI_COMMIT_SHA/merge_requests" >mr.json
    - |
      cat >find_mr.py <<'EOF'
{_indent(GITLAB_FIND_MR, 6)}      EOF
    - eval "$(python3 find_mr.py mr.json)"
    - 'if [ -z "$GITAI_HEAD" ]; then exit 0; fi'
    - export GITAI_REMOTE=gitai GITAI_MERGED="$CI_COMMIT_SHA"
    - git fetch -q gitai "+refs/merge-requests/$GITAI_MR/head:refs/gitai/mr-head"
    - |
{_indent(CARRY_SCRIPT, 6)}"""


TARGETS = {"github": (".github/workflows/gitai.yml", github_workflow),
           "gitlab": (".gitlab/gitai.gitlab-ci.yml", gitlab_pipeline)}


def write_ci(layout: Layout, host: str, source: InstallSource, force: bool = False) -> str:
    """Write the host's CI file; refuse to overwrite one (it may have been reviewed and changed)."""
    relative, render = TARGETS[host]
    path = os.path.join(layout.root, relative)
    if os.path.lexists(path) and not force:
        raise GitaiError(f"{relative} exists; review it, or run again with --force to overwrite it")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_atomic(path, render(source))
    return path
