"""What answers work out that the store's caches can keep: a commit's diff of a file, a blob's
symbols and imports, a `why` answer's document, a file's stats summary.

Answers only read. What they work out that is worth keeping is offered here (``offer_*``) to
the request that asked them, and that request keeps it in the store when it caches
(``hansard.app.house.Request``, the one place that says whether caching is on). With no request
listening (an answer called on its own, as the tests do), an offer is dropped.

One source is read through rather than offered: the copy of a model's vectors beside the store,
which a search maps. When it is missing or stale, a request that caches writes it then and
there (``vector_copy``, the request's own writer) so the search maps it; with none, the search
reads the vectors from SQLite.

Always true: an offer is a value held in memory for the request, never a write; what a request
was offered it can read back before it is kept (``diff``, ``symbols``), so an answer that asks
twice works out once. The box is the current context's (``contextvars``): a thread started
with the request's context offers to the same box.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any


class Kept:
    """One request's offers, by what they are keyed by."""

    __slots__ = ("diffs", "symbols", "answers", "summaries", "write_vectors")

    def __init__(self) -> None:
        # (sha, path) -> (old path, hunks; None when the diff holds a secret and is withheld)
        self.diffs: dict[tuple[str, str], tuple[str | None, list[Any] | None]] = {}
        # (blob, language, analyzer version) -> (symbols, imports, reason)
        self.symbols: dict[tuple[str, str, int], tuple[list[Any], list[Any], str | None]] = {}
        # why-cache key -> (the generation it was worked out at, the JSON document)
        self.answers: dict[str, tuple[int, bytes]] = {}
        # stats summaries: (key, path, blob id, summary JSON) rows and the generation they are of
        self.summaries: list[tuple[list[tuple[str, str, str, bytes]], int]] = []
        # the request's writer of a model's vector copy (None: it does not cache)
        self.write_vectors: Callable[[Any, str], Any] | None = None

    def __bool__(self) -> bool:
        return bool(self.diffs or self.symbols or self.answers or self.summaries)

    def clear(self) -> None:
        self.diffs.clear()
        self.symbols.clear()
        self.answers.clear()
        self.summaries.clear()


_BOX: ContextVar[Kept | None] = ContextVar("hansard_kept", default=None)


def listen() -> tuple[Kept, object]:
    """A new box for the current context's offers, and the token that ``stop`` takes."""
    box = Kept()
    return box, _BOX.set(box)


def stop(token: object) -> None:
    _BOX.reset(token)  # type: ignore[arg-type]


def offer_diffs(rows: list[tuple[str, str, str | None, list[Any] | None]]) -> None:
    """(sha, path, old path, hunks or None) rows for the commit-diff cache."""
    box = _BOX.get()
    if box is not None:
        for sha, path, old, hunks in rows:
            box.diffs[(sha, path)] = (old, hunks)


def diff(sha: str, path: str) -> tuple[str | None, list[Any] | None] | None:
    """A diff offered earlier in this request: (old path, hunks), or None."""
    box = _BOX.get()
    return None if box is None else box.diffs.get((sha, path))


def offer_symbols(blob: str, lang: str, version: int, symbols: list[Any], imports: list[Any],
                  reason: str | None) -> None:
    box = _BOX.get()
    if box is not None:
        box.symbols[(blob, lang, version)] = (symbols, imports, reason)


def symbols(blob: str, lang: str, version: int) -> tuple[list[Any], list[Any], str | None] | None:
    """A blob's analysis offered earlier in this request, or None."""
    box = _BOX.get()
    return None if box is None else box.symbols.get((blob, lang, version))


def offer_answer(key: str, generation: int, document: bytes) -> None:
    """A `why` answer's document, worked out at the store's ``generation``."""
    box = _BOX.get()
    if box is not None:
        box.answers[key] = (generation, document)


def vector_copy(index: Any, model: str) -> Any | None:
    """The copy of ``model``'s vectors written now by the request that asked (mapped), or None
    when no request listening caches (or it could not be written)."""
    box = _BOX.get()
    return None if box is None or box.write_vectors is None else box.write_vectors(index, model)


def offer_summaries(rows: list[tuple[str, str, str, bytes]], generation: int) -> None:
    """Files' stats summaries, worked out at the store's ``generation``."""
    box = _BOX.get()
    if box is not None and rows:
        box.summaries.append((rows, generation))
