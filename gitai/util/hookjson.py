"""JSON for the hook paths without importing `json`: `json` imports `re`, and `re` brings enum,
functools and collections, a quarter of an agent hook's start-up. These are the C scanner and
encoder that `json` itself runs, set up with `json`'s defaults, so a document reads and writes
exactly as `json.loads` and `json.dumps` would have it. Whatever the fast path does not answer (a
document that is not JSON, a value `json` cannot write, a Python without the C accelerator) goes to
`json` itself, which then answers or raises as it always does (tests/test_hookjson.py holds the two
to the same results over hostile documents)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

try:
    import _json
except ImportError:  # pragma: no cover - CPython always builds it; then `json` answers everything
    _json = None  # type: ignore[assignment]

WHITESPACE = " \t\n\r"  # what `json` skips around a document (its WHITESPACE pattern)
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _Defaults:
    """What `json.JSONDecoder()` hands its C scanner."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


# The C scanner reads these attributes of whatever it is given (`json` gives it its JSONDecoder).
_scan: Callable[[str, int], tuple[Any, int]] | None = _json.make_scanner(_Defaults()) if _json else None  # type: ignore[arg-type]


def loads(document: str | bytes) -> Any:
    """`json.loads(document)`."""
    if _scan is not None:
        try:
            text = document if isinstance(document, str) else _utf8(document)
            value, end = _scan(text, len(text) - len(text.lstrip(WHITESPACE)))
            if end == len(text.rstrip(WHITESPACE)):
                return value
        except Exception:  # noqa: BLE001 - `json` itself says what is wrong, below
            pass
    import json

    return json.loads(document)


def _utf8(data: bytes) -> str:
    """`data` decoded as `json.loads` decodes it when its first bytes show no BOM and no UTF-16 or
    UTF-32 (the other encodings `json` detects are left to it)."""
    if data[:1] in (b"\x00", b"\xef", b"\xfe", b"\xff") or data[1:2] == b"\x00":
        raise ValueError
    return data.decode("utf-8", "surrogatepass")


def _unwritable(value: object) -> object:
    raise TypeError  # `json` raises its own error, below


def dumps(value: object, ensure_ascii: bool = True, separators: tuple[str, str] = (", ", ": ")) -> str:
    """`json.dumps(value, ensure_ascii=ensure_ascii, separators=separators)`."""
    if _json is not None:
        quote = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
        try:
            if isinstance(value, str):
                return quote(value)
            item, key = separators
            encode = _json.make_encoder({}, _unwritable, quote, None, key, item, False, False, True)
            return "".join(encode(value, 0))
        except Exception:  # noqa: BLE001 - `json` itself says what is wrong, below
            pass
    import json

    return json.dumps(value, ensure_ascii=ensure_ascii, separators=separators)
