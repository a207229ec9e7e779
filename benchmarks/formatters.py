"""Reformat invariance and mutation detection of the classification, on real code and real formatters.

For each language, a corpus of real source files (installed Python packages and the stdlib, npm
packages, public repositories brought by `fetch`, Go's own sources) is run through real formatters
at settings unlike the code's own; every file the formatter changed must be AST_REFACTOR. Then a
mutation set over the same files (a literal changed, an operator flipped, an argument added, a
statement removed; sites found with tree-sitter, never in comments) must all be INTENT_EVOLUTION.
Python pairs are also checked against CPython's `ast` (what black uses to prove a reformat safe),
TypeScript and JavaScript pairs and mutants against the TypeScript compiler's AST
(tests/formatters/ts_ast.cjs): a disagreement is a case for the normal form.

Inputs are never committed: npm packages go to benchmarks/out/node_modules (installed here when
missing), repositories are read from /work/.mirror (or --mirror) with `git archive`. A missing
formatter or corpus is reported loudly and its language skipped.

Usage: .venv/bin/python benchmarks/formatters.py [--lang python,rust] [--max-files N] [--show N]
       [--mirror DIR]  (a directory of repositories, OWNER+NAME/repo git directories as `fetch` leaves them)
       [--repository typescript=vuejs+core:packages/]  (another mirrored repository for a language)
       --python-oracle [OWNER+NAME,...] [--dump DIR]  (every .py file of mirrored repositories under the
       six Python settings and CPython's `ast`, mutants included; docs/classification.md says what it prints)
C, C++ and PHP need clang-format (apt-get install clang-format) and tests/formatters/node_modules
(`make provision`).
"""

from __future__ import annotations

import argparse
import functools
import io
import json
import os
import random
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from gitai.syntax.classify import FileChange, FileClassification, classify_changes

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from python_oracle import ast_dump
from ts_oracle import NODE_MODULES as TEST_NODE
from ts_oracle import ts_dumps

from gitai.syntax.normal_form import parse

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
NODE = OUT / "node_modules"
BIN = Path(sys.executable).parent
EXTENSIONS = {"python": ".py", "javascript": ".js", "typescript": ".ts", "rust": ".rs", "java": ".java", "go": ".go",
              "c": ".c", "cpp": ".cc", "php": ".php"}
CORPUS_EXTENSIONS = {**{language: (ext,) for language, ext in EXTENSIONS.items()},
                     "cpp": (".cc", ".cpp", ".h", ".hpp")}
NPM_PACKAGES = ["prettier@3", "prettier-plugin-java@2", "commander@12", "semver@7", "express@4", "yargs@17"]
# public repositories (owner+name under the mirror directory) and the files taken from them
REPOSITORIES = {"typescript": ("sindresorhus+ky", ("source/", "test/")),
                "rust": ("BurntSushi+ripgrep", ("crates/",)),
                "java": ("google+gson", ("gson/src/main/", "extras/", "proto/")),
                "c": ("libuv+libuv", ("src/", "include/", "test/")),
                "cpp": ("google+leveldb", ("db/", "util/", "table/", "include/", "helpers/")),
                "php": ("guzzle+guzzle", ("src/", "tests/"))}
DEFAULT_CORPORA = {"python": "stdlib and site-packages", "javascript": "npm packages", "go": "Go's own sources"}
GO_PACKAGES = ["strings", "bufio", "bytes", "sort", "flag", "text/tabwriter", "net/url", "encoding/csv",
               "encoding/json", "path/filepath", "container/list", "container/heap", "errors", "html"]
PY_STDLIB = ["argparse.py", "textwrap.py", "dataclasses.py", "shlex.py", "fractions.py", "difflib.py",
             "configparser.py", "string.py", "heapq.py", "bisect.py", "json", "email", "logging", "tomllib",
             "importlib/metadata", "zoneinfo", "http/cookies.py", "urllib/parse.py", "csv.py", "enum.py"]


# --- corpus -------------------------------------------------------------------------------------

def _files_under(root: Path, ext: str, limit: int) -> list[Path]:
    found = sorted(p for p in root.rglob(f"*{ext}") if p.is_file() and p.stat().st_size < 150_000)
    return found[:limit]


def _python_corpus(limit: int) -> dict[str, bytes]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    site = Path(sysconfig.get_paths()["purelib"])
    paths: list[Path] = []
    for name in PY_STDLIB:
        path = stdlib / name
        paths += _files_under(path, ".py", 40) if path.is_dir() else [path]
    for package in ("click", "pygit2", "yaml", "pathspec", "jsonschema"):
        paths += _files_under(site / package, ".py", 40)
    root = stdlib.parent
    return {f"py/{p.relative_to(site) if p.is_relative_to(site) else p.relative_to(root)}": p.read_bytes()
            for p in paths[:limit] if p.exists()}


