"""Errors of the storage engine, as hansard's typed errors.

Facets raise :mod:`hansard.errors` types where they know the failure (a busy or read-only
store, a full disk, a damaged file). For an engine error that still escapes (a statement
deep in an answer), :func:`typed` is the one place that recognises it, so nothing above the
store imports an engine's module to tell a busy store from a bug.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hansard.errors import HansardError


def is_engine_error(exc: BaseException) -> bool:
    """Did the storage engine raise ``exc``?"""
    import sqlite3

    return isinstance(exc, sqlite3.Error)


def typed(exc: BaseException) -> HansardError | None:
    """The typed error an engine error stands for (busy, read-only, disk full, damaged store),
    or None when ``exc`` is not an engine error or none fits (a bug: let it surface)."""
    if not is_engine_error(exc):
        return None
    from hansard.errors import HansardError
    from hansard.store.sqlite.db import translate

    err = translate(exc)  # type: ignore[arg-type]
    return err if isinstance(err, HansardError) else None
