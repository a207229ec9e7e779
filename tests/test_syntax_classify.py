"""gitai.syntax: normal-form hashing and AST_REFACTOR / INTENT_EVOLUTION classification."""

from __future__ import annotations

import importlib.metadata
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gitai.syntax.classify import (
    CommitClassification,
    DefinitionChange,
    FileChange,
    FileClassification,
    classify_changes,
)
from gitai.syntax.hash_cache import DIRECTORY as HASH_CACHE_DIRECTORY
from gitai.syntax.hash_cache import HashCache
from gitai.syntax.languages import language_for_path
from gitai.syntax.normal_form import hash_source
from gitai.util.files import LARGE_FILE

AST = "AST_REFACTOR"
INTENT = "INTENT_EVOLUTION"


def src(text: str) -> bytes:
    return textwrap.dedent(text).lstrip("\n").encode()


def classify_one(path: str, old: bytes | None, new: bytes | None, new_path: str | None = None) -> FileClassification:
    result = classify_changes([FileChange(path if old is not None else None,
                                          (new_path or path) if new is not None else None, old, new)])
    assert len(result.files) == 1
    return next(iter(result.files.values()))


def definitions(result: FileClassification) -> dict[str, DefinitionChange]:
    return {d.name: d for d in result.definitions}


# (path, old, new, expected): each pair differs by one kind of edit.
PAIRS = [
    # --- Python
    ("a.py", "def f(x):\n  if x:\n    return 1\n  return 2\n",
     "def f(x):\n    if x:\n        return 1\n    return 2\n", AST),  # reindent
    ("a.py", "total = compute(alpha, beta, gamma=3)\n",
     "total = compute(\n    alpha,\n    beta,\n    gamma=3,\n)\n", AST),  # reflow + trailing comma
    ("a.py", "x = 1  # one\n# a note\ny = 2\n", "x = 1  # the number one\ny = 2\n", AST),  # comments
    ("a.py", "names = ['a', 'b']\nf(x=1, y=2)\n", "names = ['a', 'b',]\nf(x=1, y=2,)\n", AST),  # trailing commas
    ("a.py", "s = 'it' + r'\\d' + b'x'\n", 's = "it" + R"\\d" + b"""x"""\n', AST),  # quote style, prefix case
    ("a.py", "y = (a + b) * c\nif (y > 2):\n    z = (y)\n", "y = (a + b) * c\nif y > 2:\n    z = y\n", AST),  # parens
    ("a.py", "def f():\n    return 1\n\n\ndef g():\n    return 2\n",
     "def g():\n    return 2\n\n\ndef f():\n    return 1\n", AST),  # reordered functions
    ("a.py", "class A:\n    x = 1\n    def m(self):\n        return 1\n    def n(self):\n        return 2\n",
     "class A:\n    x = 1\n    def n(self):\n        return 2\n    def m(self):\n        return 1\n", AST),  # methods
    ("a.py", "x = a + b\n", "x = a - b\n", INTENT),  # operator
    ("a.py", "x = 'on'\n", "x = 'off'\n", INTENT),  # literal
    ("a.py", "def f(x):\n    return x\n", "def f(x):\n    log(x)\n    return x\n", INTENT),  # new call
    ("a.py", "def f():\n    return 1\n", "async def f():\n    return 1\n", INTENT),  # def -> async def
    ("a.py", "def f(x=1):\n    return x\n", "def f(x=2):\n    return x\n", INTENT),  # default argument
    ("a.py", "def f():\n    pass\n", "def f():\n    pass\n\n\ndef g():\n    pass\n", INTENT),  # new definition
    ("a.py", "def f():\n    pass\n\n\ndef g():\n    pass\n", "def f():\n    pass\n", INTENT),  # deleted definition
    ("a.py", "def f():\n    return 1\n", "def f(:\n    return 1\n", INTENT),  # syntax error
    ("a.py", "def f():\n    '''Old doc.'''\n", "def f():\n    '''New doc.'''\n", INTENT),  # docstring kept
    ("a.py", "x = a[1:]\n", "x = a[:1]\n", INTENT),  # slice bounds
    ("a.py", "x = b'a'\n", "x = 'a'\n", INTENT),  # bytes prefix is meaning
    ("a.py", "import os\n", "import os\nimport sys\n", INTENT),  # imports are strict
    ("a.py", "x = 'a\\n b'\n", "x = 'a\\nb'\n", INTENT),  # whitespace inside a string
    ("a.py", "x = f(1) and 'a' \\\n    'b'\n", "x = f(1) and 'a' 'b'\n", AST),  # line continuation
    ("a.py", "ok = a not  in b\n", "ok = a not in b\n", AST),  # layout inside a keyword
    # --- JavaScript and JSX
    ("a.js", "const a = 'x';\nlet b = f(a, 1);\n", 'const a = "x"\nlet b = f(\n  a,\n  1,\n)\n', AST),
    ("a.js", "class C {\n  a() { return 1; }\n  b() { return 2; }\n}\n",
     "class C {\n  b() {\n    return 2;\n  }\n\n  a() {\n    return 1;\n  }\n}\n", AST),
    ("a.mjs", "export const f = (x) => x === 1;\n", "export const f = (x) => x == 1;\n", INTENT),
    ("a.js", "const s = `a${b}c`;\n", "const s = `a${b}d`;\n", INTENT),
    ("a.js", "const a = 1;\n", "let a = 1;\n", INTENT),
    ("a.jsx", 'const el = <div className="x" id={y}>hi</div>;\n',
     'const el = (\n  <div\n    className="x"\n    id={y}\n  >\n    hi\n  </div>\n);\n', AST),
    ("a.jsx", 'const el = <div className="x">hi</div>;\n', 'const el = <div className="y">hi</div>;\n', INTENT),
    # --- TypeScript and TSX
    ("a.ts", "interface I { a: number; b: string }\nfunction f<T,>(x: T): T { return x }\n",
     "function f<T>(x: T): T {\n  return x;\n}\n\ninterface I {\n  a: number,\n  b: string,\n}\n", AST),
    ("a.ts", "function f(x: number): number { return x; }\n", "function f(x: string): number { return x; }\n", INTENT),
    ("a.ts", "function f(x: number) { return x; }\n", "function f(x?: number) { return x; }\n", INTENT),
    ("a.tsx", "export const App = ({ n }: Props) => <List items={n} onPick={(i) => pick(i)} />;\n",
     "export const App = ({ n }: Props) => (\n  <List\n    items={n}\n    onPick={(i) => pick(i)}\n  />\n);\n", AST),
    ("a.tsx", "export const App = () => <List size={1} />;\n", "export const App = () => <List size={2} />;\n", INTENT),
    # --- Go
    ("a.go", "package m\n\nfunc f(a, b int) int {\n    x := (a+b)\n    return x\n}\n",
     "package m\n\nfunc f(a, b int) int {\n\tx := a + b\n\treturn x\n}\n", AST),
    ("a.go", "package m\n\nfunc A() {}\n\nfunc (s *S) B() {}\n\ntype S struct{ x int }\n",
     "package m\n\ntype S struct {\n\tx int\n}\n\nfunc (s *S) B() {}\n\nfunc A() {}\n", AST),
    ("a.go", "package m\n\nfunc f() int { return 1 }\n", "package m\n\nfunc f() int { return 2 }\n", INTENT),
    ("a.go", "package m\n\nfunc f(s []int) []int { return s[1:] }\n",
     "package m\n\nfunc f(s []int) []int { return s[:1] }\n", INTENT),
    # --- Rust
    ("a.rs", "fn f(v: &[u8]) -> usize { v.iter().filter(|x| **x > 1).count() }\n",
     "fn f(v: &[u8]) -> usize {\n    v.iter()\n        .filter(|x| **x > 1)\n        .count()\n}\n", AST),
    ("a.rs", "struct S { a: u8, b: u8 }\n"
             "impl S {\n    fn a(&self) -> u8 { self.a }\n    fn b(&self) -> u8 { self.b }\n}\n",
     "struct S {\n    a: u8,\n    b: u8,\n}\n\nimpl S {\n    fn b(&self) -> u8 {\n        self.b\n    }\n\n"
     "    fn a(&self) -> u8 {\n        self.a\n    }\n}\n", AST),
    ("a.rs", "impl S { fn get(&self) -> u8 { 1 } }\n", "impl S { fn get(&mut self) -> u8 { 1 } }\n", INTENT),
    ("a.rs", 'fn f() { g(b"x") }\n', 'fn f() { g("x") }\n', INTENT),  # byte string prefix
    ("a.rs", 'fn f() { g(r#"x"#) }\n', 'fn f() { g(r##"x"##) }\n', INTENT),  # raw delimiters kept as written
    ("a.rs", "#[derive(Debug)]\nstruct S;\n", "#[derive(Debug, Clone)]\nstruct S;\n", INTENT),
    # --- Java
    ("A.java", "class A {\n  int a() { return 1; }\n  int b() { return (2); }\n}\n",
     "class A\n{\n    int b()\n    {\n        return 2;\n    }\n\n    int a() { return 1; }\n}\n", AST),
    ("A.java", "class A {\n  public int a() { return 1; }\n}\n",
     "class A {\n  private int a() { return 1; }\n}\n", INTENT),
    ("A.java", 'class A {\n  String s() { return "a"; }\n}\n', 'class A {\n  String s() { return "b"; }\n}\n', INTENT),
    ("A.java", "class A {\n  void a() {}\n}\n", "class A {\n  @Deprecated\n  void a() {}\n}\n", INTENT),
    # --- C, C++ and PHP
    ("a.c", "static int f(int x) { return x + 1; }\nint g(void) { return f(2); }\n",
     "int g(void)\n{\n    return f(2); /* two */\n}\n\nstatic int\nf(int x)\n{\n    return x + 1;\n}\n", AST),
    ("a.c", "int f(int x) { return x + 1; }\n", "int f(int x) { return x - 1; }\n", INTENT),
    ("a.c", "int f(int *p) { return *p; }\n", "int f(int *p) { return p; }\n", INTENT),
    ("a.h", "#ifndef A_H\n#define A_H\nstruct S { int a; };\n#endif\n",
     "#ifndef A_H\n#define A_H\nstruct S {\n  int a;\n};\n#endif // A_H\n", AST),
    ("a.cc", "namespace n {\nclass A {\n public:\n  int f() const { return 1; }\n};\n}  // namespace n\n",
     "namespace n\n{\nclass A\n{\npublic:\n    int f() const\n    {\n        return 1;\n    }\n};\n} // namespace n\n",
     AST),
    ("a.cc", "std::vector<std::vector<int> > v;\n", "std::vector<std::vector<int>> v;\n", AST),
    ("a.cc", "class A { public: int f() const { return 1; } };\n", "class A { public: int f() { return 1; } };\n",
     INTENT),
    ("a.cpp", "int f(int a) { return a << 1; }\n", "int f(int a) { return a < 1; }\n", INTENT),
    ("a.php", "<?php\nfunction f($a) { return $a . 'x'; }\nclass A { public function m() { return 1; } }\n",
     "<?php\nclass A\n{\n    public function m()\n    {\n        return 1;\n    }\n}\n\nfunction f($a)\n{\n"
     "    return $a . \"x\"; // x\n}\n", AST),
    ("a.php", "<?php\nfunction f($a) { return $a . 'x'; }\n", "<?php\nfunction f($a) { return $a + 'x'; }\n", INTENT),
    ("a.php", "<?php\nfunction f($a) { return \"a\\n\"; }\n", "<?php\nfunction f($a) { return 'a\\n'; }\n", INTENT),
]