def _javascript_corpus(limit: int) -> dict[str, bytes]:
    paths = [p for p in _files_under(NODE, ".js", 10_000)
             if not any(part.startswith(("prettier", "web-tree-sitter")) for part in p.relative_to(NODE).parts)
             and ".min." not in p.name]
    random.Random(13).shuffle(paths)
    return {f"js/{p.relative_to(NODE)}": p.read_bytes() for p in sorted(paths[:limit])}


def _repository_corpus(language: str, mirror: Path, limit: int) -> dict[str, bytes]:
    name, prefixes = REPOSITORIES[language]
    git_dir = mirror / name / "repo"
    if not git_dir.is_dir():
        print(f"!! {language}: repository {name} missing under {mirror} (fetch github:{name.replace('+', '/')})")
        return {}
    data = subprocess.run(["git", "--git-dir", str(git_dir), "archive", "HEAD", *prefixes],
                          capture_output=True, check=True).stdout
    files: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        for member in sorted(archive.getmembers(), key=lambda m: m.name):
            if member.isfile() and member.name.endswith(CORPUS_EXTENSIONS[language]) and member.size < 150_000:
                handle = archive.extractfile(member)
                if handle is not None:
                    files[f"{language}/{member.name}"] = handle.read()
    return _sample(files, limit)


def _go_corpus(limit: int) -> dict[str, bytes]:
    root = _go_root()
    if root is None:
        return {}
    files: dict[str, bytes] = {}
    for package in GO_PACKAGES:
        for path in sorted((root / "src" / package).glob("*.go")):
            files[f"go/{package}/{path.name}"] = path.read_bytes()
    return _sample(files, limit)


def _sample(files: dict[str, bytes], limit: int) -> dict[str, bytes]:
    """`limit` files spread over the whole corpus (seeded: the same sample every run), in name order."""
    chosen = set(random.Random(13).sample(sorted(files), min(limit, len(files))))
    return {name: data for name, data in files.items() if name in chosen}


def _go_root() -> Path | None:
    gofmt = shutil.which("gofmt") or "/usr/lib/go/bin/gofmt"
    return Path(gofmt).resolve().parent.parent if Path(gofmt).exists() else None


def corpus(language: str, mirror: Path, limit: int) -> dict[str, bytes]:
    """Real source files of `language`, keyed by a corpus name; files tree-sitter cannot parse are left out."""
    if language in REPOSITORIES:
        files = _repository_corpus(language, mirror, limit)
    elif language == "python":
        files = _python_corpus(limit)
    elif language == "javascript":
        files = _javascript_corpus(limit)
    else:
        files = _go_corpus(limit)
    return {name: data for name, data in files.items() if not parse(language, data).root_node.has_error}


# --- formatters ---------------------------------------------------------------------------------

def _prettier(*options: str, java: bool = False) -> list[str]:
    plugin = ["--plugin", str(NODE / "prettier-plugin-java" / "dist" / "index.mjs")] if java else []
    return ["node", str(NODE / "prettier" / "bin" / "prettier.cjs"), "--no-config", "--log-level", "error",
            *plugin, *options, "--write", "."]


def _prettier_php(*options: str) -> list[str]:
    return ["node", str(TEST_NODE / "prettier" / "bin" / "prettier.cjs"), "--no-config", "--log-level", "error",
            "--plugin", str(TEST_NODE / "@prettier" / "plugin-php" / "src" / "index.mjs"), *options, "--write", "."]


def _clang_format(style: str, column: int) -> tuple[str, list[str]]:
    return (f"clang-format {style} ColumnLimit={column}",
            ["clang-format", "-i", f"--style={{BasedOnStyle: {style}, ColumnLimit: {column}}}"])  # names appended


CLANG_FORMATS = [_clang_format("LLVM", 40), _clang_format("Google", 100), _clang_format("Mozilla", 60),
                 _clang_format("WebKit", 80), _clang_format("GNU", 70)]


def _rustfmt(config: str) -> list[str]:
    rustfmt = shutil.which("rustfmt") or str(Path.home() / ".cargo" / "bin" / "rustfmt")
    return [rustfmt, "--edition", "2021", "--config", config]  # file names are appended


