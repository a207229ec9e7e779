"""Every canonical-form rule (gitai/syntax/canonical.py): the spellings it makes equal are
AST_REFACTOR, and a real change right next to it is still INTENT_EVOLUTION."""

from __future__ import annotations

import json

import pytest

from gitai.syntax.canonical import CANONS
from gitai.syntax.classify import FileChange, classify_changes

AST = "AST_REFACTOR"
INTENT = "INTENT_EVOLUTION"

# (rule, path, old, equal spelling, real change next to it)
RULES = [
    # --- Python
    ("python expression_list = tuple", "a.py", "a, b = x, y\nreturn_ = f(x, y)\n",
     "a, b = (x, y,)\nreturn_ = f(x, y)\n", "a, b = (x, y), z\nreturn_ = f(x, y)\n"),
    ("python tuple keeps one element", "a.py", "x = 1,\n", "x = (1,)\n", "x = (1)\n"),
    ("python pattern_list = tuple_pattern", "a.py", "for k, v in d:\n    pass\n",
     "for (k, v,) in d:\n    pass\n", "for (k, (v,)) in d:\n    pass\n"),
    ("python (s) target is s, (s,) unpacks", "a.py", "a = s = h[0]\n", "a = (s) = h[0]\n", "a = (s,) = h[0]\n"),
    ("python union_type = binary_operator", "a.py", "def f() -> A | B | None:\n    pass\n",
     "def f() -> (\n    A | B | None\n):\n    pass\n", "def f() -> (A | B) & None:\n    pass\n"),
    ("python `|` after a generic type is left-associative", "a.py", "h: A[X] | B | None = v\n",
     "h: (\n    A[X] | B | None\n) = v\n", "h: A[X] | (B | None) = v\n"),
    ("python sole generator argument", "a.py", "s = f((str(v) for v in y))\n", "s = f(str(v) for v in y)\n",
     "s = f((str(v) for v in y), 1)\n"),
    ("python sole generator argument, a list is no generator", "a.py", "s = f(((v for v in y)),)\n",
     "s = f(v for v in y)\n", "s = f([v for v in y])\n"),
    ("python group pattern", "a.py", "match x:\n    case (A() | B()):\n        pass\n",
     "match x:\n    case A() | B():\n        pass\n", "match x:\n    case (A() | B(),):\n        pass\n"),
    ("python group pattern in a sequence", "a.py", "match x:\n    case [(a), ((b))]:\n        pass\n",
     "match x:\n    case [a, b]:\n        pass\n", "match x:\n    case [(a,), b]:\n        pass\n"),
    ("python generic_type = subscript", "a.py", "def f() -> dict[str, int]:\n    pass\n",
     "def f() -> (dict[str, int]):\n    pass\n", "def f() -> dict[str, (int, str)]:\n    pass\n"),
    ("python left/right fields", "a.py", "x = a - b\n", "x = (a) - (b)\n", "x = b - a\n"),
    ("python return (x)", "a.py", "def f():\n    return (x)\n", "def f():\n    return x\n",
     "def f():\n    return (x,)\n"),
    ("python docstring whitespace", "a.py", 'def f():\n    """Doc.\n\n       More.   \n    """\n',
     'def f():\n    """Doc.\n\n    More.\n    """\n', 'def f():\n    """Doc.\n\n    More!\n    """\n'),
    ("python non-docstring whitespace kept", "a.py", 'def f():\n    x = 1\n    """a  """\n',
     'def f():\n    x = 1\n    """a  """\n', 'def f():\n    x = 1\n    """a"""\n'),
    ("python quote escapes", "a.py", "x = 'it\\'s'\n", 'x = "it\'s"\n', 'x = "it\\"s"\n'),
    ("python raw strings keep escapes", "a.py", "x = r'\\d'\n", 'x = r"\\d"\n', "x = r'\\D'\n"),
    ("python hex escape case", "a.py", "x = '\\xAB\\uFEFF'\n", "x = '\\xab\\ufeff'\n", "x = '\\xab\\ufefe'\n"),
    ("python \\u in bytes is no escape", "a.py", "x = b'\\xAB'\n", "x = b'\\xab'\n", "x = b'\\xab\\uFEFF'\n"),
    ("python u prefix", "a.py", "x = u'a'\n", "x = 'a'\n", "x = b'a'\n"),
    ("python number case", "a.py", "x = 0XFF + 1E5\n", "x = 0xff + 1e5\n", "x = 0xfe + 1e5\n"),
    ("python implicit concatenation", "a.py", "x = ('a' 'b')\n", "x = 'ab'\n", "x = 'a b'\n"),
    ("python f-string concatenation", "a.py", "x = f'{a}' 'b'\n", "x = f'{a}b'\n", "x = f'{a}' f'{b}'\n"),
    ("python f-string concatenation braces", "a.py", "x = 'a: {b} ' f'{c}}}'\n", "x = f'a: {{b}} {c}}}'\n",
     "x = 'a: ' f'{b} {c}}}'\n"),
    ("python raw and plain are not joined", "a.py", "x = r'\\d' 'b'\n", "x = r'\\d' 'b'\n", "x = '\\d' 'b'\n"),
    # --- JavaScript and TypeScript
    ("js single parameter", "a.js", "const f = x => g(x);\n", "const f = (x) => g(x);\n",
     "const f = (x, y) => g(x);\n"),
    ("js default parameter kept", "a.js", "const f = (x) => g(x);\n", "const f = x => g(x);\n",
     "const f = (x = 1) => g(x);\n"),
    ("js empty statement", "a.js", "a()\n;[1, 2].forEach(f)\n", "a();\n[1, 2].forEach(f);\n",
     "a()\n[1, 2].forEach(f)\n"),
    ("js empty statement as a body", "a.js", "if (a) b();\n", "if (a) b();;\n", "if (a);\nb();\n"),
    ("js quote escapes", "a.js", "x = 'it\\'s';\n", 'x = "it\'s";\n', 'x = "it\\\\\'s";\n'),
    ("js object keys", "a.js", "x = {'a': 1, 'b-c': 2, '0': 3};\n", "x = {a: 1, 'b-c': 2, 0: 3};\n",
     "x = {a: 1, 'b-c': 2, '01': 3};\n"),
    ("js unicode keys", "a.js", "x = {県: 1, '': 2};\n", "x = {'県': 1, '': 2};\n", "x = {'県 ': 1, '': 2};\n"),
    ("js member names", "a.js", "class A { 'a'() {} 'b' = 1; }\n", "class A { a() {} b = 1; }\n",
     "class A { ['a']() {} b = 1; }\n"),
    ("ts member names", "a.ts", "interface I { 'a'(): void; 'b': number }\nenum E { 'C' = 1 }\n",
     "interface I { a(): void; b: number }\nenum E { C = 1 }\n",
     "interface I { a(): void; b: number }\nenum E { D = 1 }\n"),
    ("ts module name is no member", "a.ts", "declare module 'm' {}\n", "declare module \"m\" {}\n",
     "declare module m {}\n"),
    ("js computed keys differ", "a.js", "x = {a: 1};\n", "x = {'a': 1};\n", "x = {[a]: 1};\n"),
    ("js numbers", "a.js", "x = 0XAB + 1.50 + .5 + 1E+5;\n", "x = 0xab + 1.5 + 0.5 + 1e5;\n",
     "x = 0xab + 1.5 + 0.5 + 1e6;\n"),
    ("js && and || chains are flat", "a.js", "if ((a || b) || (c || d)) f();\n", "if (a || b || c || d) f();\n",
     "if ((a || b) && (c || d)) f();\n"),
    ("js + is not associative", "a.js", "x = (a + b) + c;\n", "x = a + b + c;\n", "x = a + (b + c);\n"),
    ("js chain keeps its order", "a.js", "x = a && (b && c);\n", "x = a && b && c;\n", "x = b && a && c;\n"),
    ("js regex flags are a set", "a.js", "x = /a/ig;\n", "x = /a/gi;\n", "x = /a/g;\n"),
    ("js new without arguments", "a.js", "x = new X;\n", "x = new X();\n", "x = new X(1);\n"),
    ("js new of a member", "a.js", "x = new X.y;\n", "x = new X.y();\n", "x = new X().y;\n"),
    ("ts await binds before as", "a.ts", "x = await y as T;\n", "x = (await y) as T;\n", "x = await (y as T);\n"),
    ("ts satisfies and as chain", "a.ts", "x = await y satisfies A as B;\n", "x = ((await y) satisfies A) as B;\n",
     "x = await (y satisfies A) as B;\n"),
    ("ts cast wraps tighter operators", "a.ts", "x = a + await y as T * 2;\n", "x = ((a + await y) as T) * 2;\n",
     "x = a + ((await y) as T) * 2;\n"),
    ("ts cast stops at looser operators", "a.ts", "x = a || !await y as T;\n", "x = a || ((!await y) as T);\n",
     "x = (a || !await y) as T;\n"),
    ("ts prefix takes the generic call", "a.ts", "x = await g<T>(x).y;\n", "x = await (g<T>(x).y);\n",
     "x = (await g<T>(x)).y;\n"),
    ("ts parenthesized prefix stays the callee", "a.ts", "x = -g<T>(x);\n", "x = -(g<T>(x));\n",
     "x = (-g)<T>(x);\n"),
    ("ts generic call in a list", "a.ts", "f(await g<A<B, C>>(x));\n", "f(await g<\n  A<B, C>\n>(x));\n",
     "f(await g<A<B, D>>(x));\n"),
    ("ts generic call in an array", "a.ts", "x = [1, !await g<A, B>(x) + 1];\n",
     "x = [1, !(await (g<A, B>(x))) + 1];\n", "x = [1, !(await (g<A, B>(x)) + 1)];\n"),
    ("ts comparisons in a list stay", "a.ts", "f(a < b, c > d);\n", "f((a < b), (c > d));\n",
     "f(a < b, c > (d));\n"),
    ("ts single parameter", "a.ts", "const f = t => t.a;\n", "const f = (t) => t.a;\n",
     "const f = (t: T) => t.a;\n"),
    ("ts leading pipe", "a.ts", "type A = 'a' | 'b';\n", "type A =\n  | 'a'\n  | 'b';\n", "type A = 'a' | 'c';\n"),
    ("ts parenthesized type", "a.ts", "let x: (A | B)[];\n", "let x: (A | B)[];\n", "let x: A | B[];\n"),
    # --- Rust
    ("rust match arm block", "a.rs", "fn f() { match x { A => g(), B => h() } }\n",
     "fn f() { match x { A => { g() } B => h(), } }\n", "fn f() { match x { A => { g(); } B => h(), } }\n"),
    ("rust closure block", "a.rs", "fn f() { v.map(|a| a + 1); }\n", "fn f() { v.map(|a| { a + 1 }); }\n",
     "fn f() { v.map(|a| { a + 1; }); }\n"),
    ("rust block elsewhere kept", "a.rs", "fn f() { let y = x; }\n", "fn f() { let y = x; }\n",
     "fn f() { let y = { x }; }\n"),
    ("rust if ending a closure", "a.rs", "fn f() { v.map(|q| if q { 1 } else { 2 }); }\n",
     "fn f() { v.map(|q| { if q { 1 } else { 2 } }); }\n", "fn f() { v.map(|q| { if q { 1 } else { 2 }; }); }\n"),
    ("rust return;", "a.rs", "fn f() -> u8 { if a { return 1; } 2 }\n", "fn f() -> u8 { if a { return 1 } 2 }\n",
     "fn f() -> u8 { if a { 1; } 2 }\n"),
    ("rust use order", "a.rs", "use b::x;\nuse a::{d, c};\nfn f() {}\n", "use a::{c, d};\nuse b::x;\nfn f() {}\n",
     "use a::{c, e};\nuse b::x;\nfn f() {}\n"),
    ("rust use run ends at an item", "a.rs", "use a::x;\nfn f() {}\nuse b::y;\n", "use a::x;\nfn f() {}\nuse b::y;\n",
     "use a::x;\nfn f() {}\nuse b::z;\n"),
    ("rust string continuation", "a.rs", 'fn f() { g("a \\\n    b \\\n    c"); }\n',
     'fn f() { g("a \\\n\t\tb \\\n\t\tc"); }\n', 'fn f() { g("a \n    b \\\n    c"); }\n'),
    ("rust continuation ends at text", "a.rs", 'fn f() { g(b"a \\\n  b"); }\n', 'fn f() { g(b"a \\\nb"); }\n',
     'fn f() { g(b"a \\\n  b "); }\n'),
    ("rust macro body as code", "a.rs", "macro_rules! m { ($a:expr) => { $a.map(|s| s + 1) }; }\n",
     "macro_rules! m {\n    ($a:expr) => {\n        $a.map(|s| { s + 1 })\n    };\n}\n",
     "macro_rules! m { ($a:expr) => { $a.map(|s| { s + 1; }) }; }\n"),
    ("rust metavariable is no name", "a.rs", "macro_rules! m { ($a:expr) => { $a.map(|s| s) }; }\n",
     "macro_rules! m { ($a:expr) => { $a.map(|s| { s }) }; }\n",
     "macro_rules! m { ($a:expr) => { _a.map(|s| s) }; }\n"),
    ("rust repetition stays tokens", "a.rs", "macro_rules! m { ($($a:expr),*) => { $(f($a);)* }; }\n",
     "macro_rules! m {\n    ($($a:expr),*) => {\n        $(f($a);)*\n    };\n}\n",
     "macro_rules! m { ($($a:expr),*) => { $(g($a);)* }; }\n"),
    ("rust std macro arguments as code", "a.rs", "fn f() { assert_eq!(x.map(|s| g(s)), y); }\n",
     "fn f() { assert_eq!(x.map(|s| { g(s) }), y); }\n", "fn f() { assert_eq!(x.map(|s| { g(s); }), y); }\n"),
    ("rust other macros keep tokens", "a.rs", "fn f() { m!(x.map(|s| g(s))); }\n", "fn f() { m!(x.map(|s| g(s))); }\n",
     "fn f() { m!(x.map(|s| { g(s) })); }\n"),
    # --- Go
    ("go import order", "a.go", 'package m\n\nimport (\n\t"b"\n\t"a"\n)\n', 'package m\n\nimport (\n\t"a"\n\t"b"\n)\n',
     'package m\n\nimport (\n\t"a"\n\tb "b"\n)\n'),
    ("go import declarations", "a.go", 'package m\n\nimport "b"\nimport "a"\n', 'package m\n\nimport "a"\nimport "b"\n',
     'package m\n\nimport "a"\nimport "c"\n'),
    # --- Java
    ("java import order", "A.java", "import b.B;\nimport a.A;\nclass C {}\n", "import a.A;\nimport b.B;\nclass C {}\n",
     "import a.A;\nimport static b.B;\nclass C {}\n"),
    ("java empty enum body", "A.java", "enum E { A, B; }\n", "enum E { A, B }\n", "enum E { A, B; int x; }\n"),
    # --- C and C++
    ("c include order", "a.c", "#include <b.h>\n#include <a.h>\nint x;\n", "#include <a.h>\n\n#include <b.h>\nint x;\n",
     "#include <a.h>\n#include <c.h>\nint x;\n"),
    ("c include counted once", "a.c", "#include <a.h>\n#include <a.h>\nint x;\n", "#include <a.h>\nint x;\n",
     "#include \"a.h\"\nint x;\n"),
    ("c include run ends at a declaration", "a.c", "#include <a.h>\nint x;\n#include <b.h>\n",
     "#include <a.h>\nint x;\n#include <b.h>\n", "#include <b.h>\nint x;\n#include <a.h>\n"),
    ("c directive layout", "a.c", "#ifdef A\n#define X 1\n#endif\n", "#ifdef A\n#  define X 1\n#endif\n",
     "#ifndef A\n#  define X 1\n#endif\n"),
    ("c other directives' layout", "a.c", "#error \"no\"\n#pragma once\n", "#  error \"no\"\n#  pragma once\n",
     "#warning \"no\"\n#pragma once\n"),
    ("c macro body tokens", "a.c", "#define M(a,b) ((a)>(b)?(a):(b))\n",
     "#define M(a, b)                                                   \\\n  ((a) > (b) ? (a) : (b))\n",
     "#define M(a, b) ((a) >> (b) ? (a) : (b))\n"),
    ("c macro token boundaries", "a.c", "#define N a+ +b\n", "#define N a + + b\n", "#define N a ++b\n"),
    ("c macro strings joined", "a.c", '#define S f("default")\n', '#define S f("defa" "ult")\n',
     '#define S f("defa" L"ult")\n'),
    ("c macro hex escape not joined", "a.c", '#define S "\\x12"\n', '#define S "\\x12"\n', '#define S "\\x1" "2"\n'),
    ("c string literals joined", "a.c", 'char *s = "ab";\n', 'char *s = "a"\n          "b";\n', 'char *s = "a" "c";\n'),
    ("c hex escape not joined", "a.c", 'char *s = "\\x12";\n', 'char *s = "\\x12";\n', 'char *s = "\\x1" "2";\n'),
    ("c prefixed literals joined", "a.c", 'int *s = L"ab";\n', 'int *s = L"a" L"b";\n', 'int *s = L"a" "b";\n'),
    ("c literals with escapes joined", "a.c", 'char *s = u8"a\\n\\tb\\n";\n',
     'char *s = u8"a\\n" u8"" u8"\\tb" u8"\\n";\n',
     'char *s = u8"a\\n" u8"\\t" "b\\n";\n'),
    ("c macro between literals", "a.c", 'char *s = "ab" X "c";\n', 'char *s = "a" "b" X "c";\n',
     'char *s = "a" X "bc";\n'),
    ("cpp include order", "a.cc", "#include <vector>\n#include <map>\nnamespace n {}\n",
     "#include <map>\n#include <vector>\nnamespace n {}\n", "#include <map>\n#include <set>\nnamespace n {}\n"),
    ("cpp raw strings kept apart", "a.cc", 'auto s = "ab";\n', 'auto s = "a" "b";\n', 'auto s = u8"a" "b";\n'),
    # --- PHP
    ("php quotes", "a.php", "<?php $a = 'it\\'s';\n", "<?php $a = \"it's\";\n", "<?php $a = \"it\\'s\";\n"),
    ("php escapes by quote kind", "a.php", "<?php $a = '\\\\n';\n", "<?php $a = \"\\\\n\";\n", "<?php $a = \"\\n\";\n"),
    ("php interpolation", "a.php", "<?php $a = '$b';\n", "<?php $a = \"\\$b\";\n", "<?php $a = \"$b\";\n"),
    ("php parentheses", "a.php", "<?php $a = ($b + $c) * $d;\n", "<?php $a = (($b + $c)) * ($d);\n",
     "<?php $a = $b + $c * $d;\n"),
    ("php heredoc indentation", "a.php", "<?php\n$a = <<<EOT\nx\n  y $z\nEOT;\n",
     "<?php\n$a = <<<EOT\n    x\n      y $z\n    EOT;\n", "<?php\n$a = <<<EOT\n    x\n    y $z\n    EOT;\n"),
    ("php long array syntax", "a.php", "<?php $a = array(1, 'b' => 2);\n", "<?php $a = [1, 'b' => 2];\n",
     "<?php $a = [1, 'b' => 3];\n"),
    ("php list is no array", "a.php", "<?php [$a, $b] = $c;\n", "<?php [$a, $b] = $c;\n",
     "<?php list($a, $b) = array($c);\n"),
    ("php new without arguments", "a.php", "<?php $a = new Foo;\n", "<?php $a = new Foo();\n",
     "<?php $a = new Foo(1);\n"),
    ("php new of an expression", "a.php", "<?php $a = new $b;\n", "<?php $a = new $b();\n",
     "<?php $a = new $b->c();\n"),
    ("php nowdoc with blank lines", "a.php", "<?php\n$a = <<<'EOT'\nx\n\n  y\nEOT;\n",
     "<?php\n$a = <<<'EOT'\n    x\n\n      y\n    EOT;\n", "<?php\n$a = <<<'EOT'\n    x\n\n    y\n    EOT;\n"),
    ("php heredoc start", "a.php", "<?php\n$a = <<<EOT\nx\nEOT;\n", "<?php\n$a = <<< EOT\nx\nEOT;\n",
     "<?php\n$a = <<<EOS\nx\nEOS;\n"),
]


