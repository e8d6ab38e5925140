"""Answers of many files asked side by side (``hansard.answers.why.many.Ask``), for `stats` and
`trace export`: on a machine with more than one CPU, by forked worker processes, each asking
``explain`` of its own read-only connection to the same store while this process waits; else
one at a time here.

Always true: the results are those of ``many.one_by_one``, in the same order; a worker never
touches this process's SQLite connection (it opens its own) and writes nothing; what a worker's
answers offer to keep (commit diffs, symbols, `why` documents: ``hansard.store.kept``) is
offered again here, to the request that asked, so a parallel run keeps what a serial one keeps.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from hansard.answers.why import many

if TYPE_CHECKING:
    from hansard.store.interfaces import Store

# Fewer pairs than this are answered here: a worker's start is not worth it.
MIN_PAIRS = 4
MAX_JOBS = 4


def _file_of(store: Store) -> str | None:
    """The store's one local file, or None (a team's view, a store in memory)."""
    path = getattr(store, "path", None)
    return path if isinstance(path, str) and os.path.isfile(path) else None


def jobs_for(store: Store, n: int) -> int:
    """How many worker processes answer ``n`` pairs from ``store``: none (answer here) for a
    store that is not one local file, a process with other threads (forking copies one thread:
    another's lock could be held mid-use), one CPU, or a few pairs."""
    import multiprocessing as mp

    if _file_of(store) is None or n < MIN_PAIRS:
        return 0
    if threading.active_count() != 1 or "fork" not in mp.get_all_start_methods():
        return 0
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return 0 if cpus < 2 else min(cpus, MAX_JOBS, n)


def answers(store: Store, top: str, pairs: list[tuple[str, str]], then: many.Then, cache: bool = False
            ) -> Iterator[Any]:
    """``many.one_by_one``'s results, worked out by worker processes when they are worth it."""
    jobs = jobs_for(store, len(pairs))
    if not jobs:
        yield from many.one_by_one(store, top, pairs, then, cache)
        return
    import multiprocessing as mp

    from hansard.git.history import read_ahead, read_deletions
    from hansard.store import kept

    ctx = mp.get_context("fork")
    # the files' texts and logs, and their histories' deletions, read here once, before the
    # workers are forked: each has them
    read_ahead(top, pairs[:many.AHEAD_FILES * jobs], logs_now=True, logs_soon=True)
    read_deletions(top, [rev for rev, _ in pairs])
    try:
        with ctx.Pool(jobs, initializer=_open, initargs=(_file_of(store), then, cache)) as pool:
            for result, diffs, symbols, offered in pool.imap(_work, [(top, rev, path) for rev, path in pairs]):
                if diffs:
                    kept.offer_diffs([(sha, p, old, hunks) for (sha, p), (old, hunks) in diffs])
                for (blob, lang, version), (syms, imps, reason) in symbols:
                    kept.offer_symbols(blob, lang, version, syms, imps, reason)
                for key, (generation, document) in offered:
                    kept.offer_answer(key, generation, document)
                yield result
    finally:
        read_ahead(top, [])


# -- in a worker ---------------------------------------------------------------------------------

_WORKER: dict[str, Any] = {}


def _open(path: str, then: many.Then, cache: bool) -> None:
    from hansard.store import open_for_reading

    _WORKER.update(store=open_for_reading(path), then=then, cache=cache)


def _work(task: tuple[str, str, str]) -> tuple[Any, list[Any], list[Any], list[Any]]:
    from hansard.answers.why import together
    from hansard.store import kept

    together.open_window(task[0])  # what this worker's files share, worked out once in it
    box, token = kept.listen()
    try:
        result = many.one(_WORKER["store"], *task, _WORKER["then"], _WORKER["cache"])
        return result, list(box.diffs.items()), list(box.symbols.items()), list(box.answers.items())
    finally:
        kept.stop(token)
