"""How often Python's cycle collector sweeps while an index run reads and writes records.

Always true: only the pace changes, never what is collected. Reading and writing records makes
and drops many small containers (parsed records, ops, the chunks a worker sends), which
reference counting frees as they go; they hold no cycles to find. At the interpreter's
default pace (the youngest generation every 700 net allocations) each sweep walks the chunk in
hand, and sweeps of the older generations follow. During a run the youngest generation waits
for ``YOUNG`` net allocations instead: cycles a run leaves are still collected, at that pace, or
at the interpreter's once the run is over.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG = 100_000


def slow_down() -> None:
    """For a process that only reads records until it exits (a reading worker)."""
    young, *older = gc.get_threshold()
    if young < YOUNG:
        gc.set_threshold(YOUNG, *older)


@contextmanager
def fewer_sweeps() -> Iterator[None]:
    """The collector swept less often inside the block (the writer's side of a run). The old
    pace comes back unless something else set another one meanwhile (a long-lived process
    whose threads answer questions: hansard.answers.why.together does the same)."""
    was = gc.get_threshold()
    slow_down()
    now = gc.get_threshold()
    try:
        yield
    finally:
        if gc.get_threshold() == now:
            gc.set_threshold(*was)
