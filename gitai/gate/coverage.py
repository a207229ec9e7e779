"""`gitai coverage`: how the catalogue's scopes cover the files at HEAD. A file no intent owns can
only be committed by widening a scope; a file several own is changed under any of them. CI can
require neither (the command exits 1 when there is either)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gitai.gate.policy import load_policy
from gitai.git.runner import git_process, head_commit, split_z
from gitai.layout import Layout


@dataclass
class Coverage:
    commit: str | None  # HEAD (None: no commit yet)
    files: int = 0  # files at HEAD, exempt ones included
    exempt: int = 0  # .orchestration/ and .intentignore'd files: they need no intent
    owned_once: int = 0
    unowned: list[str] = field(default_factory=list)
    shared: list[tuple[str, list[str]]] = field(default_factory=list)  # path, its owners (catalogue order)

    @property
    def complete(self) -> bool:
        return not (self.unowned or self.shared)

    def to_json(self) -> dict[str, Any]:
        return {"commit": self.commit, "files": self.files, "exempt": self.exempt, "owned_once": self.owned_once,
                "unowned": self.unowned, "shared": [{"path": p, "owners": o} for p, o in self.shared],
                "complete": self.complete}


def coverage(layout: Layout) -> Coverage:
    """Each file of HEAD's tree (submodules and symbolic links too: the gate scopes them as well)
    by its owners under the working tree's catalogue."""
    policy = load_policy(layout)
    head = head_commit(layout.root)
    result = Coverage(head)
    if head is None:
        return result
    for path in split_z(git_process(["ls-tree", "-r", "-z", "--name-only", "--full-tree", "--end-of-options", head],
                                    layout.root).stdout):
        result.files += 1
        if policy.is_exempt(path):
            result.exempt += 1
            continue
        owners = policy.owners(path)
        if not owners:
            result.unowned.append(path)
        elif len(owners) > 1:
            result.shared.append((path, owners))
        else:
            result.owned_once += 1
    return result