FORMATTERS: dict[str, list[tuple[str, list[str]]]] = {
    "python": [
        ("black -l 60", [str(BIN / "black"), "-q", "-l", "60", "."]),
        ("black -l 120 -S --skip-magic-trailing-comma", [str(BIN / "black"), "-q", "-l", "120", "-S", "-C", "."]),
        ("ruff format line-length=50 quote-style=single", [str(BIN / "ruff"), "format", "-q", "--isolated",
         "--line-length", "50", "--config", "format.quote-style='single'", "."]),
        ("ruff format line-length=100 skip-magic-trailing-comma", [str(BIN / "ruff"), "format", "-q",
         "--isolated", "--line-length", "100", "--config", "format.skip-magic-trailing-comma=true", "."]),
        ("black -l 40 --preview", [str(BIN / "black"), "-q", "-l", "40", "--preview", "."]),
        ("ruff format line-length=80 preview", [str(BIN / "ruff"), "format", "-q", "--isolated", "--line-length",
                                                "80", "--preview", "."]),
    ],
    "javascript": [
        ("prettier --print-width 40", _prettier("--print-width", "40")),
        ("prettier --no-semi --single-quote --arrow-parens avoid --trailing-comma none",
         _prettier("--no-semi", "--single-quote", "--arrow-parens", "avoid", "--trailing-comma", "none")),
        ("prettier --print-width 120 --quote-props consistent", _prettier("--print-width", "120",
                                                                          "--quote-props", "consistent")),
    ],
    "typescript": [
        ("prettier --print-width 40", _prettier("--print-width", "40")),
        ("prettier --no-semi --single-quote --arrow-parens avoid --trailing-comma none",
         _prettier("--no-semi", "--single-quote", "--arrow-parens", "avoid", "--trailing-comma", "none")),
        ("prettier --print-width 120 --quote-props consistent", _prettier("--print-width", "120",
                                                                          "--quote-props", "consistent")),
    ],
    "rust": [
        ("rustfmt max_width=40", _rustfmt("max_width=40")),
        ("rustfmt max_width=60 use_small_heuristics=Max hard_tabs=true",
         _rustfmt("max_width=60,use_small_heuristics=Max,hard_tabs=true")),
        ("rustfmt max_width=140", _rustfmt("max_width=140")),
    ],
    "java": [
        ("prettier-plugin-java --print-width 40", _prettier("--print-width", "40", java=True)),
        ("prettier-plugin-java --print-width 140 --tab-width 4", _prettier("--print-width", "140", "--tab-width",
                                                                         "4", java=True)),
    ],
    "go": [("gofmt (input de-indented and joined)", ["gofmt", "-w", "."])],
    "c": CLANG_FORMATS,
    "cpp": CLANG_FORMATS,
    "php": [
        ("prettier-php --print-width 40", _prettier_php("--print-width", "40")),
        ("prettier-php --print-width 120 --single-quote --trailing-comma-php --php-version 8.1",
         _prettier_php("--print-width", "120", "--single-quote", "--trailing-comma-php", "--php-version", "8.1")),
        ("prettier-php --tab-width 2 --brace-style 1tbs --php-version 7.4",
         _prettier_php("--tab-width", "2", "--brace-style", "1tbs", "--php-version", "7.4")),
    ],
}


def _deformat_go(data: bytes) -> bytes:
    """Go sources are gofmt's fixed point: strip indentation and align padding outside strings, for gofmt to redo."""
    tree = parse("go", data)
    keep: list[tuple[int, int]] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type in ("raw_string_literal", "interpreted_string_literal", "comment", "rune_literal"):
            keep.append((node.start_byte, node.end_byte))
        else:
            stack.extend(node.children)
    keep.sort()
    out, pos = bytearray(), 0
    for start, end in [*keep, (len(data), len(data))]:
        gap = data[pos:start]
        lines = gap.split(b"\n")
        out += b"\n".join([lines[0].replace(b"\t", b" ")] + [line.lstrip(b" \t") for line in lines[1:]])
        out += data[start:end]
        pos = end
    return bytes(out)


def run_formatter(language: str, command: list[str], files: dict[str, bytes]) -> dict[str, bytes]:
    """The formatted text of every file the formatter accepted, formatting a scratch copy of the corpus."""
    with tempfile.TemporaryDirectory(prefix="gitai-fmt-") as scratch:
        root = Path(scratch)
        names = {}
        for index, (name, data) in enumerate(files.items()):
            relative = f"f{index:04d}{EXTENSIONS[language]}"
            (root / relative).write_bytes(data)
            names[relative] = name
        if command[0] == "clang-format":
            subprocess.run([*command, *names], cwd=root, capture_output=True, timeout=1800)
        elif command[0].endswith("rustfmt"):
            for relative in names:  # one file at a time: a file rustfmt rejects must not stop the others
                subprocess.run([*command, relative], cwd=root, capture_output=True, timeout=120)
        else:
            env = {**os.environ, "PATH": f"{_go_root() or ''}/bin{os.pathsep}{os.environ['PATH']}"}
            done = subprocess.run(command, cwd=root, capture_output=True, timeout=1800, env=env)
            if done.returncode and language != "javascript":
                print(f"   (formatter exit {done.returncode}: {done.stderr.decode()[:300]!r})")
        return {name: (root / relative).read_bytes() for relative, name in names.items()}


