"""gitai.syntax.normal_form: walk paths its speed-up restructured (digests must not move), and the
fast walk checked against a slow reference walk (tests/testing/reference_walk.py); over whole
repositories, benchmarks/walk_reference.py."""

from __future__ import annotations

import pytest
from test_pinned_digests import _snippets
from testing.reference_walk import differences

from gitai.syntax import normal_form
from gitai.syntax.definitions import find_definitions
from gitai.syntax.normal_form import hash_source, parse, top_level_statements


def test_a_definition_ends_a_sorted_run() -> None:
    """Consecutive `use` declarations compare sorted; a definition between them (hashed on its own)
    ends the run, so `use` declarations on both sides of it are two runs."""
    one_run = hash_source("rust", b"use b;\nuse a;\nfn f() {}\n").skeleton_hash
    assert one_run == hash_source("rust", b"use a;\nuse b;\nfn f() {}\n").skeleton_hash
    split = hash_source("rust", b"use b;\nfn f() {}\nuse a;\n").skeleton_hash
    assert split != hash_source("rust", b"use a;\nfn f() {}\nuse b;\n").skeleton_hash


def test_syntax_errors_hash_by_their_text() -> None:
    """tree-sitter's ERROR nodes (a kind id past the grammar's own) are walked like any node."""
    broken = b"def f(:\n    return 1 +\n"
    assert parse("python", broken).root_node.has_error
    first, second = hash_source("python", broken), hash_source("python", broken.replace(b"1", b"2"))
    assert first.parse_error and second.parse_error
    assert first.hash != second.hash
    assert first.hash == hash_source("python", broken).hash


_FILES = {
    "python": b'"""m."""\nimport os\n\n\nclass C(B):\n    """c."""\n\n    x = 1\n\n    def m(self, a):\n'
              b'        return a + 1\n\n    @property\n    def p(self):\n        return f"{self.x!r:>4}"\n\n\n'
              b"def f(v):\n    return [v, 'w']\n\n\ndef g():\n    return 1\n\n\ndef h():\n    return 1\n",
    "rust": b"use std::fmt;\n\n#[derive(Debug)]\n#[allow(dead_code)]\nstruct S {\n    a: u8,\n}\n\nimpl S {\n"
            b"    #[inline]\n    fn get(&self) -> u8 {\n        self.a\n    }\n\n    fn put(&mut self, a: u8) {\n"
            b"        self.a = a;\n    }\n}\n\nfn main() {\n    let s = S { a: 1 };\n}\n",
    "typescript": b"export interface R<T> {\n  id: string;\n  get(): T;\n}\n\nexport class Store<T> {\n"
                  b"  private items = new Map<string, T>();\n  add(r: R<T>): void {\n"
                  b"    this.items.set(r.id, r.get());\n"
                  b"  }\n  handle = (x: number) => x + 1;\n}\n\nnamespace N {\n  export function f(): number {\n"
                  b"    return 1;\n  }\n}\n",
}


def test_definitions_hash_the_same_however_the_memo_stands() -> None:
    """hash_tree walks a file once and writes its definitions' streams on the way, except where the
    in-process memo holds a digest: a remembered definition is not walked, and a forgotten one
    inside it (or in a file whose own digest is remembered) is walked on its own. The digests are
    the same in every case (one definition hashed twice, `g` and `h`, is hashed once)."""
    for language, source in _FILES.items():
        normal_form._DIGESTS.clear()
        normal_form._FOLDS.clear()  # folded classes would be neither walked nor looked up
        cold = hash_source(language, source)
        assert len(cold.definitions) >= 5, language
        assert hash_source(language, source) == cold  # all remembered
        root_kind = parse(language, source).root_node.kind_id
        for forget_file in (False, True):  # keys: (language, escape, kind id, nodes, skip depth, span, offsets)
            for key in [key for key in normal_form._DIGESTS if key[4] == -1 or (forget_file and key[2] == root_kind)]:
                del normal_form._DIGESTS[key]
            normal_form._FOLDS.clear()
            assert hash_source(language, source) == cold, (language, forget_file)
        edited = source.replace(b"1", b"2", 1)  # one definition changes: the others are remembered
        warm = hash_source(language, edited)
        normal_form._DIGESTS.clear()
        normal_form._FOLDS.clear()
        assert hash_source(language, edited) == warm, language
        assert warm.hash != cold.hash



