"""Git commands started ahead of the question that will read them (a blame while the store is
brought up to date, the next file's blame while this one is answered). Each is served at most
once, and only to a question about the same input; every one nobody takes is stopped, so none
outlives its question's process unread."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, Protocol, TypeVar


class Stoppable(Protocol):
    def stop(self) -> None: ...


C = TypeVar("C", bound=Stoppable)  # a started command: ``hansard.git.run.Pending``, or a helper's


class Ahead(Generic[C]):
    """Git commands started ahead of the question that will read them, by key (a repository, a
    revision, a path). Each is served once (``take``), and only to a question about the same
    input; one nobody took is stopped (``drop``, ``clear``). Two threads may start the same one:
    the first kept wins, the other is stopped."""

    __slots__ = ("_started",)

    def __init__(self) -> None:
        self._started: dict[Hashable, tuple[C, object]] = {}

    def __contains__(self, key: Hashable) -> bool:
        return key in self._started

    def __len__(self) -> int:
        """How many are started and not yet taken or stopped."""
        return len(self._started)

    def start(self, key: Hashable, begin: Callable[[], C], given: object = None) -> bool:
        """``begin()`` now, unless one is already started for ``key`` (then False, and ``begin``
        is not called); ``given`` is the input it was started on (a take for other input stops
        it)."""
        if key in self._started:
            return False
        got = (begin(), given)
        if self._started.setdefault(key, got) is not got:
            got[0].stop()
        return True

    def take(self, key: Hashable, given: object = None) -> C | None:
        """The command started for ``key`` on ``given``, once; else None."""
        got = self._started.pop(key, None) if self._started else None
        if got is None:
            return None
        if got[1] != given:
            got[0].stop()
            return None
        return got[0]

    def drop(self, key: Hashable) -> bool:
        """Stop the command started for ``key`` if nobody took it: True when there was one."""
        got = self._started.pop(key, None)
        if got is not None:
            got[0].stop()
        return got is not None

    def clear(self) -> None:
        """Stop every command nobody took."""
        while self._started:
            self._started.popitem()[1][0].stop()
