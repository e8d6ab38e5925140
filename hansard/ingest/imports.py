"""`hansard import PATH`: a web-chat data export (claude.ai or ChatGPT: the zip, or the
``conversations.json`` inside it) read into the store as sessions of ``claude_web`` or ``chatgpt``.

Always true: an export is archived and parsed like a transcript (one record per conversation),
under the indexer lock; importing the same file again changes nothing, and a changed file
replaces what the earlier import of that path wrote. The sessions it makes are left out of every
search and listing unless web chats are asked for (``include_web_chats``).
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
    return scanner.summary