# What the pinned snippets and generated files lack: source bytes that are markers (\x00, \x01), syntax
# errors, text no leaf covers, runs broken by comments and definitions, definitions three deep
_SAMPLES = {
    "python": [b'import b\nimport a  # c\n\x01 = "\x00"\nclass A:\n    class B:\n'
               b"        def f(self, x=\\\n    1):\n            def g(): return (x)\n            return g\n",
               b"y = [1,\nclass C:\n    def f(self): pass\n"],
    "javascript": [b'import b from "b";\n// c\nimport a from "a";\n'
                   b"class A { m() { const f = (x) => { function g() {} }; } }\nconst s = `\x01${a}\x00`;\n",
                   b"let = = 1;\nclass C { m() {} }\n"],
    "typescript": [b"namespace N { export class C { m(): void { const f = (x: number) => x; } } }\n"
                   b"const v = await g<A, B>(x) as T;\ntype U = | 'a' | 'b';\n",
                   b"function (\nclass C { m(): void {} }\n"],
    "go": [b'package p\n\nimport "b"\n// c\nimport "a"\n\n'
           b'func (r *R) F() { g := func() { h := 1 }; _ = "\x00" }\ntype T struct { a int }\n',
           b"package p\nfunc {\nfunc F() {}\n"],
    "rust": [b"use b;\n// c\nuse a::{d, c};\nfn f() {}\nuse e;\n"
             b'impl S { fn g(&self) { fn h() {} let s = "a\\\n    b"; } }\n'
             b"macro_rules! m { ($x:expr) => { |s| { $x } }; }\n",
             b"fn broken( {\nfn f() {}\n"],
    "java": [b"import b.B;\n/* c */\nimport a.A;\n"
             b'class A { class B { void f() { Runnable r = () -> {}; } } enum E { X; } String s = "\x01"; }\n',
             b"class {\nclass C { void f() {} }\n"],
    "c": [b'#include "b.h"\n// c\n#include "a.h"\n#include "a.h"\n#  define M(x) \\\n  (x + "a" "b")\n'
          b'int f(void) { return g("a" "\\x1" "2"); }\nstruct S { int a; };\n',
          b"int broken( {\nint f(void) { return 0; }\n"],
    "cpp": [b"#include <b>\n#include <a>\n"
            b"namespace n { class C { void m() { auto f = [](int x) { return x; }; } }; }\n"
            b'auto s = R"x(\x00)x";\ntemplate <class T> T g(T t) { return t; }\n',
            b"class {\nclass C { void m() {} };\n"],
    "php": [b"<?php\nnamespace N;\nuse B;\nuse A;\n"
            b"class C { function m() { $f = function () { return array(1, 2); }; } }\n"
            b"$s = <<<EOT\n    a $b\n    EOT;\n$t = 'it\\'s' . \"\x01\";\n",
            b"<?php\nfunction (\nfunction f() {}\n"],
}


def test_the_fast_walk_writes_what_the_reference_writes() -> None:
    """Over every pinned snippet (the canonical-form rules, a generated file per language) and a sample
    per language of what they lack, each file's and definition's own digest is the reference's."""
    sources = [(language, source.encode()) for language, source in _snippets().values()]
    sources += [(language, source) for language, samples in _SAMPLES.items() for source in samples]
    assert all(parse(language, broken).root_node.has_error for language, (_, broken) in _SAMPLES.items())
    differing = [(language, found) for language, source in sources if (found := differences(language, source))]
    assert not differing, f"{len(differing)} of {len(sources)} sources differ, e.g. {differing[:3]}"


