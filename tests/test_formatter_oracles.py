"""Reformat invariance beyond Python, on samples written for these tests (tests/data/formatters):
C and C++ under clang-format at several base styles and column limits, PHP under prettier's PHP
plugin, TypeScript under prettier with the TypeScript compiler's own AST as the oracle. A formatted
sample must be AST_REFACTOR, and a behaviour change swept by the same formatter INTENT_EVOLUTION;
where an oracle exists, gitai's verdict must be the oracle's. The full run over real repositories
is benchmarks/formatters.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.formatter_tools import clang_format, prettier, require
from testing.ts_oracle import ts_dumps

from gitai.syntax.classify import FileChange, classify_changes

SAMPLES = Path(__file__).parent / "data" / "formatters"
AST, INTENT = "AST_REFACTOR", "INTENT_EVOLUTION"

# per sample: behaviour changes (text replaced once), each swept by the formatter afterwards
MUTATIONS = {
    "sample.c": [("used + 1 == r->size", "used + 2 == r->size"), ("((n)*2+1)", "((n)*2-1)"),
                 ("of bytes, used", "of bytes used")],
    "sample.cc": [("x % 2 == 0", "x % 2 != 0"),
                  ("std::list<std::pair<K, V> > order_", "std::list<std::pair<V, K> > order_")],
    "sample.php": [("* 2 + 1", "* 2 - 1"), ("'GET', \"POST\"", "'GET', \"POSTS\""), ("  Try one", "   Try one")],
    "sample.ts": [("list.length * 2", "list.length / 2"), ("'bus'", "'Bus'")],
}


def verdict(name: str, old: str, new: str) -> str:
    return classify_changes([FileChange(name, name, old.encode(), new.encode())]).classification


def mutants(name: str, source: str) -> list[str]:
    out = []
    for old, new in MUTATIONS[name]:
        assert source.count(old) == 1, old
        out.append(source.replace(old, new))
    return out


CLANG_STYLES = ["{BasedOnStyle: LLVM, ColumnLimit: 40}", "{BasedOnStyle: Google, ColumnLimit: 100}",
                "{BasedOnStyle: Mozilla, ColumnLimit: 60}", "{BasedOnStyle: WebKit, ColumnLimit: 80}",
                "{BasedOnStyle: GNU, ColumnLimit: 70}", "{BasedOnStyle: LLVM, ColumnLimit: 120, UseTab: Always}"]


@pytest.mark.parametrize("style", CLANG_STYLES)
@pytest.mark.parametrize("name", ["sample.c", "sample.cc"])
def test_clang_format_is_a_refactor_and_a_change_stays_one(name: str, style: str) -> None:
    require("clang-format")
    source = (SAMPLES / name).read_text()
    formatted = clang_format(source, name, style)
    assert formatted != source
    assert verdict(name, source, formatted) == AST, style
    for mutant in mutants(name, source):
        assert verdict(name, source, clang_format(mutant, name, style)) == INTENT, (style, mutant)


PHP_SETTINGS: list[dict[str, object]] = [
    {"printWidth": 40},
    {"printWidth": 120, "singleQuote": True, "trailingCommaPHP": True, "phpVersion": "8.1"},
    {"tabWidth": 2, "braceStyle": "1tbs", "phpVersion": "7.4"},
]
TS_SETTINGS: list[dict[str, object]] = [
    {"printWidth": 40},
    {"printWidth": 120, "semi": False, "singleQuote": True, "trailingComma": "none", "arrowParens": "avoid"},
    {"printWidth": 80, "quoteProps": "consistent", "trailingComma": "all", "bracketSpacing": False},
]


def test_prettier_php_is_a_refactor_and_a_change_stays_one() -> None:
    require("prettier")
    name = "sample.php"
    source = (SAMPLES / name).read_text()
    variants = [source, *mutants(name, source)]
    formatted = prettier([(text, name, options) for options in PHP_SETTINGS for text in variants])
    for index, options in enumerate(PHP_SETTINGS):
        reformat, *swept = formatted[index * len(variants) : (index + 1) * len(variants)]
        assert reformat is not None and reformat != source
        assert verdict(name, source, reformat) == AST, options
        for mutant in swept:
            assert mutant is not None and verdict(name, source, mutant) == INTENT, (options, mutant)


def test_typescript_oracle_agrees_under_prettier() -> None:
    """For each prettier setting: the formatted sample and each swept mutant, judged by gitai and by
    the TypeScript compiler's AST; they must agree (and a reformat is the same AST)."""
    require("prettier")
    require("typescript")
    name = "sample.ts"
    source = (SAMPLES / name).read_text()
    variants = [source, *mutants(name, source)]
    formatted = prettier([(text, name, options) for options in TS_SETTINGS for text in variants])
    pairs = {f"{'f' if index % len(variants) == 0 else 'm'}{index}.ts": text for index, text in enumerate(formatted)}
    dumps = ts_dumps({"old.ts": source.encode(), **{key: (text or "").encode() for key, text in pairs.items()}})
    assert dumps["old.ts"] is not None
    for key, text in pairs.items():
        assert text is not None and text != source
        oracle_same = dumps[key] == dumps["old.ts"]
        assert oracle_same == key.startswith("f"), key
        assert (verdict(name, source, text) == AST) == oracle_same, key


