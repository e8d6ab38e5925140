"""Whole-file `why` answers of many (revision, path) pairs, for the answers that count, export or
review a repository's files (`stats`, `trace export`, `review`). Here they are asked one at a
time, with what git says of the files read ahead of their questions (``InTurn``); the
application may hand those answers its own way of asking them side by side (``Ask``:
``hansard.app.workers`` answers them in worker processes), since an answer never starts a
thread or a Python process.

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


AHEAD_FILES = 200  # files whose text at their revision is read in one go


class InTurn:
    """What git says of many files, read ahead of their answers asked in turn (``pairs``: each
    (revision, path), answered between ``before(k)`` and ``after(k)``): the files' text and logs
    a batch at a time (``hansard.git.history.read_ahead``), and while files are answered afresh,
    the blames of the files after the one answered, run one after another beside the answers
    (``hansard.git.blame.blames_ahead``). A kept answer needs no blame: after one, the blames
    started ahead are stopped, and the next file is blamed only when its answer asks. Nothing
    read ahead changes an answer: each file is served what its own question reads."""

    def __init__(self, top: str, pairs: list[tuple[str, str]], fresh: bool) -> None:
        self.top, self.pairs, self.on = top, pairs, fresh
        self.ahead = range(0)  # the pairs whose blames were started ahead
        self.had = False
        self.started = 0

    def before(self, k: int) -> None:
        from hansard.answers.why import together
        from hansard.git.blame import blames_ahead, blames_started
        from hansard.git.history import read_ahead

        self.had = k in self.ahead
        if self.on and k + 1 < len(self.pairs) and k + 1 not in self.ahead:
            # while answers are fresh: the next files' blames, and this one's if not started yet
            first = k + 1 if self.had else k
            self.ahead = range(first, first + blames_ahead(self.top, self.pairs[first:first + AHEAD_FILES]))
            self.had = k in self.ahead
        if k % AHEAD_FILES == 0:
            read_ahead(self.top, self.pairs[k:k + AHEAD_FILES], logs_soon=self.on)
            together.open_window(self.top)
        self.started = blames_started()

    def after(self, k: int) -> None:
        from hansard.git.blame import blames_started, drop_ahead, forget_ahead

        untaken = drop_ahead(self.top, *self.pairs[k])
        self.on = not untaken and (self.had or blames_started() > self.started)
        if not self.on and k + 1 in self.ahead:
            forget_ahead()
            self.ahead = range(0)

    def close(self) -> None:
        """Drop what nobody asked for, and stop the blames nobody took."""
        from hansard.answers.why import together
        from hansard.git.blame import forget_ahead
        from hansard.git.history import read_ahead

        read_ahead(self.top, [])
        forget_ahead()
        together.close_window()


def one_by_one(store: Store, top: str, pairs: list[tuple[str, str]], then: Then, cache: bool = False
               ) -> Iterator[Any]:
    """``then(store, doc)`` of the whole-file answer of each (revision, path), in order;
    ``cache``: read and offer cached answers, as ``explain`` does."""
    turn = InTurn(top, pairs, not cache)
    try:
        for k, (rev, path) in enumerate(pairs):
            turn.before(k)
            got = one(store, top, rev, path, then, cache)
            turn.after(k)
            yield got
    finally:
        turn.close()


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
