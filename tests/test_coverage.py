"""`gitai coverage`: the files at HEAD owned by no intent or by several, for CI to require full coverage."""

from __future__ import annotations

import json
from pathlib import Path

from testing.commands import git, gitai, gitai_json
from testing.repos import CATALOGUE, write


def test_coverage_lists_unowned_and_shared_files_and_fails_until_there_are_none(repo: Path) -> None:
    write(repo, "src/auth/login.py", "a\n")
    write(repo, "src/billing/pay.py", "b\n")
    write(repo, "src/auth/vendor/lib.py", "vendored\n")  # INT-001 excludes it: nobody owns it
    write(repo, "tools/release.sh", "echo\n")
    write(repo, "src/billing/money.py", "shared\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "files", "--no-verify")
    write(repo, "untracked.py", "not at HEAD\n")  # only HEAD's files count
    both = CATALOGUE.replace('owned_scope: ["src/billing/**", "src/shared/**"]',
                             'owned_scope: ["src/billing/**", "src/shared/**"]\n  - id: INT-006\n'
                             '    name: Money\n    status: IN_PROGRESS\n    owned_scope: ["src/billing/money.py"]')
    write(repo, ".orchestration/active_intents.yaml", both)
    proc = gitai(repo, "coverage")
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == [
        "no intent: src/auth/vendor/lib.py",
        "no intent: tools/release.sh",
        "several:   src/billing/money.py (INT-003, INT-006)",
        "10 files at HEAD: 2 owned by one intent, 2 by none, 1 by several, 5 exempt",
    ]
    data = gitai_json(repo, "coverage", code=1)
    assert data["unowned"] == ["src/auth/vendor/lib.py", "tools/release.sh"]
    assert data["shared"] == [{"path": "src/billing/money.py", "owners": ["INT-003", "INT-006"]}]
    assert data["commit"] == git(repo, "rev-parse", "HEAD").stdout.strip() and not data["complete"]

    write(repo, ".orchestration/active_intents.yaml",
          CATALOGUE.replace('"!src/auth/vendor/**"', '"tools/**"') + "    # src/auth/vendor is INT-001's now\n")
    assert json.loads(gitai(repo, "coverage", "--json").stdout)["complete"]
    assert gitai(repo, "coverage").returncode == 0

    write(repo, ".orchestration/active_intents.yaml", "active_intents: [\n")
    broken = gitai(repo, "coverage")
    assert broken.returncode == 2 and broken.stderr.startswith("gitai: error:")
