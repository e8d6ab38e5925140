"""The incremental scanner: finds transcript files, archives every new record, and feeds it
through its provider's parser into the store.

Always true after a scan of a file, in one transaction: its new complete lines are in the
archive, their items are applied, and the source row holds the offset just past them and
the parser state to resume from. A half-written last line is left for the next scan. A file
that shrank or was rewritten gets a new archive generation, and its derived rows are
replaced. Nothing here raises on a bad file: problems become counted skips.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import sqlite3
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from hansard import config
from hansard.errors import StoreBusy
from hansard import agents as registry
from hansard.ingest import reader
from hansard.agents.base import Provider
from hansard.ingest.quickcheck import candidate_files
from hansard.models import RawRecord, Skip
from hansard.store.sqlite import fts
from hansard.store.sqlite.db import transaction
from hansard.store.sqlite.writer import Writer

HEAD_HASH_BYTES = 4096


@dataclass
class ScanSummary:
    files: int = 0
    changed: int = 0
    records: int = 0
    bytes: int = 0
    sessions: int = 0
    messages: int = 0
    edits: int = 0
    tool_calls: int = 0
    redactions: int = 0  # secrets withheld from the derived tables (hansard/ingest/redact.py)
    skipped: dict[str, int] = field(default_factory=dict)

    def skip(self, reason: str, n: int = 1) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + n

    def as_dict(self) -> dict[str, object]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


# -- discovery ------------------------------------------------------------------------


def discover(paths: Iterable[Path] | None = None) -> Iterator[Path]:
    """Transcript candidates, sorted so that every scan (and reindex) sees the same order."""
    roots = [str(p) for p in paths] if paths else config.default_source_dirs()
    yield from (Path(p) for p in sorted(set(candidate_files(roots))))


# -- locking --------------------------------------------------------------------------


@contextmanager
def index_lock(wait: bool = True, timeout: float = 600.0) -> Iterator[bool]:
    """One indexer at a time. Yields False (without the lock) when ``wait`` is off and
    another indexer holds it."""
    home = config.hansard_home()
    home.mkdir(parents=True, exist_ok=True)
    fd = os.open(home / "index.lock", os.O_CREAT | os.O_RDWR, 0o600)
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


# -- scanning -------------------------------------------------------------------------


def _head_hash(path: Path, n: int) -> str:
    with open(path, "rb") as fh:
        return hashlib.blake2b(fh.read(min(n, HEAD_HASH_BYTES)), digest_size=12).hexdigest()


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class Scanner:
    def __init__(self, db: sqlite3.Connection, progress: Callable[[int, int, str], None] | None = None) -> None:
        self.db = db
        self.summary = ScanSummary()
        self.progress = progress

    def scan(self, paths: Iterable[Path] | None = None) -> ScanSummary:
        files = list(discover(paths))
        # Only what the stat comparison needs: parser states (which can be large) are read
        # for the files that changed.
        known = {r["path"]: r for r in self.db.execute(
            "SELECT id, path, provider, inode, size, mtime_ns, \"offset\", generation, head_hash, missing FROM sources")}
        seen: set[str] = set()
        for i, path in enumerate(files):
            spath = str(path)
            seen.add(spath)
            if self.progress:
                self.progress(i, len(files), spath)
            self.summary.files += 1
            try:
                self.scan_file(path, known.get(spath))
            except FileNotFoundError:
                self.summary.skip("vanished")
            except PermissionError:
                self.summary.skip("unreadable")
            except IsADirectoryError:
                continue
        if not paths:
            gone = [p for p, r in known.items() if p not in seen and not r["missing"] and "://" not in p]
            for p in gone:
                # The transcript was deleted (Claude cleans up after 30 days): the archive keeps it.
                if not os.path.exists(p):
                    self.db.execute("UPDATE sources SET missing=1 WHERE path=?", (p,))
        return self.summary

    def scan_file(self, path: Path, row: sqlite3.Row | None) -> None:
        inode, size, mtime = reader.file_identity(str(path))
        if row is not None and (row["inode"], row["size"], row["mtime_ns"]) == (inode, size, mtime) and not row["missing"]:
            return  # unchanged: the common case, a stat and nothing else
        if row is not None and row["provider"] is None and row["size"] == size:
            return  # not a transcript we read, and it did not change
        provider = registry.from_key(row["provider"]) if row is not None and row["provider"] else None
        if provider is None:
            provider = registry.sniff(path)
        if provider is None:
            self._remember_foreign(path, row, inode, size, mtime)
            return
        self.summary.changed += 1
        pre: list[tuple[RawRecord, list]] | None = None
        parser = None
        if provider.whole_file:
            # Parse before touching the store: a JSON file caught mid-rewrite keeps what we
            # had, and the unchanged stat row makes the next scan try again.
            rec = reader.read_whole(str(path))
            parser = provider.new_parser(str(path), None)
            items = parser.feed(rec)
            if any(isinstance(i, Skip) and i.reason == "malformed_json" for i in items):
                self.summary.skip("whole_file_mid_write")
                return
            pre = [(rec, items)]
        with transaction(self.db):
            source_id, start, generation, state = self._prepare(path, row, provider, inode, size)
            if parser is None:
                parser = provider.new_parser(str(path), state)
            self._ingest(path, provider, parser, pre, source_id, start, generation, inode, size, mtime)

    def _remember_foreign(self, path: Path, row: sqlite3.Row | None, inode: int, size: int, mtime: int) -> None:
        self.summary.skip("not_a_transcript")
        with transaction(self.db):
            if row is None:
                self.db.execute(
                    "INSERT INTO sources (path, provider, inode, size, mtime_ns, first_seen, last_scanned)"
                    " VALUES (?,?,?,?,?,?,?)",
                    (str(path), None, inode, size, mtime, _now(), _now()),
                )
            else:
                self.db.execute("UPDATE sources SET inode=?, size=?, mtime_ns=? WHERE id=?", (inode, size, mtime, row["id"]))

    def _prepare(self, path: Path, row: sqlite3.Row | None, provider: Provider, inode: int, size: int
                 ) -> tuple[int, int, int, dict | None]:
        """Decide append or re-read. Returns (source_id, start offset, generation, parser state)."""
        pkey = registry.provider_key(provider)
        if row is None:
            cur = self.db.execute(
                "INSERT INTO sources (path, provider, first_seen) VALUES (?,?,?)", (str(path), pkey, _now())
            )
            return int(cur.lastrowid or 0), 0, 0, None
        source_id, offset = row["id"], row["offset"]
        appended = (
            not provider.whole_file
            and row["provider"] == pkey
            and size >= offset
            and offset > 0
            and row["head_hash"] == _head_hash(path, offset)
        )
        if appended:
            raw = self.db.execute("SELECT parser_state FROM sources WHERE id=?", (source_id,)).fetchone()[0]
            state = orjson.loads(raw) if raw else None
            return source_id, offset, row["generation"], state
        generation = row["generation"] + 1 if offset > 0 or row["provider"] else row["generation"]
        clear_source(self.db, source_id)
        self.db.execute("UPDATE sources SET provider=?, missing=0 WHERE id=?", (pkey, source_id))
        return source_id, 0, generation, None

    def _ingest(self, path: Path, provider: Provider, parser, pre: list | None, source_id: int, start: int,
                generation: int, inode: int, size: int, mtime: int) -> None:
        writer = Writer(self.db, source_id, provider.name)
        res = reader.ReadResult(start)
        fed = pre if pre is not None else ((rec, parser.feed(rec)) for rec in reader.iter_jsonl(str(path), start, res))
        nbytes = 0
        for rec, items in fed:
            archive(self.db, source_id, generation, rec)
            writer.apply(items, rec.offset)
            nbytes += len(rec.data) + 1
            self.summary.records += 1
        end = size if pre is not None else res.end
        writer.apply(parser.finish(), end)
        fts.catch_up(self.db)  # this file's rows, indexed in bulk inside its transaction
        # A partial last line: remember a size that cannot match, so the next scan looks again.
        seen_size = -1 if res.partial_tail else size
        self.db.execute(
            "UPDATE sources SET inode=?, size=?, mtime_ns=?, \"offset\"=?, generation=?, parser_state=?, head_hash=?,"
            " missing=0, last_scanned=? WHERE id=?",
            (inode, seen_size, mtime, end, generation, orjson.dumps(parser.state()).decode(),
             _head_hash(path, end) if end else None, _now(), source_id),
        )
        # -1 (indexed before redaction existed) stays until `index` rebuilds the source.
        self.db.execute("UPDATE sources SET redactions=CASE WHEN redactions < 0 THEN redactions ELSE redactions + ? END"
                        " WHERE id=?", (writer.counts["redactions"], source_id))
        s = self.summary
        s.bytes += nbytes
        s.redactions += writer.counts["redactions"]
        s.messages += writer.counts["messages"]
        s.edits += writer.counts["edits"]
        s.tool_calls += writer.counts["tool_calls"]
        s.sessions += len(writer.touched_sessions)
        for reason, n in writer.skip_reasons.items():
            s.skip(reason, n)


def archive(db: sqlite3.Connection, source_id: int, generation: int, rec: RawRecord) -> None:
    db.execute(
        "INSERT OR REPLACE INTO raw_records (source_id, generation, \"offset\", length, data) VALUES (?,?,?,?,?)",
        (source_id, generation, rec.offset, len(rec.data), zlib.compress(rec.data, 1)),
    )


def archived_records(db: sqlite3.Connection, source_id: int, generation: int, path: str) -> Iterator[RawRecord]:
    for r in db.execute(
        "SELECT \"offset\", data FROM raw_records WHERE source_id=? AND generation=? ORDER BY \"offset\"",
        (source_id, generation),
    ):
        yield RawRecord(path, r[0], zlib.decompress(r[1]))


def clear_source(db: sqlite3.Connection, source_id: int) -> None:
    """Remove every derived row read from one source, leaving sessions consistent."""
    sessions = {r[0] for r in db.execute("SELECT DISTINCT session_id FROM messages WHERE source_id=?", (source_id,))}
    sessions |= {r[0] for r in db.execute("SELECT id FROM sessions WHERE source_id=?", (source_id,))}
    db.execute("DELETE FROM edit_lines WHERE edit_id IN (SELECT id FROM edits WHERE source_id=?)", (source_id,))
    for table in ("edits", "tool_calls", "steps", "messages", "leaf_titles", "skips"):
        db.execute(f"DELETE FROM {table} WHERE source_id=?", (source_id,))
    db.execute("UPDATE sources SET redactions=0 WHERE id=?", (source_id,))
    for sid in sessions:
        left = db.execute("SELECT MAX(message_index) FROM messages WHERE session_id=?", (sid,)).fetchone()[0]
        if left is None:
            db.execute("DELETE FROM sessions WHERE id=?", (sid,))
        else:
            db.execute("UPDATE sessions SET message_count=? WHERE id=?", (left + 1, sid))


def reindex(db: sqlite3.Connection) -> ScanSummary:
    """Rebuild every derived table from the archive alone, in the order a fresh scan uses."""
    from hansard.store.sqlite.migrations import DERIVED_TABLES

    summary = ScanSummary()
    with transaction(db):
        for table in DERIVED_TABLES:
            db.execute(f"DELETE FROM {table}")
        sources = db.execute(
            "SELECT id, path, provider, generation FROM sources WHERE provider IS NOT NULL ORDER BY path"
        ).fetchall()
        for src in sources:
            provider = registry.from_key(src["provider"])
            if provider is None:
                summary.skip("unknown_provider")
                continue
            writer = Writer(db, src["id"], provider.name)
            parser = provider.new_parser(src["path"], None)
            last = 0
            for rec in archived_records(db, src["id"], src["generation"], src["path"]):
                writer.apply(parser.feed(rec), rec.offset)
                summary.records += 1
                last = rec.offset
            writer.apply(parser.finish(), last)
            db.execute("UPDATE sources SET parser_state=?, redactions=? WHERE id=?",
                       (orjson.dumps(parser.state()).decode(), writer.counts["redactions"], src["id"]))
            summary.files += 1
            summary.redactions += writer.counts["redactions"]
            summary.messages += writer.counts["messages"]
            summary.edits += writer.counts["edits"]
            summary.sessions += len(writer.touched_sessions)
            for reason, n in writer.skip_reasons.items():
                summary.skip(reason, n)
        fts.catch_up(db)
    return summary


def stderr_progress() -> Callable[[int, int, str], None] | None:
    """A one-line progress bar on stderr, only when stderr is a terminal."""
    if not sys.stderr.isatty():
        return None

    def show(i: int, n: int, path: str) -> None:
        width = 30
        done = int(width * (i + 1) / max(n, 1))
        sys.stderr.write(f"\r[{'#' * done}{'.' * (width - done)}] {i + 1}/{n} files")
        if i + 1 == n:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show
