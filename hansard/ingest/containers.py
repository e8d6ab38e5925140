"""Sources whose records are not lines at byte offsets: another program's SQLite database
(Cursor's ``state.vscdb``, OpenCode's ``opencode.db``), a folder of JSON files (OpenCode's
``storage/``), a web-chat export (``hansard import``) and a compressed rollout (Codex's
``.jsonl.zst``). Their reader (a provider with a
``container``) answers ``records(path, cursor)``: the records changed since ``cursor``, each
numbered by a running sequence number, and the next cursor, or None when the source cannot be
read now (a database locked or caught mid-write).

Always true after one of these sources is scanned, in one transaction: the records read are
archived at their sequence numbers, their items are written through the ingest pipeline, and the
source row holds ``{"parser": parser state, "reader": cursor}`` and the source's identity. When
the reader answers None nothing is written, and the unchanged row makes the next scan try again.
An export or a compressed file is read whole each time it changes (the new reading replaces
the old one's rows); a database or a folder resumes at its cursor. A source's identity covers what a plain ``stat``
misses: a database's ``-wal`` file (committed rows may live only there), every file below a
folder.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, TypeGuard

from hansard import agents as registry
from hansard.agents.origin import parser_for
from hansard.files import safeopen
from hansard.files.zstdlib import MAGIC as ZSTD_MAGIC
from hansard.ingest.pipeline import ingest
from hansard.ingest.quickcheck import source_identity

if TYPE_CHECKING:
    from hansard.agents.base import ContainerProvider, Provider
    from hansard.ingest.scanner import Scanner
    from hansard.store.types import Row

SQLITE_MAGIC = b"SQLite format 3\x00"
EXPORT = "export"
COMPRESSED = "zst"
CONTAINERS = ("sqlite", "dir", EXPORT, COMPRESSED)
# Read whole each time they change: an export is replaced by the next one, and a compressed
# file is rewritten, never appended to.
WHOLE = (EXPORT, COMPRESSED)


def container_of(p: Provider | None) -> str | None:
    return getattr(p, "container", None) if p is not None else None


def is_container(p: Provider | None) -> TypeGuard[ContainerProvider]:
    """``p`` reads its sources through ``records`` (it names a container kind)."""
    return container_of(p) is not None


def claims(path: Path, row: Row | None) -> bool:
    """Is ``path`` a container source (read here rather than line by line)?"""
    if row is not None and row["provider"]:
        return row["provider"].partition(":")[2] in CONTAINERS  # see agents.provider_key
    if path.is_dir():
        return True
    try:
        with safeopen.open_file(path, follow=True) as fh:  # a FIFO is refused, never waited on
            head = fh.read(len(SQLITE_MAGIC))
        return head == SQLITE_MAGIC or head.startswith(ZSTD_MAGIC)
    except OSError:
        return False


def whole_dirs(roots: list[str]) -> set[str]:
    """Folders read as one source each: the agents' own, and any root a folder reader claims."""
    return registry.whole_dirs() | {os.path.abspath(r) for r in roots if os.path.isdir(r) and sniff(Path(r))}


def sniff(path: Path) -> ContainerProvider | None:
    if path.is_dir():
        for p in registry.folder_readers():
            if is_container(p) and p.container == "dir":
                try:
                    if p.sniff(path, b""):
                        return p
                except Exception:  # a sniffer bug must not stop the scan
                    continue
        return None
    found = registry.sniff(path)
    return found if is_container(found) else None


def scan(scanner: Scanner, path: Path, row: Row | None, provider: Provider | None = None) -> bool:
    """Read the new records of one container source into the store. False when there was
    nothing to read or the source cannot be read now."""
    spath = str(path)
    ident = source_identity(spath)
    if row is not None and (row["inode"], row["size"], row["mtime_ns"]) == ident and not row["missing"]:
        return False  # unchanged
    archive = scanner.archive
    if provider is None and row is not None and row["provider"]:
        provider = registry.from_key(row["provider"])
    if provider is None:
        provider = sniff(path)
    if provider is None:
        scanner.summary.skip("not_a_transcript")
        with archive.transaction():
            archive.note_foreign(spath, None if row is None else row["id"], *ident)
        return False
    if not is_container(provider):  # a caller's mistake: only container readers come here
        raise TypeError(f"{provider.name} reads line files, not containers")
    pkey = registry.provider_key(provider)
    state = archive.parser_state(row["id"]) if row is not None and row["provider"] == pkey else None
    # Resume at the reader's cursor; an export, a changed reader, or a state without a cursor
    # (a source rebuilt from the archive alone) is read again from the start.
    resume = None if row is None or state is None or "reader" not in state or provider.container in WHOLE else state
    fresh = resume is None
    got = provider.records(spath, None if resume is None else resume["reader"])
    if got is None:
        scanner.summary.skip("source_busy")
        return False
    records, cursor = got
    scanner.summary.changed += 1
    with archive.transaction():
        if row is None:
            source_id, generation = archive.add_source(spath, pkey), 0
        elif fresh:
            source_id = row["id"]
            generation = row["generation"] + 1 if row["offset"] or row["provider"] else row["generation"]
            scanner.store.items.clear_source(source_id)
            archive.restart(source_id, pkey)
        else:
            source_id, generation = row["id"], row["generation"]
        parser = parser_for(provider, spath, None if resume is None else resume.get("parser"))
        last = records[-1].offset + 1 if records else (0 if fresh or row is None else int(row["offset"] or 0))
        done = ingest(scanner.store, source_id=source_id, generation=generation, provider=provider.name,
                      parser=parser, records=records, end=lambda: last, redactor=scanner.redactor)
        archive.advance(source_id, offset=last, parser_state={"parser": done.state, "reader": cursor},
                        redactions=done.writer.counts["redactions"], generation=generation, stat=ident)
    scanner.summary.add(done)
    return True
