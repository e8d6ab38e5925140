"""Opening the store: one SQLite file under HANSARD_HOME, WAL, readable by its owner only.

A connection opened here has every migration applied. A store written by a newer hansard
(it has migrations this version does not know) is refused rather than half-understood.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager

from hansard import config
from hansard.errors import DiskFull, HansardError, StoreBusy, StoreCorrupt, StoreReadOnly, StoreTooNew
from hansard.store.sqlite.migrations import MIGRATIONS

# How long a writer waits for another writer before `store_busy`. HANSARD_BUSY_TIMEOUT
# shortens it (tests of the busy path).
BUSY_TIMEOUT_S = 10.0
# A new store's page size. Most of its bytes are texts of one to a few kB (messages, tool
# inputs, hunks): at SQLite's default 4 kB a row over about 1 kB spills into a chain of
# overflow pages, which every insert, index build and reindex's emptying walks page by page.
# A store keeps the size it was made with (WAL mode cannot change it).
PAGE_SIZE = 16384


def connect(path: str | os.PathLike[str] | None = None, *, readonly: bool = False) -> sqlite3.Connection:
    """The store, migrated. ``readonly`` opens it immutable (a read-only disk or a copy):
    nothing is written, not even the WAL index."""
    path = os.fspath(path or config.store_path_str())
    if not readonly:
        parent = os.path.dirname(path)
        try:
            os.makedirs(parent, exist_ok=True)
            try:
                os.chmod(parent, 0o700)
            except OSError:
                pass
            if not os.path.exists(path):
                # Create the file with owner-only permissions before SQLite writes a byte.
                fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
                os.close(fd)
        except OSError as exc:
            raise _os_error(exc, path) from exc
    elif not os.path.exists(path):
        raise StoreCorrupt(f"no store at {path}; run `hansard index` first")
    uri = f"file:{path}?mode=ro&immutable=1" if readonly else f"file:{path}"
    try:
        busy = float(os.environ.get("HANSARD_BUSY_TIMEOUT") or BUSY_TIMEOUT_S)
        db = sqlite3.connect(uri, uri=True, timeout=busy, isolation_level=None, check_same_thread=False)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA foreign_keys=OFF")
        if readonly:
            migrate(db, readonly=True)
        else:
            db.execute("PRAGMA synchronous=NORMAL")
            if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal" or _pending(db):
                # A new store is still in rollback-journal mode, where two first-time openers
                # (two indexers, an indexer and the MCP server) can deadlock switching it to WAL
                # and one gets `database is locked` at once, without waiting. One at a time.
                with _setup_lock(path):
                    if db.execute("PRAGMA page_count").fetchone()[0] == 0:
                        db.execute(f"PRAGMA page_size={PAGE_SIZE}")
                    db.execute("PRAGMA journal_mode=WAL")
                    migrate(db)
            else:
                migrate(db)  # still refuses a store from a newer hansard
    except sqlite3.DatabaseError as exc:
        raise translate(exc, path) from exc
    for suffix in ("", "-wal", "-shm"):
        p = path + suffix
        if os.path.exists(p):
            try:
                os.chmod(p, 0o600)
            except OSError:
                pass
    return db


def _os_error(exc: OSError, path: str) -> Exception:
    import errno

    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return StoreReadOnly(f"the store at {path} cannot be written ({exc.strerror})")
    if exc.errno == errno.ENOSPC:
        return DiskFull(f"no space left for the store at {path}")
    if exc.errno in (errno.EEXIST, errno.ENOTDIR):
        from hansard.crash import unusable_home

        return unusable_home(os.path.dirname(path))
    return exc


def translate(exc: sqlite3.Error, path: str = "") -> Exception:
    msg = str(exc).lower()
    if "locked" in msg or "busy" in msg:
        return StoreBusy(f"the store is busy ({exc}); try again")
    if "readonly" in msg or "read-only" in msg or "unable to open" in msg:
        return StoreReadOnly(f"the store at {path} is read-only: {exc}")
    if "disk is full" in msg or "database or disk is full" in msg:
        return DiskFull(f"no space left for the store at {path}")
    if "malformed" in msg or "not a database" in msg or "corrupt" in msg:
        return StoreCorrupt(f"the store at {path} is damaged ({exc}); run `hansard doctor`")
    return exc


@contextmanager
def _setup_lock(path: str) -> Iterator[None]:
    import fcntl

    try:
        fd = os.open(path + ".setup-lock", os.O_CREAT | os.O_RDWR, 0o600)
    except OSError as exc:
        raise _os_error(exc, path) from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # held for milliseconds: creating and migrating
        yield
    finally:
        os.close(fd)  # releases the lock


def _pending(db: sqlite3.Connection) -> bool:
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name='_migrations'").fetchone():
        return True
    return len({r[0] for r in db.execute("SELECT name FROM _migrations")}) < len(MIGRATIONS)


def migrate(db: sqlite3.Connection, *, readonly: bool = False) -> None:
    known = {fn.__name__ for fn in MIGRATIONS}
    has_table = db.execute("SELECT 1 FROM sqlite_master WHERE name='_migrations'").fetchone()
    applied = {r[0] for r in db.execute("SELECT name FROM _migrations")} if has_table else set()
    if applied - known:
        raise StoreTooNew(
            "this store was written by a newer hansard (unknown migrations: "
            + ", ".join(sorted(applied - known)) + "); upgrade hansard"
        )
    todo = [fn for fn in MIGRATIONS if fn.__name__ not in applied]
    if not todo or readonly:
        return
    db.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at REAL)")
    for fn in todo:
        script = f"BEGIN IMMEDIATE;\n{fn()}\nINSERT INTO _migrations VALUES ('{fn.__name__}', {time.time()});\nCOMMIT;"
        try:
            db.executescript(script)
        except BaseException as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error) and db.execute(
                "SELECT 1 FROM _migrations WHERE name=?", (fn.__name__,)
            ).fetchone():
                continue  # another process (a second indexer, the MCP server) applied it while we waited
            raise


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT: writers take the lock up front, so readers in WAL mode
    never see half a session. SQLite errors leave as typed errors (disk full, busy, ...)."""
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        raise _typed(exc) from exc
    try:
        yield db
    except BaseException as exc:
        # SQLite may already have rolled back (a full disk does that itself).
        if db.in_transaction:
            db.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise _typed(exc) from exc
        raise
    else:
        try:
            db.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise _typed(exc) from exc


