"""Whole-file `why` answers of many (revision, path) pairs, for the answers that count or export a
repository's files (`stats`, `trace export`). Here they are asked one at a time; the
application may hand those answers its own way of asking them side by side (``Ask``:
``hansard.app.workers`` answers them in worker processes), since an answer never starts a
thread or a process.

Always true, however they are asked: each pair's result is what ``explain`` followed by
``then`` gives for it asked alone, results come back in the order the pairs were given, and a
pair whose answer is a ``HansardError`` (a binary file, one git cannot blame) gives a
``Failed`` with that error's code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from hansard.errors import HansardError

if TYPE_CHECKING:
    from hansard.store.interfaces import Store

Then = Callable[["Store", dict[str, Any]], Any]


class Ask(Protocol):
    """How the answers of many files are asked: each pair's ``then`` result, in order."""

    def __call__(self, store: Store, top: str, pairs: list[tuple[str, str]], then: Then, cache: bool, /
                 ) -> Iterator[Any]: ...


class Failed:
    """A pair with no answer: the code of the HansardError its question raised."""

    __slots__ = ("code",)

    def __init__(self, code: str) -> None:
        self.code = code


def one_by_one(store: Store, top: str, pairs: list[tuple[str, str]], then: Then, cache: bool = False
               ) -> Iterator[Any]:
    """``then(store, doc)`` of the whole-file answer of each (revision, path), in order;
    ``cache``: read and offer cached answers, as ``explain`` does."""
    for rev, path in pairs:
        yield one(store, top, rev, path, then, cache)


def one(store: Store, top: str, rev: str, path: str, then: Then, cache: bool) -> Any:
    from hansard.answers.why import explain

    try:
        doc = explain(store, path, rev=rev, cwd=top, cache=cache)
    except HansardError as exc:
        return Failed(exc.code)
    return then(store, dict(doc))


def document(store: Store, doc: dict[str, Any]) -> dict[str, Any]:
    """The answer itself (a ``then`` for a caller that reads it whole)."""
    return doc
