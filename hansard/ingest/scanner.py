"""The incremental scanner: finds transcript files and runs the new bytes of each through the
ingest pipeline (hansard/ingest/pipeline.py).

Always true after a scan of a file, in one transaction (shared with other files read just
before or after it): its new complete lines are in the archive, their items are applied, and
the source row holds the offset just past them and the parser state to resume from; a file's
rows are never split between transactions, and a file that fails is taken back whole, the
files of its transaction around it kept. A half-written last line is left for the next scan.
A file that shrank or was rewritten gets a new archive generation, and its derived rows are
replaced. Nothing here raises on a bad file: problems become counted skips.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hansard import agents as registry
from hansard.agents.base import Provider
from hansard.files import safeopen
from hansard.ingest import containers, reader
from hansard.ingest.pipeline import Ingested, Progress, ScanSummary, reading_tools, started, write_results
from hansard.ingest.quickcheck import candidate_files, repo_transcripts

if TYPE_CHECKING:
    from hansard.ingest.prepare import Job
    from hansard.store.interfaces import Redactor, Store
    from hansard.store.types import Row

HEAD_HASH_BYTES = 4096
# Files written in one transaction, up to this many bytes read or this long holding the lock.
# Each commit writes the pages the group dirtied (index pages, full-text segments) and adds a
# segment to each full-text index, which merges rewrite: fewer, larger groups write less, and
# the time bound still keeps the lock from being held long.
GROUP_BYTES = 32 << 20
GROUP_S = 1.0
# A first index of at least this many bytes fills the empty tables without their non-unique
# indexes and builds them at the end: one sort each instead of a B-tree insert per row.
DEFER_INDEX_BYTES = 32 << 20


def discover(paths: Iterable[Path] | None = None) -> Iterator[Path]:
    """Transcript candidates, sorted so that every scan (and reindex) sees the same order."""
    roots = [str(p) for p in paths] if paths else registry.transcript_dirs()
    yield from (Path(p) for p in sorted(set(candidate_files(roots, containers.whole_dirs(roots)))))


def _head_hash(path: Path, n: int, within: Iterable[str] | None = None) -> str:
    with safeopen.open_file(path, follow=True, within=within) as fh:
        return hashlib.blake2b(fh.read(min(n, HEAD_HASH_BYTES)), digest_size=12).hexdigest()


class _MidWrite(Exception):
    pass


def _skip_reason(exc: BaseException) -> str | None:
    """The counted skip a failure to read a file is (the file alone is skipped), "" for a
    folder (not counted), None for a failure that stops the run."""
    if isinstance(exc, _MidWrite):
        return "whole_file_mid_write"  # the unchanged stat row makes the next scan try again
    if isinstance(exc, FileNotFoundError):
        return "vanished"
    if isinstance(exc, PermissionError):
        return "unreadable"
    if isinstance(exc, IsADirectoryError):
        return ""
    return None


# What reading a file can fail with that skips that file alone (``_skip_reason``).
_SKIPPED = (_MidWrite, FileNotFoundError, PermissionError, IsADirectoryError)


@dataclass
class Plan:
    """What a scan does with one changed file, decided before any of it is read: read it from
    ``start`` with ``state`` (a new file, an append, or a re-read into ``generation``), or
    hand it to containers.py (``container``)."""

    path: Path
    row: Row | None
    provider: Provider | None = None
    stat: tuple[int, int, int] = (0, 0, 0)
    start: int = 0
    generation: int = 0
    state: dict[str, Any] | None = None
    appended: bool = False
    container: bool = False

    @property
    def todo(self) -> int:
        return max(self.stat[1] - self.start, 0)


class Scanner:
    def __init__(self, store: Store, progress: Progress | None = None, redactor: Redactor | None = None,
                 on_commit: Callable[[], None] | None = None) -> None:
        self.store = store
        self.archive = store.archive
        self.summary = ScanSummary()
        self.progress = progress
        self.redactor = redactor
        # Told after each commit of a run read by worker processes (the index run's link works
        # out what it can beside the rest of the scan).
        self.on_commit = on_commit
        # Where transcripts may be read from: the paths the user named, else the agent homes
        # and the known repositories (their Aider histories). A transcript that is a symlink
        # to a file elsewhere is not read (safeopen.OutsideFolder).
        self.within: safeopen.Folders | None = None

    def scan(self, paths: Iterable[Path] | None = None) -> ScanSummary:
        files = list(discover(paths))
        self.within = safeopen.folders([os.fspath(p) for p in paths] if paths
                                       else [*registry.transcript_dirs(), *self.store.repos.paths()])
        if not paths:
            files += [Path(p) for p in repo_transcripts(self.store.repos.paths())]
        # Only what the stat comparison needs: parser states (which can be large) are read
        # for the files that changed.
        known = self.archive.sources()
        seen: set[str] = set()
        plans: list[Plan] = []
        for path in files:
            spath = str(path)
            seen.add(spath)
            self.summary.files += 1
            try:
                plan = self.scan_file(path, known.get(spath))
            except FileNotFoundError:
                self.summary.skip("vanished")
                continue
            except safeopen.NotRegularFile:
                self.summary.skip("not_a_regular_file")  # a FIFO would block the scan forever
                continue
            except safeopen.OutsideFolder:
                self.summary.skip("outside_its_folder")
                continue
            except PermissionError:
                self.summary.skip("unreadable")
                continue
            except IsADirectoryError:
                continue
            if plan is not None:
                plans.append(plan)
        self.read(plans)
        from hansard.ingest import git_sources

        # Sessions kept in git (Entire checkpoints): every known repository's refs, or the work
        # trees named on the command line.
        git_sources.scan_repos(self, self.store.repos.paths() if not paths else git_sources.work_tree_tops(paths))
        if not paths:
            gone = [p for p, r in known.items()
                    if p not in seen and not r["missing"] and "://" not in p and not p.startswith("git:")]
            for p in gone:
                # The transcript was deleted (Claude cleans up after 30 days): the archive keeps it.
                if not os.path.exists(p):
                    self.archive.mark_missing(p)
        return self.summary

    def scan_file(self, path: Path, row: Row | None) -> Plan | None:
        """What to read of one file, or None when there is nothing to (unchanged, or not a
        transcript: remembered as such)."""
        checked = path.is_dir()
        if not checked and (row is None or not row["provider"]):
            self._check(path)  # containers.claims opens it
            checked = True
        if containers.claims(path, row):
            if not checked:
                self._check(path)
            return Plan(path, row, container=True)  # a database, a folder or an export: not byte offsets
        inode, size, mtime = reader.file_identity(str(path))
        if row is not None and (row["inode"], row["size"], row["mtime_ns"]) == (inode, size, mtime) and not row["missing"]:
            return None  # unchanged: the common case, a stat and nothing else
        if row is not None and row["provider"] is None and row["size"] == size:
            return None  # not a transcript we read, and it did not change
        if not checked:
            self._check(path)
        provider = registry.from_key(row["provider"]) if row is not None and row["provider"] else None
        if provider is None:
            provider = registry.sniff(path)
        if provider is None:
            self.summary.skip("not_a_transcript")
            with self.archive.transaction():
                self.archive.note_foreign(str(path), None if row is None else row["id"], inode, size, mtime)
            return None
        plan = Plan(path, row, provider, (inode, size, mtime))
        if row is None:
            return plan
        offset = row["offset"]
        plan.appended = (
            not provider.whole_file
            and row["provider"] == registry.provider_key(provider)
            and size >= offset
            and offset > 0
            and row["head_hash"] == _head_hash(path, offset, self.within)
        )
        if plan.appended:
            plan.start, plan.generation, plan.state = offset, row["generation"], self.archive.parser_state(row["id"])
        else:
            plan.generation = row["generation"] + 1 if offset > 0 or row["provider"] else row["generation"]
        return plan

    def _check(self, path: Path) -> None:
        """Before anything reads ``path``: opened without blocking, it is a regular file whose
        real path is inside the folders this scan reads (safeopen.NotRegularFile, OutsideFolder)."""
        os.close(safeopen.open_fd(path, follow=True, within=self.within))

    def read(self, plans: list[Plan]) -> None:
        """Read the planned files, in order: their records are read, parsed and redacted by a
        worker process (or inline, for a few bytes) while this process writes them."""
        from hansard.ingest.prepare import Workers, open_readers

        files = [p for p in plans if not p.container]
        total = sum(p.todo for p in files)
        if self.progress is not None:
            self.progress.start(total, len(plans))
        jobs = [self._job(p) for p in files if p.provider is not None]
        deferred = self.defer_indexes(total)
        readers = open_readers(jobs, reading_tools(self.store, self.redactor), total) if jobs else None
        group = _Group(self, self.on_commit if isinstance(readers, Workers) else None)
        try:
            for plan in plans:
                if self.progress is not None:
                    self.progress.file(str(plan.path))
                try:
                    if plan.container:
                        group.commit()
                        containers.scan(self, plan.path, plan.row)
                    else:
                        assert readers is not None
                        self._write(plan, readers.results(), group)
                except _SKIPPED as exc:
                    self._skipped(exc)
            group.commit()
        except BaseException:
            group.abort()
            raise
        finally:
            if readers is not None:
                readers.close()
            if deferred:
                self.restore_indexes()
        if self.progress is not None:
            self.progress.done()

    def defer_indexes(self, total: int) -> bool:
        """Before a first index (no run has finished): indexes a first index stopped before
        it finished left dropped are built again, and when the tables are still empty and
        ``total`` bytes are worth it, the non-unique ones are dropped until the end of this
        scan. Answers read meanwhile are slower, never wrong, and say the store is being
        built (archive.building)."""
        items = self.store.items
        if self.archive.has_runs() or not hasattr(items, "drop_indexes"):
            return False
        with self.archive.transaction():
            items.restore_indexes()
            if total < DEFER_INDEX_BYTES or not items.empty():
                return False
            items.drop_indexes()
        return True

    def restore_indexes(self) -> None:
        """The indexes ``defer_indexes`` dropped, built again (after the scan's own error, by the
        next index run: that error is the one that goes up)."""
        failing = sys.exc_info()[1] is not None
        try:
            with self.archive.transaction():
                self.store.items.restore_indexes()
        except Exception:
            if not failing:
                raise
            # The scan's own error goes up; the next index run builds them (defer_indexes).

    def _job(self, plan: Plan) -> Job:
        from hansard.ingest.prepare import FILE, Job

        assert plan.provider is not None
        return Job(FILE, str(plan.path), registry.provider_key(plan.provider), start=plan.start, state=plan.state,
                   whole_file=plan.provider.whole_file, within=self.within)

    def _skipped(self, exc: BaseException) -> None:
        reason = _skip_reason(exc)
        if reason:
            self.summary.skip(reason)

    def _write(self, plan: Plan, results: Iterator[tuple], group: _Group) -> None:
        """One file's reading job's results written in the group's transaction. A failure to
        read it (``_SKIPPED``) goes up, the file's rows taken back."""
        self.summary.changed += 1
        on_bytes = self.progress.advance if self.progress is not None else None
        # A file gone or caught mid-rewrite when its job opened it is known before anything of
        # it is written.
        ready = started(results)
        if ready is None:
            raise _MidWrite
        group.begin()
        group.write(plan, lambda: self._file(plan, ready, on_bytes))

    def write_again(self, plan: Plan, group: _Group) -> None:
        """A file whose group was taken back, read again in this process and written in a
        savepoint of the group's transaction: a failure skips it alone."""
        from hansard.ingest.prepare import Inline

        readers = Inline(reading_tools(self.store, self.redactor))
        readers.submit([self._job(plan)])
        group.begin()
        try:
            with self.archive.savepoint():
                done = self._file(plan, readers.results(), None)
        except _SKIPPED as exc:
            self._skipped(exc)
            return
        group.add(done, plan)

    def _file(self, plan: Plan, results: Iterator[tuple], on_bytes: Callable[[int], None] | None) -> Ingested:
        """One file's new rows and its new offset, inside the group's transaction."""
        provider, path, row = plan.provider, plan.path, plan.row
        assert provider is not None
        pkey = registry.provider_key(provider)
        inode, size, mtime = plan.stat
        if row is None:
            source_id = self.archive.add_source(str(path), pkey)
        else:
            source_id = row["id"]
            if not plan.appended:
                self.store.items.clear_source(source_id)
                self.archive.restart(source_id, pkey)
        done = write_results(self.store, source_id=source_id, generation=plan.generation, provider=provider.name,
                             results=results, redactor=self.redactor, end=size if provider.whole_file else None,
                             index_text=False, on_bytes=on_bytes)
        if done is None:
            raise _MidWrite
        end = done.end
        # A partial last line: remember a size that cannot match, so the next scan looks again.
        self.archive.advance(source_id, offset=end, parser_state=done.state,
                             redactions=done.writer.counts["redactions"], generation=plan.generation,
                             stat=(inode, -1 if done.partial_tail else size, mtime),
                             head_hash=_head_hash(path, end, self.within) if end else None)
        return done


