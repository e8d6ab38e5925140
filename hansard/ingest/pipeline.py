"""The ingest pipeline: archive → parse → redact → write → advance, for one source at a time.

The scanner (new bytes of a transcript file, a session kept on a repository's checkpoint refs)
and ``reindex`` (every source again, from the archive alone) have their records read, parsed
and redacted by a reading job
(hansard/ingest/prepare.py, in a worker process for large runs) and write its results with
``write_results``; capture (one delivery between agents) and container sources run theirs
through ``ingest``, all in this process. Always true when its caller's transaction commits: every record fed is archived
under (source, generation, byte offset) unless it came from the archive, its items are
written with their secrets withheld, the full-text indexes cover the new rows, and the
source's offset and parser state resume exactly after the last record. Nothing here opens a
transaction: the caller holds one around each source's writes (one source's rows are never
split between transactions), so a reader never sees part of one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

from hansard.values.models import Item, RawRecord

if TYPE_CHECKING:
    from hansard.agents.base import Parser
    from hansard.ingest.prepare import Tools
    from hansard.store.interfaces import ItemWriter, Redactor, Store


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
    # the row ids of the sessions written (not part of the summary shown)
    session_rows: set[int] = field(default_factory=set, repr=False, compare=False)

    def skip(self, reason: str, n: int = 1) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + n

    def as_dict(self) -> dict[str, object]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "session_rows"}

    def add(self, done: Ingested) -> None:
        w = done.writer
        self.records += done.records
        self.bytes += done.bytes
        self.redactions += w.counts["redactions"]
        self.messages += w.counts["messages"]
        self.edits += w.counts["edits"]
        self.tool_calls += w.counts["tool_calls"]
        self.sessions += len(w.touched_sessions)
        self.session_rows.update(w.touched_sessions)
        for reason, n in w.skip_reasons.items():
            self.skip(reason, n)


@dataclass
class Ingested:
    """What one source's records became: the writer (its counts), how many records and how
    many bytes of them, the parser state to resume from, and (from a reading job) the offset
    just past the last complete line and the bytes of an unfinished line after it."""

    writer: ItemWriter
    records: int
    bytes: int
    state: dict[str, Any]
    end: int = 0
    partial_tail: int = 0


class Progress(Protocol):
    """Told how an index run goes: bytes to read, then bytes read and the file being read."""

    def start(self, total_bytes: int, files: int) -> None: ...
    def file(self, path: str) -> None: ...
    def advance(self, nbytes: int) -> None: ...
    def done(self) -> None: ...


def default_redactor() -> Redactor:
    from hansard.ingest import redact

    return redact  # the module is the redactor: redact, redact_lines, redact_value


def ingest(store: Store, *, source_id: int, generation: int, provider: str, parser: Parser,
           records: Iterable[RawRecord | tuple[RawRecord, list[Item]]], end: Callable[[], int] | None = None,
           from_archive: bool = False, index_text: bool = True, redactor: Redactor | None = None) -> Ingested:
    """Run ``records`` of one source through the pipeline inside the caller's transaction.

    A record may come already parsed, as (record, items): a whole-file transcript is parsed
    before the transaction so that a file caught mid-rewrite costs nothing. The parser's
    last items are written at ``end()`` (the offset just past the last complete line), or at
    the last record's offset. ``from_archive`` records are not archived again and count no
    bytes read."""
    redactor = redactor or default_redactor()
    archive, writer = store.archive, store.items.writer(source_id, provider, redactor)
    prepare = store.items.preparer()
    n = nbytes = last = 0
    for entry in records:
        rec, items = entry if isinstance(entry, tuple) else (entry, parser.feed(entry))
        if not from_archive:
            archive.append(source_id, generation, rec)
            nbytes += len(rec.data) + 1
        writer.write(prepare(items, redactor), rec.offset)
        n += 1
        last = rec.offset
    writer.write(prepare(parser.finish(), redactor), end() if end is not None else last)
    writer.finish()
    if index_text:
        store.items.index_text()  # this source's rows, indexed in bulk inside its transaction
    return Ingested(writer, n, nbytes, parser.state())


def reading_tools(store: Store, redactor: Redactor | None = None) -> Tools:
    """What a reading job (hansard/ingest/prepare.py) needs from this store and redactor."""
    from hansard.ingest.prepare import Tools

    return Tools(prepare=store.items.preparer(), pack=store.archive.packer(), unpack=store.archive.unpacker(),
                 redactor=redactor or default_redactor(), store_path=getattr(store, "path", "") or "", store=store)


_ERRORS: dict[str, type[Exception]] = {"FileNotFoundError": FileNotFoundError, "PermissionError": PermissionError,
                                       "IsADirectoryError": IsADirectoryError}


def _failed(msg: tuple) -> NoReturn:
    _, name, text = msg
    raise _ERRORS.get(name, RuntimeError)(text)


def started(results: Iterator[tuple]) -> Iterator[tuple] | None:
    """A reading job's results once its first has come, before anything of it is written: a
    reading error there (the file gone or unreadable when the job opened it) is raised, and a
    whole-file transcript caught mid-rewrite is None; otherwise the same results, the first
    included."""
    it = iter(results)
    first = next(it)
    if first[0] == "mid_write":
        return None
    if first[0] == "error":
        _failed(first)
    return chain((first,), it)


def write_results(store: Store, *, source_id: int, generation: int, provider: str, results: Iterator[tuple],
                  redactor: Redactor | None = None, end: int | None = None, index_text: bool = True,
                  on_bytes: Callable[[int], None] | None = None) -> Ingested | None:
    """Write one reading job's results (hansard/ingest/prepare.py) inside the caller's
    transaction: records archived (unless they came from the archive), their ops written, the
    full-text indexes level. None when the job found a whole-file transcript mid-rewrite. The
    parser's last items are written at ``end``, else at the job's end, else at the last
    record's offset. A reading error is raised here as its own type, after the job's results
    are used up, so the next job's results stay in step."""
    archive, writer = store.archive, store.items.writer(source_id, provider, redactor or default_redactor())
    n = nbytes = last = 0
    done: Ingested | None = None
    it = iter(results)
    try:
        for msg in it:
            kind = msg[0]
            if kind == "chunk":
                _, recs, size = msg
                if recs[0][2] is not None:
                    archive.append_packed(source_id, generation, [(off, ln, blob) for off, ln, blob, _ops in recs])
                    nbytes += size
                for off, _ln, _blob, ops in recs:
                    writer.write(ops, off)
                n += len(recs)
                last = recs[-1][0]
                if on_bytes is not None:
                    on_bytes(size)
            elif kind == "end":
                _, job_end, partial, state, final = msg
                at = end if end is not None else job_end if job_end is not None else last
                writer.write(final, at)
                writer.finish()
                if index_text:
                    store.items.index_text()
                done = Ingested(writer, n, nbytes, state, at, partial)
            elif kind == "mid_write":
                return None
            else:
                _failed(msg)
    except Exception:
        for _ in it:  # the rest of this job's results
            pass
        raise
    if done is None:
        raise RuntimeError("a reading job ended without its end")
    return done


