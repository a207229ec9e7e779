"""A small traced history for the export, report, map and log tests: two intents, an agent and a
person, a refactor, a refusal, an approval, a file owned by nobody, a file owned by two intents, a merge."""

from __future__ import annotations

from pathlib import Path

from testing.commands import as_person, git, gitai_ok
from testing.repos import CATALOGUE, catalogued, commit, write

AGENT = {"GITAI_AGENT": "claude", "GITAI_MODEL": "claude-sonnet-4"}
SHARED_CATALOGUE = CATALOGUE.replace('    owned_scope:\n      - "src/auth/**"\n',
                                     '    owned_scope:\n      - "src/auth/**"\n      - "src/shared/auth_*.py"\n')


def make_history(repo: Path) -> None:
    write(repo, ".orchestration/active_intents.yaml", SHARED_CATALOGUE)
    commit(repo, "catalogue: INT-001 shares src/shared/auth_*.py")
    gitai_ok(repo, "select", "INT-001")
    write(repo, "src/auth/login.py", "def login(user, password):\n    return check(user, password)\n\n\n"
                                     "def check(user, password):\n    return user == password\n")
    commit(repo, "login", env=AGENT)
    write(repo, "src/auth/token.py", "def token(user):\n    return 'tok-' + user\n")
    commit(repo, "token by hand")
    write(repo, "src/auth/login.py", "def login(user,password):\n    return check(user,password)\n\n\n"
                                     "def check(user,password):\n    return user==password\n")
    commit(repo, "reformat login", env=AGENT)
    write(repo, "src/shared/auth_util.py", "def shared():\n    return 1\n")
    commit(repo, "shared helper", env=AGENT)
    gitai_ok(repo, "select", "INT-003")
    write(repo, "src/billing/pay.py", "def pay(amount):\n    return amount * 2\n")
    commit(repo, "billing", env=AGENT)
    write(repo, "src/auth/sneaky.py", "x = 1\n")
    assert commit(repo, "out of scope", check=False).returncode != 0  # refused: an event
    git(repo, "reset", "-q", "--", "src/auth/sneaky.py")
    Path(repo / "src/auth/sneaky.py").unlink()
    git(repo, "checkout", "-q", "-b", "side")
    write(repo, "src/billing/refund.py", "def refund(amount):\n    return -amount\n")
    commit(repo, "refund")
    git(repo, "checkout", "-q", "main")
    write(repo, "src/billing/pay.py", "def pay(amount):\n    return amount * 3\n")
    commit(repo, "pay more")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    write(repo, "misc/notes.txt", "nobody owns this\n")
    commit(repo, "unowned file", extra=("--no-verify",))
    as_person(repo, "approve", "INT-003")  # a person's approval: an event


def history_repo(path: Path) -> None:
    """A repository at `path` with gitai initialised, the test catalogue committed, then `make_history`."""
    catalogued(path)
    make_history(path)
