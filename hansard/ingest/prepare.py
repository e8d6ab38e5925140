"""The reading half of the pipeline: read → parse → redact → prepare, for one source at a time,
in a worker process beside the single SQLite writer, or inline for small jobs.

A job names a source and where to start: a transcript file at a byte offset with its parser
state, or a source's records in the archive (reindex); or it names a function that makes the
records and yields the job's results itself (a session kept in git, put together from its
objects: hansard.ingest.git_sources), which may start them with one ``head``. Its results, in order, are chunks of
records, each record with its offset, length, packed archive bytes (None when it came from the
archive) and the store's ops for its items (hansard/store/sqlite/writer.py ``prepare``), then
one ``end`` (the offset just past the last complete line, the bytes of an unfinished last line,
the parser state and the ops of the parser's last items), or ``mid_write`` (a whole-file
transcript caught mid-rewrite), or ``error``. Nothing here writes the store: a worker that dies
leaves nothing behind, and the writer applies a source's results in one transaction.

The worker is forked and never touches SQLite (a connection must not cross a fork): an ARCHIVE
job's packed records follow the job down the job pipe, read by a connection of the writer's
process. A large run deals its jobs to two workers in turn and reads their results back in
job order. A worker runs ahead of the writer by at most ``AHEAD_BYTES`` of results (fewer on
two CPUs) plus what one pipe holds, so memory stays bounded whatever the corpus size. It exits
when its job pipe closes or its parent dies.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hansard.ingest import collector, reader
from hansard.values.models import RawRecord, Skip

if TYPE_CHECKING:
    from hansard.store.interfaces import Redactor, Store

# A chunk is sent when its records reach this many bytes (or this many records).
CHUNK_BYTES = 4 << 20
CHUNK_RECORDS = 2000
# Below this many bytes to read, a worker process costs more than it saves.
WORKER_MIN_BYTES = 8 << 20
# From this many bytes, and with two CPUs or more, two workers read: reading (parse, redact,
# compress) costs about as much CPU as writing, and the writer waits on it otherwise.
TWO_WORKERS_MIN_BYTES = 64 << 20
# What a worker holds ready beyond the pipe: a large file's chunks keep coming while the
# writer takes another worker's (results are taken in job order, so a worker whose turn has not
# come waits once this much is ready). Bounded by bytes, not by messages: a run of small files
# sends two small messages a file, and a count of 16 messages stopped a worker eight files
# ahead while the writer was still on the other worker's large one.
AHEAD_BYTES = 48 << 20
# The same with fewer CPUs than the writer and its two workers: there, results a worker holds
# ready were made with CPU time the writer needed, and the writer wrote them alone once the
# workers were done; held to a few chunks, a worker waits instead and the writer keeps up (a
# group of files the writer commits, hansard.ingest.scanner.GROUP_BYTES, is larger still).
AHEAD_BYTES_SHARED = 16 << 20
AHEAD_MESSAGES = 4096

FILE, ARCHIVE, CALL = "file", "archive", "call"


@dataclass(frozen=True)
class Job:
    kind: str  # FILE or ARCHIVE
    path: str
    provider_key: str
    start: int = 0  # FILE: the byte offset to read from
    state: dict[str, Any] | None = None  # FILE: the parser state at ``start``
    whole_file: bool = False
    within: tuple[str, ...] | None = None  # FILE: the folders it may be read from (safeopen.Folders)
    source_id: int = 0  # ARCHIVE: whose records
    generation: int = 0
    # CALL: a module-level function and its argument, called in the worker with the job and the
    # tools; it yields the job's results itself (records it makes, such as a transcript put
    # together from git objects), and may send one ``head`` before its chunks.
    call: tuple[Callable[..., Iterator[tuple]], Any] | None = None


@dataclass
class Tools:
    """What a job needs besides itself; every field is picklable (module-level functions)."""

    prepare: Callable[[list[Any], Redactor], list[tuple]]
    pack: Callable[[bytes], bytes]
    unpack: Callable[[bytes], bytes]
    redactor: Redactor
    store_path: str = ""  # a worker's ARCHIVE jobs: records read by a connection of their own
    store: Store | None = None  # inline ARCHIVE jobs: records read through the writer's store



def run_job(job: Job, tools: Tools, records: Iterator[RawRecord] | None = None) -> Iterator[tuple]:
    """The results of one job (see the module docstring); exceptions become ``error``. An
    ARCHIVE job reads ``records``, else the writer's store."""
    try:
        yield from _run(job, tools, records)
    except (FileNotFoundError, PermissionError, IsADirectoryError) as exc:
        yield ("error", type(exc).__name__, str(exc))
    except Exception:  # the writer re-raises it, with this traceback
        import traceback

        yield ("error", "Exception", traceback.format_exc())