# A reindex brings the full-text indexes level each time this many bytes of records were
# written, not once at the end: the reading workers keep parsing meanwhile, where at the end
# this process would index alone (about a quarter of its work on the bench corpus).
REINDEX_TEXT_BYTES = 32 << 20


def reindex(store: Store, redactor: Redactor | None = None, progress: Progress | None = None) -> ScanSummary:
    """Every derived table again from the archive alone, in the order a fresh scan uses, in
    one transaction. The archive is read, parsed and redacted by a worker process (through a
    reading connection of its own) while this one writes."""
    from hansard import agents as registry
    from hansard.ingest.prepare import ARCHIVE, Job, open_readers

    summary = ScanSummary()
    archive = store.archive
    with archive.transaction():
        todo = []
        for src in archive.readable_sources():
            provider = registry.from_key(src["provider"])
            if provider is None:
                summary.skip("unknown_provider")
                continue
            todo.append((src, provider))
        jobs = [Job(ARCHIVE, src["path"], src["provider"], source_id=src["id"], generation=src["generation"])
                for src, _p in todo]
        total = sum(int(src["offset"] or 0) for src, _p in todo)
        if progress is not None:
            progress.start(total, len(jobs))
        readers = open_readers(jobs, reading_tools(store, redactor), total)
        unindexed = 0
        try:
            # Emptied while the reading workers start on the first records (they read the
            # archive, which this leaves alone).
            store.items.clear_all()
            with store.items.rebuilding():
                for src, provider in todo:
                    if progress is not None:
                        progress.file(src["path"])
                    done = write_results(store, source_id=src["id"], generation=src["generation"], provider=provider.name,
                                         results=readers.results(), redactor=redactor, index_text=False,
                                         on_bytes=progress.advance if progress is not None else None)
                    assert done is not None  # only a whole-file job read from disk can be mid-write
                    state = done.state
                    if getattr(provider, "container", None):
                        # A database or folder source resumes at its reader's cursor, which the archive
                        # alone cannot rebuild: keep it (hansard/ingest/containers.py).
                        state = {"parser": done.state, "reader": (archive.parser_state(src["id"]) or {}).get("reader")}
                    archive.rebuilt(src["id"], parser_state=state, redactions=done.writer.counts["redactions"])
                    summary.files += 1
                    summary.add(done)
                    unindexed += int(src["offset"] or 0)
                    if unindexed >= REINDEX_TEXT_BYTES:
                        store.items.index_text()
                        unindexed = 0
        finally:
            readers.close()
        store.items.index_text()
        archive.rebuilt_all()
    if progress is not None:
        progress.done()
    return summary