@pytest.mark.parametrize(
    ("path", "old", "new", "expected"),
    PAIRS,
    ids=[f"{i:02d}-{p[0]}-{p[3][:3]}" for i, p in enumerate(PAIRS)],
)
def test_pair(path: str, old: str, new: str, expected: str) -> None:
    result = classify_one(path, old.encode(), new.encode())
    assert result.classification == expected, json.dumps(result.to_json(), indent=1)
    assert result.language == language_for_path(path)


def test_pairs_cover_every_language() -> None:
    languages = {language_for_path(path) for path, *_ in PAIRS}
    assert languages == {"python", "javascript", "typescript", "tsx", "go", "rust", "java", "c", "cpp", "php"}
    assert {path.rsplit(".", 1)[1] for path, *_ in PAIRS} >= {"jsx", "tsx"}


def test_function_moved_to_a_new_file_is_a_refactor() -> None:
    old_a = src("""
        import os


        def keep():
            return os.sep


        def helper(x):
            return x * 2
        """)
    new_a = src("""
        import os


        def keep():
            return os.sep
        """)
    new_b = src("""
        # moved here from a.py
        def helper(x):
            return x * 2
        """)
    result = classify_changes([FileChange("a.py", "a.py", old_a, new_a), FileChange(None, "b.py", None, new_b)])
    assert result.classification == AST
    assert list(result.files) == ["a.py", "b.py"]
    moved_in = definitions(result.files["b.py"])["helper"]
    assert (moved_in.status, moved_in.new_lines, moved_in.old_lines) == ("moved", (2, 3), None)
    assert moved_in.moved_from == {"path": "a.py", "name": "helper"}
    moved_out = definitions(result.files["a.py"])["helper"]
    assert (moved_out.status, moved_out.old_lines, moved_out.new_lines) == ("moved", (8, 9), None)
    assert moved_out.moved_to == {"path": "b.py", "name": "helper"}
    assert definitions(result.files["a.py"])["keep"].status == "unchanged"