def _run(job: Job, tools: Tools, archived: Iterator[RawRecord] | None) -> Iterator[tuple]:
    from hansard import agents as registry
    from hansard.agents.origin import parser_for

    if job.kind == CALL:
        assert job.call is not None
        yield from job.call[0](job, tools, job.call[1])
        return
    provider = registry.from_key(job.provider_key)
    if provider is None:
        raise ValueError(f"no reader {job.provider_key!r}")
    prepare, red = tools.prepare, tools.redactor
    if job.kind == ARCHIVE:
        parser = parser_for(provider, job.path, None)
        if archived is not None:
            records = archived
        else:
            assert tools.store is not None
            records = tools.store.archive.records(job.source_id, job.generation, job.path)
        pack = None
        res = None
    elif job.whole_file:
        rec = reader.read_whole(job.path, job.within)
        parser = parser_for(provider, job.path, None)
        items = parser.feed(rec)
        if any(isinstance(i, Skip) and i.reason == "malformed_json" for i in items):
            yield ("mid_write",)
            return
        yield ("chunk", [(rec.offset, len(rec.data), tools.pack(rec.data), prepare(items, red))], len(rec.data) + 1)
        yield ("end", None, 0, parser.state(), prepare(parser.finish(), red))
        return
    else:
        parser = parser_for(provider, job.path, job.state)
        res = reader.ReadResult(job.start)
        records = reader.iter_jsonl(job.path, job.start, res, within=job.within)
        pack = tools.pack
    yield from chunks(records, parser, tools, pack)
    final = prepare(parser.finish(), red)
    if res is None:
        yield ("end", None, 0, parser.state(), final)
    else:
        yield ("end", res.end, res.partial_tail, parser.state(), final)


def chunks(records: Iterable[RawRecord], parser: Any, tools: Tools, pack: Callable[[bytes], bytes] | None
           ) -> Iterator[tuple]:
    """The ``chunk`` results of ``records`` fed to ``parser``: their items prepared (redacted),
    their bytes packed with ``pack`` (None: they came from the archive)."""
    prepare, red = tools.prepare, tools.redactor
    chunk: list[tuple] = []
    size = 0
    for rec in records:
        n = len(rec.data)
        chunk.append((rec.offset, n, rec.data if pack is not None else None, prepare(parser.feed(rec), red)))
        size += n + 1
        if size >= CHUNK_BYTES or len(chunk) >= CHUNK_RECORDS:
            yield ("chunk", _packed(chunk, pack), size)
            chunk, size = [], 0
    if chunk:
        yield ("chunk", _packed(chunk, pack), size)


def _packed(chunk: list[tuple], pack: Callable[[bytes], bytes] | None) -> list[tuple]:
    """A chunk's records with their bytes packed, one after another: the compressor's tables
    stay in the CPU's cache from one record to the next, where packing each record between
    parsing and redacting it found them evicted."""
    if pack is None:
        return chunk
    return [(off, n, pack(data), ops) for off, n, data, ops in chunk]


# -- the worker process -------------------------------------------------------------------------