def test_typescript_oracle_sees_what_the_normal_form_ignores() -> None:
    """The oracle itself: parentheses, quotes and layout are spelling; an operator is not."""
    require("typescript")
    dumps = ts_dumps({"a.ts": b"const x = ((a + b)) * 2; const o = {'k': `t${a}`};",
                      "b.ts": b"const x = (a + b) * 2\nconst o = { k: `t${a}` }\n",
                      "c.ts": b"const x = a + b * 2; const o = {'k': `t${a}`};"})
    assert dumps["a.ts"] == dumps["b.ts"] != dumps["c.ts"]


# pairs where gitai and CPython's `ast` disagreed under black or ruff on real repositories
# (benchmarks/formatters.py --python-oracle), with a change next to each; now they agree
PYTHON_ORACLE_CASES = [
    # ruff joins a plain string and an f-string: the plain part's braces are doubled (click)
    ("x = \"a: {'k': \" f\"{v!r}}}\"\n", "x = f\"a: {{'k': {v!r}}}\"\n"),
    ("x = \"a: {k}\" f\"{v}\"\n", "x = f\"a: {k}{v}\"\n"),
    # black and ruff parenthesize a long annotation; tree-sitter reads `A[X] | B | None` as A[X] | (B | None)
    ("h: Iterable[T] | T | None = d.get(k)\n", "h: (\n    Iterable[T] | T | None\n) = d.get(k)\n"),
    ("h: Iterable[T] | T | None = d.get(k)\n", "h: Iterable[T] | (T | None) = d.get(k)\n"),
    # black --preview parenthesizes `del` targets: the oracle reads them as black's own check does (the stdlib)
    ("del c.maintype, c.subtype\n", "del (\n    c.maintype,\n    c.subtype,\n)\n"),
    ("del c.maintype, c.subtype\n", "del (c.maintype, c.subtypes)\n"),
    # black --preview drops the parentheses of a sole generator argument (the stdlib's email/header.py, enum.py)
    ("s = ''.join((str(v) for v in y))\n", "s = ''.join(str(v) for v in y)\n"),
    ("s = ''.join((str(v) for v in y))\n", "s = ''.join([str(v) for v in y])\n"),
    # black --preview wraps a long `case` pattern in parentheses: a group pattern (click)
    ("match x:\n    case str() | bytes():\n        pass\n",
     "match x:\n    case (\n        str()\n        | bytes()\n    ):\n        pass\n"),
    ("match x:\n    case str() | bytes():\n        pass\n", "match x:\n    case (str() | bytes(),):\n        pass\n"),
]


@pytest.mark.parametrize(("old", "new"), PYTHON_ORACLE_CASES)
def test_python_oracle_cases_agree(old: str, new: str) -> None:
    from testing.python_oracle import ast_dump

    assert (verdict("a.py", old, new) == AST) == (ast_dump(old) == ast_dump(new))
