"""The archive facet on SQLite: the ``sources`` rows, every raw record, the index runs.

Always true: a record is kept verbatim (codec.pack_record) under (source, generation, byte
offset), and older generations are never deleted; a source row's ``offset`` is the end of the last
complete line archived, and its ``parser_state`` resumes its parser there. Only what the
stat comparison needs is read for every file; parser states are read one file at a time.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from hansard.errors import StoreBusy
from hansard.store.sqlite.codec import pack_record, unpack_record
from hansard.store.sqlite.db import like_escape, marks, transaction
from hansard.values.timebounds import utc_stamp

if TYPE_CHECKING:  # hansard.values.models imports dataclasses, a heavy import, and `why` opens the archive
    from hansard.values.models import RawRecord

_STAT_COLS = "id, path, provider, inode, size, mtime_ns, \"offset\", generation, head_hash, missing"
# A long write run's page cache (KiB), and how much WAL between checkpoints (set in pages of
# the store's own size: 16 kB in a new store, 4 kB in one made before).
BULK_CACHE_KIB = 64 << 10
BULK_CHECKPOINT_BYTES = 64 << 20
_RUN_COLS = ("started_at", "finished_at", "files", "records", "bytes", "skipped", "sessions", "messages", "edits",
             "kind", "redactions", "skip_reasons")


class SqliteArchive:
    def __init__(self, db: sqlite3.Connection, path: str) -> None:
        self.db = db
        self.path = path

    # -- transactions and the indexer lock ----------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with transaction(self.db):
            yield

    @contextmanager
    def savepoint(self) -> Iterator[None]:
        """Inside a transaction: what is written in the block is taken back alone if it raises."""
        self.db.execute("SAVEPOINT one_source")
        try:
            yield
        except BaseException:
            if self.db.in_transaction:
                try:
                    self.db.execute("ROLLBACK TO one_source")
                    self.db.execute("RELEASE one_source")
                except sqlite3.Error:
                    pass  # the transaction is beyond saving: the caller's rollback takes it all back
            raise
        else:
            self.db.execute("RELEASE one_source")

    @contextmanager
    def index_lock(self, wait: bool = True, timeout: float = 600.0) -> Iterator[bool]:
        # Beside the store file, so that two indexers of one store exclude each other and
        # indexers of different stores do not.
        home = os.path.dirname(os.path.abspath(self.path)) if self.path else _home()
        os.makedirs(home, exist_ok=True)
        fd = os.open(os.path.join(home, "index.lock"), os.O_CREAT | os.O_RDWR, 0o600)
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if not wait:
                        yield False
                        return
                    if time.monotonic() > deadline:
                        raise StoreBusy("another `hansard index` is running; waited too long") from None
                    time.sleep(0.1)
            try:
                yield True
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    @contextmanager
    def bulk(self) -> Iterator[None]:
        """For a run that writes much (an index, a reindex): a larger page cache, and the WAL
        copied back into the store every 64 MiB rather than every 4 MiB, so that pages written
        by many small transactions (index pages, full-text segments) are copied back once."""
        old = [self.db.execute(f"PRAGMA {p}").fetchone()[0] for p in ("cache_size", "wal_autocheckpoint")]
        page = self.db.execute("PRAGMA page_size").fetchone()[0]
        self.db.execute(f"PRAGMA cache_size={-BULK_CACHE_KIB}")
        self.db.execute(f"PRAGMA wal_autocheckpoint={BULK_CHECKPOINT_BYTES // page}")
        try:
            yield
        finally:
            # The next commit past the usual threshold copies the WAL back, as always.
            self.db.execute(f"PRAGMA cache_size={int(old[0])}")
            self.db.execute(f"PRAGMA wal_autocheckpoint={int(old[1])}")

    # -- source rows --------------------------------------------------------------------

    def file_stats(self) -> dict[str, tuple[int | None, int | None, int | None]]:
        return {r[0]: (r[1], r[2], r[3]) for r in self.db.execute("SELECT path, inode, size, mtime_ns FROM sources")}

    def sources(self) -> dict[str, sqlite3.Row]:
        return {r["path"]: r for r in self.db.execute(f"SELECT {_STAT_COLS} FROM sources")}

    def source(self, path: str) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self.db.execute(f"SELECT {_STAT_COLS} FROM sources WHERE path=?", (path,)).fetchone()
        return row

    def parser_state(self, source_id: int) -> dict[str, Any] | None:
        import orjson

        raw = self.db.execute("SELECT parser_state FROM sources WHERE id=?", (source_id,)).fetchone()[0]
        return orjson.loads(raw) if raw else None

    def add_source(self, path: str, provider: str | None) -> int:
        cur = self.db.execute("INSERT INTO sources (path, provider, first_seen) VALUES (?,?,?)", (path, provider, utc_stamp()))
        return int(cur.lastrowid or 0)

    def note_foreign(self, path: str, source_id: int | None, inode: int, size: int, mtime_ns: int) -> None:
        if source_id is None:
            self.db.execute(
                "INSERT INTO sources (path, provider, inode, size, mtime_ns, first_seen, last_scanned)"
                " VALUES (?,?,?,?,?,?,?)", (path, None, inode, size, mtime_ns, utc_stamp(), utc_stamp()))
        else:
            self.db.execute("UPDATE sources SET inode=?, size=?, mtime_ns=? WHERE id=?", (inode, size, mtime_ns, source_id))

    def restart(self, source_id: int, provider: str) -> None:
        self.db.execute("UPDATE sources SET provider=?, missing=0, redactions=0 WHERE id=?", (provider, source_id))

    def mark_missing(self, path: str) -> None:
        self.db.execute("UPDATE sources SET missing=1 WHERE path=?", (path,))

    def advance(self, source_id: int, *, offset: int, parser_state: dict[str, Any] | None, redactions: int,
                generation: int | None = None, stat: tuple[int, int, int] | None = None,
                head_hash: str | None = None) -> None:
        import orjson

        state = orjson.dumps(parser_state).decode()
        if stat is None:
            self.db.execute("UPDATE sources SET \"offset\"=?, parser_state=? WHERE id=?", (offset, state, source_id))
        else:
            inode, size, mtime_ns = stat
            self.db.execute(
                "UPDATE sources SET inode=?, size=?, mtime_ns=?, \"offset\"=?, generation=?, parser_state=?,"
                " head_hash=?, missing=0, last_scanned=? WHERE id=?",
                (inode, size, mtime_ns, offset, generation, state, head_hash, utc_stamp(), source_id))
        # -1 (indexed before redaction existed) stays until a rebuild from the archive.
        self.db.execute("UPDATE sources SET redactions=CASE WHEN redactions < 0 THEN redactions ELSE redactions + ? END"
                        " WHERE id=?", (redactions, source_id))

    def rebuilt(self, source_id: int, *, parser_state: dict[str, Any] | None, redactions: int) -> None:
        import orjson

        self.db.execute("UPDATE sources SET parser_state=?, redactions=? WHERE id=?",
                        (orjson.dumps(parser_state).decode(), redactions, source_id))

    def readable_sources(self) -> list[Mapping[str, Any]]:
        return self.db.execute(
            "SELECT id, path, provider, generation, \"offset\" FROM sources WHERE provider IS NOT NULL ORDER BY path"
        ).fetchall()

    def needs_rebuild(self) -> bool:
        return self.db.execute("SELECT 1 FROM sources WHERE redactions < 0 LIMIT 1").fetchone() is not None

    def rebuilt_all(self) -> None:
        # A source without a parser (a file that is not a transcript, a checkpoint entry with
        # none) keeps the mark the migrations left, and would make every index a rebuild.
        self.db.execute("UPDATE sources SET redactions=0 WHERE redactions < 0")

    # -- raw records --------------------------------------------------------------------

    def append(self, source_id: int, generation: int, rec: RawRecord) -> None:
        self.append_packed(source_id, generation, [(rec.offset, len(rec.data), pack_record(rec.data))])

    def packer(self) -> Callable[[bytes], bytes]:
        """How a record's bytes are stored: a module-level function, so a worker process can
        pack records while this process writes."""
        return pack_record

    def unpacker(self) -> Callable[[bytes], bytes]:
        """The inverse of ``packer()`` (it also reads what older versions packed)."""
        return unpack_record

    def packed_records(self, source_id: int, generation: int) -> Iterator[tuple[int, bytes]]:
        """(offset, packed bytes) of a source's records, in order: for a reader that unpacks
        them elsewhere."""
        for r in self.db.execute(
            "SELECT \"offset\", data FROM raw_records WHERE source_id=? AND generation=? ORDER BY \"offset\"",
            (source_id, generation),
        ):
            yield r[0], r[1]

    def append_packed(self, source_id: int, generation: int, rows: Iterable[tuple[int, int, bytes]]) -> None:
        """(offset, length, packed bytes) of records, ``packed`` by ``packer()``."""
        self.db.executemany(
            "INSERT OR REPLACE INTO raw_records (source_id, generation, \"offset\", length, data) VALUES (?,?,?,?,?)",
            [(source_id, generation, off, n, blob) for off, n, blob in rows])

    def records(self, source_id: int, generation: int, path: str) -> Iterator[RawRecord]:
        for r in self.db.execute(
            "SELECT \"offset\", data FROM raw_records WHERE source_id=? AND generation=? ORDER BY \"offset\"",
            (source_id, generation),
        ):
            from hansard.values.models import RawRecord

            yield RawRecord(path, r[0], unpack_record(r[1]))

    # -- runs ---------------------------------------------------------------------------

    def has_runs(self) -> bool:
        return self.db.execute("SELECT 1 FROM runs LIMIT 1").fetchone() is not None

    def complete(self) -> bool:
        """Whether an index run has finished and every archived edit is linked: then no answer
        is missing evidence because the store is being built (``building`` is False for every
        name)."""
        return self.has_runs() and self.db.execute("SELECT 1 FROM edits WHERE resolved=0 LIMIT 1").fetchone() is None

    def building(self, name: str) -> bool:
        """Whether an answer about a file named ``name`` (its last path component) may be
        missing evidence because the store is being built: another process holds the indexer
        lock and either no index run has finished (the first index: sessions still unread or
        not linked yet) or an edit of a file of that name is archived but not linked yet.
        The look-ups come first (two indexed queries); the lock is probed only when they say
        the store is incomplete."""
        if self.has_runs():
            pattern = "%/" + like_escape(name)
            if self.db.execute("SELECT 1 FROM edits WHERE resolved=0 AND (path=? OR path LIKE ? ESCAPE '\\')"
                               " LIMIT 1", (name, pattern)).fetchone() is None:
                return False
        return self.index_running()

    def index_running(self) -> bool:
        """Whether another process holds the indexer lock now."""
        home = os.path.dirname(os.path.abspath(self.path)) if self.path else _home()
        try:
            fd = os.open(os.path.join(home, "index.lock"), os.O_RDONLY)
        except OSError:
            return False  # no indexer ever ran here
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True  # an index run holds it
        else:
            fcntl.flock(fd, fcntl.LOCK_UN)
            return False
        finally:
            os.close(fd)

    def record_run(self, run: Mapping[str, Any]) -> None:
        self.db.execute(f"INSERT INTO runs ({', '.join(_RUN_COLS)}) VALUES ({marks(len(_RUN_COLS))})",
                        tuple(run.get(c) for c in _RUN_COLS))


def _home() -> str:
    from hansard import config

    return str(config.hansard_home())