def _die_with_parent() -> None:
    """Linux: the kernel kills this process when its parent dies (even by SIGKILL), so it
    never outlives the writer holding the file lock it inherited."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass


# How much lower a reading worker's CPU priority is than the writer's. Two workers and the
# writer share two CPUs, and the writer alone sets the pace: at equal priority it had to
# share a CPU with them; this lower, it runs whenever it has work, and the workers (which keep
# results ready ahead of it) take the rest (measured with scripts/bench_index.py: faster full
# index and reindex runs, docs/performance.md).
WORKER_NICE = 5


def _yield_to_writer() -> None:
    try:
        os.nice(WORKER_NICE)
    except OSError:
        pass


class _Sender:
    """Results sent down the pipe by a thread of their own, up to ``AHEAD_BYTES`` (or
    ``AHEAD_MESSAGES``) waiting: the worker goes on parsing while the writer is busy with
    another worker's job. One message larger than the bound still goes, alone."""

    def __init__(self, conn: Any) -> None:
        from collections import deque

        self.conn = conn
        self.limit = AHEAD_BYTES if (os.cpu_count() or 1) >= 3 else AHEAD_BYTES_SHARED
        self.waiting: deque[bytes | None] = deque()
        self.bytes = 0
        self.ready = threading.Condition()
        self.broken = False
        self.thread = threading.Thread(target=self._run, daemon=True, name="hansard-index-send")
        self.thread.start()

    def _run(self) -> None:
        while True:
            with self.ready:
                while not self.waiting:
                    self.ready.wait()
                data = self.waiting.popleft()
            if data is None:
                return
            if not self.broken:
                try:
                    self.conn.send_bytes(data)
                except (BrokenPipeError, ConnectionResetError, OSError):
                    self.broken = True
            with self.ready:
                self.bytes -= len(data)
                self.ready.notify_all()

    def send(self, msg: tuple) -> None:
        if self.broken:
            raise BrokenPipeError("the writer is gone")
        import pickle  # (worker processes only: an inline read of a grown transcript never loads it)

        data = pickle.dumps(msg, pickle.HIGHEST_PROTOCOL)
        with self.ready:
            while self.waiting and (self.bytes + len(data) > self.limit or len(self.waiting) >= AHEAD_MESSAGES):
                self.ready.wait()
            self.waiting.append(data)
            self.bytes += len(data)
            self.ready.notify_all()

    def close(self) -> None:
        with self.ready:
            self.waiting.append(None)
            self.ready.notify_all()
        self.thread.join()


def _serve(jobs: Any, results: Any, tools: Tools, parent: int, parent_ends: tuple[Any, ...]) -> None:
    """The worker's loop: one job at a time, its results in order, until the job pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the writer decides when to stop
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent()
    _yield_to_writer()
    collector.slow_down()
    for end in parent_ends:
        end.close()  # the writer's ends: with them closed here, its death reads as end of file
    sender = _Sender(results)
    try:
        while True:
            if os.getppid() != parent:
                return
            try:
                job = jobs.recv()
            except EOFError:
                return
            if job is None:
                return
            archived = _from_pipe(jobs, job, tools.unpack) if job.kind == ARCHIVE else None
            for msg in run_job(job, tools, archived):
                sender.send(msg)
            if archived is not None:
                for _ in archived:  # a job that failed early: its records still end at "eoj"
                    pass
    except (BrokenPipeError, ConnectionResetError):
        return  # the writer is gone: nothing to finish
    finally:
        sender.close()


def _from_pipe(jobs: Any, job: Job, unpack: Callable[[bytes], bytes]) -> Iterator[RawRecord]:
    """An ARCHIVE job's records as the writer's process sends them: packed, in chunks."""
    while True:
        msg = jobs.recv()
        if msg[0] == "eoj":
            return
        for offset, blob in msg[1]:
            yield RawRecord(job.path, offset, unpack(blob))


def _feed(conn: Any, jobs: list[Job], store_path: str) -> None:
    """Send the jobs, and after each ARCHIVE job its packed records, read by a connection of
    this process's own: the worker never opens the store (SQLite must not be used across a
    fork)."""
    store = None
    try:
        for job in jobs:
            conn.send(job)
            if job.kind != ARCHIVE:
                continue
            if store is None:
                from hansard.store import open_for_reading

                store = open_for_reading(store_path)
            chunk: list[tuple[int, bytes]] = []
            size = 0
            for offset, blob in store.archive.packed_records(job.source_id, job.generation):
                chunk.append((offset, blob))
                size += len(blob)
                if size >= CHUNK_BYTES or len(chunk) >= CHUNK_RECORDS:
                    conn.send(("blobs", chunk))
                    chunk, size = [], 0
            conn.send(("blobs", chunk))
            conn.send(("eoj",))
        conn.send(None)
    except (BrokenPipeError, OSError):
        pass  # the worker is gone; the writer hears of it from the results pipe
    finally:
        if store is not None:
            store.close()


class Inline:
    """Jobs run in this process, one at a time, when asked for."""

    def __init__(self, tools: Tools) -> None:
        self.tools = tools
        self.pending: list[Job] = []

    def submit(self, jobs: list[Job]) -> None:
        self.pending.extend(jobs)

    def results(self) -> Iterator[tuple]:
        """The next job's results."""
        return run_job(self.pending.pop(0), self.tools)

    def close(self) -> None:
        self.pending.clear()