def test_a_different_number_of_frames_is_said_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the reference finds a definition the fast walk does not, `differences` says so in a line
    (the frames are not paired one to one)."""
    from testing import reference_walk

    found = reference_walk.reference_digests
    monkeypatch.setattr(reference_walk, "reference_digests", lambda *args: [*found(*args), "extra"])
    said = differences("python", b"def f():\n    return 1\n")
    assert said is not None and "frames in the fast walk" in said, said


def _cold(language: str, source: bytes) -> tuple[object, ...]:
    """The hashes and top-level statements of `source` with nothing remembered."""
    normal_form._DIGESTS.clear()
    normal_form._MEMOS.clear()
    normal_form._FOLDS.clear()
    return hash_source(language, source), top_level_statements(language, source)


# (language, a source walked first, one holding some of its subtrees' text where they mean something else)
_CONTEXT_PAIRS = [
    # a function body whose first statement is a docstring (lines compared stripped), then the same
    # block under an `if`, where the string is an expression like any other
    ("python", b'def f(x):\n    """  one line\n      and two  """\n    return compute(x, 1) + other(x)\n',
     b'if x:\n    """  one line\n      and two  """\n    return compute(x, 1) + other(x)\n'),
    ("python", b'class A:\n    """  one line\n      and two  """\n    y = compute(1, 2) + other(3)\n',
     b'for _ in y:\n    """  one line\n      and two  """\n    y = compute(1, 2) + other(3)\n'),
    ("python", b'def g():\n    x = f(b"\\x1B", r"\\x1B", "\\N{dash}")\n    return x\n',
     b'x = f(b"\\x1B", r"\\x1B", "\\N{dash}")\n'),
    # error recovery reads `sizeof` as a function's name where the braces are missing: the same text is
    # another tree in a file without errors
    ("c", b"void f(void)\n    check(sizeof(item_t)*2, strlen(buffer()));\n",
     b"void f(void)\n{\n    check(sizeof(item_t)*2, strlen(buffer()));\n}\n"),
    # a qualified name ends in a type's name among a template's arguments, in a value's in a call's
    ("cpp", b"void f() { buffer.resize(fmt::internal::INLINE_BUFFER_SIZE); }\n",
     b"void f() { fmt::internal::Array<char, fmt::internal::INLINE_BUFFER_SIZE> buffer; }\n"),
    ("cpp", b"void f() { fmt::internal::Array<char, fmt::internal::INLINE_BUFFER_SIZE> buffer; }\n",
     b"void f() { buffer.resize(fmt::internal::INLINE_BUFFER_SIZE); }\n"),
    ("rust", b"macro_rules! m { ($x:expr) => { |s| { $x } }; }\nfn f() { assert_eq!(|s| { s }, 1); }\n",
     b"fn g() { let v = (|s| { s }, 1); assert_eq!(|s| { s }, 1); }\n"),
]


def test_remembered_subtrees_hash_as_walked_afresh() -> None:
    """A subtree walked once is remembered by its kind and text; the same text again, in another
    file, another place or another version, hashes as a fresh walk of it does, even where a handler
    reads its surroundings (a docstring's owner), the same text is another tree where the parser
    stood elsewhere (a C++ qualified name), or a syntax error elsewhere made another tree of it."""
    for language, first, second in _CONTEXT_PAIRS:
        expected = _cold(language, second)
        _cold(language, first)
        if not parse(language, first).root_node.has_error:  # something to remember, or nothing is tested
            assert normal_form._memo(language).streams, language
        assert (hash_source(language, second), top_level_statements(language, second)) == expected, second


def test_edited_versions_hash_the_same_with_subtrees_remembered() -> None:
    """Each sample, then versions of it with one edit each (most subtrees come back unchanged): the
    same hashes and statements as with nothing remembered (a Java enum's methods sit under a kind
    with a handler, its body declarations: the enum is not remembered by the text around them)."""
    sources = [(language, source) for language, source in _FILES.items()]
    sources.append(("java", b"enum E {\n  A, B;\n  int f() { return 1; }\n  int g() { return 3; }\n}\n"))
    sources += [(language, source) for language, samples in _SAMPLES.items() for source in samples]
    for language, source in sources:
        versions = [source, source.replace(b"1", b"12", 1), source.replace(b"a", b"b", 1),
                    source.replace(b" ", b"  ", 3), source.replace(b"\n", b"\n\n", 2)]
        expected = [_cold(language, version) for version in versions]
        normal_form._MEMOS.clear()
        warm = [(hash_source(language, version), top_level_statements(language, version)) for version in versions]
        assert warm == expected, (language, source)


def test_definitions_folded_from_an_earlier_version_are_those_found_afresh() -> None:
    """A top-level definition with members whose text was hashed before (another version of the
    file) is not searched again: its hashes and its members' definitions come back from then, their
    lines moved with it. The same as found afresh when it moved down or up, when code elsewhere
    changed, when one of its members changed (then it is searched), and when it moved in the file."""
    for language, source in _FILES.items():
        lines = source.split(b"\n")
        versions = [source, b"\n\n" + source, source.replace(b"1", b"12", 1), source.replace(b"1", b"12"),
                    b"\n".join(lines[2:] + lines[:2]), b"\n".join(lines[4:] + lines[:4]),
                    source.replace(b"\n", b"\n\n")]
        expected = [_cold(language, version) for version in versions]
        _cold(language, source)
        assert normal_form._FOLDS, language  # something to fold, or nothing is tested
        root = parse(language, versions[1]).root_node
        assert find_definitions(language, root, normal_form.folding(language, versions[1], root)).folded, language
        warm = [(hash_source(language, version), top_level_statements(language, version)) for version in versions]
        assert warm == expected, language


_STRUCT = (b"struct info {\n\t__u32\t\t\tlength;\n\t__u32\t\t\tresid;\n\t__u32\t\t\tcount;\n\t__u32\t\t\toffset;\n"
           b"\tunion {\n\t\tDECLARE_FLEX(__u8, inline_data);\n\t\tDECLARE_FLEX(struct sge, sge);\n\t};\n};\n")
_BROKEN = (b"struct send {\n\tunion {\n\t\tstruct {\n  Expr(Opcode Op, const Expr *E, Loc L)\npublic:\n"
           b"\t\t\t__u32\t\taccess;\n\t\t} mw;\n\t} wr;\n};\n") + _STRUCT


def _info_digest(source: bytes, cold: bool) -> str:
    if cold:
        normal_form._DIGESTS.clear()
        normal_form._MEMOS.clear()
        normal_form._FOLDS.clear()
    return next(d.hash for d in hash_source("c", source).definitions if d.name == "info")


def test_a_definition_in_a_file_with_errors_hashes_as_cold_after_its_text_was_seen_clean() -> None:
    """Error recovery elsewhere in a file can parse a definition's text apart otherwise than a clean
    file does, so a digest remembered by that text from a clean file must not serve it (the records
    would then depend on what the same process hashed before: the order of files, the workers)."""
    clean, broken = _info_digest(_STRUCT, cold=True), _info_digest(_BROKEN, cold=True)
    assert clean != broken, "the same text parses the same here: nothing tested"
    _info_digest(_STRUCT, cold=True)  # the clean file first, as another file or an earlier version
    assert _info_digest(_BROKEN, cold=False) == broken
    _info_digest(_BROKEN, cold=True)  # and the other way round
    assert _info_digest(_STRUCT, cold=False) == clean