def test_moved_function_that_changed_is_intent() -> None:
    old_a = b"def helper(x):\n    return x * 2\n\n\ndef keep():\n    pass\n"
    new_a = b"def keep():\n    pass\n"
    new_b = b"def helper(x):\n    return x * 3\n"
    result = classify_changes([FileChange("a.py", "a.py", old_a, new_a), FileChange(None, "b.py", None, new_b)])
    assert result.classification == INTENT
    assert definitions(result.files["a.py"])["helper"].status == "removed"
    assert result.files["b.py"].reason == "file added"


def test_file_split_across_languages_keeps_language_boundaries() -> None:
    """A Go file moved whole into another file keeps a bare package clause: AST_REFACTOR."""
    old_a = b"package m\n\nfunc A() int { return 1 }\n"
    old_b = b"package m\n\nfunc B() int { return 2 }\n"
    new_b = b"package m\n\nfunc B() int { return 2 }\n\nfunc A() int {\n\treturn 1\n}\n"
    result = classify_changes([FileChange("a.go", None, old_a, None), FileChange("b.go", "b.go", old_b, new_b)])
    assert result.classification == AST, result.to_json()
    assert result.files["a.go"].definitions[0].moved_to == {"path": "b.go", "name": "A"}


def test_definition_statuses_names_and_lines() -> None:
    old = src("""
        class Auth:
            def login(self, user):
                return check(user)

            def logout(self):
                return None

            def legacy(self):
                return 0


        def token(value):
            return value
        """)
    new = src("""
        class Auth:
            def logout(self):
                return None

            def login(self, user):
                return check(user, strict=True)

            def refresh(self):
                return 2

            def token(value):
                return value
        """)
    result = classify_one("auth.py", old, new)
    assert result.classification == INTENT
    by_name = definitions(result)
    assert set(by_name) == {"Auth", "Auth.login", "Auth.logout", "Auth.legacy", "Auth.refresh", "Auth.token"}
    assert (by_name["Auth"].kind, by_name["Auth"].status) == ("class", "unchanged")
    assert (by_name["Auth.logout"].kind, by_name["Auth.logout"].status) == ("method", "unchanged")
    assert by_name["Auth.logout"].old_lines == (5, 6) and by_name["Auth.logout"].new_lines == (2, 3)
    login = by_name["Auth.login"]
    assert (login.status, login.old_lines, login.new_lines) == ("modified", (2, 3), (5, 6))
    assert (by_name["Auth.refresh"].status, by_name["Auth.refresh"].old_lines) == ("added", None)
    legacy = by_name["Auth.legacy"]
    assert (legacy.status, legacy.old_lines, legacy.new_lines) == ("removed", (8, 9), None)
    moved = by_name["Auth.token"]
    assert (moved.status, moved.old_lines, moved.new_lines) == ("moved", (12, 13), (11, 12))
    assert moved.moved_from == {"path": "auth.py", "name": "token"}
    standalone = hash_source("python", b"def token(value):\n    return value\n").definitions[0]
    assert moved.hash == standalone.hash != legacy.hash
    payload = result.to_json()
    assert json.loads(json.dumps(payload)) == payload
    assert payload["definitions"][0] == {
        "kind": "class", "name": "Auth", "status": "unchanged", "hash": by_name["Auth"].hash,
        "old_lines": [1, 9], "new_lines": [1, 12],
    }
    assert [d["name"] for d in payload["definitions"]] == [
        "Auth", "Auth.logout", "Auth.login", "Auth.refresh", "Auth.token", "Auth.legacy"]


