"""The incremental scanner: finds transcript files and runs the new bytes of each through the
ingest pipeline (hansard/ingest/pipeline.py).

Always true after a scan of a file, in one transaction: its new complete lines are in the
archive, their items are applied, and the source row holds the offset just past them and
the parser state to resume from. A half-written last line is left for the next scan. A file
that shrank or was rewritten gets a new archive generation, and its derived rows are
replaced. Nothing here raises on a bad file: problems become counted skips.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hansard import config
from hansard import agents as registry
from hansard.agents.base import Provider
from hansard.ingest import containers, reader
from hansard.ingest.pipeline import ScanSummary, ingest
from hansard.ingest.quickcheck import candidate_files, repo_transcripts
from hansard.models import Skip

if TYPE_CHECKING:
    from hansard.store.interfaces import Redactor, Store

HEAD_HASH_BYTES = 4096


def discover(paths: Iterable[Path] | None = None) -> Iterator[Path]:
    """Transcript candidates, sorted so that every scan (and reindex) sees the same order."""
    roots = [str(p) for p in paths] if paths else config.default_source_dirs()
    yield from (Path(p) for p in sorted(set(candidate_files(roots, containers.whole_dirs(roots)))))


def _head_hash(path: Path, n: int) -> str:
    with open(path, "rb") as fh:
        return hashlib.blake2b(fh.read(min(n, HEAD_HASH_BYTES)), digest_size=12).hexdigest()


class Scanner:
    def __init__(self, store: Store, progress: Callable[[int, int, str], None] | None = None,
                 redactor: Redactor | None = None) -> None:
        self.store = store
        self.archive = store.archive
        self.summary = ScanSummary()
        self.progress = progress
        self.redactor = redactor

    def scan(self, paths: Iterable[Path] | None = None) -> ScanSummary:
        files = list(discover(paths))
        if not paths:
            files += [Path(p) for p in repo_transcripts(self.store.repos.paths())]
        # Only what the stat comparison needs: parser states (which can be large) are read
        # for the files that changed.
        known = self.archive.sources()
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
                    self.archive.mark_missing(p)
        return self.summary

    def scan_file(self, path: Path, row: Mapping[str, Any] | None) -> None:
        if containers.claims(path, row):
            containers.scan(self, path, row)  # a database, a folder or an export: not byte offsets
            return
        inode, size, mtime = reader.file_identity(str(path))
        if row is not None and (row["inode"], row["size"], row["mtime_ns"]) == (inode, size, mtime) and not row["missing"]:
            return  # unchanged: the common case, a stat and nothing else
        if row is not None and row["provider"] is None and row["size"] == size:
            return  # not a transcript we read, and it did not change
        provider = registry.from_key(row["provider"]) if row is not None and row["provider"] else None
        if provider is None:
            provider = registry.sniff(path)
        if provider is None:
            self.summary.skip("not_a_transcript")
            with self.archive.transaction():
                self.archive.note_foreign(str(path), None if row is None else row["id"], inode, size, mtime)
            return
        self.summary.changed += 1
        pre = None
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
        with self.archive.transaction():
            source_id, start, generation, state = self._prepare(path, row, provider, size)
            if parser is None:
                parser = provider.new_parser(str(path), state)
            res = reader.ReadResult(start)
            end_of = (lambda: size) if pre is not None else (lambda: res.end)
            done = ingest(self.store, source_id=source_id, generation=generation, provider=provider.name,
                          parser=parser, records=pre if pre is not None else reader.iter_jsonl(str(path), start, res),
                          end=end_of, redactor=self.redactor)
            end = end_of()
            # A partial last line: remember a size that cannot match, so the next scan looks again.
            self.archive.advance(source_id, offset=end, parser_state=done.state,
                                 redactions=done.writer.counts["redactions"], generation=generation,
                                 stat=(inode, -1 if res.partial_tail else size, mtime),
                                 head_hash=_head_hash(path, end) if end else None)
        self.summary.add(done)

    def _prepare(self, path: Path, row: Mapping[str, Any] | None, provider: Provider, size: int
                 ) -> tuple[int, int, int, dict | None]:
        """Decide append or re-read. Returns (source_id, start offset, generation, parser state)."""
        pkey = registry.provider_key(provider)
        if row is None:
            return self.archive.add_source(str(path), pkey), 0, 0, None
        source_id, offset = row["id"], row["offset"]
        appended = (
            not provider.whole_file
            and row["provider"] == pkey
            and size >= offset
            and offset > 0
            and row["head_hash"] == _head_hash(path, offset)
        )
        if appended:
            return source_id, offset, row["generation"], self.archive.parser_state(source_id)
        generation = row["generation"] + 1 if offset > 0 or row["provider"] else row["generation"]
        self.store.items.clear_source(source_id)
        self.archive.restart(source_id, pkey)
        return source_id, 0, generation, None


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