def formatter_missing(language: str) -> str | None:
    if language == "python":
        for tool in ("black", "ruff"):
            if not (BIN / tool).exists():
                return f"{tool} is not installed in {BIN} (pip install -e '.[test]')"
    elif language in ("javascript", "typescript", "java"):
        if not (NODE / "prettier").exists() or not (NODE / "prettier-plugin-java").exists():
            OUT.mkdir(exist_ok=True)
            print(f"   installing {', '.join(NPM_PACKAGES)} into {NODE}")
            done = subprocess.run(["npm", "install", "--prefix", str(OUT), "--no-audit", "--no-fund",
                                   *NPM_PACKAGES], capture_output=True)
            if done.returncode:
                return f"npm install failed: {done.stderr.decode()[-300:]}"
    elif language == "rust":
        if not Path(_rustfmt("")[0]).exists():
            return "rustfmt not found"
    elif language == "go" and _go_root() is None:
        return "gofmt not found (apt-get install golang-go)"
    elif language in ("c", "cpp") and shutil.which("clang-format") is None:
        return "clang-format not found (apt-get install clang-format)"
    if language in ("php", "javascript", "typescript") and not (TEST_NODE / "@prettier" / "plugin-php").exists():
        return f"{TEST_NODE} missing (make provision)"
    return None


# --- the oracles --------------------------------------------------------------------------------

ORACLES = {"python": "CPython ast", "javascript": "TypeScript compiler", "typescript": "TypeScript compiler"}


@functools.lru_cache(maxsize=512)
def _dump_or_none(data: bytes) -> str | None:
    """CPython's tree as black checks it (tests/python_oracle.py), None when CPython rejects the text."""
    try:
        return ast_dump(data)
    except (SyntaxError, ValueError):
        return None


def oracle_same(language: str, pairs: list[tuple[bytes, bytes]]) -> list[bool | None]:
    """Each (old, new) pair judged by the language's oracle: the same tree or not; None where there is
    no oracle, or it rejects a side (no verdict)."""
    if language == "python":
        dumps = [(_dump_or_none(old), _dump_or_none(new)) for old, new in pairs]
        return [None if a is None or b is None else a == b for a, b in dumps]
    if language not in ORACLES or not pairs:
        return [None] * len(pairs)
    ext = EXTENSIONS[language]
    files = {f"{side}{index}{ext}": text
             for index, pair in enumerate(pairs) for side, text in zip("on", pair, strict=True)}
    found = ts_dumps(files)
    same: list[bool | None] = []
    for index in range(len(pairs)):
        old, new = found[f"o{index}{ext}"], found[f"n{index}{ext}"]
        same.append(None if old is None or new is None else old == new)
    return same


# --- mutations ----------------------------------------------------------------------------------

NUMBERS = {"integer", "float", "number", "number_literal", "integer_literal", "float_literal", "int_literal",
           "decimal_integer_literal", "decimal_floating_point_literal", "hex_integer_literal"}
STRING_CONTENTS = {"string_content", "string_fragment", "interpreted_string_literal_content"}
OPERATORS = {"+": "-", "-": "+", "*": "/", "/": "*", "<": ">", ">": "<", "<=": ">=", ">=": "<=",
             "==": "!=", "!=": "==", "===": "!==", "!==": "===", "&&": "||", "||": "&&", "and": "or", "or": "and",
             "in": "not in", "not in": "in", "is": "is not", "is not": "is", "|": "&", "&": "|"}
BINARY = {"binary_operator", "binary_expression", "comparison_operator", "boolean_operator"}
ARGUMENTS = {"argument_list", "arguments"}
BLOCKS = {"block", "statement_block", "statement_list", "compound_statement"}
NOT_STATEMENTS = {"comment", "line_comment", "block_comment", "pass_statement", "empty_statement",
                  "line_continuation"}


@dataclass
class Site:
    kind: str
    start: int
    end: int
    replacement: bytes