@pytest.mark.parametrize(
    ("path", "code", "expected"),
    [
        ("s.rs", "struct Server;\nimpl Server {\n    fn start(&self) {}\n}\n"
                 "impl fmt::Display for Server {\n    fn fmt(&self) {}\n}\ntrait T { fn m(&self); }\n"
                 "mod inner { fn f() {} }\n",
         [("struct", "Server"), ("impl", "Server"), ("method", "Server::start"),
          ("impl", "<Server as fmt::Display>"), ("method", "<Server as fmt::Display>::fmt"),
          ("trait", "T"), ("method", "T::m"), ("module", "inner"), ("function", "inner::f")]),
        ("s.go", "package m\n\ntype Server[T any] struct{}\n\ntype (\n\tA int\n\tI interface{ M() }\n)\n\n"
                 "func (s *Server[T]) Start() {}\n\nfunc New() *Server[int] { return nil }\n",
         [("struct", "Server"), ("type", "A"), ("interface", "I"), ("method", "Server.Start"),
          ("function", "New")]),
        ("S.java", "public class S {\n  S() {}\n  void run() {}\n  enum E { X; void e() {} }\n"
                   "  interface I { void i(); }\n}\n",
         [("class", "S"), ("constructor", "S.S"), ("method", "S.run"), ("enum", "S.E"), ("method", "S.E.e"),
          ("interface", "S.I"), ("method", "S.I.i")]),
        ("s.ts", "export class C { m(): void {} handler = () => 1; }\nexport interface I { f(): void }\n"
                 "type T = string;\nenum E { A }\nnamespace N { export function g() {} }\n"
                 "declare function d(): void;\nexport const arrow = async () => 1;\n",
         [("class", "C"), ("method", "C.m"), ("method", "C.handler"), ("interface", "I"), ("method", "I.f"),
          ("type", "T"), ("enum", "E"), ("namespace", "N"), ("function", "N.g"), ("function", "d"),
          ("function", "arrow")]),
        ("s.c", "#ifndef S_H\n#define S_H\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\nstruct S { int a; };\n"
                "typedef struct { int b; } T;\nenum E { X };\nstatic int *f(int a) { return 0; }\n#endif\n",
         [("macro", "S_H"), ("macro", "MAX"), ("struct", "S"), ("type", "T"), ("enum", "E"), ("function", "f")]),
        ("s.cc", "namespace n {\nclass A : public B {\n public:\n  int f() const { return 1; }\n  ~A() {}\n"
                 "  template <class T> void g(T t) {}\n};\nint A::h() { return 2; }\n}\n"
                 "template <typename T> struct S { T x; };\nextern \"C\" { int c(void) { return 0; } }\n"
                 "bool operator==(const A&, const A&) { return true; }\nnamespace { void hidden() {} }\n",
         [("namespace", "n"), ("class", "n::A"), ("method", "n::A::f"), ("method", "n::A::~A"),
          ("method", "n::A::g"), ("function", "n::A::h"), ("struct", "S"), ("function", "c"),
          ("function", "operator=="), ("function", "hidden")]),
        ("s.php", "<?php\nnamespace App;\nfunction f($a) { return 1; }\n"
                  "abstract class A extends B { const X = 1; public function m(): int { return 1; } }\n"
                  "interface I { public function n(); }\ntrait T { function t() {} }\n"
                  "enum E: string { case A = 'a'; public function label() {} }\n",
         [("function", "f"), ("class", "A"), ("method", "A::m"), ("interface", "I"), ("method", "I::n"),
          ("trait", "T"), ("method", "T::t"), ("enum", "E"), ("method", "E::label")]),
        ("s.py", "@decorator\nclass A:\n    class B:\n        def m(self):\n            def local():\n"
                 "                pass\n\ndef f():\n    pass\n",
         [("class", "A"), ("class", "A.B"), ("method", "A.B.m"), ("function", "f")]),
    ],
    ids=["rust", "go", "java", "typescript", "c", "cpp", "php", "python"],
)
def test_definition_names(path: str, code: str, expected: list[tuple[str, str]]) -> None:
    language = language_for_path(path)
    assert language is not None
    parsed = hash_source(language, code.encode())
    assert not parsed.parse_error
    assert [(d.kind, d.name) for d in parsed.definitions] == expected


