"""The hook paths' JSON (gitai/util/hookjson.py) reads and writes exactly as `json` does: the same
value, or the same exception with the same message, over hostile documents (deep nesting, lone
surrogates, huge numbers, NaN, duplicate keys, bytes that are not UTF-8, BOMs, padding, garbage)
and over thousands of random mutations of a real payload. Also the string rules that replaced
regular expressions on the hook path (a Windows drive, a session's file name) against those
expressions."""

from __future__ import annotations

import json
import math
import os
import random
import re
import sys

import pytest

from gitai.agents.normalize import fix_path
from gitai.agents.sessions import SAFE_ID_CHARS, session_key
from gitai.util import hookjson

PAYLOAD = json.dumps({
    "session_id": "abc-123", "transcript_path": "/home/me/.claude/projects/x/abc.jsonl", "cwd": "/home/me/repo",
    "hook_event_name": "PreToolUse", "tool_name": "MultiEdit", "tool_input": {
        "file_path": "/home/me/repo/src/é.py", "edits": [{"old_string": "a\tb\n", "new_string": "\u2028\"\\"}],
        "n": [0, -1, 1.5e300, 2e-308, True, False, None]}})

HOSTILE: list[str | bytes] = [
    PAYLOAD, PAYLOAD.encode(), PAYLOAD.encode("utf-16"), PAYLOAD.encode("utf-16-le"), PAYLOAD.encode("utf-32"),
    PAYLOAD.encode("utf-8-sig"), "\ufeff" + PAYLOAD, "", " ", "\t\n\r ", "\f{}", "{}\v", "\u00a0{}", "{}\u2003",
    "  {}  ", "{} {}", "{}x", "[1,]", "{'a': 1}", '{"a": 1,}', '{"a" 1}', "nul", "null", "true ", "tru", "-", "-0",
    "0", "00", "01", "-01", "1.", ".5", "1e", "1e999", "-1e999", "1E+2", "NaN", "-NaN", "Infinity", "-Infinity",
    "infinity", "[NaN, Infinity, -Infinity]", "9" * 4300, "9" * 4301, "-" + "9" * 5000, "1." + "9" * 5000,
    '{"a": 1, "a": 2}', '{"a": {"b": 1}, "a": [2]}', '{"__proto__": 1}', '"\\ud800"', '"\\udfff\\ud800"',
    '"\\ud83d\\ude00"', '"\\u0000"', '"\\x41"', '"\\u12"', '"\\uZZZZ"', '"a\nb"', '"a\tb"', '"\x7f"', '"\x1f"',
    '"unterminated', '"\\', "\ud800", '"\udcff"', b'"\xff\xfe"', b'{"a": "\xc3\x28"}', b'"\xed\xa0\x80"',
    b"\x00{}", b"{\x00}", b"[]\x00", b"\xef\xbb", b"\xef\xbb\xbf[]", b"\xff", b"1", b"12", b"123", b"1\x00 ",
    "[" * 100 + "]" * 100, "[" * 100_000 + "]" * 100_000, '{"a":' * 50_000 + "1" + "}" * 50_000, "[" * 100_000,
    "[1" + ", 1" * 100_000 + "]", " " * 100_000 + "{}" + "\n" * 100_000,
]


def _outcome(call, value):  # type: ignore[no-untyped-def]
    """What `call(value)` gives, comparable across two implementations: the value's exact repr
    (NaN compares by repr), or the exception's type and message."""
    try:
        result = call(value)
    except RecursionError:
        return ("RecursionError",)
    except Exception as exc:  # noqa: BLE001 - the exception is the outcome compared
        return (type(exc).__name__, str(exc))
    return ("value", type(result).__name__, repr(result))


@pytest.mark.parametrize("document", HOSTILE, ids=range(len(HOSTILE)))
def test_loads_is_json_loads(document: str | bytes) -> None:
    assert _outcome(hookjson.loads, document) == _outcome(json.loads, document)


def test_loads_keeps_the_values_json_gives() -> None:
    value = hookjson.loads('{"a": 1, "a": [NaN, -0.0, 1e999, 12345678901234567890], "b": "\\ud800x"}')
    assert list(value) == ["a", "b"] and value["b"] == "\ud800x"
    nan, zero, inf, big = value["a"]
    assert math.isnan(nan) and math.copysign(1, zero) == -1 and inf == math.inf and big == 12345678901234567890
    assert type(big) is int


def test_loads_reads_a_payload_that_was_not_utf8_as_the_hook_does() -> None:
    """The hook decodes its stdin with surrogateescape: a path with a byte that is not UTF-8 comes
    through as a lone surrogate, as it would through `json`."""
    raw = b'{"tool_input": {"file_path": "/r/\xff.py"}}'.decode("utf-8", "surrogateescape")
    assert hookjson.loads(raw) == json.loads(raw) == {"tool_input": {"file_path": "/r/\udcff.py"}}


