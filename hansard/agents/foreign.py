"""Reading another program's SQLite file (Cursor's ``state.vscdb``, OpenCode's ``opencode.db``):
those agents' parsers read their records here. hansard's own store is never opened here.

Always true: the file is opened with ``mode=ro`` and ``query_only``, so nothing is ever written
to it. A database in WAL mode is read in place (a WAL reader never blocks the writer). Any
other journal mode would let our read lock stall the editor's next commit, so such a file is
first copied (a plain byte copy takes no SQLite lock) and the copy is read. A file that is not
a database, is locked, or was caught mid-write answers None: the caller tries again at the next
scan. Rows come back as plain tuples and dicts; no connection ever leaves this module.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _ident(name: str) -> str:
    if not _IDENT.match(name):
        raise ValueError(f"not a table or column name: {name!r}")
    return '"' + name + '"'


def _connect(path: str) -> sqlite3.Connection:
    con = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro", uri=True, timeout=0.2,
                          check_same_thread=False)
    con.execute("PRAGMA query_only=1")
    return con


@contextmanager
def open_readonly(path: str) -> Iterator[sqlite3.Connection | None]:
    """A read-only connection to ``path`` (or to a copy of it), or None when it cannot be read."""
    tmpdir: str | None = None
    con: sqlite3.Connection | None = None
    try:
        try:
            con = _connect(path)
            mode = con.execute("PRAGMA journal_mode").fetchone()[0]
            if str(mode).lower() != "wal":
                con.close()
                tmpdir = tempfile.mkdtemp(prefix="hansard-foreign-")
                copy = os.path.join(tmpdir, "copy.db")
                shutil.copyfile(path, copy)
                con = _connect(copy)
                con.execute("PRAGMA schema_version").fetchone()  # a torn copy fails here
        except (sqlite3.Error, OSError):
            if con is not None:
                con.close()
            con = None
        yield con
    finally:
        if con is not None:
            con.close()
        if tmpdir is not None:
            shutil.rmtree(tmpdir, ignore_errors=True)


def tables(path: str) -> set[str] | None:
    with open_readonly(path) as con:
        if con is None:
            return None
        try:
            return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.Error:
            return None


def kv_rows_since(path: str, table: str, min_rowid: int, prefixes: tuple[str, ...]) -> list[tuple[int, str, Any]] | None:
    """``(rowid, key, value)`` of a key-value table (``key TEXT UNIQUE ON CONFLICT REPLACE``,
    ``value``) for rows with ``rowid > min_rowid`` whose key starts with one of ``prefixes``.
    A replaced key gets a new, larger rowid, so this is exactly what changed since the last
    read. None when the file cannot be read now."""
    with open_readonly(path) as con:
        if con is None:
            return None
        conds = " OR ".join("substr(key, 1, ?) = ?" for _ in prefixes) or "1"
        params: list[Any] = [min_rowid]
        for p in prefixes:
            params += [len(p), p]
        try:
            return [(int(r[0]), str(r[1]), r[2]) for r in con.execute(
                f"SELECT rowid, key, value FROM {_ident(table)} WHERE rowid > ? AND ({conds}) ORDER BY rowid", params)]
        except sqlite3.Error:
            return None


def rows_since(path: str, table: str, column: str, since: int) -> list[dict[str, Any]] | None:
    """Every row of ``table`` whose integer ``column`` (e.g. ``time_updated``) is greater than
    ``since``, as dicts, in that column's order. None when the file or table cannot be read."""
    with open_readonly(path) as con:
        if con is None:
            return None
        con.row_factory = sqlite3.Row
        try:
            return [dict(r) for r in con.execute(
                f"SELECT * FROM {_ident(table)} WHERE {_ident(column)} > ? ORDER BY {_ident(column)}, rowid", (since,))]
        except sqlite3.Error:
            return None