def test_decorators_and_attributes_belong_to_their_definition() -> None:
    rust_old = b"#[derive(Debug)]\nstruct S;\n\nfn f() {}\n"
    rust_new = b"fn f() {}\n\n#[derive(Debug)]\nstruct S;\n"
    assert classify_one("a.rs", rust_old, rust_new).classification == AST
    parsed = hash_source("rust", rust_old)
    assert parsed.definitions[0].lines == (1, 2)
    py_old = b"@cache\ndef f():\n    pass\n\ndef g():\n    pass\n"
    py_new = b"def g():\n    pass\n\n@cache\ndef f():\n    pass\n"
    assert classify_one("a.py", py_old, py_new).classification == AST


def test_duplicate_definitions_compare_as_multisets() -> None:
    old = b"def f():\n    return 1\n\ndef f():\n    return 2\n"
    swapped = b"def f():\n    return 2\n\ndef f():\n    return 1\n"
    changed = b"def f():\n    return 2\n\ndef f():\n    return 3\n"
    assert classify_one("a.py", old, swapped).classification == AST
    result = classify_one("a.py", old, changed)
    assert result.classification == INTENT
    assert sorted(d.status for d in result.definitions) == ["modified", "unchanged"]


def test_a_repeated_name_pairs_as_a_multiset_beside_names_defined_once() -> None:
    old = b"def a():\n    return 0\n\ndef f():\n    return 1\n\ndef f():\n    return 2\n\ndef b():\n    pass\n"
    new = b"def f():\n    return 2\n\ndef c():\n    pass\n\ndef f():\n    return 3\n\ndef a():\n    return 9\n"
    result = classify_one("a.py", old, new)
    assert [(d.name, d.status, d.old_lines, d.new_lines) for d in result.definitions] == [
        ("f", "unchanged", (7, 8), (1, 2)),
        ("c", "added", None, (4, 5)),
        ("f", "modified", (4, 5), (7, 8)),
        ("a", "modified", (1, 2), (10, 11)),
        ("b", "removed", (10, 11), None),
    ]


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("deep.py", b"x = " + b"(" * 10_000 + b"1" + b")" * 10_000 + b"\n"),
        ("deep.js", b"x = " + b"[" * 10_000 + b"1" + b"]" * 10_000 + b";\n"),
        ("deep.rs", b"fn f() { let x = " + b"(" * 10_000 + b"1" + b")" * 10_000 + b"; }\n"),
    ],
    ids=["python", "javascript", "rust"],
)
def test_deep_nesting_does_not_recurse(path: str, code: bytes) -> None:
    result = classify_one(path, code, code.replace(b"1", b"2"))
    assert result.classification == INTENT
    assert classify_one(path, code, code).classification == AST