def test_loads_matches_json_over_random_mutations() -> None:
    rng = random.Random(20261125)
    alphabet = '{}[]",:\\ \t\n0123456789.eE+-truefalsnNIaIy\ud800é\x00\x1f'
    mismatches = []
    for _ in range(4000):
        text = list(PAYLOAD)
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(text))
            move = rng.randrange(3)
            if move == 0:
                del text[at]
            elif move == 1:
                text.insert(at, rng.choice(alphabet))
            else:
                text[at] = rng.choice(alphabet)
        document = "".join(text)
        for form in (document, document.encode("utf-8", "surrogatepass")):
            if _outcome(hookjson.loads, form) != _outcome(json.loads, form):
                mismatches.append(form)
    assert mismatches == []


class _Int(int):
    pass


class _Float(float):
    pass


class _Str(str):
    pass


def _circular() -> list[object]:
    items: list[object] = []
    items.append(items)
    return items


VALUES: list[object] = [
    {"a": 1, "b": [1, 2.5, None, True, False], "c": {"d": "é\u2028\x00\x7f\"\\/"}}, "plain", "é\ud800\udcff",
    _Str("sub"), [], {}, (1, 2), [float("nan"), float("inf"), -float("inf"), -0.0, 1e300, 5e-324],
    10**4299, 10**4300, -(10**5000), {1: "int key", 2.5: "float", False: "bool", None: "none"}, {(1, 2): "tuple key"},
    {b"x": 1}, b"bytes", {1, 2}, object(), [_Int(3), _Float(1.5), _Str("s")], {_Str("k"): 1}, _circular(),
    {"deep": [[[[[[[[[["x"]]]]]]]]]]}, [[1] * 3] * 3, 12, 1.0, None, True,
]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_dumps_is_json_dumps(value: object, ensure_ascii: bool) -> None:
    assert (_outcome(lambda v: hookjson.dumps(v, ensure_ascii=ensure_ascii), value)
            == _outcome(lambda v: json.dumps(v, ensure_ascii=ensure_ascii), value))


def test_dumps_of_deep_nesting_fails_as_json_does() -> None:
    deep: list[object] = []
    for _ in range(sys.getrecursionlimit() * 2):
        deep = [deep]
    assert _outcome(hookjson.dumps, deep) == _outcome(json.dumps, deep) == ("RecursionError",)


def test_hook_json_round_trips_a_payload_as_json_does() -> None:
    value = json.loads(PAYLOAD)
    assert hookjson.dumps(value, ensure_ascii=False) == json.dumps(value, ensure_ascii=False)
    assert hookjson.loads(hookjson.dumps(value)) == value


WINDOWS_DRIVE = re.compile(r"^/?([A-Za-z]):[\\/]")


def _fix_path_by_regex(path: str, cwd: str) -> str:
    """`fix_path` as it was written with the regex."""
    match = WINDOWS_DRIVE.match(path)
    if match:
        return match.group(1).upper() + ":/" + path[match.end():].replace("\\", "/")
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd, path))


@pytest.mark.parametrize("path", [
    "c:/x", "C:\\x\\y", "/c:/x", "/C:\\x", "c:x", "/c:", "c:", "//c:/x", "1:/x", "é:/x", "ß:/x", "\u212a:/x", "::/x",
    "/", "", "c", "/c", "cc:/x", "c:/", "z:\\", "Z:/a b", "/home/me/c:/x", " c:/x", "c:/x\n", "\\c:/x", "src/a.py"])
def test_a_windows_drive_is_told_as_the_regex_told_it(path: str) -> None:
    assert fix_path(path, "/cwd") == _fix_path_by_regex(path, "/cwd")


def test_a_windows_drive_is_told_as_the_regex_told_it_over_random_paths() -> None:
    rng = random.Random(3)
    for _ in range(5000):
        path = "".join(rng.choice("cZ/\\:1é .\n") for _ in range(rng.randint(0, 6)))
        assert fix_path(path, "/cwd") == _fix_path_by_regex(path, "/cwd"), path


def test_a_session_file_name_is_made_as_the_regex_made_it() -> None:
    rng = random.Random(7)
    pool = "aZ09._-/\\ :\n\x00é\ud800\U0001f600$*?"
    for _ in range(2000):
        session_id = "".join(rng.choice(pool) for _ in range(rng.randint(0, 12)))
        assert session_key("claude-code", session_id) == re.sub(r"[^A-Za-z0-9._-]", "_",
                                                                f"claude-code-{session_id or 'default'}")[:200]
    assert SAFE_ID_CHARS == {c for c in map(chr, range(0x250)) if re.fullmatch(r"[A-Za-z0-9._-]", c)}


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_compact_dumps_is_json_dumps(value: object) -> None:
    """The ledger's, the notes' and the events' form (gitai/util/jsonl.py)."""
    assert (_outcome(lambda v: hookjson.dumps(v, ensure_ascii=False, separators=(",", ":")), value)
            == _outcome(lambda v: json.dumps(v, ensure_ascii=False, separators=(",", ":")), value))
