"""Whole-file `why` answers of many (revision, path) pairs, for the answers that count or export a
repository's files (`stats`, `trace export`): on a machine with more than one CPU they are
worked out by forked worker processes, each asking ``explain`` of its own read-only connection
to the same store, while this process waits; else here, one at a time.

Always true: each pair's result is what ``explain`` followed by ``then`` gives for it asked
alone, and results come back in the order the pairs were given; a worker never touches this
process's SQLite connection (it opens its own) and writes nothing; what a worker's answers
offer to keep (commit diffs, symbols: ``hansard.store.kept``) is offered again here, to the
request that asked, so a parallel run keeps what a serial one keeps. A pair whose answer is a
``HansardError`` (a binary file, one git cannot blame) gives that error's code.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from hansard.errors import HansardError

if TYPE_CHECKING:
    from hansard.store.interfaces import Store

# Fewer pairs than this are answered here: a worker's start is not worth it.
MIN_PAIRS = 4
MAX_JOBS = 4

Then = Callable[["Store", dict[str, Any]], Any]


class Failed:
    """A pair with no answer: the code of the HansardError its question raised."""

    __slots__ = ("code",)

    def __init__(self, code: str) -> None:
        self.code = code


def _file_of(store: Store) -> str | None:
    """The store's one local file, or None (a team's view, a store in memory)."""
    path = getattr(store, "path", None)
    return path if isinstance(path, str) and os.path.isfile(path) else None


def jobs_for(store: Store, n: int) -> int:
    """How many worker processes answer ``n`` pairs from ``store``: none (answer here) for a
    store that is not one local file (a team's view, a store in memory), a process with other
    threads (forking copies one thread: another's lock could be held mid-use), one CPU, or a
    few pairs."""
    import multiprocessing as mp

    if _file_of(store) is None or n < MIN_PAIRS:
        return 0
    if threading.active_count() != 1 or "fork" not in mp.get_all_start_methods():
        return 0
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return 0 if cpus < 2 else min(cpus, MAX_JOBS, n)


def answers(store: Store, top: str, pairs: list[tuple[str, str]], then: Then, *, cache: bool = False
            ) -> Iterator[Any]:
    """``then(store, doc)`` of the whole-file answer of each (revision, path) in ``pairs`` (a
    ``Failed`` where the question raised a HansardError), in order; ``cache``: read and offer
    cached answers, as ``explain`` does."""
    jobs = jobs_for(store, len(pairs))
    if not jobs:
        for rev, path in pairs:
            yield _one(store, top, rev, path, then, cache)
        return
    import multiprocessing as mp

    from hansard.store import kept

    ctx = mp.get_context("fork")
    with ctx.Pool(jobs, initializer=_open, initargs=(_file_of(store), then, cache)) as pool:
        for result, diffs, symbols, offered in pool.imap(_work, [(top, rev, path) for rev, path in pairs]):
            if diffs:
                kept.offer_diffs([(sha, p, old, hunks) for (sha, p), (old, hunks) in diffs])
            for (blob, lang, version), (syms, imps, reason) in symbols:
                kept.offer_symbols(blob, lang, version, syms, imps, reason)
            for key, (generation, document) in offered:
                kept.offer_answer(key, generation, document)
            yield result


def _one(store: Store, top: str, rev: str, path: str, then: Then, cache: bool) -> Any:
    from hansard.answers.why import explain

    try:
        doc = explain(store, path, rev=rev, cwd=top, cache=cache)
    except HansardError as exc:
        return Failed(exc.code)
    return then(store, dict(doc))


def document(store: Store, doc: dict[str, Any]) -> dict[str, Any]:
    """The answer itself (a ``then`` for a caller that reads it whole)."""
    return doc


# -- in a worker ---------------------------------------------------------------------------------

_WORKER: dict[str, Any] = {}


def _open(path: str, then: Then, cache: bool) -> None:
    from hansard.store import open_for_reading

    _WORKER.update(store=open_for_reading(path), then=then, cache=cache)


def _work(task: tuple[str, str, str]) -> tuple[Any, list[Any], list[Any], list[Any]]:
    from hansard.store import kept

    box, token = kept.listen()
    try:
        result = _one(_WORKER["store"], *task, _WORKER["then"], _WORKER["cache"])
        return result, list(box.diffs.items()), list(box.symbols.items()), list(box.answers.items())
    finally:
        kept.stop(token)
