"""Has anything changed since the last scan? Answered with os.walk and os.stat only.

`hansard why` runs this before every answer: when nothing changed (the common case) it costs
a directory walk and no import of the scanner, the providers or orjson.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hansard.store.interfaces import Store

TRANSCRIPT_SUFFIXES = (".jsonl", ".json")


def candidate_files(roots: Iterable[str]) -> Iterator[str]:
    """Transcript candidates below each root (a root may itself be a file)."""
    for root in roots:
        if os.path.isfile(root):
            yield os.path.abspath(root)
            continue
        for dirpath, _dirs, files in os.walk(root):
            for name in files:
                if name.endswith(TRANSCRIPT_SUFFIXES) and not name.endswith(".meta.json"):
                    yield os.path.join(os.path.abspath(dirpath), name)


def anything_changed(store: Store, roots: Iterable[str]) -> bool:
    from hansard.store import as_store

    known = as_store(store).archive.file_stats()
    for path in candidate_files(roots):
        try:
            st = os.stat(path)
        except OSError:
            continue
        if known.get(path) != (st.st_ino, st.st_size, st.st_mtime_ns):
            return True
    return False