class Worker:
    """One worker process that runs jobs in the order submitted while this process writes."""

    def __init__(self, tools: Tools, inherited: tuple[Any, ...] = ()) -> None:
        import multiprocessing as mp

        # Forked: it starts in milliseconds with the imports done. It never touches SQLite.
        # ``inherited``: this process's ends of other workers' pipes, closed in the child.
        ctx = mp.get_context("fork")
        self._store_path = tools.store_path
        self._jobs_r, self._jobs_w = ctx.Pipe(duplex=False)
        self._res_r, self._res_w = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(target=_serve, args=(self._jobs_r, self._res_w, tools, os.getpid(),
                                                     (self._jobs_w, self._res_r, *inherited)),
                                daemon=True, name="hansard-index-reader")
        self.proc.start()
        self._jobs_r.close()
        self._res_w.close()
        self._feeder: threading.Thread | None = None

    def submit(self, jobs: list[Job]) -> None:
        # From a thread: a full job pipe must not stop this process from reading results.
        self._feeder = threading.Thread(target=_feed, args=(self._jobs_w, jobs, self._store_path), daemon=True,
                                        name="hansard-index-jobs")
        self._feeder.start()

    def results(self) -> Iterator[tuple]:
        import pickle

        while True:
            try:
                msg = pickle.loads(self._res_r.recv_bytes())
            except EOFError:
                code = self.proc.exitcode
                raise RuntimeError(f"the index reader process stopped (exit {code})") from None
            yield msg
            if msg[0] not in ("chunk", "head"):
                return

    def close(self) -> None:
        for conn in (self._jobs_w, self._res_r):
            try:
                conn.close()
            except OSError:
                pass
        self.proc.join(timeout=2)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(timeout=2)


class Workers:
    """Jobs dealt to worker processes in turn (all forked before any thread starts); each
    job's results read back from its worker, in the order the jobs were submitted."""

    def __init__(self, tools: Tools, n: int) -> None:
        self.workers: list[Worker] = []
        for _ in range(n):
            inherited = tuple(end for w in self.workers for end in (w._jobs_w, w._res_r))
            self.workers.append(Worker(tools, inherited))
        self.turn = 0

    def submit(self, jobs: list[Job]) -> None:
        n = len(self.workers)
        for i, w in enumerate(self.workers):
            w.submit(jobs[i::n])

    def results(self) -> Iterator[tuple]:
        """The next job's results."""
        w = self.workers[self.turn % len(self.workers)]
        self.turn += 1
        return w.results()

    def close(self) -> None:
        for w in self.workers:
            w.close()


def can_fork() -> bool:
    """Forking copies only the calling thread: a process with others (the MCP server) could
    hand the child a lock held mid-use, so it reads inline."""
    import multiprocessing as mp

    return threading.active_count() == 1 and "fork" in mp.get_all_start_methods()


def open_readers(jobs: list[Job], tools: Tools, todo_bytes: int) -> Inline | Workers:
    """Worker processes for a job list worth them (two for a large one on two CPUs or more),
    else inline; the jobs are submitted."""
    worth = todo_bytes >= WORKER_MIN_BYTES and can_fork()
    if not worth:
        runner: Inline | Workers = Inline(tools)
    else:
        two = todo_bytes >= TWO_WORKERS_MIN_BYTES and (os.cpu_count() or 1) >= 2 and len(jobs) >= 2
        runner = Workers(tools, 2 if two else 1)
    runner.submit(jobs)
    return runner