def mutation_sites(language: str, data: bytes) -> dict[str, list[Site]]:
    """Every place one token-sized behaviour change can be made, by kind."""
    sites: dict[str, list[Site]] = {"literal": [], "operator": [], "argument": [], "statement": []}
    stack = [parse(language, data).root_node]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind in ("comment", "line_comment", "block_comment"):
            continue
        stack.extend(node.children)
        text = data[node.start_byte:node.end_byte]
        if kind in NUMBERS:
            digits = [i for i, c in enumerate(text) if 48 <= c <= 57]
            if digits and not text.lower().startswith((b"0x", b"0b", b"0o")):
                at = node.start_byte + digits[-1]
                sites["literal"].append(Site("literal", at, at + 1, b"%d" % ((data[at] - 47) % 10)))
        elif kind in STRING_CONTENTS and text.strip():
            sites["literal"].append(Site("literal", node.start_byte, node.start_byte, b"Q"))
        elif kind in BINARY:
            operator = node.child_by_field_name("operator")
            if operator is None and kind == "comparison_operator" and node.child_count == 3:
                operator = node.children[1]
            if operator is not None:
                token = data[operator.start_byte:operator.end_byte]
                flipped = OPERATORS.get(" ".join(token.decode().split()))
                if flipped:
                    sites["operator"].append(Site("operator", operator.start_byte, operator.end_byte,
                                                  flipped.encode()))
        elif kind in ARGUMENTS and node.named_child_count:
            last = node.named_children[-1]
            if last.type not in NOT_STATEMENTS:
                sites["argument"].append(Site("argument", last.end_byte, last.end_byte, b", 7"))
        elif kind in BLOCKS:
            statements = [c for c in node.named_children if c.type not in NOT_STATEMENTS]
            if len(statements) >= 2:
                for statement in statements[:-1]:  # the last may be a value (Rust) or the only `return`
                    sites["statement"].append(Site("statement", statement.start_byte, statement.end_byte, b""))
    return sites


def mutants(language: str, data: bytes, rng: random.Random, per_kind: int) -> Iterator[tuple[str, bytes]]:
    """Up to `per_kind` mutants of each kind that still parse without error (and that CPython, for
    Python, also parses and reads as a change: a removed statement may have been a duplicate constant)."""
    for kind, sites in mutation_sites(language, data).items():
        rng.shuffle(sites)
        made = 0
        for site in sites:
            if made == per_kind:
                break
            mutated = data[:site.start] + site.replacement + data[site.end:]
            if language == "python" and _dump_or_none(mutated) in (None, _dump_or_none(data)):
                continue
            if parse(language, mutated).root_node.has_error:
                continue
            made += 1
            yield kind, mutated


# --- running ------------------------------------------------------------------------------------

@dataclass
class Row:
    """One (language, setting): reformatted files, mutants swept by the same setting, oracle verdicts."""
    language: str
    corpus: str
    setting: str
    files: int
    oracle: str | None
    changed: int = 0
    refactor: int = 0
    mutants: int = 0
    caught: int = 0
    judged: int = 0  # pairs the oracle gave a verdict on
    disagree: int = 0
    seconds: float = 0.0


@dataclass
class Result:
    rows: list[Row] = field(default_factory=list)
    oracle_cases: list[tuple[str, str, bytes, bytes]] = field(default_factory=list)
    failures: list[tuple[str, str, FileClassification, bytes, bytes]] = field(default_factory=list)
    missed: list[tuple[str, str, bytes, bytes]] = field(default_factory=list)


def classify_pair(name: str, old: bytes, new: bytes) -> FileClassification:
    return next(iter(classify_changes([FileChange(name, name, old, new)]).files.values()))


@dataclass
class Pair:
    """One judgement: `new` is a reformat of `old` (`mutant` None) or a change of kind `mutant`."""
    name: str
    old: bytes
    new: bytes
    mutant: str | None


def _judge(language: str, row: Row, pairs: list[Pair], result: Result) -> None:
    """gitai's verdict on each pair, counted in `row`, and the oracle's where there is one."""
    for pair, same in zip(pairs, oracle_same(language, [(p.old, p.new) for p in pairs]), strict=True):
        verdict = classify_pair(pair.name, pair.old, pair.new)
        refactor = verdict.classification == "AST_REFACTOR"
        if same is not None:
            row.judged += 1
            if same != refactor:
                row.disagree += 1
                result.oracle_cases.append((f"{row.setting} {pair.mutant or ''}".strip(), pair.name, pair.old,
                                            pair.new))
        if pair.mutant is None:
            row.changed += 1
            row.refactor += refactor
            if not refactor:
                result.failures.append((row.setting, pair.name, verdict, pair.old, pair.new))
        elif same is not True:  # the formatter cannot undo a change; where the oracle says it did, no mutant
            row.mutants += 1
            row.caught += not refactor
            if refactor:
                result.missed.append((f"{pair.mutant} ({row.setting})", pair.name, pair.old, pair.new))