def verdict(path: str, old: str, new: str) -> str:
    result = classify_changes([FileChange(path, path, old.encode(), new.encode())])
    file = result.files[path]
    assert file.classification == AST or file.reason, json.dumps(file.to_json())
    return file.classification


@pytest.mark.parametrize(("rule", "path", "old", "same", "changed"), RULES, ids=[r[0] for r in RULES])
def test_rule_keeps_meaning_and_catches_the_change_next_to_it(rule: str, path: str, old: str, same: str,
                                                              changed: str) -> None:
    assert verdict(path, old, same) == AST, rule
    assert verdict(path, old, changed) == INTENT, rule
    assert verdict(path, same, changed) == INTENT, rule


def test_every_table_entry_has_a_rule_test() -> None:
    """A new entry in a table needs a row in RULES (its language at least)."""
    covered = {path.rsplit(".", 1)[1] for _, path, *_ in RULES}
    extensions = {"python": "py", "javascript": "js", "typescript": "ts", "tsx": "ts", "go": "go", "rust": "rs",
                  "java": "java", "c": "c", "cpp": "cc", "php": "php"}
    assert {extensions[language] for language in CANONS} <= covered


def test_record_lists_changed_definitions_and_reformatted_ones_only() -> None:
    """to_record_json: changed definitions, plus (AST_REFACTOR) unchanged ones holding a changed line."""
    from gitai.syntax.classify import to_record_json

    old = b"def f(x):\n    return x\n\n\ndef g():\n    return 1\n\n\ndef h():\n    return 2\n"
    new = b"def f(x):\n    return (\n        x\n    )\n\n\ndef g():\n    return 1\n\n\ndef h():\n    return 2\n"
    refactor = classify_changes([FileChange("a.py", "a.py", old, new)]).files["a.py"]
    assert refactor.classification == AST
    entry = to_record_json(refactor, [2, 3, 4])
    assert entry["definitions"] == [{"kind": "function", "name": "f", "status": "unchanged",
                                     "old_lines": [1, 2], "new_lines": [1, 4]}]
    evolution = classify_changes([FileChange("a.py", "a.py", old, new.replace(b"return 2", b"return 3"))])
    entry = to_record_json(evolution.files["a.py"], [2, 3, 4, 12])
    assert [(d["name"], d["status"]) for d in entry["definitions"]] == [("h", "modified")]
    assert entry["reason"] == "modified: function h (lines 11-12)"


def test_raw_string_with_an_escaped_quote_keeps_its_text() -> None:
    """tree-sitter-python gives `r"\\""` no content node (its text is in the closing token)."""
    assert verdict("a.py", 'x = r"\\""\n', "x = r'\\\"'\n") == AST
    assert verdict("a.py", 'x = r"\\""\n', 'x = r""\n') == INTENT
    assert verdict("a.py", 'x = r"\\""\n', "x = r'\\\\'\n") == INTENT
