"""The ingest pipeline: archive → parse → redact → write → advance, for one source at a time.

The scanner (new bytes of a transcript file), ``reindex`` (every source again, from the
archive alone) and capture (one delivery between agents) all run their records through
``ingest``. Always true when its caller's transaction commits: every record fed is archived
under (source, generation, byte offset) unless it came from the archive, its items are
written with their secrets withheld, the full-text indexes cover the new rows, and the
source's offset and parser state resume exactly after the last record. Nothing here opens a
transaction: the caller holds one per source, so a reader never sees part of one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hansard.models import Item, RawRecord

if TYPE_CHECKING:
    from hansard.agents.base import Parser
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

    def skip(self, reason: str, n: int = 1) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + n

    def as_dict(self) -> dict[str, object]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    def add(self, done: Ingested) -> None:
        w = done.writer
        self.records += done.records
        self.bytes += done.bytes
        self.redactions += w.counts["redactions"]
        self.messages += w.counts["messages"]
        self.edits += w.counts["edits"]
        self.tool_calls += w.counts["tool_calls"]
        self.sessions += len(w.touched_sessions)
        for reason, n in w.skip_reasons.items():
            self.skip(reason, n)


@dataclass
class Ingested:
    """What one source's records became: the writer (its counts), how many records and how
    many bytes of them, and the parser state to resume from."""

    writer: ItemWriter
    records: int
    bytes: int
    state: dict[str, Any]


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
    archive, writer = store.archive, store.items.writer(source_id, provider, redactor or default_redactor())
    n = nbytes = last = 0
    for entry in records:
        rec, items = entry if isinstance(entry, tuple) else (entry, parser.feed(entry))
        if not from_archive:
            archive.append(source_id, generation, rec)
            nbytes += len(rec.data) + 1
        writer.apply(items, rec.offset)
        n += 1
        last = rec.offset
    writer.apply(parser.finish(), end() if end is not None else last)
    if index_text:
        store.items.index_text()  # this source's rows, indexed in bulk inside its transaction
    return Ingested(writer, n, nbytes, parser.state())


def reindex(store: Store, redactor: Redactor | None = None) -> ScanSummary:
    """Every derived table again from the archive alone, in the order a fresh scan uses, in
    one transaction."""
    from hansard import agents as registry

    summary = ScanSummary()
    archive = store.archive
    with archive.transaction():
        store.items.clear_all()
        for src in archive.readable_sources():
            provider = registry.from_key(src["provider"])
            if provider is None:
                summary.skip("unknown_provider")
                continue
            done = ingest(store, source_id=src["id"], generation=src["generation"], provider=provider.name,
                          parser=provider.new_parser(src["path"], None),
                          records=archive.records(src["id"], src["generation"], src["path"]),
                          from_archive=True, index_text=False, redactor=redactor)
            state = done.state
            if getattr(provider, "container", None):
                # A database or folder source resumes at its reader's cursor, which the archive
                # alone cannot rebuild: keep it (hansard/ingest/containers.py).
                state = {"parser": done.state, "reader": (archive.parser_state(src["id"]) or {}).get("reader")}
            archive.rebuilt(src["id"], parser_state=state, redactions=done.writer.counts["redactions"])
            summary.files += 1
            summary.add(done)
        store.items.index_text()
    return summary
