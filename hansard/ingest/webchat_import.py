"""`hansard import PATH`: a web-chat data export (claude.ai or ChatGPT: the zip, or the
``conversations.json`` inside it) read into the store as sessions of ``claude_web`` or ``chatgpt``.

Always true: an export is archived and parsed like a transcript (one record per conversation),
under the indexer lock; importing the same file again changes nothing, and a changed file
replaces what the earlier import of that path wrote. The sessions it makes are left out of every
search and listing unless web chats are asked for (``include_web_chats``).

Bounded: the export is opened without blocking (a regular file only) and streamed one
conversation at a time; its size, one conversation's size, its nesting depth and its count of
conversations and messages each have a bound (hansard.agents.webchat.exports), and past one the
import stops with a typed error (``export_too_large``, ``export_entry_too_large``,
``export_too_deep``, ``export_too_many_messages``) and writes nothing.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from hansard.errors import InvalidArgument

if TYPE_CHECKING:
    from hansard.ingest.pipeline import ScanSummary
    from hansard.store.interfaces import Store


def import_export(store: Store, path: str | os.PathLike[str]) -> ScanSummary:
    from hansard import agents as registry
    from hansard.agents.webchat.exports import sniff_export
    from hansard.ingest import containers
    from hansard.ingest.scanner import Scanner
    from hansard.store import as_store

    full = Path(os.path.abspath(os.fspath(path)))
    if not full.is_file():
        raise InvalidArgument(f"not a file: {full}")
    kind = sniff_export(str(full))
    provider = registry.reader(kind) if kind else None
    if provider is None:
        raise InvalidArgument(f"not a claude.ai or ChatGPT data export: {full}")
    store = as_store(store)
    scanner = Scanner(store)
    with store.archive.index_lock() as _:
        scanner.summary.files += 1
        containers.scan(scanner, full, store.archive.source(str(full)), provider)
    if scanner.summary.skipped.get("source_busy"):
        raise InvalidArgument(f"not a claude.ai or ChatGPT data export (it is not valid JSON to its end): {full}")
    return scanner.summary