def run_language(language: str, mirror: Path, limit: int, per_kind: int) -> Result | None:
    """Every setting of `language` over its corpus: the files reformatted, and each file's mutants swept
    by the same setting (a change, then the reformat), one row per setting; a first row judges the
    mutants as written."""
    missing = formatter_missing(language)
    if missing:
        print(f"!! {language}: SKIPPED, {missing}")
        return None
    files = corpus(language, mirror, limit)
    if not files:
        print(f"!! {language}: SKIPPED, empty corpus")
        return None
    source = REPOSITORIES[language][0] if language in REPOSITORIES else DEFAULT_CORPORA[language]
    print(f"{language}: {len(files)} files from {source}, {sum(len(d) for d in files.values()) // 1024} KB", flush=True)
    rng = random.Random(13)
    made = {f"{name}#{kind}": (name, kind, mutated) for name, data in files.items()
            for kind, mutated in mutants(language, data, rng, per_kind)}
    result = Result()
    started = time.perf_counter()
    row = Row(language, source, "mutants as written", len(files), ORACLES.get(language))
    _judge(language, row, [Pair(name, files[name], mutated, kind) for name, kind, mutated in made.values()], result)
    row.seconds = time.perf_counter() - started
    result.rows.append(row)
    for setting, command in FORMATTERS[language]:
        started = time.perf_counter()
        inputs = {**files, **{key: mutated for key, (_, _, mutated) in made.items()}}
        if language == "go":
            inputs = {key: _deformat_go(data) for key, data in inputs.items()}
        pairs = []
        for key, new in run_formatter(language, command, inputs).items():
            if language not in ORACLES and parse(language, new).root_node.has_error:
                continue  # tree-sitter cannot read what the formatter wrote, and no oracle can say: no verdict
            if key in made:
                name, kind, _ = made[key]
                pairs.append(Pair(name, files[name], new, kind))
            elif new != inputs[key]:
                pairs.append(Pair(key, inputs[key], new, None))
        row = Row(language, source, setting, len(files), ORACLES.get(language))
        _judge(language, row, pairs, result)
        row.seconds = time.perf_counter() - started
        result.rows.append(row)
        print(f"   {_row_text(row)} ({row.seconds:.0f} s, load average {os.getloadavg()[0]:.1f})", flush=True)
    return result


# --- the Python oracle over whole repositories -----------------------------------------------------

ORACLE_REPOSITORIES = ["pallets+click", "pallets+flask", "psf+requests", "encode+httpx", "pypa+pip",
                       "python-attrs+attrs", "Textualize+rich", "tiangolo+typer", "pytest-dev+pluggy",
                       "simonw+sqlite-utils", "more-itertools+more-itertools"]
SWEEP = 2  # the FORMATTERS["python"] setting that also sweeps every mutant (ruff: fast enough for all of them)


@dataclass
class OracleResult:
    """One repository under the `ast` oracle: every .py file, every Python setting, every mutant."""
    files: int = 0
    not_cpython: int = 0  # files CPython cannot parse (another Python version, or not Python): no verdict
    not_tree_sitter: int = 0  # files tree-sitter parses with an error: kept, a reformat of one is a disagreement
    changed: Counter[str] = field(default_factory=Counter)
    refactor: Counter[str] = field(default_factory=Counter)
    oracle_same: Counter[str] = field(default_factory=Counter)
    disagree: Counter[str] = field(default_factory=Counter)
    mutants: int = 0
    caught: int = 0
    swept: int = 0
    swept_caught: int = 0
    cases: list[tuple[str, str, bytes, bytes, str]] = field(default_factory=list)


def _all_python(git_dir: Path) -> dict[str, bytes]:
    """Every .py file at HEAD, whatever its size."""
    data = subprocess.run(["git", "--git-dir", str(git_dir), "archive", "HEAD"], capture_output=True,
                          check=True).stdout
    files: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        for member in sorted(archive.getmembers(), key=lambda m: m.name):
            if member.isfile() and member.name.endswith(".py"):
                handle = archive.extractfile(member)
                if handle is not None:
                    files[member.name] = handle.read()
    return files


def _oracle_case(result: OracleResult, setting: str, name: str, old: bytes, new: bytes, oracle_same: bool,
                 verdict: FileClassification) -> None:
    ours = verdict.classification == "AST_REFACTOR"
    if ours != oracle_same:
        result.disagree[setting] += 1
        result.cases.append((setting, name, old, new, f"ast {'same' if oracle_same else 'differs'}, gitai "
                             f"{verdict.classification} {verdict.reason or ''}".strip()))


