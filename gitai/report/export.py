"""`gitai export`: the tables of gitai.report.model into SQLite or JSON Lines (docs/export.md)."""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile

from gitai.errors import GitaiError
from gitai.report.model import TABLES, Tables

FORMATS = ("sqlite", "jsonl")


def _utf8(value: object) -> object:
    """Text that is valid UTF-8: a path git holds as bytes that are not UTF-8 (carried here as
    surrogate escapes) gets its undecodable bytes written `\\xNN`, in both formats alike."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return value


def clean_rows(rows: list[tuple[object, ...]]) -> list[tuple[object, ...]]:
    return [tuple(_utf8(v) for v in row) for row in rows]


def create_statements() -> list[str]:
    """The SQLite schema: one CREATE TABLE per table, columns in documented order."""
    return [f"CREATE TABLE {name} (" + ", ".join(f'"{c}" {t}' for c, t, _ in columns) + ")"
            for name, columns in TABLES.items()]


def write_sqlite(tables: Tables, path: str) -> None:
    """A fresh SQLite database at `path` (written beside it, then renamed: never half a file)."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(prefix=".gitai-export-", suffix=".sqlite", dir=directory)
    os.close(fd)
    try:
        db = sqlite3.connect(temp)
        try:
            for statement in create_statements():
                db.execute(statement)
            for name, columns in TABLES.items():
                marks = ", ".join("?" * len(columns))
                db.executemany(f"INSERT INTO {name} VALUES ({marks})", clean_rows(tables.rows[name]))
            db.execute("CREATE INDEX commits_intent ON commits (repo_id, intent_id)")
            db.execute("CREATE INDEX files_record ON files (repo_id, commit_id, record_id)")
            db.execute("CREATE INDEX contributors_record ON contributors (repo_id, commit_id, record_id)")
            db.commit()
        finally:
            db.close()
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise


def jsonl_lines(tables: Tables) -> list[str]:
    """One JSON object per row, `{"table": NAME, column: value, ...}`, tables in schema order."""
    out = []
    for name, columns in TABLES.items():
        keys = [c[0] for c in columns]
        for row in clean_rows(tables.rows[name]):
            out.append(json.dumps({"table": name, **dict(zip(keys, row, strict=True))}, ensure_ascii=True))
    return out


def write_jsonl(tables: Tables, path: str) -> None:
    from gitai.util.files import write_atomic

    write_atomic(path, "".join(line + "\n" for line in jsonl_lines(tables)))


def export(tables: Tables, fmt: str, path: str) -> dict[str, int]:
    """Write the tables; returns the row count of each."""
    if fmt not in FORMATS:
        raise GitaiError(f"unknown export format '{fmt}' (known: {', '.join(FORMATS)})")
    if os.path.isdir(path):
        raise GitaiError(f"{path} is a directory; give a file name with -o")
    if fmt == "sqlite":
        write_sqlite(tables, path)
    else:
        write_jsonl(tables, path)
    return {name: len(rows) for name, rows in tables.rows.items()}
