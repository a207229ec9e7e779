"""A refusal: what gitai will not let happen, the evidence, and how to fix it, built once and shown to
whoever asked (pip's `DiagnosticPipError`): a person at a terminal (the git hooks' stderr, a push's
pre-receive) or an agent (the reason its host hands the model).

Lean: the gate and the agent hook build one on their refusal paths, so no `dataclasses` or `typing`.
"""

from __future__ import annotations

from gitai.util.text import printable

HINTS_HEADING = "How to fix:"  # the one heading every refusal's hints go under, for people and agents alike

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable


class Refusal:
    """`summary`: one line, `<what> refused: <why>` (the first line a host shows a person on its own);
    `rows`: the evidence, one line each (a path and who owns it); `hints`: the ways forward, each a line
    whose command works as printed. Frozen, like a dataclass(frozen=True) without its import."""

    __slots__ = ("summary", "rows", "hints")
    summary: str
    rows: tuple[str, ...]
    hints: tuple[str, ...]

    def __init__(self, summary: str, rows: Iterable[str] = (), hints: Iterable[str] = ()) -> None:
        object.__setattr__(self, "summary", summary)
        object.__setattr__(self, "rows", tuple(rows))
        object.__setattr__(self, "hints", tuple(hints))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a Refusal is frozen: cannot set {name}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a Refusal is frozen: cannot delete {name}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Refusal):
            return NotImplemented
        return (self.summary, self.rows, self.hints) == (other.summary, other.rows, other.hints)

    def __hash__(self) -> int:
        return hash((self.summary, self.rows, self.hints))

    def __repr__(self) -> str:
        return f"Refusal(summary={self.summary!r}, rows={self.rows!r}, hints={self.hints!r})"

    def with_rows(self, *rows: str) -> Refusal:
        """The same refusal with more evidence (where the caller knows more: the repository, the command)."""
        return Refusal(self.summary, (*self.rows, *rows), self.hints)

    def _lines(self) -> list[str]:
        lines = [f"gitai: {self.summary}", *(f"  {row}" for row in self.rows)]
        if self.hints:
            lines += [HINTS_HEADING, *(f"  {hint}" for hint in self.hints)]
        return lines

    def for_terminal(self) -> str:
        """For git's stderr, which a person reads on a terminal: a commit's pre-commit hook, and a push's
        pre-receive (git shows it to the pusher after `remote: `). Names from a catalogue or a pushed
        commit can hold control characters, so they are escaped; a newline ends the text."""
        return printable("\n".join(self._lines())) + "\n"

    def for_agent(self) -> str:
        """The reason an agent host hands the model (JSON carries it, so nothing needs escaping): no
        final newline, as the hosts frame it themselves."""
        return "\n".join(self._lines())