class _Group:
    """Consecutive files written in one transaction, committed with their full-text index
    entries once the group holds ``GROUP_BYTES`` or has held the write lock for ``GROUP_S``:
    fewer commits and larger full-text segments than one transaction per file, and a file's
    rows still commit together, never split. Counts reach the summary when they commit.

    A file's rows are written without a savepoint of their own (``write``): SQLite copies
    every page a savepoint's writes touch to a journal first, and a file's rows touch pages of
    every index. A file that fails after writing some of them is rare (a reading job's
    failures come before its first records), and then the group's transaction is taken back
    and its earlier files written again, each in a savepoint (``Scanner.write_again``)."""

    def __init__(self, scanner: Scanner, on_commit: Callable[[], None] | None = None) -> None:
        self.scanner = scanner
        self.on_commit = on_commit
        self.stack: ExitStack | None = None
        self.bytes = 0
        self.started = 0.0
        self.done: list[Ingested] = []
        self.plans: list[Plan] = []  # the files ``write`` wrote in the open transaction

    def begin(self) -> None:
        if self.stack is None:
            stack = ExitStack()
            stack.enter_context(self.scanner.archive.transaction())
            self.stack, self.bytes, self.started = stack, 0, time.monotonic()

    def write(self, plan: Plan, write: Callable[[], Ingested]) -> None:
        """``write()``'s rows (one file's, inside the open transaction) added to the group. If it
        fails with a file's skip (``_SKIPPED``), the transaction is rolled back and the
        group's earlier files written again before the failure goes up."""
        try:
            done = write()
        except _SKIPPED:
            self._again()
            raise
        self.add(done, plan)

    def _again(self) -> None:
        stack, self.stack = self.stack, None
        plans, self.plans, self.done = self.plans, [], []
        assert stack is not None
        stack.__exit__(*sys.exc_info())  # rolled back
        for plan in plans:
            self.scanner.write_again(plan, self)

    def add(self, done: Ingested, plan: Plan | None = None) -> None:
        self.done.append(done)
        if plan is not None:
            self.plans.append(plan)
        self.bytes += done.bytes
        if self.bytes >= GROUP_BYTES or time.monotonic() - self.started >= GROUP_S:
            self.commit()

    def commit(self) -> None:
        if self.stack is None:
            return
        stack, self.stack = self.stack, None
        try:
            self.scanner.store.items.index_text()
        except BaseException:
            stack.__exit__(*sys.exc_info())
            raise
        stack.close()
        for done in self.done:
            self.scanner.summary.add(done)
        self.done, self.plans = [], []
        if self.on_commit is not None:
            self.on_commit()

    def abort(self) -> None:
        if self.stack is not None:
            stack, self.stack = self.stack, None
            self.done, self.plans = [], []
            stack.__exit__(*sys.exc_info())


def stderr_progress() -> Progress | None:
    """Bytes read of bytes to read, rate, time left and the file being read, on one line of
    stderr; None (silence) when stderr is not a terminal."""
    from hansard.ingest.progress import terminal_progress

    return terminal_progress()
