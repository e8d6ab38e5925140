"""The language server's only door into hansard's core: open the store, the cheap sync, `why`
for a whole file (optionally from a buffer's text), the transcript window, and the evidence
sentence. Nothing else in ``hansard.lsp`` imports hansard's core packages (only ``hansard.errors``), so when a core
module moves only this file changes.

Always true: every function here is synchronous and may block (git, SQLite); the server calls
them off its message loop. Errors are ``hansard.errors.HansardError`` subclasses.
"""

from __future__ import annotations

from typing import Any


def open_store() -> Any:
    """The store to answer from (read-only disks included). Used from one thread at a time."""
    from hansard.store import open_for_reading

    return open_for_reading()


def open_writer() -> Any:
    """A second store for the background sync, so that indexing never holds the reader."""
    return open_store()


def sync(store: Any) -> None:
    """The CLI's cheap incremental index: a stat walk of the agent homes, and an index run only
    when a transcript changed; skipped while another indexer runs or the store is read-only."""
    from hansard.ingest.quickcheck import quick_sync

    quick_sync(store)


def store_version(store: Any) -> int:
    """Changes whenever another connection committed to the store (a new index run, a
    `config map`)."""
    return store.sessions.data_version()


def _why():
    from hansard.answers import why

    return why


def why_file(db: Any, path: str, contents: bytes | None) -> dict[str, Any]:
    """The `why` JSON contract for every line of ``path`` (absolute), blamed from
    ``contents`` when given (an unsaved buffer: `hansard why --contents`)."""
    import os

    from hansard.link.commit_facts import upkeep
    from hansard.store import as_store

    store = as_store(db)
    return _why().explain(store, os.path.basename(path), contents=contents, cwd=os.path.dirname(path),
                          upkeep=upkeep(store))


def conversation(db: Any, session_id: str, around: int | None, limit: int = 11) -> str:
    """`hansard show SESSION --around N --limit 11` as text."""
    from hansard.answers.transcript import get_past_session
    from hansard.render.recall import transcript

    return transcript(get_past_session(db, session_id, around=around, limit=limit))


def _render():
    from hansard.render import answers as r

    return r


def evidence(line: dict[str, Any]) -> str:
    """The same evidence sentence `hansard why` prints."""
    return _render().why_evidence(line)


def provider_name(provider: str | None) -> str:
    names = getattr(_render(), "PROVIDER_NAMES", {})
    return names.get(provider or "", provider or "agent")


def private_folder(name: str) -> str:
    """A folder next to the store, readable by its owner only (conversation windows the
    editor opens as documents hold the same text the store does)."""
    import os

    from hansard.config import hansard_home

    folder = os.path.join(str(hansard_home()), name)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    return folder