def _typed(exc: sqlite3.Error) -> Exception:
    err = translate(exc)
    return err if isinstance(err, HansardError) else exc


# A tool call's output, in a query over ``tool_calls t``: stored in the call, or the text of its
# tool-result message when the writer stored it once (hansard/store/sqlite/writer.py).
OUTPUT_SQL = "COALESCE(t.output, (SELECT om.text FROM messages om WHERE om.id=t.output_message_id))"


def marks(n: int) -> str:
    """``n`` placeholders for an ``IN (...)`` list."""
    return ",".join("?" * n)


def first_id(db: sqlite3.Connection, table: str) -> int | None:
    """The id a new row of ``table`` must be given: 1 when every row the table holds has an id
    below one (the team's, hansard.store.sqlite.team), since SQLite would give it the largest
    plus one; else None, SQLite's own choice."""
    (top,) = db.execute(f"SELECT MAX(id) FROM {table}").fetchone()
    return 1 if top is not None and top < 1 else None


def like_escape(text: str) -> str:
    """``text`` matched literally by ``LIKE ? ESCAPE '\\'``: its backslashes, ``%`` and ``_`` escaped."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


@contextmanager
def impatient(db: sqlite3.Connection, ms: int = 100) -> Iterator[sqlite3.Connection]:
    """For writes that are only worth it if cheap (caches, audit rows): wait at most ``ms``
    for another writer, such as an index run holding a long transaction."""
    old = db.execute("PRAGMA busy_timeout").fetchone()[0]
    db.execute(f"PRAGMA busy_timeout={int(ms)}")
    try:
        yield db
    finally:
        db.execute(f"PRAGMA busy_timeout={int(old)}")