def test_three_megabyte_minified_line_completes() -> None:
    unit = b"function f%d(a){return a+%d};var v%d=[1,2,3].map(function(x){return x*2}),w%d={k:'v'};"
    code = b"".join(unit % (i, i, i, i) for i in range(32_000))
    assert len(code) >= 3_000_000 and b"\n" not in code
    result = classify_one("bundle.min.js", None, code)  # completes: no per-line or recursive work
    assert result.classification == INTENT and result.reason == "file added"
    assert len(result.definitions) == 32_000
    assert result.definitions[-1].new_lines == (1, 1)


def test_non_utf8_bytes() -> None:
    old = b"# -*- coding: latin-1 -*-\nname = '\xe9t\xe9'\n\ndef f():\n    return '\xff'\n"
    assert classify_one("a.py", old, old.replace(b"\n\ndef", b"\n\n\ndef")).classification == AST
    assert classify_one("a.py", old, old.replace(b"\xff", b"\xfe")).classification == INTENT
    assert classify_one("a.go", b"package m\n// \xff\xfe\n", b"package m\n").classification == AST


def test_marker_bytes_in_source_do_not_collide() -> None:
    padding = b"#" * 9000 + b"\n"  # NUL after the binary sniff window: parsed (as an error)
    with_nul = padding + b"x = '\x00'\n"
    reason = classify_one("a.py", with_nul, with_nul + b"\n").reason
    assert reason == "parse error in both versions (old line 2, new line 2)"
    with_marker = b"x = '\x01N12'\n"
    assert hash_source("python", with_marker).hash != hash_source("python", b"x = '\x01\x00N12'\n").hash
    assert classify_one("a.py", with_marker, with_marker.replace(b"x = ", b"x=")).classification == AST


def test_empty_files() -> None:
    assert classify_one("a.py", b"", b"").classification == AST
    assert classify_one("a.py", b"", b"# only a comment\n\n").classification == AST
    assert classify_one("a.py", b"", b"x = 1\n").classification == INTENT
    added = classify_one("a.py", None, b"")
    assert (added.classification, added.reason) == (INTENT, "file added")
    assert classify_changes([]).classification == AST
    assert classify_changes([]).files == {}


def test_unknown_extension_uses_text_rule() -> None:
    result = classify_one("notes.txt", b"hello   world\n\n", b"hello\n  world")
    assert (result.classification, result.language, result.definitions) == (AST, None, [])
    assert classify_one("notes.txt", b"hello world", b"hello there").classification == INTENT
    assert classify_one("Makefile", b"all:\n\tcc x.c\n", b"all:\n\tcc y.c\n").classification == INTENT
    assert classify_one("notes.txt", None, b"new\n").classification == INTENT


def test_binary_files() -> None:
    blob = b"\x89PNG\r\n\x1a\n\x00\x00" + bytes(range(256))
    renamed = classify_one("a.png", blob, blob, new_path="b.png")
    assert (renamed.classification, renamed.reason, renamed.language) == (AST, "binary", None)
    changed = classify_one("a.png", blob, blob + b"\x00")
    assert (changed.classification, changed.reason) == (INTENT, "binary")
    assert classify_one("a.py", b"x = 1\n", b"x = 1\n\x00").classification == INTENT