def python_oracle(repository: str, mirror: Path, per_kind: int) -> OracleResult | None:
    """Every .py file of `repository` under the six Python settings and its mutants, judged by gitai and by
    CPython's `ast`; the mutants are also swept by one setting (a change, then the reformat)."""
    git_dir = mirror / repository / "repo"
    if not git_dir.is_dir():
        print(f"!! {repository} missing under {mirror} (fetch github:{repository.replace('+', '/')})")
        return None
    result = OracleResult()
    files: dict[str, bytes] = {}
    dumps: dict[str, str] = {}
    for name, data in _all_python(git_dir).items():
        dump = _dump_or_none(data)
        if dump is None:
            result.not_cpython += 1
            continue
        files[f"{repository}/{name}"] = data
        dumps[f"{repository}/{name}"] = dump
        result.not_tree_sitter += parse("python", data).root_node.has_error
    result.files = len(files)
    for setting, command in FORMATTERS["python"]:
        for name, new in run_formatter("python", command, files).items():
            old = files[name]
            if new == old:
                continue
            new_dump = _dump_or_none(new)
            if new_dump is None:
                continue  # the formatter wrote what CPython rejects: no verdict (never seen)
            verdict = classify_pair(name, old, new)
            same = new_dump == dumps[name]
            result.changed[setting] += 1
            result.refactor[setting] += verdict.classification == "AST_REFACTOR"
            result.oracle_same[setting] += same
            _oracle_case(result, setting, name, old, new, same, verdict)
    rng = random.Random(13)
    made: dict[str, bytes] = {}
    for name, data in files.items():
        if parse("python", data).root_node.has_error:
            continue
        for kind, mutated in mutants("python", data, rng, per_kind):
            made[f"{name}#{kind}"] = mutated
            verdict = classify_pair(name, data, mutated)
            result.mutants += 1
            result.caught += verdict.classification == "INTENT_EVOLUTION"
            _oracle_case(result, f"mutant {kind}", name, data, mutated, False, verdict)
    setting, command = FORMATTERS["python"][SWEEP]
    for key, swept in run_formatter("python", command, made).items():
        name = key.rpartition("#")[0]
        dump = _dump_or_none(swept)
        if dump is None or dump == dumps[name]:
            continue
        verdict = classify_pair(name, files[name], swept)
        result.swept += 1
        result.swept_caught += verdict.classification == "INTENT_EVOLUTION"
        _oracle_case(result, f"mutant swept by {setting}", name, files[name], swept, False, verdict)
    return result


def run_python_oracle(repositories: list[str], mirror: Path, per_kind: int, dump: Path | None, show: int) -> None:
    print(f"load average {os.getloadavg()[0]:.1f} at start")
    totals = OracleResult()
    rows = []
    for repository in repositories:
        started = time.perf_counter()
        result = python_oracle(repository, mirror, per_kind)
        if result is None:
            continue
        changed, refactor = sum(result.changed.values()), sum(result.refactor.values())
        disagree = sum(result.disagree.values())
        files = (f"{result.files} (+{result.not_cpython} not CPython 3.{sys.version_info.minor}, "
                 f"{result.not_tree_sitter} tree-sitter errors)")
        row = (repository, files, f"{refactor}/{changed}",
               f"{sum(result.oracle_same.values())}/{changed}", f"{result.caught}/{result.mutants}",
               f"{result.swept_caught}/{result.swept}", str(disagree))
        rows.append(row)
        print("  ".join(row), f"({time.perf_counter() - started:.0f} s, load average {os.getloadavg()[0]:.1f})",
              flush=True)
        for setting in result.changed:
            print(f"   {setting}: {result.refactor[setting]}/{result.changed[setting]} AST_REFACTOR, ast same "
                  f"{result.oracle_same[setting]}, disagreements {result.disagree[setting]}")
        for setting, name, _, _, why in result.cases[:show]:
            print(f"   ORACLE DISAGREES {setting} {name}: {why}")
        if dump:
            for index, (setting, name, old, new, why) in enumerate(result.cases):
                stem = dump / f"{repository}-{index}-{name.rpartition('/')[2]}"
                stem.mkdir(parents=True, exist_ok=True)
                (stem / "old.py").write_bytes(old)
                (stem / "new.py").write_bytes(new)
                (stem / "why.txt").write_text(f"{setting}\n{name}\n{why}\n")
        totals.files += result.files
        totals.not_cpython += result.not_cpython
        totals.not_tree_sitter += result.not_tree_sitter
        for counter in ("changed", "refactor", "oracle_same", "disagree"):
            getattr(totals, counter).update(getattr(result, counter))
        totals.mutants += result.mutants
        totals.caught += result.caught
        totals.swept += result.swept
        totals.swept_caught += result.swept_caught
    print("\nrepository  files  reformatted AST_REFACTOR  ast says same  mutants INTENT_EVOLUTION  "
          "swept mutants INTENT_EVOLUTION  oracle disagreements")
    for row in rows:
        print("  ".join(row))
    print(f"all  {totals.files} (+{totals.not_cpython}, {totals.not_tree_sitter})  "
          f"{sum(totals.refactor.values())}/{sum(totals.changed.values())}  "
          f"{sum(totals.oracle_same.values())}/{sum(totals.changed.values())}  {totals.caught}/{totals.mutants}  "
          f"{totals.swept_caught}/{totals.swept}  {sum(totals.disagree.values())}")
    for setting in totals.changed:
        print(f"   {setting}: {totals.refactor[setting]}/{totals.changed[setting]} AST_REFACTOR, ast same "
              f"{totals.oracle_same[setting]}, disagreements {totals.disagree[setting]}")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


