"""Who wrote each line, in the real hosts: the agent writes 20 lines with its write tool, a person
changes 2 of them between two model turns, the agent adds 10 through its shell; a person commits.
The record, `gitai stats` and `gitai blame-intent` say 28 ai and 2 mixed, exactly."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable

import pytest

from gitai.agents.hosts import BY_NAME

from .harness import HOSTS, MODEL, Session

FILE = "src/auth/feature.py"
WRITTEN = [f"value_{i} = {i}  # written by the agent's write tool" for i in range(20)]
PERSON = {3: "value_3 = 'changed by a person'", 11: "value_11 = 'changed by a person'"}
SHELL = "".join(f"shell_{i} = {i}\\n" for i in range(10))


@pytest.mark.parametrize("host", HOSTS)
def test_write_tool_shell_and_a_persons_edit_come_out_exact(session: Callable[[str], Session], host: str) -> None:
    s = session(host)
    s.gitai("select", "INT-001")
    target = s.repo / FILE

    def person_edits() -> None:
        lines = target.read_text().splitlines()
        assert lines == WRITTEN, lines  # the agent's write landed as written
        for index, text in PERSON.items():
            lines[index] = text
        target.write_text("\n".join(lines) + "\n")

    read = s.host.read(FILE)  # the agent reads again after the person's edit (the stale-write lock)
    read.before = person_edits
    result = s.run([s.host.write(FILE, "\n".join(WRITTEN) + "\n"), read,
                    s.host.shell(f"printf '{SHELL}' >> {FILE}")])
    told = result.tool_results()
    assert target.read_text().count("\n") == 30, told
    s.git("add", FILE)
    s.git("commit", "-q", "-m", "the agent's feature, reviewed by a person")

    record = json.loads(s.gitai("show", "--json").stdout)
    record = record[0] if isinstance(record, list) else record
    (entry,) = [f for f in record["files"] if f["path"] == FILE]
    lines: Counter[str] = Counter()
    mixed: list[int] = []
    for conversation in entry["conversations"]:
        kind = conversation["contributor"]["type"]
        for r in conversation["ranges"]:
            lines[kind] += r["end_line"] - r["start_line"] + 1
            if kind == "mixed":
                mixed += list(range(r["start_line"], r["end_line"] + 1))
        if kind == "ai":
            assert conversation["contributor"]["model_id"].endswith(MODEL[host]), conversation
    assert lines == {"ai": 28, "mixed": 2}, (entry, told)
    assert mixed == [4, 12]
    stats = json.loads(s.gitai("stats", "HEAD", "--json").stdout)
    assert stats["totals"]["lines"] == {"ai": 28, "mixed": 2, "human": 0, "unknown": 0}
    rows = json.loads(s.gitai("blame-intent", FILE, "--json").stdout)
    assert Counter(r["contributor"]["type"] for r in rows) == {"ai": 28, "mixed": 2}
    assert [r["line"] for r in rows if r["contributor"]["type"] == "mixed"] == [4, 12]


def _line_counts(s: Session, rev: str, path: str) -> Counter[str]:
    record = json.loads(s.gitai("show", rev, "--json").stdout)
    record = record[0] if isinstance(record, list) else record
    (entry,) = [f for f in record["files"] if f["path"] == path]
    lines: Counter[str] = Counter()
    for conversation in entry["conversations"]:
        lines[conversation["contributor"]["type"]] += sum(r["end_line"] - r["start_line"] + 1
                                                          for r in conversation["ranges"])
    return lines


# Hosts whose shell runs git's hooks: there the post-commit record is made while the command that
# edited and committed is still running, before the host's after-shell hook.
HOOKED = [h for h in HOSTS if BY_NAME[h].git_hooks_in_shell]


@pytest.mark.parametrize("host", HOOKED)
def test_edits_and_a_commit_in_one_shell_command_are_the_agents(session: Callable[[str], Session], host: str) -> None:
    """`sed -i ... && printf ... >> FILE && git commit` in one command: the lines it changed are the
    agent's in the commit's record, although git's post-commit hook runs before the host's after-shell.
    A person's next commit stays theirs."""
    s = session(host)
    s.gitai("select", "INT-001")
    target = s.repo / FILE

    def person_edits() -> None:
        lines = target.read_text().splitlines()
        for index, text in PERSON.items():
            lines[index] = text
        target.write_text("\n".join(lines) + "\n")

    read = s.host.read(FILE)
    read.before = person_edits
    command = (f"sed -i 's/^value_0 = 0 /value_0 = 100 /' {FILE} && printf '{SHELL}' >> {FILE}"
               f" && git add {FILE} && git commit -q -m 'the agent edits and commits in one command'")
    result = s.run([s.host.write(FILE, "\n".join(WRITTEN) + "\n"), read, s.host.shell(command)])
    told = result.tool_results()
    assert s.git("log", "-1", "--format=%s").strip() == "the agent edits and commits in one command", told
    assert target.read_text().startswith("value_0 = 100 "), told
    assert _line_counts(s, "HEAD", FILE) == {"ai": 28, "mixed": 2}, told
    stats = json.loads(s.gitai("stats", "HEAD", "--json").stdout)
    assert stats["totals"]["lines"] == {"ai": 28, "mixed": 2, "human": 0, "unknown": 0}
    rows = json.loads(s.gitai("blame-intent", FILE, "--json").stdout)
    assert Counter(r["contributor"]["type"] for r in rows) == {"ai": 28, "mixed": 2}

    with target.open("a") as handle:  # then a person's own edit and commit: theirs
        handle.write("person_0 = 0\nperson_1 = 1\n")
    s.git("commit", "-q", "-am", "a person's two lines")
    assert _line_counts(s, "HEAD", FILE) == {"human": 2}