def test_too_large_files_are_compared_by_bytes() -> None:
    big = b"x = 1\n" * (LARGE_FILE // 6 + 1)
    same = classify_one("big.py", big, big, new_path="moved.py")
    assert (same.classification, same.reason) == (AST, "too large")
    changed = classify_one("big.py", big, big + b"\n")
    assert (changed.classification, changed.reason) == (INTENT, "too large")


def test_language_change_uses_text_rule() -> None:
    code = b"export function f(a) {\n  return a + 1;\n}\n"
    result = classify_one("a.js", code, code.replace(b"\n  ", b"\n    "), new_path="a.ts")
    assert (result.classification, result.language) == (AST, None)
    assert result.reason == "language changed: javascript -> typescript"
    changed = classify_one("a.js", code, b"export function f(a: number) {\n  return a + 1;\n}\n", new_path="a.ts")
    assert changed.classification == INTENT
    assert classify_one("a.py", b"x = 1\n", b"x = 1\n", new_path="a.txt").reason == "language changed: python -> text"


def test_rename_with_same_normal_form() -> None:
    old, new = b"def f():\n  return 1\n", b"def f():\n    return 1  # moved\n"
    result = classify_one("old/a.py", old, new, new_path="new/a.py")
    assert result.classification == AST
    assert result.definitions[0].status == "unchanged"


def test_parse_error_reasons() -> None:
    broken = b"def f(:\n    pass\n"
    assert classify_one("a.py", b"x = 1\n", b"x = 1\n" + broken).reason == "parse error in new version (line 2)"
    assert classify_one("a.py", broken, b"x = 1\n").reason == "parse error in old version (line 1)"
    both = classify_one("a.py", broken, broken)
    assert (both.classification, both.reason) == (INTENT, "parse error in both versions (old line 1, new line 1)")


def test_hash_strings_carry_grammar_and_version() -> None:
    versions = {
        "python": ("python", "tree-sitter-python", b"def f(): pass\n"),
        "javascript": ("javascript", "tree-sitter-javascript", b"function f() {}\n"),
        "typescript": ("typescript", "tree-sitter-typescript", b"function f() {}\n"),
        "tsx": ("tsx", "tree-sitter-typescript", b"function f() {}\n"),
        "go": ("go", "tree-sitter-go", b"package m\nfunc f() {}\n"),
        "rust": ("rust", "tree-sitter-rust", b"fn f() {}\n"),
        "java": ("java", "tree-sitter-java", b"class F {}\n"),
        "c": ("c", "tree-sitter-c", b"int f(void) { return 0; }\n"),
        "cpp": ("cpp", "tree-sitter-cpp", b"int f() { return 0; }\n"),
        "php": ("php", "tree-sitter-php", b"<?php function f() {}\n"),
    }
    for language, (name, distribution, code) in versions.items():
        parsed = hash_source(language, code)
        pattern = rf"ts2:{name}@{re.escape(importlib.metadata.version(distribution))}:[0-9a-f]{{64}}"
        for value in (parsed.hash, parsed.skeleton_hash, parsed.definitions[0].hash, parsed.definitions[0].tree_hash):
            assert re.fullmatch(pattern, value), value
    # the same code in two grammars never shares a hash
    assert hash_source("typescript", b"let a = 1;\n").hash != hash_source("tsx", b"let a = 1;\n").hash


def test_commit_is_refactor_only_if_every_file_is() -> None:
    result = classify_changes([
        FileChange("a.py", "a.py", b"x = 1\n", b"x  =  1\n"),
        FileChange("b.py", "b.py", b"y = 1\n", b"y = 2\n"),
        FileChange("c.py", None, b"z = 1\n", None),
    ])
    assert isinstance(result, CommitClassification)
    assert result.classification == INTENT
    assert {path: f.classification for path, f in result.files.items()} == {"a.py": AST, "b.py": INTENT, "c.py": INTENT}
    assert result.files["c.py"].reason == "file deleted"
    assert json.dumps(result.to_json()) == json.dumps(classify_changes([
        FileChange("a.py", "a.py", b"x = 1\n", b"x  =  1\n"),
        FileChange("b.py", "b.py", b"y = 1\n", b"y = 2\n"),
        FileChange("c.py", None, b"z = 1\n", None),
    ]).to_json())


@pytest.mark.parametrize("module", ["gitai", "gitai.syntax", "gitai.syntax.languages", "gitai.syntax.classify"])
def test_importing_does_not_load_tree_sitter(module: str) -> None:
    code = (
        f"import sys, {module}\n"
        "from gitai.syntax.languages import language_for_path\n"
        "assert language_for_path('x/Y.PY') == 'python' and language_for_path('a.tsx') == 'tsx'\n"
        "assert language_for_path('README') is None\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('tree_sitter'))\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_hash_cache_gives_what_hashing_gives(tmp_path: Path) -> None:
    """Kept hashes equal fresh ones for every language; damaged or other-grammar entries are redone."""
    cache = HashCache(str(tmp_path))
    for path, old, new, _ in PAIRS:
        language = language_for_path(path)
        assert language is not None
        for text in (old, new):
            fresh = hash_source(language, text.encode())
            assert cache.hash_source(language, text.encode()) == fresh  # hashed, then kept
            assert cache.hash_source(language, text.encode()) == fresh  # read back
    kept = sorted((tmp_path / HASH_CACHE_DIRECTORY).rglob("*.json"))
    assert kept
    kept[0].write_text("{not json")
    entry = json.loads(kept[1].read_text())
    entry["hash"] = "ts2:python@0.0.1:" + entry["hash"].rsplit(":", 1)[1]  # made by another grammar version
    kept[1].write_text(json.dumps(entry))
    for path, old, new, _ in PAIRS:
        language = language_for_path(path)
        assert language is not None
        for text in (old, new):
            assert cache.hash_source(language, text.encode()) == hash_source(language, text.encode())
    assert "0.0.1" not in kept[1].read_text()


@pytest.mark.parametrize(
    ("old_path", "new_path", "old", "kept", "moved", "name"),
    [
        ("a.c", "b.c", "int f(void) { return 1; }\nint g(void) { return 2; }\n", "int g(void) { return 2; }\n",
         "int f(void)\n{\n\treturn 1;\n}\n", "f"),
        ("a.php", "b.php", "<?php\nclass A {\n  function f() { return 'a'; }\n  function g() { return 2; }\n}\n",
         "<?php\nclass A {\n  function g() { return 2; }\n}\n",
         "<?php\nclass A\n{\n    function f()\n    {\n        return \"a\";\n    }\n}\n", "A::f"),
    ],
    ids=["c", "php"],
)
def test_definitions_moved_between_files(old_path: str, new_path: str, old: str, kept: str, moved: str,
                                         name: str) -> None:
    """Moving a function to another file (reformatted on the way) is a move that blame-intent can follow."""
    result = classify_changes([FileChange(old_path, old_path, old.encode(), kept.encode()),
                               FileChange(None, new_path, None, moved.encode())])
    statuses = {(path, d.name): (d.status, d.moved_from) for path, file in result.files.items()
                for d in file.definitions}
    assert statuses[(new_path, name)] == ("moved", {"path": old_path, "name": name}), result.files[new_path].to_json()


def test_oracle_disagreement_call_signature_without_semicolon() -> None:
    """A known disagreement with the TypeScript compiler (found by benchmarks/formatters.py on ky under
    prettier --no-semi): tree-sitter-typescript cannot parse a call signature that follows a member
    without `;` in a type literal or interface, which TypeScript reads. The file is a parse error, so
    INTENT_EVOLUTION; no normal-form rule can mend a tree that is not there."""
    old = b"type A = {\n  a: () => void;\n  <T>(): T;\n};\n"
    new = b"type A = {\n  a: () => void\n  <T>(): T\n}\n"
    result = classify_one("a.ts", old, new)
    assert (result.classification, result.reason) == (INTENT, "parse error in new version (line 2)")
    assert classify_one("a.ts", old, new.replace(b"void\n", b"void;\n")).classification == AST


def test_cpp_function_text_hashes_alike_in_a_class_and_outside() -> None:
    """tree-sitter-cpp parses `int f() { return 1; }` with a `field_identifier` in a class and an
    `identifier` in a namespace; the digest memo is keyed by text, so both must write the same
    stream, or a digest would depend on what was hashed before (a move would go unseen)."""
    from gitai.syntax import normal_form

    code = b"namespace n {\nint f() { return 1; }\n}\n"
    fresh = hash_source("cpp", code).definitions[1].hash
    normal_form._DIGESTS.clear()
    in_class = hash_source("cpp", b"class A { public: int f() { return 1; } };\n").definitions[1].hash
    assert hash_source("cpp", code).definitions[1].hash == fresh == in_class
    result = classify_changes([FileChange("a.cc", "a.cc",
                                          b"namespace n {\nint f() { return 1; }\nint g() { return 2; }\n}\n",
                                          b"namespace n {\nint g() { return 2; }\n}\n"),
                               FileChange(None, "b.cc", None, b"namespace n {\nint f()\n{\n  return 1;\n}\n}\n")])
    moved = [d for d in result.files["b.cc"].definitions if d.name == "n::f"]
    assert [(d.status, d.moved_from) for d in moved] == [("moved", {"path": "a.cc", "name": "n::f"})]


def test_text_rule_is_the_same_words_in_the_same_order() -> None:
    """The text rule's shortcut (whitespace taken out first) answers as comparing the words does,
    with bytes that are whitespace to `bytes.split` and bytes that only look like it."""
    import random

    from gitai.syntax.classify import _same_words

    rnd = random.Random(3)
    alphabet = [b"a", b"b", b" ", b"\t", b"\n", b"\r", b"\x0b", b"\x0c", b"\x1c", b"\xa0", b"\x85", b"\x00"]
    for _ in range(20_000):
        old, new = (b"".join(rnd.choice(alphabet) for _ in range(rnd.randrange(8))) for _ in range(2))
        assert _same_words(old, new) == (old.split() == new.split()), (old, new)