def _dump(directory: Path, result: Result) -> None:
    pairs = [(f"fmt{i}", name, old, new) for i, (_, name, _, old, new) in enumerate(result.failures)]
    pairs += [(f"mut{i}-{kind}", name, old, new) for i, (kind, name, old, new) in enumerate(result.missed)]
    pairs += [(f"oracle{i}", name, old, new) for i, (_, name, old, new) in enumerate(result.oracle_cases)]
    for tag, name, old, new in pairs:
        stem = directory / f"{tag}-{name.replace('/', '_')}"
        stem.mkdir(parents=True, exist_ok=True)
        suffix = Path(name).suffix
        (stem / f"old{suffix}").write_bytes(old)
        (stem / f"new{suffix}").write_bytes(new)


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}% ({part}/{whole})" if whole else "n/a"


def _row_text(row: Row) -> str:
    """One line of the table: the mutants as written have no reformatted files."""
    reformatted = "" if row.setting == "mutants as written" else _share(row.refactor, row.changed)
    oracle = f"{row.disagree} of {row.judged} ({row.oracle})" if row.oracle else "no oracle (differential)"
    return (f"{row.language:<11} {row.setting:<78} {reformatted:<25} {_share(row.caught, row.mutants):<25} "
            f"{oracle}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang", default=",".join(FORMATTERS))
    parser.add_argument("--max-files", type=int, default=150, help="files per language")
    parser.add_argument("--per-kind", type=int, default=1, help="mutants of each kind per file")
    parser.add_argument("--mirror", type=Path, default=Path(os.environ.get("GITAI_MIRROR", "/work/.mirror")))
    parser.add_argument("--show", type=int, default=5, help="failures shown per language")
    parser.add_argument("--dump", type=Path, help="write each failing pair (old, new) under this directory")
    parser.add_argument("--repository", action="append", default=[], metavar="LANG=OWNER+NAME[:PREFIX,...]",
                        help="take a language's corpus from another repository under the mirror")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the table's rows to FILE as JSON")
    parser.add_argument("--python-oracle", nargs="?", const=",".join(ORACLE_REPOSITORIES), metavar="OWNER+NAME,...",
                        help="every .py file of these mirrored repositories (default: eleven) under CPython's ast")
    args = parser.parse_args()
    if args.python_oracle:
        run_python_oracle(args.python_oracle.split(","), args.mirror, args.per_kind, args.dump, args.show)
        return 0
    for choice in args.repository:
        language, _, source = choice.partition("=")
        name, _, prefixes = source.partition(":")
        REPOSITORIES[language] = (name, tuple(prefixes.split(",")) if prefixes else ())
    load = os.getloadavg()[0]
    started = time.perf_counter()
    rows: list[Row] = []
    for language in args.lang.split(","):
        result = run_language(language, args.mirror, args.max_files, args.per_kind)
        if result is None:
            continue
        rows += result.rows
        if args.dump:
            _dump(args.dump, result)
        for setting, name, verdict, _, _ in result.failures[: args.show]:
            details = [f"{d.status} {d.kind} {d.name} {d.new_lines}" for d in verdict.definitions
                       if d.status != "unchanged"][:4]
            print(f"   FAIL {setting} {name}: {verdict.reason or ''} {details}")
        for kind, name, _, _ in result.missed[: args.show]:
            print(f"   MISSED mutation {kind} in {name}")
        for setting, name, _, _ in result.oracle_cases[: args.show]:
            print(f"   ORACLE DISAGREES {setting} {name}")
    seconds = time.perf_counter() - started
    print(f"\n{'language':<11} {'setting':<78} {'reformatted AST_REFACTOR':<25} {'mutants INTENT_EVOLUTION':<25} "
          "oracle disagreements")
    for row in rows:
        print(_row_text(row))
    print(f"{seconds / 60:.1f} minutes, load average {load:.1f} at the start and {os.getloadavg()[0]:.1f} at the end")
    if args.json:
        report = {"seconds": round(seconds), "load_average": [round(load, 1), round(os.getloadavg()[0], 1)],
                  "max_files": args.max_files, "per_kind": args.per_kind,
                  "rows": [{**asdict(row), "seconds": round(row.seconds, 1)} for row in rows]}
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
