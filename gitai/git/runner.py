"""A small, lean layer over the `git` command.

No pygit2, pathlib or dataclasses here, and `subprocess` only once git runs: the pre-commit hook
imports this on every commit, and often runs no git process of its own.
"""

from __future__ import annotations

import os

from gitai.errors import GitaiError

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: importing typing costs the hook ~10 ms

if TYPE_CHECKING:
    import subprocess
    from collections.abc import Generator, Sequence


class GitCommandError(GitaiError):
    """A git command failed."""


def git_process(
    args: Sequence[str], cwd: str | None = None, input: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run git and return the finished process, whatever its exit status."""
    import subprocess

    return subprocess.run(["git", *args], cwd=cwd, input=input, capture_output=True)


def git_stream(args: Sequence[str], cwd: str | None = None, sep: bytes = b"\n") -> Generator[bytes, None, None]:
    """git's stdout split on `sep` as it arrives (so a reader that stops early, as `gitai log -n`
    does on a long history, does not wait for the rest); stopping ends git. stderr is dropped."""
    import subprocess

    proc = subprocess.Popen(["git", *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout
    assert out is not None
    try:
        rest = b""
        for chunk in iter(lambda: os.read(out.fileno(), 1 << 16), b""):
            parts = (rest + chunk).split(sep)
            rest = parts.pop()
            yield from parts
        if rest:
            yield rest
    finally:
        if proc.poll() is None:
            proc.kill()
        out.close()
        proc.wait()


def run_git(
    args: Sequence[str],
    cwd: str | None = None,
    *,
    input: bytes | None = None,
    check: bool = True,
    env: dict[str, str] | None = None,
) -> bytes:
    """Run `git ARGS` and return its stdout; raise GitCommandError on failure when `check`."""
    import subprocess

    proc = subprocess.run(["git", *args], cwd=cwd, input=input, capture_output=True, env=env)
    if check and proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        detail = message[-1] if message else f"exit {proc.returncode}"
        raise GitCommandError(f"git {args[0]} failed: {detail}")
    return proc.stdout


def git_stdout(args: Sequence[str], cwd: str, env: dict[str, str] | None = None) -> bytes | None:
    """`git ARGS`'s stdout in `cwd` (stderr dropped), None when git fails, started without
    `subprocess`, whose imports cost more than the git process itself: the agent hooks list the work
    tree's changes (`git status`) before and after each shell command that may write."""
    if not hasattr(os, "posix_spawnp"):  # Windows
        try:
            return run_git(args, cwd, env=env)
        except GitCommandError:
            return None
    read_fd, write_fd = os.pipe()
    try:
        actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0), (os.POSIX_SPAWN_DUP2, write_fd, 1),
                   (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)]
        pid = os.posix_spawnp("git", ["git", "-C", cwd, *args], dict(os.environ if env is None else env),
                              file_actions=actions)
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        out = pipe.read()
    _, status = os.waitpid(pid, 0)
    return out if status == 0 else None


def split_z(data: bytes) -> list[str]:
    """Split NUL-terminated git output into paths (undecodable bytes kept via surrogateescape)."""
    return [item.decode("utf-8", "surrogateescape") for item in data.split(b"\0") if item]


def head_commit(cwd: str) -> str | None:
    """The commit HEAD points at, or None on an unborn branch (empty repository)."""
    out = run_git(["rev-parse", "-q", "--verify", "HEAD^{commit}"], cwd, check=False)
    return out.decode().strip() or None


def verify_commit(root: str, rev: str) -> str:
    """The full id of the commit `rev` names, or a one-line error (a range is not one commit)."""
    if ".." in rev:
        raise GitaiError(f"expected one commit, not a range: {rev}")
    if not rev.strip():
        raise GitaiError("expected a commit, got an empty revision")
    sha = run_git(["rev-parse", "-q", "--verify", "--end-of-options", f"{rev}^{{commit}}"], root,
                  check=False).decode().strip()
    if not sha:
        raise GitaiError(f"unknown revision: {rev}")
    return sha


def rev_list(root: str, revision_range: str, *options: str) -> list[str]:
    """`git rev-list` output lines for `A..B` (one commit each; with `--parents`, its parents follow),
    after checking that each end of the range names a commit (an empty range is refused, not read as HEAD)."""
    if not revision_range.strip():
        raise GitaiError("empty revision range: give A..B (or a single revision)")
    if revision_range.startswith("-"):
        raise GitaiError(f"not a valid revision range: {revision_range}")
    ends = [end for end in revision_range.replace("...", "..").split("..") if end] or ["HEAD"]
    for end in ends:
        if not run_git(["rev-parse", "-q", "--verify", "--end-of-options", f"{end}^{{commit}}"], root,
                       check=False).strip():
            raise GitaiError(f"not a valid revision range: {revision_range} (unknown revision {end})")
    return run_git(["rev-list", *options, "--end-of-options", revision_range, "--"], root).decode().splitlines()


def config_get(key: str, cwd: str) -> list[str]:
    """All values of a git config key (empty list when unset)."""
    out = run_git(["config", "--get-all", key], cwd, check=False)
    return [line for line in out.decode("utf-8", "replace").splitlines() if line]
